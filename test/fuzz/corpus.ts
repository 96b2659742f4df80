/**
 * The bundles the fuzzer mutates: every fixture definition (test/fixtures/definitions.ts, as `npm run
 * fixtures` writes them) and every rollout under examples/jobs, each as relative path → bytes with the
 * rule options it is checked with.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ArtifactClassifier } from '../../server/src/engine/artifacts/classify';
import { discoverBundles } from '../../server/src/engine/bundle/discover';
import { defaultRuleOptions, type RuleOptions } from '../../server/src/engine/rules/context';
import { fixtures } from '../fixtures/definitions';
import { examplesDir, repoRoot } from '../support/repo';

export interface CorpusBundle {
  /** The fixture's name, or the example rollout's path in the repository. */
  readonly name: string;
  readonly files: ReadonlyMap<string, Buffer>;
  readonly rules: RuleOptions;
  readonly maxProblems: number;
}

function filesUnder(root: string, folder = root, found = new Map<string, Buffer>()): Map<string, Buffer> {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) filesUnder(root, path, found);
    else if (entry.isFile()) found.set(relative(root, path), readFileSync(path));
  }
  return found;
}

export function loadCorpus(): CorpusBundle[] {
  const fromFixtures = fixtures.map((fixture): CorpusBundle => {
    const files = new Map<string, Buffer>();
    for (const [path, text] of Object.entries(fixture.files)) files.set(path, Buffer.from(text));
    for (const [path, bytes] of Object.entries(fixture.bytes ?? {})) files.set(path, Buffer.from(bytes));
    return {
      name: fixture.name,
      files,
      rules: { ...defaultRuleOptions, ...fixture.options },
      maxProblems: fixture.maxProblems ?? 1000,
    };
  });
  const examples = discoverBundles([join(examplesDir, 'jobs')], new ArtifactClassifier()).bundles.filter(
    (bundle) => !bundle.loose,
  );
  const fromExamples = examples.map((bundle): CorpusBundle => ({
    name: relative(repoRoot, bundle.root),
    files: filesUnder(bundle.root),
    rules: defaultRuleOptions,
    maxProblems: 1000,
  }));
  return [...fromFixtures, ...fromExamples];
}
