/**
 * Fixture snapshots: for every fixture bundle, what `rollout-evidence check` prints of it, kept in
 * test/fixtures/snapshots/<fixture>.txt and reviewed like code, so that a changed message, column or
 * related location shows up in review. Each snapshot holds the command (run in test/fixtures/bundles, so
 * every path is relative to it), the CLI's text output, its exit status and, since the text output gives
 * only where a finding starts, the full range of each finding and related location.
 *
 * The snapshots are made in process (the CLI's own check and text formatter); the built CLI is run once
 * per distinct set of flags to show that a user's process prints the same.
 *
 *   ROLLOUT_EVIDENCE_UPDATE_SNAPSHOTS=1 node scripts/test.mjs snapshots   rewrites the snapshots
 */
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { displayPath } from '../../shared/src/paths';
import { exitStatusOf, runCheck } from '../../server/src/cli/checkRun';
import type { CheckRequest, CheckRun } from '../../server/src/cli/report/run';
import { formatText } from '../../server/src/cli/formats/text';
import { inReadingOrder } from '../../server/src/cli/report/listingOrder';
import type { ProgressLine } from '../../server/src/cli/progress';
import { allDiagnosticCodes, isDiagnosticCode } from '../../server/src/engine/codes';
import type { TextRange } from '../../server/src/engine/findings';
import { defaultFixtureFolders, defaultSettings } from '../../shared/src/settings';
import { fixtures, type FixtureDefinition } from '../fixtures/definitions';
import { raisedElsewhere } from '../fixtures/raisedElsewhere';
import { cli } from '../support/cli';
import { repoRoot } from '../support/repo';

const bundles = join(repoRoot, 'test/fixtures/bundles');
const snapshots = join(repoRoot, 'test/fixtures/snapshots');
const updating = process.env.ROLLOUT_EVIDENCE_UPDATE_SNAPSHOTS === '1';
const updateCommand = 'ROLLOUT_EVIDENCE_UPDATE_SNAPSHOTS=1 node scripts/test.mjs snapshots';

const noProgress: ProgressLine = { update() {}, tick() {}, rollouts() {}, clear() {} };

/** The CLI flags that judge a fixture as its definition says; `requestFor` is the same in process. */
function flagsOf(fixture: FixtureDefinition): string[] {
  return [
    ...(fixture.options?.allowOracleWithoutLlm ? ['--allow-oracle-without-llm'] : []),
    ...(fixture.options?.allowNativeSubscriptionWithoutLlm ? ['--allow-native-subscription-without-llm'] : []),
    ...(fixture.maxProblems !== undefined ? ['--max-problems', String(fixture.maxProblems)] : []),
    // The bundles sit under test/fixtures/, which the default fixture folders match: one judged as a real rollout needs none.
    ...(fixture.options?.fixtureBundle ? [] : ['--fixture-folders', '']),
  ];
}

function requestFor(fixture: FixtureDefinition, names: readonly string[]): CheckRequest {
  return {
    paths: names.map((name) => join(bundles, name)),
    maxProblems: fixture.maxProblems ?? defaultSettings.maxNumberOfProblems,
    artifactMap: {},
    rules: {
      allowOracleWithoutLlm: fixture.options?.allowOracleWithoutLlm ?? false,
      allowNativeSubscriptionWithoutLlm: fixture.options?.allowNativeSubscriptionWithoutLlm ?? false,
    },
    fixtureFolders: fixture.options?.fixtureBundle ? defaultFixtureFolders : [],
    failOn: 'incomplete',
    cwd: bundles,
  };
}

const shellWord = (word: string) => (/^[\w./=-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`);

/** 1-based, the end exclusive, as the JSON report gives them. */
const rangeText = ({ start, end }: TextRange) =>
  `${start.line + 1}:${start.character + 1}-${end.line + 1}:${end.character + 1}`;

/** The full range of every finding listed, and of its related locations, in the order the text output lists them. */
function rangeLines(run: CheckRun): string[] {
  const lines = run.bundles.flatMap((bundle) =>
    inReadingOrder(bundle).flatMap((finding) => [
      `  ${displayPath(run.request.cwd, finding.file)}:${rangeText(finding.range)} ${finding.code}`,
      ...(finding.related ?? []).map(
        (related) => `      related ${displayPath(run.request.cwd, related.file)}:${rangeText(related.range)}`,
      ),
    ]),
  );
  return lines.length > 0 ? ['', 'ranges (line:column-line:column, 1-based, end exclusive):', ...lines] : [];
}

function snapshotOf(fixture: FixtureDefinition, run: CheckRun): string {
  const command = `$ rollout-evidence ${['check', fixture.name, ...flagsOf(fixture)].map(shellWord).join(' ')}`;
  return [command, formatText(run).trimEnd(), `exit status ${exitStatusOf(run)}`, ...rangeLines(run)].join('\n') + '\n';
}

/** The codes the text output lists, as `path:line:column: severity code` (or `path: severity code` for a notice). */
function codesListedIn(text: string): Set<string> {
  const codes = text.split('\n').map((line) => /^ {2}\S+?: (?:error|warning|information|hint) (\S+) /.exec(line)?.[1]);
  return new Set(codes.filter((code) => code !== undefined && isDiagnosticCode(code)));
}

/** Lines of `stored` and `current`, the unchanged ones with two spaces, the others with "- " and "+ ". */
function lineDiff(stored: string, current: string): string {
  const a = stored.split('\n');
  const b = current.split('\n');
  // Longest common subsequence, from the end; snapshots are short.
  const common = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      common[i]![j] = a[i] === b[j] ? common[i + 1]![j + 1]! + 1 : Math.max(common[i + 1]![j]!, common[i]![j + 1]!);
    }
  }
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push(`  ${a[i++]}`);
      j++;
    } else if (i < a.length && (j === b.length || common[i + 1]![j]! >= common[i]![j + 1]!)) out.push(`- ${a[i++]}`);
    else out.push(`+ ${b[j++]}`);
  }
  return out.join('\n');
}

function readSnapshot(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** Each fixture checked on its own, as the CLI's check makes it now. */
const runs = new Map(
  fixtures.map((fixture) => [fixture.name, runCheck(requestFor(fixture, [fixture.name]), noProgress)]),
);
const current = new Map(fixtures.map((fixture) => [fixture.name, snapshotOf(fixture, runs.get(fixture.name)!)]));

describe('fixture snapshots', () => {
  for (const fixture of fixtures) {
    it(fixture.name, () => {
      const path = join(snapshots, `${fixture.name}.txt`);
      const now = current.get(fixture.name)!;
      for (const unstable of [repoRoot, tmpdir()])
        assert.ok(!now.includes(unstable), `the snapshot of ${fixture.name} holds no absolute path (${unstable})`);
      const stored = readSnapshot(path);
      if (updating) {
        if (stored !== now) {
          mkdirSync(snapshots, { recursive: true });
          writeFileSync(path, now);
        }
        return;
      }
      assert.ok(stored !== undefined, `test/fixtures/snapshots/${fixture.name}.txt is missing: run ${updateCommand}`);
      if (stored !== now) {
        assert.fail(
          `test/fixtures/snapshots/${fixture.name}.txt differs from what the CLI prints now ("- " stored, "+ " now). If the change is meant, run ${updateCommand} and review the diff.\n${lineDiff(stored, now)}`,
        );
      }
    });
  }

  it('has no snapshot without a fixture', () => {
    const names = new Set(fixtures.map((fixture) => `${fixture.name}.txt`));
    const stale = readdirSync(snapshots).filter((file) => !names.has(file));
    if (updating) for (const file of stale) rmSync(join(snapshots, file));
    else assert.deepEqual(stale, [], `snapshots of no fixture: remove them, or run ${updateCommand}`);
  });

  it('list every code, but those no bundle on disk can raise', () => {
    const listed = new Set([...current.values()].flatMap((snapshot) => [...codesListedIn(snapshot)]));
    // raisedElsewhere says why each exempt code cannot come from a bundle on disk, and which test raises it.
    const missing = allDiagnosticCodes.filter((code) => !listed.has(code) && raisedElsewhere[code] === undefined);
    assert.deepEqual(
      missing,
      [],
      'codes that no fixture snapshot lists: add a fixture that raises each (test/fixtures/definitions.ts)',
    );
    const exemptButListed = allDiagnosticCodes.filter(
      (code) => listed.has(code) && raisedElsewhere[code] !== undefined,
    );
    assert.deepEqual(
      exemptButListed,
      [],
      'codes exempt as raised elsewhere that a fixture raises after all: drop their exemption',
    );
  });
});

describe('fixture snapshots from the built CLI', () => {
  // One process per distinct set of flags, checking every fixture that takes them.
  const byFlags = new Map<string, FixtureDefinition[]>();
  for (const fixture of fixtures) {
    const key = flagsOf(fixture).map(shellWord).join(' ');
    byFlags.set(key, [...(byFlags.get(key) ?? []), fixture]);
  }
  for (const [flags, group] of byFlags) {
    it(`prints what the in-process check prints, with ${flags || 'no flags'} (${group.length} fixtures)`, () => {
      const names = group.map((fixture) => fixture.name);
      const processRun = cli(['check', ...names, ...flagsOf(group[0]!)], { cwd: bundles });
      const inProcess = runCheck(requestFor(group[0]!, names), noProgress);
      assert.equal(processRun.stderr, '');
      assert.equal(processRun.stdout, formatText(inProcess), lineDiff(formatText(inProcess), processRun.stdout));
      assert.equal(processRun.status, exitStatusOf(inProcess));
      // Each rollout's part of the process's output is its snapshot's, which ends with its own totals instead
      // (and has no experiment summary, which the text output gives for more than one rollout).
      const parts = processRun.stdout
        .trimEnd()
        .split('\n')
        .slice(0, -1)
        .join('\n')
        .replace(/\nExperiment summary: [^]*$/, '')
        .split(/\n(?=verdict )/);
      assert.equal(parts.length, names.length);
      for (const part of parts) {
        const name = / (\S+)$/.exec(part.split('\n')[0]!)?.[1] ?? '';
        const alone = runs.get(name);
        assert.ok(alone, `the heading of "${part.split('\n')[0]}" names a fixture`);
        assert.equal(
          part,
          formatText(alone).trimEnd().split('\n').slice(0, -1).join('\n'),
          `${name}'s part of the process output is its snapshot's`,
        );
      }
    });
  }
});
