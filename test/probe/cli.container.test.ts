/**
 * `rollout-evidence probe` as a user runs it, against a real docker container: the exit status is the
 * probe's, --record writes a line the evidence rules accept as proof, and bad names never run anything.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { ProbeOutcome } from '../../shared/src/probe';
import type { JsonReport } from '../../server/src/cli/formats/json';
import { engineEnv, processStatuses, requireEngine, startContainer, type TestContainer } from '../support/containers';
import { jsonl, writeTree } from '../support/files';
import { isSandbox, sandboxUid, startProcess } from '../support/probe';
import { runProgram, type ProgramRun } from '../support/programs';
import { builtCli, temporaryFolder } from '../support/repo';

const timeout = 120_000;
const folder = temporaryFolder();
after(() => folder.remove());

function cli(args: readonly string[]): Promise<ProgramRun> {
  return runProgram([process.execPath, builtCli, ...args], engineEnv());
}

async function withContainer(body: (container: TestContainer) => Promise<void>): Promise<void> {
  requireEngine('docker');
  const container = await startContainer('docker');
  try {
    await body(container);
  } finally {
    await container.remove();
  }
}

/** A rollout whose sandbox user was sent a kill, with nothing yet to show the kill worked. */
function rolloutAwaitingProof(name: string): string {
  const root = join(folder.path, name);
  writeTree(root, {
    'result.json': JSON.stringify({ task_name: 'probe-demo', trial_name: name, rewards: { reward: 1 } }),
    'config.json': JSON.stringify({ sandbox_user: 'sandbox' }),
    'benchguard/action_records.jsonl': jsonl({
      event_type: 'SandboxExec',
      phase: 'Harden',
      service: 'main',
      status: 'ok',
      command_preview: 'pkill -9 -u sandbox',
      return_code: 0,
    }),
  });
  return root;
}

async function quiescenceCodes(root: string): Promise<string[]> {
  const run = await cli(['check', root, '--format', 'json']);
  const report = JSON.parse(run.stdout) as JsonReport;
  return report.rollouts
    .flatMap((rollout) => rollout.diagnostics.map((diagnostic) => diagnostic.code))
    .filter((code) => /quiescence|masked-exit/.test(code));
}

describe('rollout-evidence probe', () => {
  it('harden with --record: exit 0, and the recorded line is the proof the quiescence rule asks for', { timeout }, () =>
    withContainer(async (container) => {
      const sleeper = await startProcess(container, 'sandbox', 'exec sleep 100010', isSandbox('sleep'));
      const root = rolloutAwaitingProof('harden-recorded');
      assert.deepEqual(await quiescenceCodes(root), ['quiescence-unproven'], 'before: the kill was only sent');

      const records = join(root, 'benchguard/action_records.jsonl');
      const before = readFileSync(records, 'utf8');
      const run = await cli([
        'probe',
        '--target',
        `docker:${container.name}`,
        '--user',
        'sandbox',
        '--mode',
        'harden',
        '--grace',
        '1',
        '--record',
        records,
      ]);
      assert.equal(run.status, 0, run.stderr);
      assert.equal(
        run.stdout,
        `Quiescent: no live process of sandbox user "sandbox" (uid ${sandboxUid}) in docker container "${container.name}".\n`,
      );
      assert.match(
        run.stderr,
        /^\$ engine-api:\/\S+\/docker.sock exec -u 0 -e PATH=\/usr\/sbin:\/usr\/bin:\/sbin:\/bin re-test-\w+ \/bin\/sh -c <quiescence probe script> probe-[0-9a-f]{16} harden sandbox 1 3$/m,
        'the transcript shows the command',
      );
      assert.match(run.stderr, new RegExp(`"signal":"TERM","pid":${sleeper.pid}`));
      assert.match(run.stderr, /recorded as evidence in /);

      const after = readFileSync(records, 'utf8');
      assert.ok(after.startsWith(before), 'existing lines are kept as they were');
      const added = after.slice(before.length).trimEnd().split('\n');
      assert.equal(added.length, 1, 'exactly one line is appended');
      const record = JSON.parse(added[0]!) as Record<string, unknown>;
      assert.equal(record['event_type'], 'SandboxUserQuiescence');
      assert.equal(record['return_code'], 0);
      assert.equal(record['uid'], sandboxUid);
      assert.equal(record['final'], true);
      assert.deepEqual(record['target'], { kind: 'docker', name: container.name });
      assert.deepEqual(record['signals_sent'], [{ signal: 'TERM', pid: sleeper.pid, round: 1, delivered: true }]);
      assert.deepEqual(await quiescenceCodes(root), [], 'after: the checked observation proves quiescence');
    }),
  );

  it(
    'observe with a survivor: exit 1, the JSON names it, and a recorded line makes the rollout untrusted',
    { timeout },
    () =>
      withContainer(async (container) => {
        const sleeper = await startProcess(container, 'sandbox', 'exec sleep 100011', isSandbox('sleep'));
        const root = rolloutAwaitingProof('observe-survivor');
        const records = join(root, 'benchguard/action_records.jsonl');
        const run = await cli([
          'probe',
          '--target',
          `docker:${container.name}`,
          '--user',
          'sandbox',
          '--format',
          'json',
          '--record',
          records,
        ]);
        assert.equal(run.status, 1, run.stderr);
        assert.equal(run.stderr, '', 'JSON output keeps stderr for failures');
        const { outcome, record } = JSON.parse(run.stdout) as {
          outcome: ProbeOutcome;
          record: Record<string, unknown>;
        };
        assert.deepEqual(
          outcome.survivors.map((survivor) => survivor.pid),
          [sleeper.pid],
        );
        assert.equal(record['return_code'], 1);
        assert.deepEqual(await quiescenceCodes(root), ['quiescence-survivors']);
      }),
  );

  it('a container that does not exist: exit 2, could not observe, with the engine’s reason', { timeout }, async () => {
    requireEngine('docker');
    for (const access of ['cli', 'engine-api']) {
      const run = await cli([
        'probe',
        '--target',
        'docker:no-such-container-here',
        '--user',
        'sandbox',
        '--docker',
        access,
      ]);
      assert.equal(run.status, 2, `${access}: ${run.stderr}`);
      assert.match(
        run.stdout,
        /^Could not observe sandbox user "sandbox" in docker container "no-such-container-here": .*[Nn]o such container/,
      );
    }
  });

  it('rejects a user name with shell text before anything runs, and nothing is created', { timeout }, () =>
    withContainer(async (container) => {
      for (const args of [
        ['--user', 'agent;touch /tmp/x'],
        ['--user', '$(touch /tmp/x)'],
        ['--user', 'sandbox', '--target-extra'],
      ]) {
        const run = await cli(['probe', '--target', `docker:${container.name}`, '--mode', 'harden', ...args]);
        assert.equal(run.status, 2, run.stderr);
        assert.doesNotMatch(run.stderr, /^\$ /m, 'no command was run');
      }
      const run = await cli(['probe', '--target', `docker:${container.name};touch /tmp/x`, '--user', 'sandbox']);
      assert.equal(run.status, 2);
      assert.match(run.stderr, /a container name or id is letters, digits/);
      const check = await container.exec(['test', '-e', '/tmp/x']);
      assert.equal(check.code, 1, '/tmp/x was not created');
    }),
  );

  it('refuses uid 0 before anything runs: exit 2, root processes untouched', { timeout }, () =>
    withContainer(async (container) => {
      const rootSleeper = await startProcess(
        container,
        '0',
        'exec sleep 100012',
        (status) => status.name === 'sleep' && status.euid === 0,
      );
      for (const user of ['0', '000']) {
        const run = await cli(['probe', '--target', `docker:${container.name}`, '--user', user, '--mode', 'harden']);
        assert.equal(run.status, 2);
        assert.equal(run.stderr, 'rollout-evidence: uid 0 is root: the probe never observes or signals root\n');
      }
      assert.ok((await processStatuses(container)).some((status) => status.pid === rootSleeper.pid));
    }),
  );
});
