/**
 * One run of `rollout-evidence check`: discover the bundles under the given paths, check each (files,
 * then the evidence rules and a verdict per rollout), and total what was found. The formatters only
 * present a finished run.
 */
import { relative, sep } from 'node:path';
import type { ArtifactKind } from '../../../shared/src/artifactKinds';
import { ArtifactClassifier } from '../engine/artifacts/classify';
import { checkBundle, listedFindings, type CheckedBundle, type ListedFindings } from '../engine/bundle/checkBundle';
import { discoverBundles } from '../engine/bundle/discover';
import { ArtifactChecker } from '../engine/check/artifactChecker';
import type { SeverityCounts } from '../engine/check/collector';
import { RuleCaches, type RuleOptions } from '../engine/rules/context';
import { verdicts, type Verdict } from '../engine/verdict';
import type { ProgressLine } from './progress';

export interface CheckRequest {
  readonly paths: readonly string[];
  readonly maxProblems: number;
  readonly artifactMap: Readonly<Record<string, ArtifactKind>>;
  readonly rules: RuleOptions;
  /** Which verdicts fail the run: `incomplete` and worse, or only `untrusted`. */
  readonly failOn: 'incomplete' | 'untrusted';
  readonly cwd: string;
}

export interface Totals extends SeverityCounts {
  readonly rollouts: number;
  /** Artifact files checked outside any rollout. */
  readonly looseFiles: number;
  readonly files: number;
  readonly omitted: number;
  readonly verdicts: Readonly<Record<Verdict, number>>;
}

export interface ListedBundle extends CheckedBundle {
  /** Its findings as every format lists them under --max-problems, and what each file leaves out. */
  readonly listed: ListedFindings;
}

export interface CheckRun {
  readonly request: CheckRequest;
  readonly bundles: readonly ListedBundle[];
  /** Every path that exists but could not be read, as one-line messages. */
  readonly ioErrors: readonly string[];
  readonly totals: Totals;
}

export function runCheck(request: CheckRequest, progress: ProgressLine): CheckRun {
  const discovery = discoverBundles(request.paths, new ArtifactClassifier(request.artifactMap));
  const checker = new ArtifactChecker();
  const caches = new RuleCaches();
  const fileCount = discovery.bundles.reduce((sum, bundle) => sum + bundle.files.length, 0);
  let started = 0;
  const bundles = discovery.bundles.map((bundle): ListedBundle => {
    const checked = checkBundle(bundle, checker, {
      maxFindings: request.maxProblems,
      rules: request.rules,
      caches,
      onFileStart: (path) => progress.update(`checking ${displayPath(request.cwd, path)} (file ${++started} of ${fileCount})`),
      onBytesRead: () => progress.tick(),
    });
    return { ...checked, listed: listedFindings(checked, request.maxProblems) };
  });
  progress.clear();

  const ioErrors = [...discovery.ioErrors];
  const counts = { error: 0, warning: 0, information: 0, hint: 0 };
  const verdictCounts = Object.fromEntries(verdicts.map((verdict) => [verdict, 0])) as Record<Verdict, number>;
  let rollouts = 0;
  let looseFiles = 0;
  let omitted = 0;
  for (const bundle of bundles) {
    for (const count of bundle.listed.omitted.values()) omitted += count;
    if (bundle.loose) looseFiles += bundle.files.length;
    else rollouts++;
    if (bundle.evaluation) {
      verdictCounts[bundle.evaluation.verdict]++;
      for (const finding of bundle.evaluation.findings) counts[finding.severity]++;
    }
    for (const file of bundle.files) {
      if (file.ioError !== undefined) ioErrors.push(`cannot read ${displayPath(request.cwd, file.path)}: ${file.ioError}`);
      if (!file.report) continue;
      for (const severity of ['error', 'warning', 'information', 'hint'] as const) counts[severity] += file.report.counts[severity];
    }
  }
  return { request, bundles, ioErrors, totals: { ...counts, rollouts, looseFiles, files: fileCount, omitted, verdicts: verdictCounts } };
}

/** A path as a person in the terminal wants it: relative to where they stand, with forward slashes. */
export function displayPath(cwd: string, path: string): string {
  const relativePath = relative(cwd, path);
  if (relativePath === '') return '.';
  if (relativePath.startsWith('..')) return path.split(sep).join('/');
  return relativePath.split(sep).join('/');
}

/** A file's path inside its bundle, with forward slashes. */
export function pathInBundle(bundle: CheckedBundle, path: string): string {
  return relative(bundle.root, path).split(sep).join('/');
}

export type ExitStatus = 0 | 1 | 2;

/** 2 when something could not be read; 1 when a rollout's verdict fails the run or a loose file has errors. */
export function exitStatusOf(run: CheckRun): ExitStatus {
  if (run.ioErrors.length > 0) return 2;
  const failing: readonly Verdict[] = run.request.failOn === 'untrusted' ? ['untrusted'] : ['untrusted', 'incomplete'];
  const rolloutFails = run.bundles.some((bundle) => bundle.evaluation && failing.includes(bundle.evaluation.verdict));
  const looseErrors = run.bundles.some((bundle) => bundle.loose && bundle.files.some((file) => (file.report?.counts.error ?? 0) > 0));
  return rolloutFails || looseErrors ? 1 : 0;
}
