/**
 * Checks every artifact of a discovered bundle on its own, from disk, then, for a rollout loaded as
 * load.ts loads every rollout, reads it as a whole: the evidence rules and its verdict.
 */
import type { ArtifactChecker, FileCheckOptions } from './check/artifactChecker';
import { fileFinding, listFindings, type BundleFinding } from './findings';
import type { RuleOptions } from './rules/context';
import type { ModelCaches } from './model/caches';
import { evaluateRollout, type RolloutEvaluation } from './rules/evaluate';
import { diskSource, loadRollout, prepareLoad, type FileRead } from './load';
import type { ArtifactFile, DiscoveredBundle } from './bundle/discover';
import { boundaryOf } from './io/containment';
import { describeFileError } from './bundle/fileErrors';
import type { BundleFile } from './bundle/rollout';
import { compareNames } from '../../../shared/src/order';

export interface CheckedBundle {
  readonly root: string;
  /** The real path of `root`, which the files were read inside (containment.ts `boundaryOf`). */
  readonly boundary?: string;
  readonly loose: boolean;
  readonly files: readonly BundleFile[];
  /** The rules and verdict of a rollout; absent for loose files. */
  readonly evaluation?: RolloutEvaluation;
}

export interface BundleCheckOptions extends FileCheckOptions {
  readonly rules: RuleOptions;
  readonly caches: ModelCaches;
  readonly onFileStart?: (path: string) => void;
}

export function checkBundle(
  bundle: DiscoveredBundle,
  checker: ArtifactChecker,
  options: BundleCheckOptions,
): CheckedBundle {
  // Loose files too stay inside the folder that holds them.
  const boundary = bundle.boundary ?? boundaryOf(bundle.root);
  const read = (file: ArtifactFile): FileRead => {
    options.onFileStart?.(file.path);
    try {
      return { report: checker.checkFile(file.path, file.kind, { ...options, boundary }) };
    } catch (error) {
      return { ioError: describeFileError(error) };
    }
  };
  if (bundle.loose)
    return {
      root: bundle.root,
      boundary,
      loose: true,
      files: bundle.files.map((file) => ({ ...file, ...read(file) })),
    };
  const rollout = loadRollout(
    prepareLoad(bundle.root, bundle.files, diskSource, { boundary, listing: bundle.listing }),
    read,
  );
  return {
    root: bundle.root,
    boundary,
    loose: false,
    files: rollout.files,
    evaluation: evaluateRollout(rollout, options.rules, options.caches),
  };
}

export interface ListedFindings {
  /** Per-file and rule findings together, by file and then position, at most the maximum per file. */
  readonly findings: readonly BundleFinding[];
  /** By file: findings found but not listed. */
  readonly omitted: ReadonlyMap<string, number>;
}

export function listedFindings(bundle: CheckedBundle, maxFindings: number): ListedFindings {
  const rulesByFile = new Map<string, BundleFinding[]>();
  for (const finding of bundle.evaluation?.findings ?? []) {
    const found = rulesByFile.get(finding.file);
    if (found) found.push(finding);
    else rulesByFile.set(finding.file, [finding]);
  }
  const findings: BundleFinding[] = [];
  const omitted = new Map<string, number>();
  const paths = [...new Set([...bundle.files.map((file) => file.path), ...rulesByFile.keys()])].sort((a, b) =>
    compareNames(a, b),
  );
  for (const path of paths) {
    const report = bundle.files.find((file) => file.path === path)?.report;
    const own = (report?.findings ?? []).map((finding) => fileFinding(finding, path));
    const listed = listFindings(own, report?.omitted ?? 0, rulesByFile.get(path) ?? [], maxFindings);
    findings.push(...listed.listed);
    if (listed.omitted > 0) omitted.set(path, listed.omitted);
  }
  return { findings, omitted };
}
