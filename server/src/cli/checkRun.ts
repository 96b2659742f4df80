/**
 * One run of `rollout-evidence check`: discover the bundles under the given paths, check each (files,
 * then the evidence rules and a verdict per rollout), and total what was found. `runCheck` keeps the
 * whole run in memory (for tests and callers that want the findings themselves); the CLI streams it
 * (`pipeline/streamCheck.ts`) with the same per-bundle check, `BundleCheckSession`.
 */
import { ArtifactClassifier } from '../engine/artifacts/classify';
import { checkBundle, listedFindings } from '../engine/checkRollout';
import { discoverBundles, type DiscoveredBundle } from '../engine/bundle/discover';
import { RolloutBundle } from '../engine/bundle/rollout';
import { codeInfo } from '../engine/codes';
import { rangeOnLine, type BundleFinding } from '../engine/findings';
import { ArtifactChecker } from '../engine/check/artifactChecker';
import { ModelCaches } from '../engine/model/caches';
import { contextOf } from './report/reportWriter';
import { rolloutReport } from './report/rolloutReport';
import { RunTally } from './report/runTally';
import { FixtureFolders, isFixtureBundle } from '../authoring/fixtureBundles';
import type { ProgressLine } from './progress';
import type { CheckRequest, CheckRun, ExitStatus, ListedBundle } from './report/run';
import { displayPath } from '../../../shared/src/paths';

/** How a bundle is checked; a test gives one that fails, to show that the failure stays in its rollout. */
export type BundleChecker = typeof checkBundle;

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
    // A rollout's stands where its rules' findings would; a folder of loose files has only files' own.
    source: bundle.loose ? 'file' : 'rules',
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

/** 2 when something could not be read or nothing could be checked; 1 when a rollout's verdict fails the run or a loose file has errors. */
export function exitStatusOf(run: CheckRun): ExitStatus {
  return run.exitStatus;
}
