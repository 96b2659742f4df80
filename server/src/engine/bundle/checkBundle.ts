/**
 * Checks every artifact of a discovered bundle on its own, then, for a rollout, reads it as a whole:
 * the evidence rules and its verdict.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { verifierRewardFiles } from '../../../../shared/src/artifactKinds';
import type { ArtifactChecker, FileCheckOptions } from '../check/artifactChecker';
import { listFindings, type BundleFinding } from '../findings';
import type { RuleCaches, RuleOptions } from '../rules/context';
import { evaluateRollout, type RolloutEvaluation } from '../rules/evaluate';
import type { DiscoveredBundle } from './discover';
import { describeFileError } from './fileErrors';
import { RolloutBundle, type BundleFile, type VerifierFile } from './rollout';

export interface CheckedBundle {
  readonly root: string;
  readonly loose: boolean;
  readonly files: readonly BundleFile[];
  /** The rules and verdict of a rollout; absent for loose files. */
  readonly evaluation?: RolloutEvaluation;
}

export interface BundleCheckOptions extends FileCheckOptions {
  readonly rules: RuleOptions;
  readonly caches: RuleCaches;
  readonly onFileStart?: (path: string) => void;
}

export function checkBundle(bundle: DiscoveredBundle, checker: ArtifactChecker, options: BundleCheckOptions): CheckedBundle {
  const files = bundle.files.map((file): BundleFile => {
    options.onFileStart?.(file.path);
    try {
      return { ...file, report: checker.checkFile(file.path, file.kind, options) };
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

/** verifier/reward.txt and reward.json: small files the verifier writes; absent or unreadable is fine. */
export function readVerifierReward(root: string): { text?: VerifierFile; json?: VerifierFile } {
  const read = (name: string): VerifierFile | undefined => {
    const path = join(root, 'verifier', name);
    let descriptor: number | undefined;
    try {
      descriptor = openSync(path, 'r');
      const bytes = Buffer.alloc(rewardBytes);
      return { path, text: bytes.subarray(0, readSync(descriptor, bytes, 0, rewardBytes, 0)).toString('utf8') };
    } catch {
      return undefined;
    } finally {
      if (descriptor !== undefined) closeSync(descriptor);
    }
  };
  const text = read(verifierRewardFiles.text);
  const json = read(verifierRewardFiles.json);
  return { ...(text ? { text } : {}), ...(json ? { json } : {}) };
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
