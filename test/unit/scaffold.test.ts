/**
 * The fixture scaffolds: every scenario, written to disk as a rollout folder, is found and judged by the
 * real engine exactly as the scenario says; names and inputs that could escape the folder are refused.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { after, describe, it } from 'node:test';
import { fixtureMarkerFile, rolloutNameProblem, taskOfRolloutName } from '../../shared/src/scaffold';
import { defaultFixtureFolders } from '../../shared/src/settings';
import { FixtureFolders, isFixtureBundle } from '../../server/src/authoring/fixtureBundles';
import { scaffoldRollout, ScaffoldUsageError, scenarioSummaries } from '../../server/src/authoring/scaffold/scaffold';
import { listedFindings } from '../../server/src/engine/checkRollout';
import { ArtifactChecker } from '../../server/src/engine/check/artifactChecker';
import { defaultRuleOptions, type RuleOptions } from '../../server/src/engine/rules/context';
import { ModelCaches } from '../../server/src/engine/model/caches';
import type { ScenarioSummary } from '../../shared/src/scaffold';
import { writeTree } from '../support/files';
import { repoRoot, temporaryFolder } from '../support/repo';
import { checkRollout } from '../support/rollout';

const folder = temporaryFolder();
after(() => folder.remove());
const checker = new ArtifactChecker();
const caches = new ModelCaches();

/** Writes the scenario's rollout under a BenchFlow job folder and checks it as the CLI does. */
function judge(scenario: ScenarioSummary, rolloutName: string, startedAt: Date, options: Partial<RuleOptions>) {
  const root = join(
    folder.path,
    `${scenario.id}-${startedAt.getTime()}-${Object.keys(options).join('-')}`,
    'jobs/2026-08-22__10-00-00',
    rolloutName,
  );
  const { files } = scaffoldRollout(scenario.id, rolloutName, startedAt);
  writeTree(root, Object.fromEntries(files.map((file) => [file.path, file.content])));
  // As the CLI and the server decide it: by the fixture folders, or the scaffold's marker.
  const fixtureBundle = isFixtureBundle(root, new FixtureFolders(defaultFixtureFolders));
  const checked = checkRollout(root, checker, {
    maxFindings: 1000,
    rules: { ...defaultRuleOptions, fixtureBundle, ...options },
    caches,
  });
  const { findings } = listedFindings(checked, 1000);
  return {
    root,
    verdict: checked.evaluation?.verdict,
    findings: findings.map(
      (finding) =>
        `${relative(root, finding.file).split(sep).join('/')}:${finding.range.start.line + 1} ${finding.code}: ${finding.message}`,
    ),
    codes: [...new Set(findings.map((finding) => finding.code))].sort(),
  };
}

const requiredOptions = (scenario: ScenarioSummary): Partial<RuleOptions> =>
  Object.fromEntries(scenario.requiredSettings.map((setting) => [setting, true]));

describe('fixture scaffolds', () => {
  it('offer exactly the six scenarios of the issue', () => {
    assert.deepEqual(
      scenarioSummaries().map((scenario) => scenario.id),
      [
        'healthy',
        'tool-pending-after-timeout',
        'setup-only-verifier',
        'masked-quiescence-probe',
        'survivors-with-reward',
        'native-timeout-complete',
      ],
    );
  });

  for (const scenario of scenarioSummaries()) {
    it(`${scenario.id}: judged ${scenario.verdict}${scenario.codes.length > 0 ? ` with ${scenario.codes.join(', ')}` : ' with no finding'}`, () => {
      const judged = judge(
        scenario,
        'regex-log__bab1cbf6',
        new Date('2026-08-22T10:00:00Z'),
        requiredOptions(scenario),
      );
      assert.equal(judged.verdict, scenario.verdict, judged.findings.join('\n'));
      assert.deepEqual(judged.codes, [...scenario.codes].sort(), judged.findings.join('\n'));
      if (scenario.codes.length === 0)
        assert.deepEqual(judged.findings, [], 'no finding of any kind, information included');
    });
  }

  it('judge each scenario the same whatever its start time and names (a start that crosses midnight, a plain name)', () => {
    for (const scenario of scenarioSummaries()) {
      const judged = judge(scenario, 'my-fixture', new Date('2026-12-31T23:59:30Z'), requiredOptions(scenario));
      assert.equal(judged.verdict, scenario.verdict, `${scenario.id}: ${judged.findings.join('\n')}`);
      assert.deepEqual(judged.codes, [...scenario.codes].sort(), scenario.id);
    }
  });

  it('mark the bundle a fixture with a file at its root, and its observation as authored: without the marker it proves nothing', () => {
    const healthy = scenarioSummaries().find((scenario) => scenario.id === 'healthy')!;
    const { files } = scaffoldRollout('healthy', 'regex-log__bab1cbf6', new Date('2026-08-22T10:00:00Z'));
    const observation = files
      .find((file) => file.path === 'benchguard/action_records.jsonl')!
      .content.trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((record) => record['event_type'] === 'SandboxUserQuiescence');
    assert.equal(observation?.['provenance'], 'authored');
    assert.ok(files.some((file) => file.path === fixtureMarkerFile));
    const judged = judge(healthy, 'regex-log__bab1cbf6', new Date('2026-08-22T10:00:00Z'), {
      allowOracleWithoutLlm: false,
    });
    assert.equal(judged.verdict, 'trusted', 'with its marker, a fixture: the authored observation counts');
    rmSync(join(judged.root, fixtureMarkerFile));
    const unmarked = checkRollout(judged.root, checker, {
      maxFindings: 1000,
      rules: {
        ...defaultRuleOptions,
        fixtureBundle: isFixtureBundle(judged.root, new FixtureFolders(defaultFixtureFolders)),
      },
      caches: new ModelCaches(),
    });
    const codes = listedFindings(unmarked, 1000).findings.map((finding) => finding.code);
    assert.ok(codes.includes('evidence-authored') && codes.includes('quiescence-unproven'), codes.join(', '));
    assert.notEqual(unmarked.evaluation?.verdict, 'trusted');
  });

  it('name the settings a scenario needs: without them the native timeout is not countable', () => {
    const native = scenarioSummaries().find((scenario) => scenario.id === 'native-timeout-complete')!;
    assert.deepEqual(native.requiredSettings, ['allowNativeSubscriptionWithoutLlm']);
    assert.notEqual(judge(native, 'native__0000abcd', new Date('2026-08-22T10:00:00Z'), {}).verdict, 'trusted-timeout');
  });

  it('write the real layout with the task and rollout names in the records, JSON pretty-printed and JSONL one compact record per line', () => {
    const { files, focusFile } = scaffoldRollout('healthy', 'regex-log__bab1cbf6', new Date('2026-08-22T10:00:00Z'));
    const byPath = new Map(files.map((file) => [file.path, file.content]));
    for (const path of [
      'config.json',
      'result.json',
      'results.jsonl',
      'trajectory/acp_trajectory.jsonl',
      'trajectory/llm_trajectory.jsonl',
      'benchguard/preflight.json',
      'benchguard/action_records.jsonl',
      'verifier/reward.txt',
    ]) {
      assert.ok(byPath.has(path), `${path} is written`);
    }
    assert.ok(byPath.has(focusFile));
    const result = JSON.parse(byPath.get('result.json')!) as { task_name: string; rollout_name: string };
    assert.deepEqual([result.task_name, result.rollout_name], ['regex-log', 'regex-log__bab1cbf6']);
    assert.match(byPath.get('config.json')!, /^\{\n {2}"task_path": "tasks\/regex-log",\n/);
    for (const [path, content] of byPath) {
      assert.ok(content.endsWith('\n'), `${path} ends with a newline`);
      if (!path.endsWith('.jsonl')) continue;
      for (const line of content.trimEnd().split('\n'))
        assert.equal(JSON.stringify(JSON.parse(line)), line, `${path}: one compact record per line`);
    }
    assert.equal(
      byPath.get('benchguard/action_records.jsonl')!.split('\n')[0]!.includes('"started_at":"2026-08-22T10:00:50Z"'),
      true,
      'actions are timed from the start',
    );
  });

  it('refuse an unknown scenario and a rollout name that is not one safe folder name, saying why', () => {
    const start = new Date('2026-08-22T10:00:00Z');
    assert.throws(
      () => scaffoldRollout('nope', 'ok', start),
      (error: unknown) =>
        error instanceof ScaffoldUsageError &&
        /unknown scenario "nope": the scenarios are healthy, /.test(error.message),
    );
    for (const name of [
      '',
      '..',
      '.hidden',
      'a/b',
      'a\\b',
      '../escape',
      'with space',
      'x'.repeat(121),
      'semi;colon',
      'CON',
      'nul.txt',
      'com1',
      'trailing.',
    ]) {
      assert.ok(rolloutNameProblem(name) !== undefined, `${JSON.stringify(name)} is refused`);
      assert.throws(() => scaffoldRollout('healthy', name, start), ScaffoldUsageError);
    }
    assert.equal(rolloutNameProblem('regex-log__bab1cbf6'), undefined);
    assert.throws(() => scaffoldRollout('healthy', 'ok', new Date('not a date')), /not a valid date/);
  });

  it("are listed in README's table with the verdict and codes they get", () => {
    const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
    for (const scenario of scenarioSummaries()) {
      const row = readme.split('\n').find((line) => line.startsWith(`| \`${scenario.id}\` |`));
      assert.ok(row, `${scenario.id} has a row`);
      const [, , verdict, codes] = row.split('|').map((cell) => cell.trim());
      assert.ok(verdict!.startsWith(`\`${scenario.verdict}\``), `${scenario.id}: ${verdict}`);
      for (const setting of scenario.requiredSettings)
        assert.ok(verdict!.includes(setting), `${scenario.id} names ${setting}`);
      assert.equal(
        codes,
        scenario.codes.length > 0 ? scenario.codes.map((code) => `\`${code}\``).join(', ') : 'none',
        scenario.id,
      );
    }
  });

  it("read the task from BenchFlow's <task>__<8 hex> rollout names, and take any other name whole", () => {
    assert.equal(taskOfRolloutName('regex-log__bab1cbf6'), 'regex-log');
    assert.equal(taskOfRolloutName('a__b__0123abcd'), 'a__b');
    assert.equal(taskOfRolloutName('my-fixture'), 'my-fixture');
    assert.equal(taskOfRolloutName('x__BAB1CBF6'), 'x__BAB1CBF6');
  });
});
