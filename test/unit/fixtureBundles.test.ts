/**
 * Which rollout folders are fixture bundles: by the fixture-folder globs, matched against the folder and
 * each folder above it, or by the scaffold's marker file at the root (a regular file, not a link).
 */
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { FixtureFolders, hasFixtureMarker, isFixtureBundle } from '../../server/src/authoring/fixtureBundles';
import { ArtifactClassifier } from '../../server/src/engine/artifacts/classify';
import { discoverBundles } from '../../server/src/engine/bundle/discover';
import { ArtifactChecker } from '../../server/src/engine/check/artifactChecker';
import { readVerifierReward } from '../../server/src/engine/load';
import { RolloutBundle } from '../../server/src/engine/bundle/rollout';
import { defaultRuleOptions } from '../../server/src/engine/rules/context';
import { ModelCaches } from '../../server/src/engine/model/caches';
import { evaluateRollout } from '../../server/src/engine/rules/evaluate';
import { fixtureMarkerFile } from '../../shared/src/scaffold';
import { defaultFixtureFolders } from '../../shared/src/settings';
import { repoRoot, temporaryFolder } from '../support/repo';
import { checkRollout } from '../support/rollout';

const folder = temporaryFolder();
after(() => folder.remove());

describe('fixture bundles', () => {
  it('are the folders under a fixture-folder glob, at any depth, and no others', () => {
    const defaults = new FixtureFolders(defaultFixtureFolders);
    assert.equal(defaults.contains('/work/bench/test/fixtures/run-1'), true);
    assert.equal(defaults.contains('/work/bench/test/fixtures/jobs/2026-08-22__10-00-00/regex-log__bab1cbf6'), true);
    assert.equal(defaults.contains('/work/bench/tests/fixtures/run-1'), true);
    assert.equal(defaults.contains('/work/bench/jobs/2026-08-22__10-00-00/regex-log__bab1cbf6'), false);
    assert.equal(
      defaults.contains('/work/bench/test/fixtures-old/run-1'),
      false,
      'a name that only starts like the folder',
    );
    // A glob that names the folder itself matches the rollouts below it, through their ancestors.
    assert.equal(new FixtureFolders(['**/golden']).contains('/work/bench/golden/jobs/run-1'), true);
    assert.equal(
      new FixtureFolders(['golden']).contains('/work/bench/golden/jobs/run-1'),
      true,
      'a glob without / names a folder anywhere',
    );
    assert.equal(
      new FixtureFolders([]).contains('/work/bench/test/fixtures/run-1'),
      false,
      'no globs, no fixture folders',
    );
  });

  it('include a bundle holding the scaffold marker wherever it lies, but not through a link', () => {
    const plain = join(folder.path, 'jobs/plain');
    const marked = join(folder.path, 'jobs/marked');
    const linked = join(folder.path, 'jobs/linked');
    for (const root of [plain, marked, linked]) mkdirSync(root, { recursive: true });
    writeFileSync(join(marked, fixtureMarkerFile), '{}\n');
    symlinkSync(join(marked, fixtureMarkerFile), join(linked, fixtureMarkerFile));
    const none = new FixtureFolders([]);
    assert.deepEqual(
      [plain, marked, linked].map((root) => isFixtureBundle(root, none)),
      [false, true, false],
    );
    // As the CLI asks, with what discovery saw of each rollout (a result.json makes each one).
    for (const root of [plain, marked, linked]) writeFileSync(join(root, 'result.json'), '{}');
    const listings = discoverBundles([join(folder.path, 'jobs')], new ArtifactClassifier()).bundles.map(
      (bundle) => [bundle.root, bundle.listing] as const,
    );
    assert.deepEqual(
      listings.map(([root, listing]) => [root, isFixtureBundle(root, none, listing)]),
      [
        [linked, false],
        [marked, true],
        [plain, false],
      ],
    );
    assert.equal(hasFixtureMarker(join(folder.path, 'no/such/folder')), false);
  });

  it('are judged afresh when a rollout becomes one or stops being one, whatever the server kept of its timeline', () => {
    const root = join(repoRoot, 'test/fixtures/bundles/authored-observation-in-rollout');
    const caches = new ModelCaches({ keepActionSequences: true });
    // One bundle read once, as the server keeps its records across evaluations.
    const { files } = checkRollout(root, new ArtifactChecker(), {
      maxFindings: 1000,
      rules: defaultRuleOptions,
      caches: new ModelCaches(),
    });
    const bundle = new RolloutBundle(root, files, readVerifierReward(root));
    const judge = (fixtureBundle: boolean) => evaluateRollout(bundle, { ...defaultRuleOptions, fixtureBundle }, caches);
    assert.equal(judge(true).verdict, 'trusted');
    const asRollout = judge(false);
    assert.equal(asRollout.quiescence.proof, undefined, 'the timeline kept for the fixture is not reused');
    assert.ok(asRollout.findings.some((finding) => finding.code === 'evidence-authored'));
    assert.equal(judge(true).quiescence.proof?.action.ref.line, 1);
  });
});
