/**
 * Every fixture bundle, read from test/fixtures/bundles/ as the CLI reads a rollout: its diagnostics
 * (codes and lines, and words of their messages where a fixture names them), its verdict, and agreement
 * with BenchFlow's experiment-review validator. Every diagnostic code has a fixture that raises it and a
 * near miss that does not.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, it } from 'node:test';
import { listedFindings } from '../../server/src/engine/checkRollout';
import { ArtifactChecker } from '../../server/src/engine/check/artifactChecker';
import { allDiagnosticCodes, type DiagnosticCode } from '../../server/src/engine/codes';
import { defaultRuleOptions } from '../../server/src/engine/rules/context';
import { ModelCaches } from '../../server/src/engine/model/caches';
import { fixtures, type FixtureDefinition } from '../fixtures/definitions';
import { raisedElsewhere } from '../fixtures/raisedElsewhere';
import { repoRoot } from '../support/repo';
import { checkRollout } from '../support/rollout';

const bundles = join(repoRoot, 'test/fixtures/bundles');
const checker = new ArtifactChecker();
const caches = new ModelCaches();

function filesUnder(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

function contentsOf(fixture: FixtureDefinition): Map<string, Buffer> {
  return new Map(
    Object.entries({ ...fixture.files, ...fixture.bytes }).map(([path, content]) => [path, Buffer.from(content)]),
  );
}

/** Files present in one fixture and not the other, or present in both with other bytes. */
function differingFiles(a: FixtureDefinition, b: FixtureDefinition): number {
  const left = contentsOf(a);
  const right = contentsOf(b);
  const paths = new Set([...left.keys(), ...right.keys()]);
  return [...paths].filter((path) => !(left.get(path)?.equals(right.get(path) ?? Buffer.alloc(0)) && right.has(path)))
    .length;
}

/** The files the validator parses, and the codes of a record it cannot parse either (it reads bytes that are not UTF-8 as replacement characters). */
const validatorFiles = [
  'result.json',
  'trajectory/acp_trajectory.jsonl',
  'trajectory/llm_trajectory.jsonl',
  'results.jsonl',
];
const unparsableCodes = ['jsonl-syntax', 'jsonl-partial-line', 'json-syntax', 'record-not-object', 'artifact-empty'];
const unreadableForValidator = (diagnostic: string) => {
  const [place, code] = diagnostic.split(' ');
  return validatorFiles.some((file) => place!.startsWith(`${file}:`)) && unparsableCodes.includes(code!);
};

const raises = (fixture: FixtureDefinition, code: DiagnosticCode) =>
  fixture.diagnostics.some((diagnostic) => diagnostic.endsWith(` ${code}`));

describe('fixture bundles', () => {
  it('on disk are exactly the definitions (run "npm run fixtures" after changing them)', () => {
    assert.deepEqual(readdirSync(bundles).sort(), fixtures.map((fixture) => fixture.name).sort());
    for (const fixture of fixtures) {
      const root = join(bundles, fixture.name);
      const onDisk = new Map(
        filesUnder(root).map((path) => [relative(root, path).split(sep).join('/'), readFileSync(path)]),
      );
      assert.deepEqual(onDisk, contentsOf(fixture), fixture.name);
    }
  });

  for (const fixture of fixtures) {
    it(`${fixture.name}: ${fixture.description}`, () => {
      const root = join(bundles, fixture.name);
      const maxFindings = fixture.maxProblems ?? 1000;
      const checked = checkRollout(root, checker, {
        maxFindings,
        rules: { ...defaultRuleOptions, ...fixture.options },
        caches,
      });
      const { findings, omitted } = listedFindings(checked, maxFindings);
      const relativePath = (path: string) => relative(root, path).split(sep).join('/');
      // Problems beyond the limit are counted per file, and the notice goes on its first line (as the CLI prints it).
      const described = [
        ...findings.map((finding) => ({
          key: `${relativePath(finding.file)}:${finding.range.start.line + 1} ${finding.code}`,
          message: finding.message,
        })),
        ...[...omitted.keys()].map((path) => ({ key: `${relativePath(path)}:1 problems-limited`, message: '' })),
      ];
      const found = described.map((finding) => finding.key);
      assert.deepEqual(
        found,
        fixture.diagnostics,
        described.map((finding) => `${finding.key}: ${finding.message}`).join('\n'),
      );
      assert.equal(checked.evaluation?.verdict, fixture.verdict);
      for (const [key, words] of Object.entries(fixture.messages ?? {})) {
        const messages = described.filter((finding) => finding.key === key).map((finding) => finding.message);
        assert.ok(messages.length > 0, `${key} is among the diagnostics`);
        for (const message of messages) assert.ok(message.includes(words), `${key}: "${message}" says "${words}"`);
      }
      if (fixture.validator !== 'not-applicable') {
        const unhealthy = found.some((diagnostic) => / review-/.test(diagnostic) || unreadableForValidator(diagnostic));
        assert.equal(
          unhealthy ? 'unhealthy' : 'healthy',
          fixture.validator,
          'our review-* rules, and what we cannot read in the files it reads, agree with the experiment-review validator',
        );
      }
    });
  }
});

describe('fixture coverage of the codes', () => {
  it('every code has a fixture that raises it', () => {
    const unraised = allDiagnosticCodes.filter(
      (code) => !raisedElsewhere[code] && !fixtures.some((fixture) => raises(fixture, code)),
    );
    assert.deepEqual(unraised, []);
  });

  it('every code has a fixture that declares itself its near miss', () => {
    const missing = allDiagnosticCodes.filter(
      (code) => !raisedElsewhere[code] && !fixtures.some((fixture) => fixture.nearMissOf?.includes(code)),
    );
    assert.deepEqual(missing, [], 'codes without a fixture that declares itself their near miss');
  });

  it('every declared near miss does not raise its code and is at most two files from a fixture that does', () => {
    for (const fixture of fixtures) {
      for (const code of fixture.nearMissOf ?? []) {
        assert.ok(!raises(fixture, code), `${fixture.name} is a near miss of ${code}, so it must not raise it`);
        const closest = fixtures
          .filter((other) => raises(other, code))
          .map((other) => ({ name: other.name, files: differingFiles(fixture, other) }));
        assert.ok(
          closest.some((other) => other.files <= 2),
          `${fixture.name} is a near miss of ${code}: some fixture raising it differs in at most two files (${closest.map((other) => `${other.name}: ${other.files}`).join(', ') || 'none raises it'})`,
        );
      }
    }
  });

  it('codes raised only outside the fixtures are raised by the test named for them', () => {
    for (const [code, test] of Object.entries(raisedElsewhere)) {
      assert.ok(readFileSync(join(repoRoot, test), 'utf8').includes(`'${code}'`), `${test} checks ${code}`);
    }
  });
});
