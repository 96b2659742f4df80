/**
 * Checks every artifact of a discovered bundle on its own, then, for a rollout, reads it as a whole:
 * the evidence rules and its verdict.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ArtifactChecker, FileCheckOptions } from '../check/artifactChecker';
import { comparePositions, type BundleFinding } from '../findings';
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

/** verifier/reward.txt and reward.json: small files the verifier writes; absent or unreadable is fine. */
export function readVerifierReward(root: string): { text?: VerifierFile; json?: VerifierFile } {
  const read = (name: string): VerifierFile | undefined => {
    const path = join(root, 'verifier', name);
    try {
      return { path, text: readFileSync(path, 'utf8').slice(0, 4096) };
    } catch {
      return undefined;
    }
  };
  const text = read('reward.txt');
  const json = read('reward.json');
  return { ...(text ? { text } : {}), ...(json ? { json } : {}) };
}

/** Everything found in a bundle, per-file and rule findings together, by file and then position. */
export function diagnosticsOf(bundle: CheckedBundle): BundleFinding[] {
  const perFile = bundle.files.flatMap((file) => (file.report?.findings ?? []).map((finding) => ({ ...finding, file: file.path })));
  return [...perFile, ...(bundle.evaluation?.findings ?? [])].sort((a, b) => a.file.localeCompare(b.file) || comparePositions(a.range.start, b.range.start));
}
