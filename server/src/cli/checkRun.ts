/**
 * One run of `rollout-evidence check`: discover the bundles under the given paths, check each (files,
 * then the evidence rules and a verdict per rollout), and total what was found. The formatters only
 * present a finished run.
 */
import { relative, sep } from 'node:path';
import type { ArtifactKind } from '../../../shared/src/layout';
import { ArtifactClassifier } from '../engine/artifacts/classify';
import { checkBundle, listedFindings, type CheckedBundle, type ListedFindings } from '../engine/bundle/checkBundle';
import { discoverBundles, type DiscoveredBundle } from '../engine/bundle/discover';
import { RolloutBundle } from '../engine/bundle/rollout';
import { rangeOnLine, type BundleFinding } from '../engine/findings';
import { ArtifactChecker } from '../engine/check/artifactChecker';
import type { SeverityCounts } from '../engine/check/collector';
import type { RuleOptions } from '../engine/rules/context';
import { ModelCaches } from '../engine/model/caches';
import type { RolloutEvaluation } from '../engine/rules/evaluate';
import { verdicts, type Verdict } from '../engine/verdict';
import { SummaryBuilder, tallyOf, type ExperimentSummary, type RolloutTally } from '../engine/experiment/summary';
import { FixtureFolders, isFixtureBundle } from '../authoring/fixtureBundles';
import type { ProgressLine } from './progress';

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
export type RolloutOutcome = Pick<RolloutEvaluation, 'findings' | 'verdict' | 'trainingReady'>;

export interface ListedBundle extends Omit<CheckedBundle, 'evaluation'> {
  readonly evaluation?: RolloutOutcome;
  /** Its findings as every format lists them under --max-problems, and what each file leaves out. */
  readonly listed: ListedFindings;
  /** What the experiment summary counts of a rollout (its root as the formats show it); absent for loose files. */
  readonly tally?: RolloutTally;
}

/** How a bundle is checked; a test gives one that fails, to show that the failure stays in its rollout. */
export type BundleChecker = typeof checkBundle;

export interface CheckRun {
  readonly request: CheckRequest;
  readonly bundles: readonly ListedBundle[];
  /** Every path that exists but could not be read, as one-line messages. */
  readonly ioErrors: readonly string[];
  readonly totals: Totals;
  /** The experiment summary over every rollout checked. */
  readonly experiment: ExperimentSummary;
}

export function runCheck(request: CheckRequest, progress: ProgressLine, check: BundleChecker = checkBundle): CheckRun {
  const discovery = discoverBundles(request.paths, new ArtifactClassifier(request.artifactMap));
  const checker = new ArtifactChecker();
  const caches = new ModelCaches();
  const fixtureFolders = new FixtureFolders(request.fixtureFolders);
  const fileCount = discovery.bundles.reduce((sum, bundle) => sum + bundle.files.length, 0);
  let started = 0;
  const bundles = discovery.bundles.map((bundle): ListedBundle => {
    // The error boundary of one bundle: whatever goes wrong in checking it, the others are reported in full.
    try {
      const checked = check(bundle, checker, {
        maxFindings: request.maxProblems,
        rules: { ...request.rules, fixtureBundle: !bundle.loose && isFixtureBundle(bundle.root, fixtureFolders) },
        caches,
        onFileStart: (path) =>
          progress.update(`checking ${displayPath(request.cwd, path)} (file ${++started} of ${fileCount})`),
        onBytesRead: () => progress.tick(),
      });
      const { evaluation } = checked;
      const tally = evaluation
        ? tallyOf(displayPath(request.cwd, bundle.root), evaluation.model.bundle, evaluation)
        : undefined;
      return { ...checked, listed: listedFindings(checked, request.maxProblems), ...(tally ? { tally } : {}) };
    } catch (error) {
      return failedBundle(bundle, error, displayPath(request.cwd, bundle.root));
    }
  });
  progress.clear();

  const ioErrors = [...discovery.ioErrors];
  const counts = { error: 0, warning: 0, information: 0, hint: 0 };
  const verdictCounts = Object.fromEntries(verdicts.map((verdict) => [verdict, 0])) as Record<Verdict, number>;
  let rollouts = 0;
  let looseFiles = 0;
  let omitted = 0;
  const experiment = new SummaryBuilder();
  for (const bundle of bundles) {
    if (bundle.tally) experiment.add(bundle.tally);
    for (const count of bundle.listed.omitted.values()) omitted += count;
    if (bundle.loose) looseFiles += bundle.files.length;
    else rollouts++;
    // A failed rollout's finding is in its evaluation, counted below; a failed folder of loose files has none.
    if (bundle.loose && checkerFailed(bundle)) counts.error++;
    if (bundle.evaluation) {
      verdictCounts[bundle.evaluation.verdict]++;
      for (const finding of bundle.evaluation.findings) counts[finding.severity]++;
    }
    for (const file of bundle.files) {
      if (file.ioError !== undefined)
        ioErrors.push(`cannot read ${displayPath(request.cwd, file.path)}: ${file.ioError}`);
      if (!file.report) continue;
      for (const severity of ['error', 'warning', 'information', 'hint'] as const)
        counts[severity] += file.report.counts[severity];
    }
  }
  return {
    request,
    bundles,
    ioErrors,
    totals: { ...counts, rollouts, looseFiles, files: fileCount, omitted, verdicts: verdictCounts },
    experiment: experiment.result(),
  };
}

/**
 * A bundle the checker failed on: its files listed unchecked and, for a rollout, one internal-error
 * finding and an incomplete verdict; loose files get the finding without a verdict.
 */
function failedBundle(bundle: DiscoveredBundle, error: unknown, shownRoot: string): ListedBundle {
  const files = bundle.files.map((file) => ({ path: file.path, kind: file.kind }));
  const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const rollout = new RolloutBundle(bundle.root, files);
  const place = bundle.loose ? (files[0]?.path ?? bundle.root) : rollout.pathOf('result');
  const finding: BundleFinding = {
    code: 'internal-error',
    severity: 'error',
    message: `The checker failed on this ${bundle.loose ? 'folder' : 'rollout'} (${reason}), so its files' own problems and the rules' findings are not listed; every other rollout is checked in full.`,
    file: place,
    range: rangeOnLine(0, 0, 0),
  };
  const listed = { findings: [finding], omitted: new Map<string, number>() };
  if (bundle.loose) return { root: bundle.root, loose: true, files, listed };
  const evaluation: RolloutOutcome = { findings: [finding], verdict: 'incomplete', trainingReady: false };
  return { root: bundle.root, loose: false, files, evaluation, listed, tally: tallyOf(shownRoot, rollout, evaluation) };
}

/** A path as a person in the terminal wants it: relative to where they stand, with forward slashes. */
export function displayPath(cwd: string, path: string): string {
  const relativePath = relative(cwd, path);
  if (relativePath === '') return '.';
  if (relativePath.startsWith('..')) return path.split(sep).join('/');
  return relativePath.split(sep).join('/');
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

/** The failure of a run that did happen: something could not be read, or nothing could be checked. */
export function runFailure(run: CheckRun): CheckFailure | undefined {
  if (run.ioErrors.length > 0) {
    const count = run.ioErrors.length;
    return {
      kind: 'unreadable',
      message: `${count} path${count === 1 ? '' : 's'} could not be read (everything readable was checked): ${run.ioErrors.join('; ')}`,
    };
  }
  if (run.bundles.length > 0 && run.bundles.every(checkerFailed)) {
    return {
      kind: 'checker-failed',
      message: `The checker failed on ${run.bundles.length === 1 ? 'the one bundle' : `every one of the ${run.bundles.length} bundles`} found, so nothing was checked; see the internal-error finding${run.bundles.length === 1 ? '' : 's'}.`,
    };
  }
  return undefined;
}

/** 2 when something could not be read or nothing could be checked; 1 when a rollout's verdict fails the run or a loose file has errors. */
export function exitStatusOf(run: CheckRun): ExitStatus {
  if (runFailure(run)) return 2;
  const failing: readonly Verdict[] = run.request.failOn === 'untrusted' ? ['untrusted'] : ['untrusted', 'incomplete'];
  const rolloutFails = run.bundles.some((bundle) => bundle.evaluation && failing.includes(bundle.evaluation.verdict));
  const looseErrors = run.bundles.some(
    (bundle) =>
      bundle.loose && (checkerFailed(bundle) || bundle.files.some((file) => (file.report?.counts.error ?? 0) > 0)),
  );
  return rolloutFails || looseErrors ? 1 : 0;
}

/** The checker failed on the bundle (its error boundary caught it): nothing of it was checked. */
function checkerFailed(bundle: ListedBundle): boolean {
  return bundle.listed.findings.some((finding) => finding.code === 'internal-error');
}
