/**
 * The experiment summary a reviewer reads before the list of verdicts: how many rollouts are countable,
 * how many timeouts were kept as countable rather than dropped (BenchFlow #1079: dropping them biases an
 * experiment toward easy, cooperative completions), which codes make the rest untrusted or incomplete,
 * and the verdicts per task and per agent.
 *
 * One rollout is first reduced to a `RolloutTally` (small and serialisable, so a worker or a shard can
 * hand it on); a `SummaryBuilder` keeps only counts (per verdict, task, agent and code, and one example
 * rollout per code), never the tallies, so memory stays flat in the number of rollouts. The result is
 * the same whatever order the tallies arrive in. Pure: the CLI, the language server and the tests share it.
 */
import type { RolloutBundle } from '../bundle/rollout';
import { agentNameOf } from '../model/agent';
import { allDiagnosticCodes, codeInfo, type DiagnosticCode } from '../codes';
import type { Finding } from '../findings';
import { nonBlankText, shownPrefix } from '../parse/jsonKind';
import type { RolloutTimeout } from '../rules/timeout/timeout';
import { effectOf, verdicts, type Verdict } from '../verdict';
import { compareNames } from '../../../../shared/src/order';
import { printable } from '../text/printable';

/** What the summary needs of one rollout. */
export interface RolloutTally {
  /** The rollout folder as the caller shows it (the CLI: relative to the working directory). */
  readonly root: string;
  /** result.json `task_name`; null when the rollout does not say. */
  readonly task: string | null;
  /** The agent as BenchFlow writes it: result.json `agent`, else its `agent_name`, else config.json `agent`. */
  readonly agent: string | null;
  readonly verdict: Verdict;
  /** The rollout timed out (as the timeout rules read it), whether or not the timeout was countable. */
  readonly timedOut: boolean;
  /** Distinct codes with effect untrusted or incomplete raised in this rollout, in the code table's order. */
  readonly causes: readonly DiagnosticCode[];
}

/** One task's or agent's rollouts by verdict. */
export interface SummaryRow {
  /** The task or agent, cut to `shownNameCharacters`; null for rollouts that do not name one. */
  readonly name: string | null;
  readonly rollouts: number;
  readonly trusted: number;
  readonly trustedTimeout: number;
  readonly incomplete: number;
  readonly untrusted: number;
}

export interface SummaryCause {
  readonly code: DiagnosticCode;
  readonly effect: 'untrusted' | 'incomplete';
  /** Rollouts in which the code was raised (once per rollout, however often it was raised there). */
  readonly rollouts: number;
  /** The first such rollout by root. */
  readonly example: string;
}

export interface ExperimentSummary {
  readonly rollouts: number;
  readonly verdicts: Readonly<Record<Verdict, number>>;
  /** trusted + trusted-timeout: the rollouts an experiment may count. */
  readonly countable: number;
  /** countable / rollouts; null when there are no rollouts. */
  readonly countableRate: number | null;
  /** Timed-out rollouts; `countable` those trusted-timeout, `excluded` the rest. */
  readonly timeouts: { readonly total: number; readonly countable: number; readonly excluded: number };
  /** The `topCausesShown` codes raised in most rollouts, most first, ties in the code table's order. */
  readonly topCauses: readonly SummaryCause[];
  /** Codes with effect untrusted or incomplete raised but not among `topCauses` (counted, not named). */
  readonly causesNotShown: number;
  /** By task name, rollouts that name none last. */
  readonly byTask: readonly SummaryRow[];
  /** By agent, rollouts that name none last. */
  readonly byAgent: readonly SummaryRow[];
}

/** Causes named in the summary; the rest are counted in `causesNotShown`, so the summary stays short. */
export const topCausesShown = 10;

/**
 * Task and agent names are bundle text: shown at most this long (longer than a message's quote, since a
 * reviewer must tell tasks apart; still bounded, since the summary reaches CI logs).
 */
export const shownNameCharacters = 64;

/** What a tally reads of a rollout's evaluation (also all there is of one the checker failed on). */
export interface TalliedOutcome {
  readonly verdict: Verdict;
  readonly findings: readonly Finding[];
  /** The timeout the rules read, when the rollout was evaluated; undefined when it did not time out. */
  readonly timeout?: RolloutTimeout | undefined;
}

const codeOrder = new Map<DiagnosticCode, number>(allDiagnosticCodes.map((code, index) => [code, index]));

export function tallyOf(root: string, bundle: RolloutBundle, outcome: TalliedOutcome): RolloutTally {
  const result = bundle.facts('result', 'result')?.value;
  const config = bundle.facts('config', 'config')?.value;
  // The files' own findings decide the verdict too (verdictOf reads both), so they are causes as well.
  const fileFindings: readonly Finding[] = bundle.files.flatMap((file) => file.report?.findings ?? []);
  const causes = new Set<DiagnosticCode>();
  for (const finding of [...outcome.findings, ...fileFindings]) {
    const effect = effectOf(finding);
    if (effect === 'untrusted' || effect === 'incomplete') causes.add(finding.code);
  }
  return {
    root,
    task: nonBlankText(result?.['task_name']),
    agent: agentNameOf(result, config),
    verdict: outcome.verdict,
    // A trusted-timeout verdict is an accepted timeout even when another reading of the trajectory found it.
    timedOut: outcome.timeout !== undefined || outcome.verdict === 'trusted-timeout',
    causes: [...causes].sort((a, b) => codeOrder.get(a)! - codeOrder.get(b)!),
  };
}

/**
 * The tally of a rollout the checker failed on, as the CLI's error boundary reports one (cli/checkRun.ts
 * `failedBundle`): incomplete for internal-error, its task and agent unknown, as nothing of it was read.
 */
export function failedTally(root: string): RolloutTally {
  return { root, task: null, agent: null, verdict: 'incomplete', timedOut: false, causes: ['internal-error'] };
}

interface RowCounts {
  rollouts: number;
  trusted: number;
  trustedTimeout: number;
  incomplete: number;
  untrusted: number;
}

/** Counts of tallies; `result()` may be called at any time and as often as wanted. */
export class SummaryBuilder {
  private rollouts = 0;
  private readonly verdicts = Object.fromEntries(verdicts.map((verdict) => [verdict, 0])) as Record<Verdict, number>;
  private timeoutsTotal = 0;
  private timeoutsCountable = 0;
  private readonly causes = new Map<DiagnosticCode, { rollouts: number; example: string }>();
  private readonly tasks = new Map<string | null, RowCounts>();
  private readonly agents = new Map<string | null, RowCounts>();

  add(tally: RolloutTally): void {
    this.rollouts++;
    this.verdicts[tally.verdict]++;
    if (tally.timedOut) {
      this.timeoutsTotal++;
      if (tally.verdict === 'trusted-timeout') this.timeoutsCountable++;
    }
    for (const code of new Set(tally.causes)) {
      const cause = this.causes.get(code);
      if (!cause) this.causes.set(code, { rollouts: 1, example: tally.root });
      else {
        cause.rollouts++;
        // The first by root, whatever order the tallies come in (workers, shards).
        if (inNameOrder(tally.root, cause.example) < 0) cause.example = tally.root;
      }
    }
    countIn(this.tasks, tally.task, tally.verdict);
    countIn(this.agents, tally.agent, tally.verdict);
  }

  result(): ExperimentSummary {
    const countable = this.verdicts.trusted + this.verdicts['trusted-timeout'];
    const causes = [...this.causes.entries()]
      .sort(([codeA, a], [codeB, b]) => b.rollouts - a.rollouts || codeOrder.get(codeA)! - codeOrder.get(codeB)!)
      .map(([code, { rollouts, example }]): SummaryCause => ({ code, effect: causeEffect(code), rollouts, example }));
    return {
      rollouts: this.rollouts,
      verdicts: { ...this.verdicts },
      countable,
      countableRate: this.rollouts > 0 ? countable / this.rollouts : null,
      timeouts: {
        total: this.timeoutsTotal,
        countable: this.timeoutsCountable,
        excluded: this.timeoutsTotal - this.timeoutsCountable,
      },
      topCauses: causes.slice(0, topCausesShown),
      causesNotShown: Math.max(0, causes.length - topCausesShown),
      byTask: rowsOf(this.tasks),
      byAgent: rowsOf(this.agents),
    };
  }
}

/**
 * A code counted as a cause had effect untrusted or incomplete; a finding's own effect only ever lowers
 * its code's to none (engine/verdict.ts effectOf), so the code's declared effect is the one it had.
 */
function causeEffect(code: DiagnosticCode): 'untrusted' | 'incomplete' {
  return codeInfo(code).effect === 'untrusted' ? 'untrusted' : 'incomplete';
}

function countIn(rows: Map<string | null, RowCounts>, name: string | null, verdict: Verdict): void {
  let row = rows.get(name);
  if (!row) {
    row = { rollouts: 0, trusted: 0, trustedTimeout: 0, incomplete: 0, untrusted: 0 };
    rows.set(name, row);
  }
  row.rollouts++;
  if (verdict === 'trusted') row.trusted++;
  else if (verdict === 'trusted-timeout') row.trustedTimeout++;
  else if (verdict === 'incomplete') row.incomplete++;
  else row.untrusted++;
}

/** Rows by name (as discovery orders rollouts), the unnamed last; names cut only now, so two long names stay two rows. */
function rowsOf(rows: ReadonlyMap<string | null, RowCounts>): SummaryRow[] {
  return [...rows.entries()]
    .sort(([a], [b]) => (a === null ? 1 : b === null ? -1 : inNameOrder(a, b)))
    .map(([name, counts]) => ({ name: name === null ? null : shownPrefix(name, shownNameCharacters), ...counts }));
}

/** The order of names and roots: discovery's order of rollout paths, and a total one (ties broken by code units). */
function inNameOrder(a: string, b: string): number {
  return compareNames(a, b) || (a < b ? -1 : a > b ? 1 : 0);
}

// Presentation: the same summary as GitHub-flavoured Markdown and as plain text.

const verdictColumns = [
  ['trusted', 'trusted'],
  ['trusted-timeout', 'trustedTimeout'],
  ['incomplete', 'incomplete'],
  ['untrusted', 'untrusted'],
] as const satisfies readonly (readonly [Verdict, keyof SummaryRow])[];

const unnamed = { task: '(no task_name)', agent: '(no agent)' } as const;

function percent(rate: number | null): string {
  return rate === null ? 'n/a' : `${(rate * 100).toFixed(1)}%`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function verdictList(summary: ExperimentSummary): string {
  return verdicts.map((verdict) => `${summary.verdicts[verdict]} ${verdict}`).join(', ');
}

function timeoutSentence(summary: ExperimentSummary): string {
  const { total, countable, excluded } = summary.timeouts;
  if (total === 0) return 'no rollout timed out';
  return `${plural(total, 'rollout')} timed out: ${countable} kept as countable (trusted-timeout), ${excluded} excluded (incomplete or untrusted)`;
}

/**
 * Text as literal Markdown: every character that can open markup inside a line (emphasis, code, links,
 * images, HTML, entities) or end a table cell is backslash-escaped, which GFM allows for any ASCII
 * punctuation; the rest (`/`, `.`, `-`) stays as it is, so that paths read well in a terminal too.
 */
export function markdownText(text: string): string {
  return printable(text).replace(/[\\`*_{}[\]()<>|~&!#]/g, (character) => `\\${character}`);
}

/**
 * A name or path as a Markdown code span, literal whatever it holds: fenced by more backticks than any run
 * inside it, its pipes escaped (GFM splits table cells on them even inside code spans).
 */
function markdownCode(text: string): string {
  const shown = printable(text).replaceAll('|', '\\|');
  const fence = '`'.repeat(Math.max(0, ...(shown.match(/`+/g) ?? []).map((run) => run.length)) + 1);
  const pad = /^[` ]|[` ]$/.test(shown) ? ' ' : '';
  return `${fence}${pad}${shown}${pad}${fence}`;
}

export function summaryMarkdown(summary: ExperimentSummary): string {
  const lines: string[] = [
    '## Experiment summary',
    '',
    `**${summary.countable} of ${plural(summary.rollouts, 'rollout')} countable** (${percent(summary.countableRate)}; countable = trusted + trusted-timeout).`,
    '',
    '| Verdict | Rollouts |',
    '|---|---:|',
    ...verdicts.map((verdict) => `| ${verdict} | ${summary.verdicts[verdict]} |`),
    '',
    `**Timeouts:** ${timeoutSentence(summary)}.`,
    '',
    '### Top causes',
    '',
  ];
  if (summary.topCauses.length === 0) lines.push('No finding with effect untrusted or incomplete.');
  else {
    lines.push('| Code | Effect | Rollouts | Example |', '|---|---|---:|---|');
    for (const cause of summary.topCauses)
      lines.push(`| \`${cause.code}\` | ${cause.effect} | ${cause.rollouts} | ${markdownCode(cause.example)} |`);
    if (summary.causesNotShown > 0) lines.push('', `and ${plural(summary.causesNotShown, 'more code')}.`);
  }
  for (const [title, rows, none] of [
    ['By task', summary.byTask, unnamed.task],
    ['By agent', summary.byAgent, unnamed.agent],
  ] as const) {
    lines.push('', `### ${title}`, '');
    if (rows.length === 0) {
      lines.push('No rollouts.');
      continue;
    }
    lines.push(
      `| ${title.slice(3, 4).toUpperCase()}${title.slice(4)} | Rollouts | ${verdictColumns.map(([verdict]) => verdict).join(' | ')} |`,
      `|---|---:|${verdictColumns.map(() => '---:').join('|')}|`,
    );
    for (const row of rows)
      lines.push(
        `| ${row.name === null ? `*${markdownText(none)}*` : markdownCode(row.name)} | ${row.rollouts} | ${verdictColumns.map(([, key]) => row[key]).join(' | ')} |`,
      );
  }
  return `${lines.join('\n')}\n`;
}

export function summaryText(summary: ExperimentSummary): string {
  const lines: string[] = [
    `Experiment summary: ${summary.countable} of ${plural(summary.rollouts, 'rollout')} countable (${percent(summary.countableRate)}); ${verdictList(summary)}.`,
    `  Timeouts: ${timeoutSentence(summary)}.`,
  ];
  if (summary.topCauses.length === 0) lines.push('  Top causes: no finding with effect untrusted or incomplete.');
  else {
    lines.push('  Top causes (rollouts, code, effect, first rollout):');
    const width = Math.max(...summary.topCauses.map((cause) => String(cause.rollouts).length));
    for (const cause of summary.topCauses)
      lines.push(
        `    ${String(cause.rollouts).padStart(width)} ${cause.code} (${cause.effect}) e.g. ${printable(cause.example)}`,
      );
    if (summary.causesNotShown > 0) lines.push(`    and ${plural(summary.causesNotShown, 'more code')}`);
  }
  for (const [title, rows, none] of [
    ['By task', summary.byTask, unnamed.task],
    ['By agent', summary.byAgent, unnamed.agent],
  ] as const)
    lines.push(`  ${title}:`, ...textTable(rows, none));
  return `${lines.join('\n')}\n`;
}

function textTable(rows: readonly SummaryRow[], none: string): string[] {
  const header = ['', 'rollouts', ...verdictColumns.map(([verdict]) => verdict)];
  const body = rows.map((row) => [
    row.name === null ? none : printable(row.name),
    String(row.rollouts),
    ...verdictColumns.map(([, key]) => String(row[key])),
  ]);
  const widths = header.map((cell, column) =>
    Math.max(cell.length, ...body.map((cells) => [...(cells[column] ?? '')].length)),
  );
  const line = (cells: readonly string[]) =>
    `    ${cells
      .map((cell, column) =>
        column === 0 ? cell + ' '.repeat(widths[column]! - [...cell].length) : cell.padStart(widths[column]!),
      )
      .join('  ')}`.trimEnd();
  return [line(header), ...body.map(line)];
}
