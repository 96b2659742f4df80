/**
 * Per rollout a heading, `verdict <verdict> <root>`, and the cause of that verdict in one line, then its
 * findings as `path:line:column: severity code message` (related evidence indented below), ordered by
 * what they do to the verdict with the files' own problems last; the experiment summary (for more than
 * one rollout) and the totals come at the end. Lines and columns are 1-based so that terminals and
 * editors can jump to them. `quiet` keeps only the headings. Each rollout's lines are written as soon as
 * it is its turn.
 */
import { limitNotice } from '../../engine/check/collector';
import { summaryText } from '../../engine/experiment/summary';
import { printable } from '../../engine/text/printable';
import { displayPath } from '../../../../shared/src/paths';
import type { CheckRun } from '../report/run';
import type { JsonDiagnostic } from '../report/reportTypes';
import { readingRank } from '../report/listingOrder';
import { absolutePathOf, type RolloutReport } from '../report/rolloutReport';
import { renderRun } from '../report/renderRun';
import type { Output, ReportWriter, RunContext, RunEnd } from '../report/reportWriter';

export interface TextOptions {
  /** Only each rollout's verdict line (and a loose folder's heading when it has errors). */
  readonly quiet?: boolean;
}

export function formatText(run: CheckRun, { quiet = false }: TextOptions = {}): string {
  return renderRun(run, textWriter, quiet);
}

export function textWriter(context: RunContext, write: Output): ReportWriter {
  // Every line made printable here, where it is written: a folder's name or a quoted value cannot forge a
  // line (a rollout folder named `x\nverdict trusted`) or reach the terminal as an escape sequence.
  const lines = (out: readonly string[]) => {
    if (out.length > 0) write(`${out.map(printable).join('\n')}\n`);
  };
  return {
    rollout(report) {
      lines(context.quiet ? headingWhenQuiet(report) : [heading(report), ...bundleLines(context, report)]);
    },
    end(end) {
      if (context.quiet) return;
      // One rollout's summary would repeat its verdict; the totals stay the last line, for a CI step that reads it.
      const summary = end.totals.rollouts > 1 ? summaryText(end.experiment).trimEnd().split('\n') : [];
      lines([...summary, summaryLine(end)]);
    },
  };
}

function heading(report: RolloutReport): string {
  return report.verdict !== null ? `verdict ${report.verdict.padEnd(15)} ${report.root}` : `files in ${report.root}`;
}

function headingWhenQuiet(report: RolloutReport): string[] {
  if (report.verdict !== null) return [heading(report)];
  // Counted from the files' reports, not the listing, which --max-problems may have cut.
  const errors = report.counts.errors + report.files.filter((file) => file.error !== undefined).length;
  return errors > 0 ? [`${heading(report)}: ${plural(errors, 'error')}`] : [];
}

/** The diagnostics in reading order (listingOrder.ts); the sort is stable, so file and position order stay within a rank. */
function inReadingOrder(report: RolloutReport): JsonDiagnostic[] {
  const ranked = report.diagnostics.map((diagnostic, index) => {
    const detail = report.details[index]!;
    return { diagnostic, rank: readingRank(detail.source === 'rules', detail.effect) };
  });
  return ranked.sort((a, b) => a.rank - b.rank).map(({ diagnostic }) => diagnostic);
}

function bundleLines(context: RunContext, report: RolloutReport): string[] {
  const { cwd } = context;
  const where = (file: string) => displayPath(cwd, absolutePathOf(cwd, report, file));
  const lines: string[] = report.cause === null ? [] : [`  ${report.cause}`];
  const findingLines: string[] = [];
  for (const file of report.files) {
    if (file.error !== undefined) findingLines.push(`  ${where(file.file)}: error cannot read the file: ${file.error}`);
  }
  for (const diagnostic of inReadingOrder(report)) {
    findingLines.push(
      `  ${where(diagnostic.file)}:${diagnostic.line}:${diagnostic.column}: ${diagnostic.severity} ${diagnostic.code} ${diagnostic.message}`,
    );
    for (const related of diagnostic.related)
      findingLines.push(`      related ${where(related.file)}:${related.line}:${related.column}: ${related.message}`);
  }
  for (const { file, omitted } of report.limited)
    findingLines.push(
      `  ${where(file)}: information problems-limited ${limitNotice(omitted, context.check.options.maxProblems, '--max-problems')}`,
    );
  return [...lines, ...(findingLines.length > 0 ? findingLines : ['  no problems'])];
}

function summaryLine({ totals, ioErrors }: RunEnd): string {
  const where = [
    plural(totals.rollouts, 'rollout'),
    ...(totals.looseFiles > 0 ? [plural(totals.looseFiles, 'loose file')] : []),
  ];
  const checked = `Checked ${plural(totals.files, 'file')} (${where.join(', ')})`;
  const counts = [
    plural(totals.error, 'error'),
    plural(totals.warning, 'warning'),
    `${totals.information} information`,
  ];
  if (totals.hint > 0) counts.push(plural(totals.hint, 'hint'));
  const unreadable = ioErrors.length > 0 ? `; ${plural(ioErrors.length, 'path')} could not be read` : '';
  const verdicts = Object.entries(totals.verdicts)
    .filter(([, count]) => count > 0)
    .map(([verdict, count]) => `${count} ${verdict}`);
  return `${checked}: ${counts.join(', ')}${unreadable}.${verdicts.length > 0 ? ` Verdicts: ${verdicts.join(', ')}.` : ''}`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
