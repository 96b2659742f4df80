/**
 * The engine reads a rollout's files only inside the rollout folder's real path: links out of it are
 * reported and not read (artifacts and verifier/reward.* alike), links within it are followed, and a
 * rollout reached through a linked folder is read where it lies. Messages show at most a short prefix of
 * any bundle text.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { listedFindings } from '../../server/src/engine/checkRollout';
import { boundaryOf, openInside, readInside, readPrefix } from '../../server/src/engine/io/containment';
import { ArtifactChecker } from '../../server/src/engine/check/artifactChecker';
import { describeValue, shownPrefix } from '../../server/src/engine/parse/jsonKind';
import { parseJsonText } from '../../server/src/engine/parse/jsonText';
import { defaultRuleOptions } from '../../server/src/engine/rules/context';
import { ModelCaches } from '../../server/src/engine/model/caches';
import { healthyRollout, temporaryFolder } from '../support/repo';
import { checkRollout } from '../support/rollout';

const folder = temporaryFolder();
after(() => folder.remove());
const checker = new ArtifactChecker();
const options = { maxFindings: 100, rules: defaultRuleOptions, caches: new ModelCaches() };

const secret = 'ghp_AAAAAAAAAAAAAAAAAAAA';
const secretsFile = join(folder.path, 'secrets.txt');
writeFileSync(secretsFile, `${secret}\n`);

let copies = 0;
/** A fresh copy of the healthy example rollout under a job folder of its own. */
function copyOfHealthy(): string {
  const root = join(folder.path, `copy${copies++}`, 'jobs/2026-08-22__10-00-00/hello-world__1a2b3c4d');
  mkdirSync(join(root, '..'), { recursive: true });
  cpSync(healthyRollout, root, { recursive: true });
  return root;
}

function relink(root: string, file: string, target: string): void {
  rmSync(join(root, file), { force: true });
  symlinkSync(target, join(root, file));
}

function judged(root: string) {
  const checked = checkRollout(root, checker, options);
  return { verdict: checked.evaluation?.verdict, findings: listedFindings(checked, 100).findings };
}

describe('openInside', () => {
  it('opens a file inside the boundary, through a link that stays inside', () => {
    const root = copyOfHealthy();
    relink(root, 'trajectory/acp_trajectory.jsonl', '../agent/acp_trajectory.jsonl');
    const read = readInside(join(root, 'trajectory/acp_trajectory.jsonl'), boundaryOf(root), (file) =>
      readPrefix(file, 1 << 20),
    );
    assert.equal(typeof read, 'string');
    assert.match(read as string, /"type"/);
  });

  it('answers outside, opening nothing, for a link that leads out', () => {
    const root = copyOfHealthy();
    relink(root, 'trajectory/acp_trajectory.jsonl', secretsFile);
    assert.deepEqual(openInside(join(root, 'trajectory/acp_trajectory.jsonl'), boundaryOf(root)), { outside: true });
  });

  it('resolves a linked folder on the way as realpath does: read when it stays inside, outside when it leads out', () => {
    const inside = copyOfHealthy();
    rmSync(join(inside, 'agent'), { recursive: true, force: true });
    cpSync(join(inside, 'trajectory'), join(inside, 'agent'), { recursive: true });
    rmSync(join(inside, 'trajectory'), { recursive: true });
    symlinkSync('agent', join(inside, 'trajectory'));
    const read = readInside(join(inside, 'trajectory/acp_trajectory.jsonl'), boundaryOf(inside), (file) =>
      readPrefix(file, 1 << 20),
    );
    assert.match(read as string, /"type"/);

    const outside = copyOfHealthy();
    const elsewhere = join(folder.path, `elsewhere${copies}`);
    cpSync(join(outside, 'trajectory'), elsewhere, { recursive: true });
    rmSync(join(outside, 'trajectory'), { recursive: true });
    symlinkSync(elsewhere, join(outside, 'trajectory'));
    assert.deepEqual(openInside(join(outside, 'trajectory/acp_trajectory.jsonl'), boundaryOf(outside)), {
      outside: true,
    });
  });

  it('reads a path spelled through the link to the rollout as the path below its real folder', () => {
    const root = copyOfHealthy();
    const alias = join(folder.path, `alias${copies}`);
    symlinkSync(root, alias);
    const read = readInside(join(alias, 'trajectory/acp_trajectory.jsonl'), boundaryOf(alias), (file) =>
      readPrefix(file, 1 << 20),
    );
    assert.match(read as string, /"type"/);
    assert.throws(() => openInside(join(alias, 'trajectory/absent.jsonl'), boundaryOf(alias)), { code: 'ENOENT' });
  });

  it('refuses a folder as EISDIR, and answers a FIFO, a device or a dangling link as not a regular file without opening it', () => {
    const root = copyOfHealthy();
    assert.throws(() => openInside(join(root, 'trajectory'), boundaryOf(root)), { code: 'EISDIR' });
    const fifo = join(root, 'trajectory/llm_trajectory.jsonl');
    rmSync(fifo);
    execFileSync('mkfifo', [fifo]);
    assert.deepEqual(openInside(fifo, boundaryOf(root)), { notRegular: 'FIFO' });
    // Through a link that stays inside, the FIFO it leads to is not opened either.
    relink(root, 'trajectory/acp_trajectory.jsonl', 'llm_trajectory.jsonl');
    assert.deepEqual(openInside(join(root, 'trajectory/acp_trajectory.jsonl'), boundaryOf(root)), {
      notRegular: 'FIFO',
    });
    relink(root, 'result.json', 'no-such-file.json');
    assert.deepEqual(openInside(join(root, 'result.json'), boundaryOf(root)), {
      notRegular: 'dangling symbolic link',
    });
    relink(root, 'config.json', 'config.json');
    assert.deepEqual(openInside(join(root, 'config.json'), boundaryOf(root)), { notRegular: 'dangling symbolic link' });
    // /dev/null lies outside every rollout: it is not opened, as any path out of it.
    relink(root, 'timing.json', '/dev/null');
    assert.deepEqual(openInside(join(root, 'timing.json'), boundaryOf(root)), { outside: true });
  });
});

describe('a rollout with links', () => {
  it('reports a trajectory linked outside once, as artifact-outside-bundle, and does not read it', () => {
    const root = copyOfHealthy();
    relink(root, 'trajectory/acp_trajectory.jsonl', secretsFile);
    const { verdict, findings } = judged(root);
    assert.equal(verdict, 'incomplete');
    const outside = findings.filter((finding) => finding.code === 'artifact-outside-bundle');
    assert.deepEqual(
      outside.map((finding) => finding.file),
      [join(root, 'trajectory/acp_trajectory.jsonl')],
    );
    assert.ok(findings.every((finding) => !finding.message.includes('ghp_')));
  });

  it('does not read a verifier reward linked outside, and says so on it', () => {
    const root = copyOfHealthy();
    writeFileSync(join(folder.path, 'reward-outside.txt'), '1\n');
    relink(root, 'verifier/reward.txt', join(folder.path, 'reward-outside.txt'));
    const { verdict, findings } = judged(root);
    assert.equal(verdict, 'incomplete');
    assert.deepEqual(
      findings.filter((finding) => finding.code === 'artifact-outside-bundle').map((finding) => finding.file),
      [join(root, 'verifier/reward.txt')],
    );
  });

  it('reads a rollout whose job folder, or which itself, is a link, where it really lies', () => {
    const real = copyOfHealthy();
    const viaJobs = join(folder.path, 'linked-jobs');
    symlinkSync(join(real, '../..'), viaJobs);
    const viaRollout = join(folder.path, 'linked-rollout');
    symlinkSync(real, viaRollout);
    for (const root of [join(viaJobs, '2026-08-22__10-00-00/hello-world__1a2b3c4d'), viaRollout]) {
      const { verdict, findings } = judged(root);
      assert.deepEqual(
        findings.map((finding) => finding.code),
        [],
        root,
      );
      assert.equal(verdict, 'trusted', root);
    }
  });
});

describe('quoting bundle text', () => {
  it('shows at most 12 characters, with an ellipsis when more followed, and never splits a character', () => {
    assert.equal(shownPrefix(secret), 'ghp_AAAAAAAA…');
    assert.equal(describeValue(secret), '"ghp_AAAAAAAA…"');
    assert.equal(describeValue('in_progress'), '"in_progress"');
    assert.equal(shownPrefix('abcdefghijkl'), 'abcdefghijkl');
    assert.equal(shownPrefix('😀'.repeat(13)), `${'😀'.repeat(12)}…`);
  });

  it('cuts the word a JSON syntax error names', () => {
    const outcome = parseJsonText(`${secret}`);
    assert.equal(outcome.ok, false);
    assert.ok(!outcome.ok && outcome.message.includes('"ghp_AAAAAAAA…"'), !outcome.ok ? outcome.message : '');
  });

  it('cuts string values in schema findings', () => {
    const path = join(folder.path, 'config.json');
    writeFileSync(path, JSON.stringify({ sandbox_user: 42, agent_idle_timeout_sec: secret }));
    const messages = checker.checkFile(path, 'config', { maxFindings: 10 }).findings.map((finding) => finding.message);
    assert.ok(
      messages.some((message) => message.includes('found string "ghp_AAAAAAAA…"')),
      messages.join('\n'),
    );
    assert.ok(messages.every((message) => !message.includes(secret)));
  });
});
