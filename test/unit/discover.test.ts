import assert from 'node:assert/strict';
import { mkdirSync, realpathSync, symlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ArtifactClassifier } from '../../server/src/engine/artifacts/classify';
import {
  discoverBundles,
  DiscoveryUsageError,
  listedEntry,
  type Discovery,
} from '../../server/src/engine/bundle/discover';
import { writeTree } from '../support/files';
import { temporaryFolder } from '../support/repo';

const folder = temporaryFolder();
const classifier = new ArtifactClassifier();

before(() => {
  writeTree(folder.path, {
    'jobs/j1/results.jsonl': '{}\n',
    'jobs/j1/summary.json': '{}',
    'jobs/j1/done__aa/result.json': '{}',
    'jobs/j1/done__aa/config.json': '{}',
    'jobs/j1/done__aa/trajectory/acp_trajectory.jsonl': '{}\n',
    'jobs/j1/done__aa/benchguard/action_records.jsonl': '{}\n',
    'jobs/j1/done__aa/verifier/reward.txt': '1',
    // Agent-collected output is not evidence, even when it looks like a rollout.
    'jobs/j1/done__aa/artifacts/result.json': '{}',
    'jobs/j1/done__aa/artifacts/copy/trajectory/acp_trajectory.jsonl': '{}\n',
    // Deeper than a rollout's own layout: not one of its artifacts.
    'jobs/j1/done__aa/verifier/deep/results.jsonl': '{}\n',
    'jobs/j1/running__bb/trajectory/acp_trajectory.jsonl': '{}\n',
    'jobs/j1/running__bb/config.json': '{}',
    'node_modules/pkg/result.json': '{}',
    'harbor/job/result.json': '{}',
    'harbor/job/trial_1/result.json': '{}',
  });
  mkdirSync(join(folder.path, 'jobs/j1/running__bb/result.json'));
  symlinkSync(join(folder.path, 'jobs'), join(folder.path, 'jobs/j1/loop'));
  symlinkSync('reward.txt', join(folder.path, 'jobs/j1/done__aa/verifier/reward.json'));
});
after(() => folder.remove());

function summary(discovery: Discovery): string[] {
  return discovery.bundles.map(
    (bundle) =>
      `${bundle.loose ? 'loose' : 'rollout'} ${relative(folder.path, bundle.root)}: ${bundle.files.map((file) => `${relative(bundle.root, file.path)}=${file.kind}`).join(' ')}`,
  );
}

describe('rollout discovery', () => {
  it('finds every rollout below a folder, finished or still running, and loose artifacts beside them', () => {
    const discovery = discoverBundles([join(folder.path, 'jobs')], classifier);
    assert.deepEqual(summary(discovery), [
      'loose jobs/j1: results.jsonl=results',
      'rollout jobs/j1/done__aa: benchguard/action_records.jsonl=action-records config.json=config result.json=result trajectory/acp_trajectory.jsonl=acp-trajectory',
      'rollout jobs/j1/running__bb: config.json=config result.json=result trajectory/acp_trajectory.jsonl=acp-trajectory',
    ]);
    assert.deepEqual(discovery.ioErrors, []);
  });

  it('takes a result.json file to mean its rollout', () => {
    const discovery = discoverBundles([join(folder.path, 'jobs/j1/done__aa/result.json')], classifier);
    assert.deepEqual(
      summary(discovery).map((line) => line.split(':')[0]),
      ['rollout jobs/j1/done__aa'],
    );
  });

  it('checks a loose artifact file on its own', () => {
    const discovery = discoverBundles(
      [join(folder.path, 'jobs/j1/done__aa/trajectory/acp_trajectory.jsonl')],
      classifier,
    );
    assert.deepEqual(summary(discovery), ['loose jobs/j1/done__aa/trajectory: acp_trajectory.jsonl=acp-trajectory']);
  });

  it('finds nested rollouts (a Harbor job with its trials) and skips node_modules', () => {
    assert.deepEqual(
      summary(discoverBundles([folder.path], classifier)).filter(
        (line) => line.includes('harbor') || line.includes('node_modules'),
      ),
      ['rollout harbor/job: result.json=result', 'rollout harbor/job/trial_1: result.json=result'],
    );
  });

  it('lists each rollout once when paths overlap', () => {
    const discovery = discoverBundles([join(folder.path, 'jobs'), join(folder.path, 'jobs/j1/done__aa')], classifier);
    assert.equal(discovery.bundles.filter((bundle) => bundle.root.endsWith('done__aa')).length, 1);
  });

  it('rejects a path that does not exist, or a file that is not an artifact', () => {
    assert.throws(() => discoverBundles([join(folder.path, 'nope')], classifier), DiscoveryUsageError);
    assert.throws(
      () => discoverBundles([join(folder.path, 'jobs/j1/summary.json')], classifier),
      /not a known rollout artifact/,
    );
  });

  it('honours user patterns', () => {
    const custom = new ArtifactClassifier({ 'summary.json': 'timing' });
    assert.deepEqual(summary(discoverBundles([join(folder.path, 'jobs/j1/summary.json')], custom)), [
      'loose jobs/j1: summary.json=timing',
    ]);
  });

  it("lists what it saw of a rollout's layout: a file it did not see there is absent, of a folder it did not read nothing is known", () => {
    const root = join(folder.path, 'jobs/j1/done__aa');
    const listing = discoverBundles([join(folder.path, 'jobs')], classifier).bundles.find(
      (bundle) => bundle.root === root,
    )?.listing;
    assert.deepEqual(
      ['result.json', 'verifier/reward.txt', 'verifier/reward.json', 'verifier/absent.txt', 'absent.json'].map((path) =>
        listedEntry(listing, path),
      ),
      ['file', 'file', 'other', 'absent', 'absent'],
    );
    // Below the layout, agent output, and folders a depth limit kept the walk out of: only the disk can tell.
    assert.equal(listedEntry(listing, 'verifier/deep/results.jsonl'), undefined);
    assert.equal(listedEntry(listing, 'artifacts/result.json'), undefined);
    const shallow = discoverBundles([root], classifier, 0).bundles[0]?.listing;
    assert.equal(listedEntry(shallow, 'result.json'), 'file');
    assert.equal(listedEntry(shallow, 'verifier/reward.txt'), undefined);
    assert.equal(listedEntry(undefined, 'result.json'), undefined);
  });

  it('gives each rollout its real path, also when the walk starts at a link, as boundaryOf would resolve it', () => {
    const alias = join(folder.path, 'alias-of-jobs');
    symlinkSync(join(folder.path, 'jobs'), alias);
    const discovery = discoverBundles([alias, join(folder.path, 'jobs/j1/done__aa/result.json')], classifier);
    assert.ok(discovery.bundles.length > 1);
    for (const bundle of discovery.bundles) assert.equal(bundle.boundary, realpathSync(bundle.root), bundle.root);
  });
});
