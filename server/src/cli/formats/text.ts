/**
 * `path:line:column: severity code message`, grouped by rollout, then one summary line. Lines and
 * columns are 1-based so that terminals and editors can jump to them.
 */
import { limitNotice } from '../../engine/check/collector';
import type { Finding } from '../../engine/findings';
import { displayPath, type CheckRun } from '../checkRun';

export function formatText(run: CheckRun): string {
  const { cwd, maxProblems } = run.request;
  const out: string[] = [];
  for (const bundle of run.bundles) {
    out.push(bundle.loose ? `files in ${displayPath(cwd, bundle.root)}` : `rollout ${displayPath(cwd, bundle.root)}`);
    let clean = true;
    for (const file of bundle.files) {
      const path = displayPath(cwd, file.path);
      if (file.ioError !== undefined) {
        out.push(`  ${path}: error cannot read the file: ${file.ioError}`);
        clean = false;
        continue;
      }
      const report = file.report!;
      for (const finding of report.findings) {
        out.push(`  ${path}:${location(finding)}: ${finding.severity} ${finding.code} ${finding.message}`);
        for (const related of finding.related ?? []) {
          out.push(`      related ${displayPath(cwd, related.file)}:${related.range.start.line + 1}:${related.range.start.character + 1}: ${related.message}`);
        }
        clean = false;
      }
      if (report.omitted > 0) out.push(`  ${path}: information problems-limited ${limitNotice(report.omitted, maxProblems, '--max-problems')}`);
    }
    if (clean) out.push('  no problems');
  }
  out.push(summaryLine(run));
  return `${out.join('\n')}\n`;
}

function location(finding: Finding): string {
  return `${finding.range.start.line + 1}:${finding.range.start.character + 1}`;
}

function summaryLine(run: CheckRun): string {
  const { totals } = run;
  const where = [plural(totals.rollouts, 'rollout'), ...(totals.looseFiles > 0 ? [plural(totals.looseFiles, 'loose file')] : [])];
  const checked = `Checked ${plural(totals.files, 'file')} (${where.join(', ')})`;
  const counts = [plural(totals.error, 'error'), plural(totals.warning, 'warning'), `${totals.information} information`];
  if (totals.hint > 0) counts.push(plural(totals.hint, 'hint'));
  const unreadable = run.ioErrors.length > 0 ? `; ${plural(run.ioErrors.length, 'path')} could not be read` : '';
  return `${checked}: ${counts.join(', ')}${unreadable}.`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
