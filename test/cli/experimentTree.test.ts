/**
 * The generated experiment tree the benches and the jobs-tree tests use: the same seed writes the same
 * tree, and the built CLI gives every rollout the verdict of the fixture it was made from, so a test can
 * count what a run must report without running it first.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { cli } from '../support/cli';
import { writeExperimentTree } from '../support/experimentTree';

const scratch = mkdtempSync(join(tmpdir(), 'experiment-tree-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

describe('experiment tree', () => {
  it('writes the same bytes for the same seed, and other rollouts for another seed', () => {
    const first = writeExperimentTree(join(scratch, 'a'), { rollouts: 30, seed: 7 });
    const second = writeExperimentTree(join(scratch, 'b'), { rollouts: 30, seed: 7 });
    const other = writeExperimentTree(join(scratch, 'c'), { rollouts: 30, seed: 8 });
    assert.deepEqual(second.rollouts, first.rollouts);
    assert.equal(second.bytes, first.bytes);
    const sample = first.rollouts[0]!.path;
    assert.equal(
      readFileSync(join(scratch, 'b', sample, 'result.json'), 'utf8'),
      readFileSync(join(scratch, 'a', sample, 'result.json'), 'utf8'),
    );
    assert.notDeepEqual(other.rollouts, first.rollouts);
    assert.equal(new Set(first.rollouts.map((rollout) => rollout.path)).size, 30, 'no rollout folder is written twice');
  });

  it('spreads rollouts over jobs, tasks, agents and every verdict, each named <task>__<id>', () => {
    const tree = writeExperimentTree(join(scratch, 'mix'), { rollouts: 200, jobs: 2 });
    assert.deepEqual(readdirSync(join(tree.root, 'jobs')).sort(), ['2026-08-22__10-00-00', '2026-08-22__11-00-00']);
    for (const rollout of tree.rollouts)
      assert.match(rollout.path, new RegExp(`^jobs/[^/]+/${rollout.task}__[0-9a-f]{8}$`));
    assert.ok(new Set(tree.rollouts.map((rollout) => rollout.task)).size >= 4);
    assert.ok(new Set(tree.rollouts.map((rollout) => rollout.agent)).size >= 3);
    assert.deepEqual([...new Set(tree.rollouts.map((rollout) => rollout.verdict))].sort(), [
      'incomplete',
      'trusted',
      'trusted-timeout',
      'untrusted',
    ]);
  });

  it('gives each rollout the verdict of its fixture, as the CLI judges it', () => {
    const tree = writeExperimentTree(join(scratch, 'judged'), { rollouts: 60, seed: 3 });
    const run = cli(['check', tree.root, '--format', 'json']);
    assert.equal(run.status, 1, run.stderr);
    const report = JSON.parse(run.stdout) as { rollouts: { root: string; verdict: string }[] };
    const judged = new Map(report.rollouts.map((rollout) => [rollout.root, rollout.verdict]));
    assert.equal(judged.size, 60);
    for (const rollout of tree.rollouts)
      assert.equal(judged.get(join(tree.root, rollout.path)), rollout.verdict, `${rollout.path} (${rollout.fixture})`);
  });
});
