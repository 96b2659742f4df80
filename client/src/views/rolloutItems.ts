/**
 * The Rollouts view's nodes (jobs → rollouts → files) and how each looks: verdict icons, problem counts,
 * tooltips, and the order and filter the user chose.
 */
import { basename, relative, sep } from 'node:path';
import * as vscode from 'vscode';
import {
  rolloutVerdicts,
  type JobSummary,
  type ProblemCounts,
  type RolloutFileSummary,
  type RolloutSummary,
  type RolloutVerdict,
} from '../../../shared/src/rollouts';
import type { ViewOptions } from './viewOptions';
import { compareNames } from '../../../shared/src/order';

export interface JobNode {
  readonly type: 'job';
  readonly job: JobSummary;
  /** Its rollouts that pass the filter, in the chosen order. */
  readonly rollouts: readonly RolloutEntry[];
}

/**
 * A rollout's tree element is its folder's Uri, so a command in its context menu gets the folder as its
 * argument (the timeline takes it); this is what the view knows about it.
 */
export interface RolloutEntry {
  readonly uri: vscode.Uri;
  readonly rollout: RolloutSummary;
  readonly parent: JobNode;
}

export interface FileNode {
  readonly type: 'file';
  readonly file: RolloutFileSummary;
  readonly parent: RolloutEntry;
}

export type RolloutsNode = JobNode | vscode.Uri | FileNode;

/** The jobs with the rollouts the filter shows, in the chosen order; jobs left empty by the filter are dropped. */
export function arrangeJobs(jobs: readonly JobSummary[], options: ViewOptions): JobNode[] {
  const shown = new Set(options.verdicts);
  const arranged = jobs.map((job) => {
    const node: { type: 'job'; job: JobSummary; rollouts: RolloutEntry[] } = { type: 'job', job, rollouts: [] };
    node.rollouts = job.rollouts
      .filter((rollout) => shown.has(rollout.verdict))
      .sort(compareRollouts(options))
      .map((rollout) => ({ uri: vscode.Uri.file(rollout.root), rollout, parent: node }));
    return node;
  });
  return arranged.filter((job) => job.rollouts.length > 0).sort(compareJobs(options));
}

function compareRollouts(options: ViewOptions): (a: RolloutSummary, b: RolloutSummary) => number {
  const byName = (a: RolloutSummary, b: RolloutSummary) => compareNames(a.root, b.root);
  if (options.sort === 'name') return byName;
  if (options.sort === 'newest') return (a, b) => b.lastWrittenMs - a.lastWrittenMs || byName(a, b);
  return (a, b) => severityRank(a.verdict) - severityRank(b.verdict) || byName(a, b);
}

function compareJobs(options: ViewOptions): (a: JobNode, b: JobNode) => number {
  const byName = (a: JobNode, b: JobNode) => compareNames(a.job.folder, b.job.folder);
  if (options.sort === 'name') return byName;
  if (options.sort === 'newest') return (a, b) => lastWritten(b) - lastWritten(a) || byName(a, b);
  return (a, b) => worstRank(a) - worstRank(b) || byName(a, b);
}

function severityRank(verdict: RolloutVerdict): number {
  return rolloutVerdicts.indexOf(verdict);
}

function worstRank(job: JobNode): number {
  return Math.min(...job.rollouts.map((node) => severityRank(node.rollout.verdict)));
}

function lastWritten(job: JobNode): number {
  return Math.max(...job.rollouts.map((node) => node.rollout.lastWrittenMs));
}

const verdictIcons: Readonly<Record<RolloutVerdict, vscode.ThemeIcon>> = {
  untrusted: new vscode.ThemeIcon('error', new vscode.ThemeColor('problemsErrorIcon.foreground')),
  incomplete: new vscode.ThemeIcon('warning', new vscode.ThemeColor('problemsWarningIcon.foreground')),
  'trusted-timeout': new vscode.ThemeIcon('watch', new vscode.ThemeColor('problemsInfoIcon.foreground')),
  trusted: new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed')),
};

const verdictMeanings: Readonly<Record<RolloutVerdict, string>> = {
  untrusted: 'the bundle’s own evidence shows a failed or unchecked precondition of its reward',
  incomplete: 'evidence is missing, malformed or not final',
  'trusted-timeout': 'an accepted native ACP timeout: countable, not a success, never training-ready',
  trusted: 'nothing found against it',
};

/**
 * A job's verdict counts, of the rollouts its node shows: they always add up to its children, so with a
 * verdict filter on they are the filtered counts, and the tooltip says so.
 */
export function jobItem(node: JobNode, filtered: boolean): vscode.TreeItem {
  const item = new vscode.TreeItem(basename(node.job.folder), vscode.TreeItemCollapsibleState.Expanded);
  item.id = `job:${node.job.folder}`;
  item.iconPath = new vscode.ThemeIcon('folder-library');
  const counts = verdictCountsOf(node.rollouts.map((entry) => entry.rollout));
  const nonZero = rolloutVerdicts.filter((verdict) => counts[verdict] > 0);
  item.description = [
    plural(node.rollouts.length, 'rollout'),
    ...nonZero.map((verdict) => `${counts[verdict]} ${verdict}`),
  ].join(' · ');
  const hidden = node.job.rollouts.length - node.rollouts.length;
  const of = filtered
    ? `Counts of the ${plural(node.rollouts.length, 'rollout')} the verdict filter shows (${hidden} of the job’s ${node.job.rollouts.length} hidden):`
    : `Counts of all ${plural(node.rollouts.length, 'rollout')} of the job:`;
  const countable = counts.trusted + counts['trusted-timeout'];
  item.tooltip = [
    node.job.folder,
    of,
    ...rolloutVerdicts.map((verdict) => `  ${verdict}: ${counts[verdict]}`),
    `Countable (trusted or trusted-timeout): ${countable} of ${node.rollouts.length}`,
  ].join('\n');
  item.contextValue = 'job';
  return item;
}

function verdictCountsOf(rollouts: readonly RolloutSummary[]): Record<RolloutVerdict, number> {
  const counts: Record<RolloutVerdict, number> = { untrusted: 0, incomplete: 0, 'trusted-timeout': 0, trusted: 0 };
  for (const rollout of rollouts) counts[rollout.verdict]++;
  return counts;
}

export function rolloutItem(rollout: RolloutSummary): vscode.TreeItem {
  const item = new vscode.TreeItem(basename(rollout.root), vscode.TreeItemCollapsibleState.Collapsed);
  item.id = `rollout:${rollout.root}`;
  item.iconPath = verdictIcons[rollout.verdict];
  item.description = describeCounts(rollout.problems);
  const tooltip = new vscode.MarkdownString();
  tooltip.appendMarkdown(`**${rollout.verdict}**: ${verdictMeanings[rollout.verdict]}.\n\n`);
  tooltip.appendMarkdown(
    `${describeCountsInFull(rollout.problems)}${rollout.trainingReady ? ' · training-ready' : ''}\n\n`,
  );
  tooltip.appendText(rollout.root);
  item.tooltip = tooltip;
  item.contextValue = 'rollout';
  return item;
}

export function fileItem(file: RolloutFileSummary, rollout: RolloutSummary): vscode.TreeItem {
  const uri = vscode.Uri.file(file.path);
  const item = new vscode.TreeItem(uri, vscode.TreeItemCollapsibleState.None);
  item.id = `file:${file.path}`;
  item.label = relative(rollout.root, file.path).split(sep).join('/');
  const notes = [
    ...(file.exists ? [] : ['missing']),
    ...(file.ioError !== undefined ? [`unreadable: ${file.ioError}`] : []),
    ...(file.tooLargeForEditor ? ['over 50 MB: checked from disk'] : []),
  ];
  item.description = [describeCounts(file.problems), ...notes].filter((part) => part !== '').join(' · ');
  item.tooltip = `${file.path}\n${describeCountsInFull(file.problems)}${file.kind ? ` · ${file.kind}` : ''}${notes.length > 0 ? `\n${notes.join('; ')}` : ''}`;
  item.contextValue = file.exists ? 'rolloutFile' : 'missingRolloutFile';
  if (!file.exists) item.iconPath = new vscode.ThemeIcon('circle-slash');
  else item.command = { title: 'Open', command: 'vscode.open', arguments: [uri] };
  return item;
}

/** Short, for a description: "2 errors, 1 warning"; empty when there are none. */
export function describeCounts(counts: ProblemCounts): string {
  const parts = [
    counts.error > 0 ? plural(counts.error, 'error') : '',
    counts.warning > 0 ? plural(counts.warning, 'warning') : '',
    counts.information + counts.hint > 0 ? `${counts.information + counts.hint} info` : '',
  ];
  return parts.filter((part) => part !== '').join(', ');
}

function describeCountsInFull(counts: ProblemCounts): string {
  return describeCounts(counts) || 'no problems';
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
