/**
 * The experiment summary against tallies counted by hand, the order it gives whatever order they come
 * in, its cut of long lists and names, the escaping of bundle text in its Markdown and plain text, and
 * the tally of committed fixture bundles (task, agent, timeout, causes) as the rules judged them.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ArtifactChecker } from '../../server/src/engine/check/artifactChecker';
import { allDiagnosticCodes } from '../../server/src/engine/codes';
import {
  failedTally,
  shownNameCharacters,
  summaryMarkdown,
  summaryText,
  SummaryBuilder,
  tallyOf,
  topCausesShown,
  type ExperimentSummary,
  type RolloutTally,
} from '../../server/src/engine/experiment/summary';
import { ModelCaches } from '../../server/src/engine/model/caches';
import { defaultRuleOptions } from '../../server/src/engine/rules/context';
import { repoRoot } from '../support/repo';
import { checkRollout, discoverRollout } from '../support/rollout';
import { failedReport } from '../../server/src/cli/pipeline/checkReport';
import { tallyOfReport } from '../../server/src/cli/report/rolloutReport';
import { displayPath } from '../../shared/src/paths';

/** Seven rollouts; the expected summary below is counted from this list by hand. */
const tallies: readonly RolloutTally[] = [
  { root: 'jobs/a/r1', task: 'alpha', agent: 'x', verdict: 'trusted', timedOut: false, causes: [] },
  { root: 'jobs/a/r2', task: 'alpha', agent: 'x', verdict: 'trusted-timeout', timedOut: true, causes: [] },
  {
    root: 'jobs/a/r3',
    task: 'alpha',
    agent: 'y',
    verdict: 'incomplete',
    timedOut: true,
    causes: ['tool-pending', 'timeout-incomplete'],
  },
  {
    root: 'jobs/b/r4',
    task: 'beta',
    agent: 'y',
    verdict: 'untrusted',
    timedOut: false,
    causes: ['schema', 'quiescence-survivors', 'untrusted-reward'],
  },
  {
    root: 'jobs/b/r5',
    task: 'beta',
    agent: 'x',
    verdict: 'untrusted',
    timedOut: true,
    causes: ['tool-pending', 'quiescence-survivors', 'untrusted-reward'],
  },
  // A code given twice is still one rollout.
  { root: 'jobs/b/r6', task: null, agent: null, verdict: 'incomplete', timedOut: false, causes: ['schema', 'schema'] },
  { root: 'jobs/a/r0', task: 'beta', agent: 'x', verdict: 'trusted', timedOut: false, causes: [] },
];

const expected: ExperimentSummary = {
  rollouts: 7,
  verdicts: { untrusted: 2, incomplete: 2, 'trusted-timeout': 1, trusted: 2 },
  countable: 3,
  countableRate: 3 / 7,
  // r2 kept as trusted-timeout; r3 (incomplete) and r5 (untrusted) timed out and are excluded.
  timeouts: { total: 3, countable: 1, excluded: 2 },
  // Four codes in two rollouts each, in the code table's order (schema, tool-pending, quiescence-survivors, untrusted-reward), then one in one.
  topCauses: [
    { code: 'schema', effect: 'incomplete', rollouts: 2, example: 'jobs/b/r4' },
    { code: 'tool-pending', effect: 'incomplete', rollouts: 2, example: 'jobs/a/r3' },
    { code: 'quiescence-survivors', effect: 'untrusted', rollouts: 2, example: 'jobs/b/r4' },
    { code: 'untrusted-reward', effect: 'untrusted', rollouts: 2, example: 'jobs/b/r4' },
    { code: 'timeout-incomplete', effect: 'incomplete', rollouts: 1, example: 'jobs/a/r3' },
  ],
  causesNotShown: 0,
  byTask: [
    { name: 'alpha', rollouts: 3, trusted: 1, trustedTimeout: 1, incomplete: 1, untrusted: 0 },
    { name: 'beta', rollouts: 3, trusted: 1, trustedTimeout: 0, incomplete: 0, untrusted: 2 },
    { name: null, rollouts: 1, trusted: 0, trustedTimeout: 0, incomplete: 1, untrusted: 0 },
  ],
  byAgent: [
    { name: 'x', rollouts: 4, trusted: 2, trustedTimeout: 1, incomplete: 0, untrusted: 1 },
    { name: 'y', rollouts: 2, trusted: 0, trustedTimeout: 0, incomplete: 1, untrusted: 1 },
    { name: null, rollouts: 1, trusted: 0, trustedTimeout: 0, incomplete: 1, untrusted: 0 },
  ],
};

function summaryOf(list: readonly RolloutTally[]): ExperimentSummary {
  const builder = new SummaryBuilder();
  for (const tally of list) builder.add(tally);
  return builder.result();
}

describe('the experiment summary', () => {
  it('counts verdicts, countable rollouts, timeouts, causes per rollout and rows per task and agent', () => {
    assert.deepEqual(summaryOf(tallies), expected);
  });

  it('gives the same summary whatever order the tallies come in', () => {
    assert.deepEqual(summaryOf([...tallies].reverse()), expected);
    const rotated = [...tallies.slice(3), ...tallies.slice(0, 3)];
    assert.deepEqual(summaryOf(rotated), expected);
  });

  it('takes as example the first rollout by root, not the first added', () => {
    const summary = summaryOf([
      { root: 'jobs/z', task: 't', agent: 'a', verdict: 'incomplete', timedOut: false, causes: ['schema'] },
      { root: 'jobs/b', task: 't', agent: 'a', verdict: 'incomplete', timedOut: false, causes: ['schema'] },
      { root: 'jobs/m', task: 't', agent: 'a', verdict: 'incomplete', timedOut: false, causes: ['schema'] },
    ]);
    assert.deepEqual(summary.topCauses, [{ code: 'schema', effect: 'incomplete', rollouts: 3, example: 'jobs/b' }]);
  });

  it(`names the ${topCausesShown} causes in most rollouts and counts the rest`, () => {
    const codes = allDiagnosticCodes.slice(0, topCausesShown + 2);
    // The last code is in two rollouts, so it comes first; the others tie and keep the code table's order.
    const summary = summaryOf([
      { root: 'r1', task: null, agent: null, verdict: 'untrusted', timedOut: false, causes: codes },
      { root: 'r2', task: null, agent: null, verdict: 'untrusted', timedOut: false, causes: [codes.at(-1)!] },
    ]);
    assert.deepEqual(
      summary.topCauses.map((cause) => [cause.code, cause.rollouts]),
      [[codes.at(-1)!, 2], ...codes.slice(0, topCausesShown - 1).map((code) => [code, 1])],
    );
    assert.equal(summary.causesNotShown, 2);
    assert.match(summaryText(summary), /\n {4}and 2 more codes\n/);
    assert.match(summaryMarkdown(summary), /\nand 2 more codes\.\n/);
  });

  it('has no rate and no rows without rollouts', () => {
    const empty = new SummaryBuilder().result();
    assert.equal(empty.countableRate, null);
    assert.deepEqual([empty.rollouts, empty.countable, empty.byTask, empty.byAgent], [0, 0, [], []]);
    assert.deepEqual(empty.timeouts, { total: 0, countable: 0, excluded: 0 });
    assert.match(summaryText(empty), /^Experiment summary: 0 of 0 rollouts countable \(n\/a\)/);
  });

  it('cuts long names when shown, and keeps two names that share the shown prefix apart', () => {
    const long = 'a'.repeat(100);
    const summary = summaryOf([
      { root: 'r1', task: `${long}1`, agent: 'x', verdict: 'trusted', timedOut: false, causes: [] },
      { root: 'r2', task: `${long}2`, agent: 'x', verdict: 'untrusted', timedOut: false, causes: [] },
    ]);
    const cut = `${'a'.repeat(shownNameCharacters)}…`;
    assert.deepEqual(
      summary.byTask.map((row) => [row.name, row.trusted, row.untrusted]),
      [
        [cut, 1, 0],
        [cut, 0, 1],
      ],
    );
  });
});

describe('the experiment summary as Markdown and text', () => {
  it('prints the hand-counted summary', () => {
    assert.equal(
      summaryText(summaryOf(tallies)),
      [
        'Experiment summary: 3 of 7 rollouts countable (42.9%); 2 untrusted, 2 incomplete, 1 trusted-timeout, 2 trusted.',
        '  Timeouts: 3 rollouts timed out: 1 kept as countable (trusted-timeout), 2 excluded (incomplete or untrusted).',
        '  Top causes (rollouts, code, effect, first rollout):',
        '    2 schema (incomplete) e.g. jobs/b/r4',
        '    2 tool-pending (incomplete) e.g. jobs/a/r3',
        '    2 quiescence-survivors (untrusted) e.g. jobs/b/r4',
        '    2 untrusted-reward (untrusted) e.g. jobs/b/r4',
        '    1 timeout-incomplete (incomplete) e.g. jobs/a/r3',
        '  By task:',
        '                    rollouts  trusted  trusted-timeout  incomplete  untrusted',
        '    alpha                  3        1                1           1          0',
        '    beta                   3        1                0           0          2',
        '    (no task_name)         1        0                0           1          0',
        '  By agent:',
        '                rollouts  trusted  trusted-timeout  incomplete  untrusted',
        '    x                  4        2                1           0          1',
        '    y                  2        0                0           1          1',
        '    (no agent)         1        0                0           1          0',
        '',
      ].join('\n'),
    );
    assert.equal(
      summaryMarkdown(summaryOf(tallies)),
      [
        '## Experiment summary',
        '',
        '**3 of 7 rollouts countable** (42.9%; countable = trusted + trusted-timeout).',
        '',
        '| Verdict | Rollouts |',
        '|---|---:|',
        '| untrusted | 2 |',
        '| incomplete | 2 |',
        '| trusted-timeout | 1 |',
        '| trusted | 2 |',
        '',
        '**Timeouts:** 3 rollouts timed out: 1 kept as countable (trusted-timeout), 2 excluded (incomplete or untrusted).',
        '',
        '### Top causes',
        '',
        '| Code | Effect | Rollouts | Example |',
        '|---|---|---:|---|',
        '| `schema` | incomplete | 2 | `jobs/b/r4` |',
        '| `tool-pending` | incomplete | 2 | `jobs/a/r3` |',
        '| `quiescence-survivors` | untrusted | 2 | `jobs/b/r4` |',
        '| `untrusted-reward` | untrusted | 2 | `jobs/b/r4` |',
        '| `timeout-incomplete` | incomplete | 1 | `jobs/a/r3` |',
        '',
        '### By task',
        '',
        '| Task | Rollouts | trusted | trusted-timeout | incomplete | untrusted |',
        '|---|---:|---:|---:|---:|---:|',
        '| `alpha` | 3 | 1 | 1 | 1 | 0 |',
        '| `beta` | 3 | 1 | 0 | 0 | 2 |',
        '| *\\(no task\\_name\\)* | 1 | 0 | 0 | 1 | 0 |',
        '',
        '### By agent',
        '',
        '| Agent | Rollouts | trusted | trusted-timeout | incomplete | untrusted |',
        '|---|---:|---:|---:|---:|---:|',
        '| `x` | 4 | 2 | 1 | 0 | 1 |',
        '| `y` | 2 | 0 | 0 | 1 | 1 |',
        '| *\\(no agent\\)* | 1 | 0 | 0 | 1 | 0 |',
        '',
      ].join('\n'),
    );
  });

  it('keeps bundle text from becoming markup, leaving its table cell, or writing control characters', () => {
    const task = 'a|b <img src=x> [l](u) `c`\n| forged | row |\u001b[31m\u202e';
    const summary = summaryOf([
      { root: 'jobs/<b>|x', task, agent: 'x', verdict: 'incomplete', timedOut: false, causes: ['schema'] },
    ]);
    const markdown = summaryMarkdown(summary);
    // A code span longer than the name's backtick runs, its pipes escaped: the row keeps its six cells.
    const taskLine = markdown.split('\n').find((line) => line.startsWith('| ``a'))!;
    assert.equal(
      taskLine,
      '| ``a\\|b <img src=x> [l](u) `c`\\n\\| forged \\| row \\|\\u001b[31m\\u202e`` | 1 | 0 | 0 | 1 | 0 |',
    );
    assert.ok(!markdown.includes('\u001b') && !markdown.includes('\u202e') && !markdown.includes('\n| forged'));
    assert.ok(markdown.includes('| `schema` | incomplete | 1 | `jobs/<b>\\|x` |'));
    const text = summaryText(summary);
    assert.ok(!text.includes('\u001b') && !text.includes('\u202e') && !text.includes('\n| forged'), text);
  });
});

describe('the tally of a checked rollout', () => {
  const bundles = join(repoRoot, 'test/fixtures/bundles');
  const checker = new ArtifactChecker();
  const caches = new ModelCaches();
  const tally = (name: string): RolloutTally => {
    const checked = checkRollout(join(bundles, name), checker, {
      maxFindings: 1000,
      rules: { ...defaultRuleOptions, allowNativeSubscriptionWithoutLlm: true },
      caches,
    });
    assert.ok(checked.evaluation);
    return tallyOf(name, checked.evaluation.model.bundle, checked.evaluation);
  };

  it('reads the task and the agent from result.json, and finds no cause in a trusted rollout', () => {
    assert.deepEqual(tally('healthy'), {
      root: 'healthy',
      task: 'hello-world',
      agent: 'claude-agent-acp',
      verdict: 'trusted',
      timedOut: false,
      causes: [],
    });
  });

  it('counts an accepted timeout as timed out, and no finding whose effect its rule lowered to none', () => {
    // Its timeout-marker-missing (declared I) is raised with effect none for an idle timeout.
    assert.deepEqual(tally('benchflow-idle-timeout'), {
      root: 'benchflow-idle-timeout',
      task: 'hello-world',
      agent: 'codex-acp',
      verdict: 'trusted-timeout',
      timedOut: true,
      causes: [],
    });
  });

  it('counts a timeout that is not countable as timed out, with the codes that excluded it', () => {
    const { verdict, timedOut, causes } = tally('native-timeout-pending-tool');
    assert.deepEqual(
      { verdict, timedOut, causes },
      {
        verdict: 'incomplete',
        timedOut: true,
        causes: ['tool-pending', 'native-timeout-incomplete'],
      },
    );
  });

  it("takes the files' own problems as causes too, and a damaged task_name as no task", () => {
    const { task, verdict, timedOut, causes } = tally('damaged-key-task-name');
    assert.deepEqual(
      { task, verdict, timedOut, causes },
      {
        task: null,
        verdict: 'untrusted',
        timedOut: false,
        causes: ['schema', 'review-task-mismatch'],
      },
    );
  });
});

describe('the tally of a rollout the checker failed on', () => {
  it("is the CLI's, whether the editor or the CLI's error boundary makes it", () => {
    const root = join(repoRoot, 'test/fixtures/bundles/healthy');
    const cli = tallyOfReport(
      failedReport(discoverRollout(root), new Error('boom'), { cwd: repoRoot, fingerprints: false }),
    );
    assert.deepEqual(failedTally(displayPath(repoRoot, root)), cli);
  });
});
