/**
 * The experiment summary end to end: a jobs tree of nine committed fixture bundles (two tasks, two agents,
 * one rollout that names no task) checked by the built CLI, every count of its JSON `summary.experiment`
 * against a count made by hand, and the same summary as `--format summary` Markdown and at the end of
 * the text output.
 */
import assert from 'node:assert/strict';
import { cpSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { JsonReport } from '../../server/src/cli/formats/json';
import type { ExperimentSummary } from '../../server/src/engine/experiment/summary';
import { cli } from '../support/cli';
import { repoRoot, temporaryFolder } from '../support/repo';

const job = 'jobs/2026-01-01__00-00-00';

/** Fixture bundle → [task, agent, verdict, timed out], as their snapshots in test/fixtures/snapshots say. */
const tree = {
  // Task hello-world, as the fixtures are written.
  healthy: ['hello-world', 'claude-agent-acp', 'trusted', false],
  'benchflow-native-timeout-accepted': ['hello-world', 'claude-agent-acp', 'trusted-timeout', true],
  'benchflow-completed': ['hello-world', 'codex-acp', 'trusted', false],
  'benchflow-wall-clock-timeout-pending-tool': ['hello-world', 'codex-acp', 'incomplete', true],
  // Task regex-log: the same bundles with every "hello-world" rewritten.
  'native-timeout-pending-tool': ['regex-log', 'claude-agent-acp', 'incomplete', true],
  'survivors-with-reward': ['regex-log', 'claude-agent-acp', 'untrusted', false],
  'benchflow-idle-timeout': ['regex-log', 'codex-acp', 'trusted-timeout', true],
  'benchflow-total-only-usage': ['regex-log', 'codex-acp', 'trusted', false],
  // Its result.json's task_name key is damaged: no task.
  'damaged-key-task-name': [null, 'claude-agent-acp', 'untrusted', false],
} as const;

const flags = ['--allow-native-subscription-without-llm', '--fixture-folders', ''];

/** Counted by hand from `tree` and the codes each fixture's snapshot lists (effect U or I only). */
const expected: ExperimentSummary = {
  rollouts: 9,
  verdicts: { untrusted: 2, incomplete: 2, 'trusted-timeout': 2, trusted: 3 },
  countable: 5,
  countableRate: 5 / 9,
  // The two trusted-timeout rollouts are kept; the two incomplete ones that timed out are excluded.
  timeouts: { total: 4, countable: 2, excluded: 2 },
  topCauses: [
    // In both incomplete timeouts; the first by root is benchflow-wall-clock-… .
    {
      code: 'tool-pending',
      effect: 'incomplete',
      rollouts: 2,
      example: `${job}/benchflow-wall-clock-timeout-pending-tool`,
    },
    // Then one rollout each, in the code table's order.
    { code: 'schema', effect: 'incomplete', rollouts: 1, example: `${job}/damaged-key-task-name` },
    { code: 'quiescence-survivors', effect: 'untrusted', rollouts: 1, example: `${job}/survivors-with-reward` },
    { code: 'untrusted-reward', effect: 'untrusted', rollouts: 1, example: `${job}/survivors-with-reward` },
    {
      code: 'timeout-incomplete',
      effect: 'incomplete',
      rollouts: 1,
      example: `${job}/benchflow-wall-clock-timeout-pending-tool`,
    },
    {
      code: 'native-timeout-incomplete',
      effect: 'incomplete',
      rollouts: 1,
      example: `${job}/native-timeout-pending-tool`,
    },
    { code: 'review-task-mismatch', effect: 'untrusted', rollouts: 1, example: `${job}/damaged-key-task-name` },
  ],
  causesNotShown: 0,
  byTask: [
    { name: 'hello-world', rollouts: 4, trusted: 2, trustedTimeout: 1, incomplete: 1, untrusted: 0 },
    { name: 'regex-log', rollouts: 4, trusted: 1, trustedTimeout: 1, incomplete: 1, untrusted: 1 },
    { name: null, rollouts: 1, trusted: 0, trustedTimeout: 0, incomplete: 0, untrusted: 1 },
  ],
  byAgent: [
    { name: 'claude-agent-acp', rollouts: 5, trusted: 1, trustedTimeout: 1, incomplete: 1, untrusted: 2 },
    { name: 'codex-acp', rollouts: 4, trusted: 2, trustedTimeout: 1, incomplete: 1, untrusted: 0 },
  ],
};

const folder = temporaryFolder();

function rewrite(path: string, from: string, to: string): void {
  for (const name of readdirSync(path)) {
    const file = join(path, name);
    if (statSync(file).isDirectory()) rewrite(file, from, to);
    else writeFileSync(file, readFileSync(file, 'utf8').replaceAll(from, to));
  }
}

before(() => {
  for (const [name, [task]] of Object.entries(tree)) {
    const root = join(folder.path, job, name);
    cpSync(join(repoRoot, 'test/fixtures/bundles', name), root, { recursive: true });
    if (task === 'regex-log') rewrite(root, 'hello-world', 'regex-log');
  }
});
after(() => folder.remove());

describe('the experiment summary of a jobs tree', () => {
  it('counts every verdict, timeout, cause and row of the JSON report as counted by hand', () => {
    const { status, stdout, stderr } = cli(['check', 'jobs', '--format', 'json', ...flags], { cwd: folder.path });
    assert.equal(stderr, '');
    assert.equal(status, 1);
    const report = JSON.parse(stdout) as JsonReport;
    // The tree is what the hand count assumes: each rollout's verdict as its fixture's snapshot has it.
    assert.deepEqual(
      report.rollouts.map((rollout) => [rollout.root, rollout.verdict]),
      Object.entries(tree)
        .map(([name, [, , verdict]]) => [`${job}/${name}`, verdict])
        .sort(([a], [b]) => a!.localeCompare(b!)),
    );
    assert.deepEqual(report.summary.experiment, expected);
    assert.deepEqual(report.summary.verdicts, expected.verdicts);
  });

  it('prints the same summary as Markdown with --format summary', () => {
    const { status, stdout } = cli(['check', 'jobs', '--format', 'summary', ...flags], { cwd: folder.path });
    assert.equal(status, 1, 'the exit status is the check’s, whatever the format');
    const lines = stdout.split('\n');
    assert.equal(lines[0], '## Experiment summary');
    assert.ok(lines.includes('**5 of 9 rollouts countable** (55.6%; countable = trusted + trusted-timeout).'));
    assert.ok(
      lines.includes(
        '**Timeouts:** 4 rollouts timed out: 2 kept as countable (trusted-timeout), 2 excluded (incomplete or untrusted).',
      ),
    );
    assert.ok(
      lines.includes(`| \`tool-pending\` | incomplete | 2 | \`${job}/benchflow-wall-clock-timeout-pending-tool\` |`),
    );
    assert.ok(lines.includes('| `regex-log` | 4 | 1 | 1 | 1 | 1 |'));
    assert.ok(lines.includes('| *\\(no task\\_name\\)* | 1 | 0 | 0 | 0 | 1 |'));
    assert.ok(lines.includes('| `claude-agent-acp` | 5 | 1 | 1 | 1 | 2 |'));
    assert.ok(!stdout.includes('verdict '), 'no per-rollout listing');
  });

  it('ends the text output with the summary in plain text, then the totals line', () => {
    const { stdout } = cli(['check', 'jobs', ...flags], { cwd: folder.path });
    const lines = stdout.trimEnd().split('\n');
    const start = lines.findIndex((line) => line.startsWith('Experiment summary: '));
    assert.ok(start > 0, stdout);
    assert.equal(
      lines[start],
      'Experiment summary: 5 of 9 rollouts countable (55.6%); 2 untrusted, 2 incomplete, 2 trusted-timeout, 3 trusted.',
    );
    assert.ok(
      lines
        .slice(start)
        .includes(`    2 tool-pending (incomplete) e.g. ${job}/benchflow-wall-clock-timeout-pending-tool`),
    );
    assert.match(lines.at(-1)!, /^Checked \d+ files \(9 rollouts\): /);
    assert.ok(lines.slice(0, start).every((line) => !line.startsWith('  By task')));
  });

  it('leaves the text output of one rollout without a summary', () => {
    const { stdout } = cli(['check', `${job}/healthy`, ...flags], { cwd: folder.path });
    assert.ok(!stdout.includes('Experiment summary'), stdout);
  });

  it('says why in Markdown when nothing could be checked', () => {
    const { status, stdout, stderr } = cli(['check', 'nothing-here', '--format', 'summary'], { cwd: folder.path });
    assert.equal(status, 2);
    assert.match(stderr, /nothing-here/);
    assert.match(stdout, /^## Experiment summary\n\n> \*\*The check could not run\*\* \(usage\): /);
  });
});
