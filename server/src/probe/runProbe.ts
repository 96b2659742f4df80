/**
 * Runs the quiescence probe in a target and turns what happened into an outcome that never claims more
 * than was seen: an exec that fails, times out, is cancelled or ends without the probe's own result is
 * "could not observe", never "quiet".
 */
import { randomBytes } from 'node:crypto';
import {
  maxProbeTimeoutSeconds,
  probeScriptPlaceholder,
  probeSettingDefaults,
  type ProbeOutcome,
  type ProbeRequest,
  type ProbeReturnCode,
  type TranscriptEntry,
} from '../../../shared/src/probe';
import { execAsRoot, targetShell } from './containerEngines';
import type { ExecEnd } from './exec/execution';
import { ProbeOutput } from './probeOutput';
import { probeRounds, quiescenceProbeScript } from './probeScript';
import { checkDockerAccess, checkMode, checkTarget, checkUser, ProbeUsageError } from './validation';

export interface ProbeRunOptions {
  readonly env: NodeJS.ProcessEnv;
  /** Cancellation by the user; the request's timeout is added to it. */
  readonly signal?: AbortSignal;
  readonly onTranscript?: (entry: TranscriptEntry) => void;
  /** Whether this process runs as root, for the local target (tests may pretend otherwise). */
  readonly localRoot?: boolean;
}

/**
 * Far more output than the probe prints (a line of under 200 bytes per process per signal or report):
 * a target printing more is not running our probe as it should, and the exec is stopped rather than read
 * without end.
 */
const outputByteLimit = 4 * 1024 * 1024;
/** Stopping an abandoned probe in its target is best effort, and brief. */
const stopTimeoutMs = 5000;
/** A round of harden at most: TERM, the grace, KILL, the pauses between observations. */
const roundOverheadSeconds = 2;

/**
 * The request as it will run, every field checked: it may come over LSP as any JSON. Throws
 * ProbeUsageError, before anything runs, when it cannot be carried out as asked.
 */
export function checkRequest(request: ProbeRequest, localRoot: boolean): Required<ProbeRequest> {
  const target = checkTarget(request.target);
  const user = checkUser(request.user);
  const mode = checkMode(request.mode);
  const dockerAccess = checkDockerAccess(request.dockerAccess ?? probeSettingDefaults.docker);
  const { timeoutSeconds } = request;
  if (typeof timeoutSeconds !== 'number' || !(timeoutSeconds > 0 && timeoutSeconds <= maxProbeTimeoutSeconds)) {
    throw new ProbeUsageError(
      `the timeout must be a positive number of seconds up to ${maxProbeTimeoutSeconds}, not ${JSON.stringify(timeoutSeconds)}`,
    );
  }
  const graceSeconds = request.graceSeconds ?? probeSettingDefaults.graceSeconds;
  if (!Number.isInteger(graceSeconds) || graceSeconds < 0 || graceSeconds > maxProbeTimeoutSeconds) {
    throw new ProbeUsageError(
      `the grace period must be a whole number of seconds up to ${maxProbeTimeoutSeconds}, not ${JSON.stringify(graceSeconds)}`,
    );
  }
  // A bound that harden's own rounds can outlast would turn every stubborn process into "timed out".
  const hardenNeeds = probeRounds * (graceSeconds + roundOverheadSeconds);
  if (mode === 'harden' && timeoutSeconds < hardenNeeds) {
    throw new ProbeUsageError(
      `a timeout of ${timeoutSeconds} s is too short for harden with a grace of ${graceSeconds} s: its ${probeRounds} rounds may take ${hardenNeeds} s`,
    );
  }
  if (target.kind === 'local' && mode === 'harden' && !localRoot) {
    throw new ProbeUsageError(
      "harden on the local target needs root, to signal another user's processes; this process is not root. observe still works: /proc status files are readable by everyone.",
    );
  }
  return { target, user, mode, dockerAccess, timeoutSeconds, graceSeconds };
}

export async function runProbe(asked: ProbeRequest, options: ProbeRunOptions): Promise<ProbeOutcome> {
  const request = checkRequest(asked, options.localRoot ?? process.getuid?.() === 0);
  const flooded = new AbortController();
  const transcript = new Transcript(options.onTranscript, () =>
    flooded.abort(
      new Error(`the target printed more than ${outputByteLimit / 1024 / 1024} MiB, far more than the probe ever does`),
    ),
  );
  const output = new ProbeOutput();
  // $0 of the probe's shell: a mark only this run's probe carries, so an abandoned probe can be told from a
  // process that reused its pid.
  const mark = `probe-${randomBytes(8).toString('hex')}`;
  const probeArgs = [request.mode, request.user, String(request.graceSeconds), String(probeRounds)];
  const exec = execAsRoot(
    request.target,
    [targetShell, '-c', quiescenceProbeScript, mark, ...probeArgs],
    [targetShell, '-c', probeScriptPlaceholder, mark, ...probeArgs],
    request.dockerAccess,
    options.env,
  );

  const timeout = AbortSignal.timeout(Math.ceil(request.timeoutSeconds * 1000));
  const signal = AbortSignal.any([timeout, flooded.signal, ...(options.signal ? [options.signal] : [])]);
  const startedAt = new Date().toISOString();
  transcript.add({ kind: 'command', argv: exec.display });
  const stderr: string[] = [];
  const end = await exec.run({
    signal,
    onStdout: (line) => {
      if (transcript.add({ kind: 'stdout', line })) output.read(line);
    },
    onStderr: (line) => {
      if (stderr.length < 20) stderr.push(line);
      transcript.add({ kind: 'stderr', line });
    },
  });
  const finishedAt = new Date().toISOString();
  transcript.add({ kind: 'exit', status: end.kind === 'exited' ? `exit status ${end.code}` : end.reason });

  const verdict = judge(end, output, stderr, request.timeoutSeconds);
  if (end.kind === 'failed' && output.probePid !== undefined && request.target.kind !== 'local') {
    await stopAbandonedProbe(request, output.probePid, mark, options.env, transcript);
  }
  return {
    request,
    returnCode: verdict.returnCode,
    reason: verdict.reason,
    uid: output.result?.uid ?? null,
    signals: output.signals,
    // A probe that could not finish its observation leaves partial lists: they prove nothing either way.
    survivors: verdict.returnCode === 1 ? output.survivors : [],
    reported: verdict.reported,
    startedAt,
    finishedAt,
    observedAt: verdict.reported ? (output.result?.observedAt ?? finishedAt) : finishedAt,
    transcript: transcript.entries,
  };
}

/** The probe's result counts only when the exec ended normally with that same status. */
function judge(
  end: ExecEnd,
  output: ProbeOutput,
  stderr: readonly string[],
  timeoutSeconds: number,
): { returnCode: ProbeReturnCode; reason: string; reported: boolean } {
  if (end.kind === 'failed') {
    const why =
      end.reason === 'timed out'
        ? `the probe did not finish within ${timeoutSeconds} s`
        : end.reason === 'cancelled'
          ? 'the probe was cancelled before it finished'
          : `the exec failed: ${end.reason}`;
    return { returnCode: 2, reason: `${why}; nothing was observed`, reported: false };
  }
  const result = output.result;
  if (result === undefined) {
    const said = stderr.join(' ').trim().slice(0, 300);
    return {
      returnCode: 2,
      reason: `the probe gave no result (exit status ${end.code}${said !== '' ? `: ${said}` : ''})`,
      reported: false,
    };
  }
  if (result.returnCode !== end.code) {
    return {
      returnCode: 2,
      reason: `the exec's exit status ${end.code} disagrees with the probe's result ${result.returnCode}`,
      reported: false,
    };
  }
  return { returnCode: result.returnCode, reason: result.reason, reported: true };
}

/**
 * A container exec outlives the client that started it: end the probe so it sends no more signals, and
 * only if that pid still carries our mark. Builtins only, as in the probe: the command line is read with
 * read (which drops its NUL separators; the mark is on the last line, after the script), and kill is the
 * shell's (slim images have no kill program).
 */
async function stopAbandonedProbe(
  request: Required<ProbeRequest>,
  pid: number,
  mark: string,
  env: NodeJS.ProcessEnv,
  transcript: Transcript,
): Promise<void> {
  const stop =
    '{ while IFS= read -r line || [ -n "$line" ]; do case $line in *"$2"*) kill -KILL "$1"; exit ;; esac; done; } 2>/dev/null <"/proc/$1/cmdline"; exit 3';
  const argv = [targetShell, '-c', stop, 'stop', String(pid), mark];
  const exec = execAsRoot(request.target, argv, argv, request.dockerAccess, env);
  transcript.add({ kind: 'note', text: 'stopping the abandoned probe in the target' });
  transcript.add({ kind: 'command', argv: exec.display });
  const end = await exec.run({
    signal: AbortSignal.timeout(stopTimeoutMs),
    onStdout: (line) => transcript.add({ kind: 'stdout', line }),
    onStderr: (line) => transcript.add({ kind: 'stderr', line }),
  });
  transcript.add({
    kind: 'exit',
    status:
      end.kind === 'exited'
        ? end.code === 3
          ? 'exit status 3: the probe had already ended'
          : `exit status ${end.code}`
        : end.reason,
  });
}

/** Every entry, in order, passed on as it happens; output past the byte limit is dropped and stops the exec. */
class Transcript {
  readonly entries: TranscriptEntry[] = [];
  private outputBytes = 0;

  constructor(
    private readonly listener: ((entry: TranscriptEntry) => void) | undefined,
    private readonly onFlood: () => void,
  ) {}

  /** False when the entry was dropped. */
  add(entry: TranscriptEntry): boolean {
    if (entry.kind === 'stdout' || entry.kind === 'stderr') {
      const before = this.outputBytes;
      this.outputBytes += entry.line.length + 1;
      if (this.outputBytes > outputByteLimit) {
        if (before <= outputByteLimit) this.onFlood();
        return false;
      }
    }
    this.entries.push(entry);
    this.listener?.(entry);
    return true;
  }
}
