/**
 * Every fixture bundle, read from test/fixtures/bundles/ as the CLI reads a rollout: its diagnostics
 * (codes and lines), its verdict, and agreement with BenchFlow's experiment-review validator.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, it } from 'node:test';
import { listedFindings } from '../../server/src/engine/bundle/checkBundle';
import { ArtifactChecker } from '../../server/src/engine/check/artifactChecker';
import { RuleCaches, defaultRuleOptions } from '../../server/src/engine/rules/context';
import { fixtures } from '../fixtures/definitions';
import { repoRoot } from '../support/repo';
import { checkRollout } from '../support/rollout';

const bundles = join(repoRoot, 'test/fixtures/bundles');
const checker = new ArtifactChecker();
const caches = new RuleCaches();

function filesUnder(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('fixture bundles', () => {
  it('on disk are exactly the definitions (run "npm run fixtures" after changing them)', () => {
    assert.deepEqual(readdirSync(bundles).sort(), fixtures.map((fixture) => fixture.name).sort());
    for (const fixture of fixtures) {
      const root = join(bundles, fixture.name);
      const onDisk = Object.fromEntries(filesUnder(root).map((path) => [relative(root, path).split(sep).join('/'), readFileSync(path, 'utf8')]));
      assert.deepEqual(onDisk, fixture.files, fixture.name);
    }
  });

  for (const fixture of fixtures) {
    it(`${fixture.name}: ${fixture.description}`, () => {
      const root = join(bundles, fixture.name);
      const checked = checkRollout(root, checker, { maxFindings: 1000, rules: { ...defaultRuleOptions, ...fixture.options }, caches });
      const { findings } = listedFindings(checked, 1000);
      const found = findings.map((finding) => `${relative(root, finding.file).split(sep).join('/')}:${finding.range.start.line + 1} ${finding.code}`);
      assert.deepEqual(found, fixture.diagnostics, findings.map((f) => `${f.code}: ${f.message}`).join('\n'));
      assert.equal(checked.evaluation?.verdict, fixture.verdict);
      if (fixture.validator !== 'not-applicable') {
        const reviewUnhealthy = found.some((diagnostic) => / review-/.test(diagnostic));
        assert.equal(reviewUnhealthy ? 'unhealthy' : 'healthy', fixture.validator, 'our review-* rules agree with the experiment-review validator');
      }
    });
  }
});
