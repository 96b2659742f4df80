/**
 * `rollout-evidence probe`: the live quiescence probe from a terminal or a CI job. Its exit status is the
 * probe's: 0 quiescent, 1 survivors remain, 2 could not observe (or the request was refused).
 */
import { parseArgs } from 'node:util';
import { rolloutFiles } from '../../../shared/src/layout';
import {
  describeTranscriptEntry,
  dockerAccesses,
  probeSettingDefaults,
  summarizeOutcome,
  type DockerAccess,
  type ProbeOutcome,
} from '../../../shared/src/probe';
import { errorMessage } from '../../../shared/src/errors';
import { checkRecordFile } from '../../../shared/src/recordAppend';
import { appendRecord, quiescenceRecord } from '../probe/observationRecord';
import { runProbe } from '../probe/runProbe';
import { checkMode, parseTarget, ProbeUsageError } from '../probe/validation';
import type { ExitStatus } from './report/run';
import { writeStderrMessage } from './stderrMessage';
import { printable } from '../engine/text/printable';

export const probeUsage = `Usage: rollout-evidence probe --target TARGET --user USER [options]

Observes a sandbox user's processes in a running container or on this machine and, with
--mode harden, first ends them (TERM, a grace period, KILL, in rounds). The final action is
always a checked observation of /proc, and its result is the exit status.

Options:
  --target docker:NAME|podman:NAME|local
                             where to run (required); the probe runs there as root
  --user USER                the sandbox user: a name matching ^[a-z_][a-z0-9_-]*$ or a
                             numeric uid (required; never root)
  --mode observe|harden      observe only, or kill first (default: observe)
  --timeout S                bound on the whole probe in seconds (default: ${probeSettingDefaults.timeoutSeconds})
  --grace S                  seconds TERM is given before KILL, per round (default: ${probeSettingDefaults.graceSeconds})
  --docker ${dockerAccesses.join('|')}
                             how to reach docker: auto uses the Engine API when DOCKER_HOST
                             is a unix socket, else the docker CLI (default: auto)
  --format text|json         output format (default: text)
  --record FILE              append the observation to FILE as one SandboxUserQuiescence
                             line, e.g. a rollout's ${rolloutFiles.actionRecords}

Exit status: 0 quiescent, 1 survivors remain, 2 could not observe or the request was refused.`;

export async function probeCommand(argv: readonly string[]): Promise<ExitStatus> {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    options: {
      target: { type: 'string' },
      user: { type: 'string' },
      mode: { type: 'string', default: 'observe' },
      timeout: { type: 'string', default: String(probeSettingDefaults.timeoutSeconds) },
      grace: { type: 'string', default: String(probeSettingDefaults.graceSeconds) },
      docker: { type: 'string', default: 'auto' },
      format: { type: 'string', default: 'text' },
      record: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${probeUsage}\n`);
    return 0;
  }
  if (values.target === undefined) throw new ProbeUsageError('--target is required: docker:NAME, podman:NAME or local');
  if (values.user === undefined) throw new ProbeUsageError('--user is required: the sandbox user to observe');
  const format = values.format;
  if (format !== 'text' && format !== 'json')
    throw new ProbeUsageError(`--format must be text or json, not "${format}"`);

  if (values.record !== undefined) {
    // Before anything runs: a harden must not end processes whose ending could not then be recorded.
    try {
      checkRecordFile(values.record);
    } catch (error) {
      writeStderrMessage(`will not record the observation, so the probe did not run: ${errorMessage(error)}`);
      return 2;
    }
  }

  const cancel = new AbortController();
  const onInterrupt = (): void => cancel.abort();
  process.once('SIGINT', onInterrupt);
  process.once('SIGTERM', onInterrupt);
  let outcome: ProbeOutcome;
  try {
    outcome = await runProbe(
      {
        target: parseTarget(values.target),
        user: values.user,
        mode: checkMode(values.mode),
        timeoutSeconds: seconds('--timeout', values.timeout, false),
        graceSeconds: seconds('--grace', values.grace, true),
        dockerAccess: parseDockerAccess(values.docker),
      },
      {
        env: process.env,
        signal: cancel.signal,
        // The transcript follows the probe as it runs; stdout keeps only the answer.
        onTranscript:
          format === 'text'
            ? (entry) => process.stderr.write(`${printable(describeTranscriptEntry(entry))}\n`)
            : undefined,
      },
    );
  } finally {
    process.off('SIGINT', onInterrupt);
    process.off('SIGTERM', onInterrupt);
  }

  const record = quiescenceRecord(outcome);
  // The answer first: a harden that already killed processes must be reported even if recording fails.
  process.stdout.write(
    format === 'json'
      ? `${JSON.stringify({ summary: summarizeOutcome(outcome), outcome, record }, null, 2)}\n`
      : `${printable(summarizeOutcome(outcome))}\n`,
  );
  if (values.record !== undefined) {
    try {
      appendRecord(values.record, record);
    } catch (error) {
      writeStderrMessage(`the observation was not recorded: ${errorMessage(error)}`);
      return 2;
    }
    if (format === 'text') process.stderr.write(`recorded as evidence in ${printable(values.record)}\n`);
  }
  return outcome.returnCode;
}

function seconds(option: string, raw: string | undefined, whole: boolean): number {
  const value = Number(raw);
  const valid = whole ? /^\d+$/.test(raw ?? '') : /^\d+(\.\d+)?$/.test(raw ?? '') && value > 0;
  if (!valid)
    throw new ProbeUsageError(
      `${option} must be ${whole ? 'a whole number of seconds' : 'a positive number of seconds'}, not "${raw}"`,
    );
  return value;
}

function parseDockerAccess(raw: string | undefined): DockerAccess {
  const access = dockerAccesses.find((candidate) => candidate === raw);
  if (access === undefined)
    throw new ProbeUsageError(
      `--docker must be ${dockerAccesses.slice(0, -1).join(', ')} or ${dockerAccesses.at(-1)}, not "${raw}"`,
    );
  return access;
}
