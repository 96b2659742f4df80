/**
 * `path:line:column: severity code message`, grouped by rollout, then a summary line and one verdict
 * line per rollout. Lines and columns are 1-based so that terminals and editors can jump to them.
 */
import { limitNotice } from '../../engine/check/collector';
import type { TextPosition } from '../../engine/findings';
import { displayPath, type CheckRun } from '../checkRun';

export function formatText(run: CheckRun): string {
  const { cwd, maxProblems } = run.request;
  const out: string[] = [];
  const at = (position: TextPosition) => `${position.line + 1}:${position.character + 1}`;
  for (const bundle of run.bundles) {
    out.push(bundle.loose ? `files in ${displayPath(cwd, bundle.root)}` : `rollout ${displayPath(cwd, bundle.root)}`);
    const lines: string[] = [];
    const { findings, omitted } = bundle.listed;
    for (const file of bundle.files) {
      if (file.ioError !== undefined) lines.push(`  ${displayPath(cwd, file.path)}: error cannot read the file: ${file.ioError}`);
    }
    for (const [path, count] of omitted) lines.push(`  ${displayPath(cwd, path)}: information problems-limited ${limitNotice(count, maxProblems, '--max-problems')}`);
    for (const finding of findings) {
      lines.push(`  ${displayPath(cwd, finding.file)}:${at(finding.range.start)}: ${finding.severity} ${finding.code} ${finding.message}`);
      for (const related of finding.related ?? []) lines.push(`      related ${displayPath(cwd, related.file)}:${at(related.range.start)}: ${related.message}`);
    }
    out.push(...(lines.length > 0 ? lines : ['  no problems']));
  }
  out.push(summaryLine(run));
  for (const bundle of run.bundles) {
    if (bundle.evaluation) out.push(`verdict ${bundle.evaluation.verdict.padEnd(15)} ${displayPath(cwd, bundle.root)}`);
  }
  return `${out.join('\n')}\n`;
}

function summaryLine(run: CheckRun): string {
  const { totals } = run;
  const where = [plural(totals.rollouts, 'rollout'), ...(totals.looseFiles > 0 ? [plural(totals.looseFiles, 'loose file')] : [])];
  const checked = `Checked ${plural(totals.files, 'file')} (${where.join(', ')})`;
  const counts = [plural(totals.error, 'error'), plural(totals.warning, 'warning'), `${totals.information} information`];
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
