/**
 * One run of `rollout-evidence check`: discover the bundles under the given paths, check each (files,
 * then the evidence rules and a verdict per rollout), and total what was found. `runCheck` keeps the
 * whole run in memory (for tests and callers that want the findings themselves); the CLI streams it
 * (`pipeline/streamCheck.ts`) with the same per-bundle check, `BundleCheckSession`.
 */
import { relative, sep } from 'node:path';
import type { ArtifactKind } from '../../../shared/src/layout';
import { ArtifactClassifier } from '../engine/artifacts/classify';
import { checkBundle, listedFindings, type CheckedBundle, type ListedFindings } from '../engine/bundle/checkBundle';
import { discoverBundles, type DiscoveredBundle } from '../engine/bundle/discover';
import { RolloutBundle } from '../engine/bundle/rollout';
import { codeInfo } from '../engine/codes';
import { rangeOnLine, type BundleFinding } from '../engine/findings';
import { ArtifactChecker } from '../engine/check/artifactChecker';
import type { SeverityCounts } from '../engine/check/collector';
import type { RuleOptions } from '../engine/rules/context';
import { ModelCaches } from '../engine/model/caches';
import type { RolloutEvaluation } from '../engine/rules/evaluate';
import type { Verdict } from '../engine/verdict';
import type { ExperimentSummary } from '../engine/experiment/summary';
import { contextOf } from './report/reportWriter';
import { rolloutReport } from './report/rolloutReport';
import { RunTally } from './report/runTally';
import { FixtureFolders, isFixtureBundle } from '../authoring/fixtureBundles';
import type { ProgressLine } from './progress';
import { displayPath } from '../../../shared/src/paths';

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

/** How a bundle is checked; a test gives one that fails, to show that the failure stays in its rollout. */
export type BundleChecker = typeof checkBundle;

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

export function runCheck(request: CheckRequest, progress: ProgressLine, check: BundleChecker = checkBundle): CheckRun {
  const discovery = discoverBundles(request.paths, new ArtifactClassifier(request.artifactMap));
  const checker = new BundleCheckSession(request, check);
  const rolloutCount = discovery.bundles.filter((bundle) => !bundle.loose).length;
  let rolloutsDone = 0;
  progress.rollouts(0, rolloutCount);
  const bundles = discovery.bundles.map((bundle) => {
    const listed = checker.check(bundle, {
      onFileStart: (path) => progress.update(`checking ${displayPath(request.cwd, path)}`),
      onBytesRead: () => progress.tick(),
    });
    if (!bundle.loose) progress.rollouts(++rolloutsDone, rolloutCount);
    return listed;
  });
  progress.clear();
  const run = { request, bundles, unreadableFolders: discovery.ioErrors };
  const tally = new RunTally(contextOf(request, discovery.ioErrors));
  for (const bundle of bundles) tally.add(rolloutReport(bundle, request.cwd, { fingerprints: false }));
  const { ioErrors, totals, failure, exitStatus, experiment } = tally.end();
  return { ...run, ioErrors, totals, failure, exitStatus, experiment };
}

/** What checking a bundle reports on the way: for a progress line. */
export interface CheckObserver {
  readonly onFileStart?: (path: string) => void;
  readonly onBytesRead?: () => void;
}

/** Checks bundles one after the other with one checker and one set of caches (one per thread). */
export class BundleCheckSession {
  private readonly checker = new ArtifactChecker();
  private readonly caches = new ModelCaches();
  private readonly fixtureFolders: FixtureFolders;

  constructor(
    private readonly request: Pick<CheckRequest, 'maxProblems' | 'rules' | 'fixtureFolders'>,
    private readonly checkWith: BundleChecker = checkBundle,
  ) {
    this.fixtureFolders = new FixtureFolders(request.fixtureFolders);
  }

  check(bundle: DiscoveredBundle, observer: CheckObserver = {}): ListedBundle {
    const { maxProblems, rules } = this.request;
    // The error boundary of one bundle: whatever goes wrong in checking it, the others are reported in full.
    try {
      const checked = this.checkWith(bundle, this.checker, {
        maxFindings: maxProblems,
        rules: {
          ...rules,
          fixtureBundle: !bundle.loose && isFixtureBundle(bundle.root, this.fixtureFolders, bundle.listing),
        },
        caches: this.caches,
        ...observer,
      });
      return { ...checked, listed: listedFindings(checked, maxProblems) };
    } catch (error) {
      return failedBundle(bundle, error);
    }
  }
}

/**
 * A bundle the checker failed on: its files listed unchecked and, for a rollout, one internal-error
 * finding and an incomplete verdict; loose files get the finding without a verdict.
 */
export function failedBundle(bundle: DiscoveredBundle, error: unknown): ListedBundle {
  const files = bundle.files.map((file) => ({ path: file.path, kind: file.kind }));
  const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const place = bundle.loose ? (files[0]?.path ?? bundle.root) : new RolloutBundle(bundle.root, files).pathOf('result');
  const finding: BundleFinding = {
    code: 'internal-error',
    severity: codeInfo('internal-error').severity,
    message: `The checker failed on this ${bundle.loose ? 'folder' : 'rollout'} (${reason}), so its files' own problems and the rules' findings are not listed; every other rollout is checked in full.`,
    file: place,
    range: rangeOnLine(0, 0, 0),
  };
  const listed = { findings: [finding], omitted: new Map<string, number>() };
  if (bundle.loose) return { root: bundle.root, loose: true, files, listed };
  return {
    root: bundle.root,
    loose: false,
    files,
    evaluation: { findings: [finding], verdict: 'incomplete', trainingReady: false },
    listed,
  };
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

/** 2 when something could not be read or nothing could be checked; 1 when a rollout's verdict fails the run or a loose file has errors. */
export function exitStatusOf(run: CheckRun): ExitStatus {
  return run.exitStatus;
}
