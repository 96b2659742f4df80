/**
 * One run of `rollout-evidence check` as the report and the formats see it: what was asked, each
 * rollout's listed findings, the totals and how the run ended. Below both the run (`checkRun.ts`) and
 * the report, so that neither imports the other's module to name them.
 */
import { relative, sep } from 'node:path';
import type { ArtifactKind } from '../../../../shared/src/layout';
import type { CheckedBundle, ListedFindings } from '../../engine/checkRollout';
import type { SeverityCounts } from '../../engine/findings';
import type { RuleOptions } from '../../engine/rules/context';
import type { RolloutEvaluation } from '../../engine/rules/evaluate';
import type { Verdict } from '../../engine/verdict';
import type { ExperimentSummary } from '../../engine/experiment/summary';

export interface CheckRequest {
  readonly paths: readonly string[];
  readonly maxProblems: number;
  readonly artifactMap: Readonly<Record<string, ArtifactKind>>;
  /** The rule options but one: whether a rollout is a fixture, decided per rollout from `fixtureFolders` and the scaffold's marker. */
  readonly rules: Omit<RuleOptions, 'fixtureBundle'>;
  /** Globs of the folders holding fixture bundles (--fixture-folders). */
  readonly fixtureFolders: readonly string[];
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

/** What the formats read of a rollout's evaluation: also all there is of one the checker failed on. */
export type RolloutOutcome = Pick<RolloutEvaluation, 'findings' | 'verdict' | 'trainingReady'> &
  Partial<Pick<RolloutEvaluation, 'timeout' | 'model'>>;

export interface ListedBundle extends Omit<CheckedBundle, 'evaluation'> {
  readonly evaluation?: RolloutOutcome;
  /** Its findings as every format lists them under --max-problems, and what each file leaves out. */
  readonly listed: ListedFindings;
}

export interface CheckRun {
  readonly request: CheckRequest;
  readonly bundles: readonly ListedBundle[];
  /** Folders discovery could not read. */
  readonly unreadableFolders: readonly string[];
  /** Every path that exists but could not be read, as one-line messages: the folders, then the files. */
  readonly ioErrors: readonly string[];
  readonly totals: Totals;
  readonly failure: CheckFailure | undefined;
  readonly exitStatus: ExitStatus;
  /** The experiment summary over every rollout checked. */
  readonly experiment: ExperimentSummary;
}

/** A file's path inside its bundle, with forward slashes. */
export function pathInBundle(bundle: { readonly root: string }, path: string): string {
  return relative(bundle.root, path).split(sep).join('/');
}

export type ExitStatus = 0 | 1 | 2;

/** Why a check could not run, or not in full: what the JSON and SARIF documents say when the exit status is 2. */
export interface CheckFailure {
  /** `usage`: bad arguments; `nothing-to-check`: no rollout or artifact found; `unreadable`: paths that exist could not be read (the rest was checked); `checker-failed`: the checker failed on every bundle. */
  readonly kind: 'usage' | 'nothing-to-check' | 'unreadable' | 'checker-failed';
  readonly message: string;
}
