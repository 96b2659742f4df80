/**
 * Checks every artifact of a discovered bundle on its own, then, for a rollout, reads it as a whole:
 * the evidence rules and its verdict.
 */
import { join } from 'node:path';
import { rolloutFiles } from '../../../../shared/src/layout';
import type { ArtifactChecker, FileCheckOptions } from '../check/artifactChecker';
import { listFindings, type BundleFinding } from '../findings';
import type { RuleOptions } from '../rules/context';
import type { ModelCaches } from '../model/caches';
import { evaluateRollout, type RolloutEvaluation } from '../rules/evaluate';
import type { DiscoveredBundle } from './discover';
import { boundaryOf, readInside, readPrefix } from './containment';
import { describeFileError } from './fileErrors';
import { RolloutBundle, type BundleFile, type VerifierFile, type VerifierReward } from './rollout';

export interface CheckedBundle {
  readonly root: string;
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

export function checkBundle(bundle: DiscoveredBundle, checker: ArtifactChecker, options: BundleCheckOptions): CheckedBundle {
  // Loose files too stay inside the folder that holds them.
  const boundary = boundaryOf(bundle.root);
  const files = bundle.files.map((file): BundleFile => {
    options.onFileStart?.(file.path);
    try {
      return { ...file, report: checker.checkFile(file.path, file.kind, { ...options, boundary }) };
    } catch (error) {
      return { ...file, ioError: describeFileError(error) };
    }
  });
  if (bundle.loose) return { root: bundle.root, loose: true, files };
  const rollout = new RolloutBundle(bundle.root, files, readVerifierReward(bundle.root));
  return { root: bundle.root, loose: false, files, evaluation: evaluateRollout(rollout, options.rules, options.caches) };
}

/** Read of verifier/reward.*: a reward is a number, and the file may be anything. */
const rewardBytes = 4096;

/**
 * The verifier's reward files: small files the verifier writes; absent or unreadable is fine,
 * one that resolves outside the rollout is listed as such and not read.
 */
export function readVerifierReward(root: string): VerifierReward {
  const boundary = boundaryOf(root);
  const outside: string[] = [];
  const read = (relativePath: string): VerifierFile | undefined => {
    const path = join(root, relativePath);
    try {
      const text = readInside(path, boundary, (file) => readPrefix(file, rewardBytes));
      if (typeof text === 'string') return { path, text };
      outside.push(path);
    } catch {
      // Absent or unreadable: no reward from this file.
    }
    return undefined;
  };
  const text = read(rolloutFiles.rewardText);
  const json = read(rolloutFiles.rewardJson);
  return { ...(text ? { text } : {}), ...(json ? { json } : {}), ...(outside.length > 0 ? { outside } : {}) };
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
  const paths = [...new Set([...bundle.files.map((file) => file.path), ...rulesByFile.keys()])].sort((a, b) => a.localeCompare(b));
  for (const path of paths) {
    const report = bundle.files.find((file) => file.path === path)?.report;
    const own = (report?.findings ?? []).map((finding) => ({ ...finding, file: path }));
    const listed = listFindings(own, report?.omitted ?? 0, rulesByFile.get(path) ?? [], maxFindings);
    findings.push(...listed.listed);
    if (listed.omitted > 0) omitted.set(path, listed.omitted);
  }
  return { findings, omitted };
}
