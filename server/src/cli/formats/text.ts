/**
 * Per rollout a heading, `verdict <verdict> <root>`, and the cause of that verdict in one line, then its
 * findings as `path:line:column: severity code message` (related evidence indented below), ordered by
 * what they do to the verdict with the files' own problems last; the experiment summary (for more than
 * one rollout) and the totals come at the end. Lines and columns are 1-based so that terminals and
 * editors can jump to them. `quiet` keeps only the headings.
 */
import { limitNotice } from '../../engine/check/collector';
import { summaryText } from '../../engine/experiment/summary';
import type { TextPosition } from '../../engine/findings';
import { displayPath, type CheckRun, type ListedBundle } from '../checkRun';
import { inReadingOrder } from '../listingOrder';
import { verdictCause } from '../verdictCause';

export interface TextOptions {
  /** Only each rollout's verdict line (and a loose folder's heading when it has errors). */
  readonly quiet?: boolean;
}

export function formatText(run: CheckRun, { quiet = false }: TextOptions = {}): string {
  const out: string[] = [];
  for (const bundle of run.bundles) {
    if (quiet) out.push(...headingWhenQuiet(run, bundle));
    else out.push(heading(run, bundle), ...bundleLines(run, bundle));
  }
  if (!quiet) {
    // One rollout's summary would repeat its verdict; the totals stay the last line, for a CI step that reads it.
    if (run.totals.rollouts > 1) out.push(summaryText(run.experiment).trimEnd());
    out.push(summaryLine(run));
  }
  return out.length > 0 ? `${out.join('\n')}\n` : '';
}

function heading(run: CheckRun, bundle: ListedBundle): string {
  const root = displayPath(run.request.cwd, bundle.root);
  return bundle.evaluation ? `verdict ${bundle.evaluation.verdict.padEnd(15)} ${root}` : `files in ${root}`;
}

function headingWhenQuiet(run: CheckRun, bundle: ListedBundle): string[] {
  if (bundle.evaluation) return [heading(run, bundle)];
  // Counted from the files' reports, not the listing, which --max-problems may have cut.
  const errors =
    bundle.files.reduce((sum, file) => sum + (file.report?.counts.error ?? (file.ioError !== undefined ? 1 : 0)), 0) +
    bundle.listed.findings.filter((finding) => finding.code === 'internal-error').length;
  return errors > 0 ? [`${heading(run, bundle)}: ${plural(errors, 'error')}`] : [];
}

function bundleLines(run: CheckRun, bundle: ListedBundle): string[] {
  const { cwd, maxProblems } = run.request;
  const at = (position: TextPosition) => `${position.line + 1}:${position.character + 1}`;
  const cause = verdictCause(bundle);
  const lines: string[] = cause === undefined ? [] : [`  ${cause}`];
  const findingLines: string[] = [];
  for (const file of bundle.files) {
    if (file.ioError !== undefined)
      findingLines.push(`  ${displayPath(cwd, file.path)}: error cannot read the file: ${file.ioError}`);
  }
  for (const finding of inReadingOrder(bundle)) {
    findingLines.push(
      `  ${displayPath(cwd, finding.file)}:${at(finding.range.start)}: ${finding.severity} ${finding.code} ${finding.message}`,
    );
    for (const related of finding.related ?? [])
      findingLines.push(
        `      related ${displayPath(cwd, related.file)}:${at(related.range.start)}: ${related.message}`,
      );
  }
  for (const [path, count] of bundle.listed.omitted)
    findingLines.push(
      `  ${displayPath(cwd, path)}: information problems-limited ${limitNotice(count, maxProblems, '--max-problems')}`,
    );
  return [...lines, ...(findingLines.length > 0 ? findingLines : ['  no problems'])];
}

function summaryLine(run: CheckRun): string {
  const { totals } = run;
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
  const unreadable = run.ioErrors.length > 0 ? `; ${plural(run.ioErrors.length, 'path')} could not be read` : '';
  const verdicts = Object.entries(totals.verdicts)
    .filter(([, count]) => count > 0)
    .map(([verdict, count]) => `${count} ${verdict}`);
  return `${checked}: ${counts.join(', ')}${unreadable}.${verdicts.length > 0 ? ` Verdicts: ${verdicts.join(', ')}.` : ''}`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
