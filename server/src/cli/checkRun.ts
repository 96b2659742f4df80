/**
 * One run of `rollout-evidence check`: discover the bundles under the given paths, check each, and
 * total what was found. The formatters only present a finished run.
 */
import { relative, sep } from 'node:path';
import type { ArtifactKind } from '../../../shared/src/artifactKinds';
import { ArtifactClassifier } from '../engine/artifacts/classify';
import { checkBundle, type CheckedBundle } from '../engine/bundle/checkBundle';
import { discoverBundles } from '../engine/bundle/discover';
import { ArtifactChecker } from '../engine/check/artifactChecker';
import type { SeverityCounts } from '../engine/check/collector';
import type { ProgressLine } from './progress';

export interface CheckRequest {
  readonly paths: readonly string[];
  readonly maxProblems: number;
  readonly artifactMap: Readonly<Record<string, ArtifactKind>>;
  readonly cwd: string;
}

export interface Totals extends SeverityCounts {
  readonly rollouts: number;
  /** Artifact files checked outside any rollout. */
  readonly looseFiles: number;
  readonly files: number;
  readonly omitted: number;
}

export interface CheckRun {
  readonly request: CheckRequest;
  readonly bundles: readonly CheckedBundle[];
  /** Every path that exists but could not be read, as one-line messages. */
  readonly ioErrors: readonly string[];
  readonly totals: Totals;
}

export function runCheck(request: CheckRequest, progress: ProgressLine): CheckRun {
  const discovery = discoverBundles(request.paths, new ArtifactClassifier(request.artifactMap));
  const checker = new ArtifactChecker();
  const fileCount = discovery.bundles.reduce((sum, bundle) => sum + bundle.files.length, 0);
  let started = 0;
  const bundles = discovery.bundles.map((bundle) =>
    checkBundle(bundle, checker, {
      maxFindings: request.maxProblems,
      onFileStart: (path) => progress.update(`checking ${displayPath(request.cwd, path)} (file ${++started} of ${fileCount})`),
      onBytesRead: () => progress.tick(),
    }),
  );
  progress.clear();

  const ioErrors = [...discovery.ioErrors];
  const totals = { rollouts: 0, looseFiles: 0, files: 0, omitted: 0, error: 0, warning: 0, information: 0, hint: 0 };
  for (const bundle of bundles) {
    if (bundle.loose) totals.looseFiles += bundle.files.length;
    else totals.rollouts++;
    for (const file of bundle.files) {
      totals.files++;
      if (file.ioError !== undefined) ioErrors.push(`cannot read ${displayPath(request.cwd, file.path)}: ${file.ioError}`);
      if (!file.report) continue;
      totals.omitted += file.report.omitted;
      for (const severity of ['error', 'warning', 'information', 'hint'] as const) totals[severity] += file.report.counts[severity];
    }
  }
  return { request, bundles, ioErrors, totals };
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

export function exitStatusOf(run: CheckRun): ExitStatus {
  if (run.ioErrors.length > 0) return 2;
  return run.totals.error > 0 ? 1 : 0;
}
