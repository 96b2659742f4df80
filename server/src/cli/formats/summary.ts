/**
 * `--format summary`: the experiment summary as GitHub-flavoured Markdown, for `$GITHUB_STEP_SUMMARY` and
 * for a terminal, with nothing of the per-rollout listing. When the run could not read everything, or
 * could not run at all, the document says so first, so a CI step that appends it never appends nothing.
 */
import { markdownText, summaryMarkdown } from '../../engine/experiment/summary';
import { runFailure, type CheckFailure, type CheckRun } from '../checkRun';

export function formatSummary(run: CheckRun): string {
  const failure = runFailure(run);
  const summary = summaryMarkdown(run.experiment);
  if (!failure) return summary;
  const [heading, ...rest] = summary.split('\n');
  return [heading, '', failureLine(failure), ...rest].join('\n');
}

export function formatSummaryFailure(failure: CheckFailure): string {
  return `## Experiment summary\n\n${failureLine(failure)}\n`;
}

function failureLine(failure: CheckFailure): string {
  return `> **The check ${failure.kind === 'unreadable' ? 'did not read everything' : 'could not run'}** (${failure.kind}): ${markdownText(failure.message)}`;
}
