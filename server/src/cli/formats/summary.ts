/**
 * `--format summary`: the experiment summary as GitHub-flavoured Markdown, for `$GITHUB_STEP_SUMMARY` and
 * for a terminal, with nothing of the per-rollout listing. When the run could not read everything, or
 * could not run at all, the document says so first, so a CI step that appends it never appends nothing.
 * Written at the end of the run, from the counts the run's tally kept (report/runTally.ts).
 */
import { markdownText, summaryMarkdown } from '../../engine/experiment/summary';
import { printableLines } from '../../engine/text/printable';
import type { CheckFailure } from '../report/run';
import type { Output, ReportWriter, RunContext, RunEnd } from '../report/reportWriter';

export function summaryWriter(_context: RunContext, write: Output): ReportWriter {
  return {
    rollout() {},
    end(end) {
      // The summary makes its bundle text printable already; this holds for anything added to it later.
      write(printableLines(summaryDocument(end)));
    },
  };
}

function summaryDocument(end: RunEnd): string {
  const summary = summaryMarkdown(end.experiment);
  if (!end.failure) return summary;
  const [heading, ...rest] = summary.split('\n');
  return [heading, '', failureLine(end.failure), ...rest].join('\n');
}

export function formatSummaryFailure(failure: CheckFailure): string {
  return printableLines(`## Experiment summary\n\n${failureLine(failure)}\n`);
}

function failureLine(failure: CheckFailure): string {
  return `> **The check ${failure.kind === 'unreadable' ? 'did not read everything' : 'could not run'}** (${failure.kind}): ${markdownText(failure.message)}`;
}
