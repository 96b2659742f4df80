/**
 * `rollout-evidence new-fixture` as a CI author runs it: the built CLI in its own process writes a
 * scenario's rollout folder, refuses to overwrite one, and `rollout-evidence check` agrees with what
 * the scenario promises.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { JsonReport } from '../../server/src/cli/formats/json';
import { scenarioSummaries } from '../../server/src/authoring/scaffold/scaffold';
import { builtCli, temporaryFolder } from '../support/repo';

type CliRun = { status: number | null; stdout: string; stderr: string };

function cli(args: readonly string[], cwd: string): CliRun {
  const result = spawnSync(process.execPath, [builtCli, ...args], { cwd, encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Every file below `folder` with its content, so a refused run can be shown to have changed nothing. */
function snapshot(folder: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(folder, { recursive: true, encoding: 'utf8' })
      .filter((path) => statSync(join(folder, path)).isFile())
      .sort()
      .map((path) => [path, readFileSync(join(folder, path), 'utf8')]),
  );
}

const folder = temporaryFolder();
after(() => folder.remove());

describe('rollout-evidence new-fixture', () => {
  for (const scenario of scenarioSummaries()) {
    it(`writes ${scenario.id}, which "rollout-evidence check" judges ${scenario.verdict}`, () => {
      const jobs = join('jobs', scenario.id);
      const written = cli(
        ['new-fixture', '--scenario', scenario.id, '--out', jobs, '--name', 'regex-log__bab1cbf6'],
        folder.path,
      );
      assert.equal(written.status, 0, written.stderr);
      assert.equal(written.stderr, '');
      const root = join(jobs, 'regex-log__bab1cbf6');
      assert.match(written.stdout, new RegExp(`^Wrote ${root} \\(\\d+ files\\): ${scenario.label}\\.\\n`));
      const flags = scenario.requiredSettings.map(
        (setting) => `--${setting.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`,
      );
      assert.ok(
        written.stdout.endsWith(`Check it: rollout-evidence check ${[root, ...flags].join(' ')}\n`),
        written.stdout,
      );

      const checked = cli(['check', root, '--format', 'json', ...flags], folder.path);
      const report = JSON.parse(checked.stdout) as JsonReport;
      assert.equal(report.rollouts.length, 1);
      const [rollout] = report.rollouts;
      assert.equal(rollout!.verdict, scenario.verdict, checked.stdout);
      assert.deepEqual(
        [...new Set(rollout!.diagnostics.map((diagnostic) => diagnostic.code))].sort(),
        [...scenario.codes].sort(),
      );
      assert.equal(checked.status, scenario.verdict === 'trusted' || scenario.verdict === 'trusted-timeout' ? 0 : 1);
    });
  }

  it('names a rollout as BenchFlow does when given no --name, creating the folder it is given', () => {
    const written = cli(['new-fixture', '--scenario', 'healthy', '--out', 'fresh/2026-08-22__10-00-00'], folder.path);
    assert.equal(written.status, 0, written.stderr);
    const [name, ...others] = readdirSync(join(folder.path, 'fresh/2026-08-22__10-00-00'));
    assert.deepEqual(others, []);
    assert.match(name!, /^hello-world__[0-9a-f]{8}$/);
  });

  it('refuses to overwrite an existing rollout folder, writes nothing and exits 2', () => {
    const args = ['new-fixture', '--scenario', 'healthy', '--out', 'taken', '--name', 'regex-log__0000beef'];
    assert.equal(cli(args, folder.path).status, 0);
    const before = snapshot(join(folder.path, 'taken'));
    const again = cli(
      ['new-fixture', '--scenario', 'masked-quiescence-probe', '--out', 'taken', '--name', 'regex-log__0000beef'],
      folder.path,
    );
    assert.equal(again.status, 2);
    assert.equal(again.stdout, '');
    assert.equal(
      again.stderr,
      'rollout-evidence: taken/regex-log__0000beef already exists: nothing was written (choose another --name or --out)\n',
    );
    assert.deepEqual(snapshot(join(folder.path, 'taken')), before, 'the healthy rollout is untouched');
  });

  it('exits 2 with a one-line reason on usage errors, and writes nothing', () => {
    const cases: [string[], RegExp][] = [
      [
        ['new-fixture', '--out', 'bad'],
        /^rollout-evidence: --scenario is required: healthy, tool-pending-after-timeout, /,
      ],
      [['new-fixture', '--scenario', 'healthy'], /^rollout-evidence: --out is required/],
      [
        ['new-fixture', '--scenario', 'nope', '--out', 'bad'],
        /^rollout-evidence: unknown scenario "nope": the scenarios are healthy, /,
      ],
      [
        ['new-fixture', '--scenario', 'healthy', '--out', 'bad', '--name', '../escape'],
        /^rollout-evidence: the rollout name must be one folder name/,
      ],
      [
        ['new-fixture', '--scenario', 'healthy', '--out', 'bad', '--name', '..'],
        /^rollout-evidence: the rollout name must be one folder name/,
      ],
      [
        ['new-fixture', '--scenario', 'healthy', '--out', 'bad', '--force'],
        /^rollout-evidence: Unknown option '--force'/,
      ],
    ];
    for (const [args, message] of cases) {
      const run = cli(args, folder.path);
      assert.equal(run.status, 2, args.join(' '));
      assert.match(run.stderr, message);
      assert.equal(run.stderr.trimEnd().split('\n').length, 1, 'one line');
    }
    assert.equal(existsSync(join(folder.path, 'bad')), false, 'nothing was created');
    assert.equal(existsSync(join(folder.path, 'escape')), false);
  });

  it('lists every scenario, with its verdict, in its help', () => {
    const help = cli(['new-fixture', '--help'], folder.path);
    assert.equal(help.status, 0);
    for (const scenario of scenarioSummaries())
      assert.match(help.stdout, new RegExp(`^ +${scenario.id} +${scenario.verdict}`, 'm'));
  });
});
