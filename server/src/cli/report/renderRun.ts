/** A finished run held in memory (`runCheck`), written by a format as one string. */
import { contextOf, type WriterFactory } from './reportWriter';
import { rolloutReport } from './rolloutReport';
import type { CheckRun } from './run';
import { RunTally } from './runTally';

export function renderRun(run: CheckRun, writer: WriterFactory, quiet = false): string {
  const context = contextOf(run.request, run.unreadableFolders, { quiet });
  const out: string[] = [];
  const format = writer(context, (text) => out.push(text));
  const tally = new RunTally(context);
  for (const bundle of run.bundles) {
    const report = rolloutReport(bundle, context.cwd, { fingerprints: true });
    tally.add(report);
    format.rollout(report);
  }
  format.end(tally.end());
  return out.join('');
}
