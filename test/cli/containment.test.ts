/**
 * Files stay inside the bundle, as CI sees it: the built CLI, in its own process, on a rollout whose
 * trajectory is a symbolic link to a secrets file outside it. The link is reported as
 * 'artifact-outside-bundle' and nothing of the secret reaches the text, JSON or SARIF output. The near
 * miss: a link that stays inside the rollout is read like the file itself. An artifact's name that is a
 * FIFO or a dangling link is 'artifact-not-regular-file', and the CLI finishes: a FIFO is never opened
 * for reading. A committed fixture cannot hold a symbolic link reliably, nor git a FIFO, so this test is
 * where both codes are raised (fixtures.test.ts names it).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { JsonReport } from '../../server/src/cli/formats/json';
import { builtCli, healthyRollout, repoRoot, temporaryFolder } from '../support/repo';

const folder = temporaryFolder();
after(() => folder.remove());

const secret = 'ghp_AAAAAAAAAAAAAAAAAAAA';
const secretsFile = join(folder.path, 'secrets.txt');
// As JSONL lines of every shape a message could quote from: a bare word, a string, a record with it.
writeFileSync(secretsFile, `${secret}\n"${secret}"\n{"type":"${secret}","tool_call_id":"${secret}"}\n`);

const trajectory = 'trajectory/acp_trajectory.jsonl';

/** A copy of the healthy example rollout under a job folder, its trajectory replaced by a link to `target`. */
function rolloutWithLinkedTrajectory(name: string, target: (root: string) => string): string {
  const root = join(folder.path, name, 'jobs/2026-08-22__10-00-00/hello-world__1a2b3c4d');
  mkdirSync(join(root, '..'), { recursive: true });
  cpSync(healthyRollout, root, { recursive: true });
  rmSync(join(root, trajectory));
  symlinkSync(target(root), join(root, trajectory));
  return root;
}

function check(root: string, format: 'text' | 'json' | 'sarif') {
  const result = spawnSync(process.execPath, [builtCli, 'check', root, '--format', format], {
    cwd: repoRoot,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('an artifact linked outside its rollout', () => {
  const outside = rolloutWithLinkedTrajectory('outside', () => secretsFile);

  it('is reported once, on that file, as artifact-outside-bundle, and the rollout is incomplete', () => {
    const { status, stdout, stderr } = check(outside, 'json');
    assert.equal(stderr, '');
    assert.equal(
      status,
      1,
      'an incomplete rollout exits 1, as any finding with an effect; it is not an I/O failure (2)',
    );
    const report = JSON.parse(stdout) as JsonReport;
    const rollout = report.rollouts.find((bundle) => !bundle.loose);
    assert.equal(rollout?.verdict, 'incomplete');
    const outsideFindings = rollout!.diagnostics.filter((diagnostic) => diagnostic.code === 'artifact-outside-bundle');
    assert.deepEqual(
      outsideFindings.map((diagnostic) => diagnostic.file.endsWith(trajectory)),
      [true],
      'one finding, on the trajectory',
    );
    assert.equal(rollout!.files.find((file) => file.file.endsWith(trajectory))?.records, 0, 'no record of it was read');
  });

  for (const format of ['text', 'json', 'sarif'] as const) {
    it(`quotes nothing of the file behind the link in ${format} output`, () => {
      const { stdout, stderr } = check(outside, format);
      assert.match(stdout, /artifact-outside-bundle/);
      assert.ok(
        !stdout.includes('ghp_') && !stderr.includes('ghp_'),
        `the secret's prefix appears in the ${format} output`,
      );
      assert.ok(!stdout.includes('secrets.txt'), "the link's target is not named either");
    });
  }
});

describe('an artifact linked inside its rollout (the near miss)', () => {
  // BenchFlow's agent/acp_trajectory.jsonl holds the same rows as trajectory/ in the example.
  const inside = rolloutWithLinkedTrajectory('inside', () => '../agent/acp_trajectory.jsonl');

  it('is read like the file itself: no artifact-outside-bundle, and the verdict of the unlinked rollout', () => {
    const linked = JSON.parse(check(inside, 'json').stdout) as JsonReport;
    const plain = JSON.parse(check(healthyRollout, 'json').stdout) as JsonReport;
    const codes = (report: JsonReport) =>
      report.rollouts.flatMap((bundle) => bundle.diagnostics.map((diagnostic) => diagnostic.code));
    const verdicts = (report: JsonReport) => report.rollouts.map((bundle) => bundle.verdict);
    assert.ok(!codes(linked).includes('artifact-outside-bundle'));
    assert.deepEqual(codes(linked), codes(plain));
    assert.deepEqual(verdicts(linked), ['trusted']);
    assert.deepEqual(verdicts(linked), verdicts(plain));
    const records = (report: JsonReport) =>
      report.rollouts[0]!.files.find((file) => file.file.endsWith(trajectory))?.records;
    assert.equal(records(linked), records(plain), 'every row of the linked trajectory was read');
  });
});

describe('an artifact name that is no regular file', () => {
  const preflight = 'benchguard/preflight.json';
  const reward = 'verifier/reward.txt';
  /** The setup-only-verifier fixture (untrusted by its preflight), `file` replaced by `make` when given. */
  function setupOnly(name: string, file: string, make?: (path: string) => void): string {
    const root = join(folder.path, name, 'setup-only-verifier');
    cpSync(join(repoRoot, 'test/fixtures/bundles/setup-only-verifier'), root, { recursive: true });
    if (make) {
      rmSync(join(root, file));
      make(join(root, file));
    }
    return root;
  }
  const rolloutOf = (stdout: string) => (JSON.parse(stdout) as JsonReport).rollouts.find((bundle) => !bundle.loose)!;
  const codesOn = (stdout: string, file: string) =>
    rolloutOf(stdout)
      .diagnostics.filter((diagnostic) => diagnostic.file.endsWith(file))
      .map((diagnostic) => diagnostic.code);

  it('a FIFO as the preflight: the CLI finishes, reports it, and the rollout stays untrusted', () => {
    const root = setupOnly('fifo', preflight, (path) => execFileSync('mkfifo', [path]));
    const { status, stdout, stderr } = check(root, 'json');
    assert.equal(stderr, '');
    assert.equal(status, 1, 'a finding with an effect, not an I/O failure (2), and not a run stopped by its timeout');
    assert.equal(rolloutOf(stdout).verdict, 'untrusted');
    assert.equal(codesOn(stdout, preflight)[0], 'artifact-not-regular-file');
    assert.ok(codesOn(stdout, preflight).includes('verifier-declaration-unreadable'), 'read as unreadable, not absent');
  });

  it('a dangling link as the verifier reward: reported on it, and the rollout is not trusted', () => {
    const root = setupOnly('dangling-reward', reward, (path) => symlinkSync('reward-was-here.txt', path));
    const { status, stdout } = check(root, 'text');
    assert.equal(status, 1);
    assert.match(
      stdout,
      /verifier\/reward\.txt:1:1: error artifact-not-regular-file This path is a dangling symbolic link/,
    );
  });

  it('near miss: the same files readable raise no artifact-not-regular-file', () => {
    const { status, stdout } = check(setupOnly('readable', preflight), 'json');
    assert.equal(status, 1);
    assert.equal(rolloutOf(stdout).verdict, 'untrusted');
    assert.ok(
      rolloutOf(stdout).diagnostics.every((diagnostic) => diagnostic.code !== 'artifact-not-regular-file'),
      'no finding of the kind',
    );
  });
});
