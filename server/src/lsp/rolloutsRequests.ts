/**
 * The Rollouts view, served: every rollout under the workspace folders, grouped into jobs, each
 * evaluated by the document validator (so the view agrees with the diagnostics and shares their caches).
 * Files too large for VS Code to hand to extensions get their diagnostics pushed (PushedDiagnostics),
 * since no editor will ever ask for them.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { ErrorCodes, ResponseError, type Connection } from 'vscode-languageserver/node';
import { rolloutsRequest, type RolloutsParams } from '../../../shared/src/protocol';
import {
  editorSyncLimitBytes,
  type JobSummary,
  type ProblemCounts,
  type RolloutFileSummary,
  type RolloutsResult,
  type RolloutSummary,
} from '../../../shared/src/rollouts';
import type { Severity } from '../engine/codeContract';
import { RecentlyUsedCache } from '../engine/recentlyUsedCache';
import type { DocumentValidator } from './documentValidator';
import type { PushedDiagnostics } from './pushedDiagnostics';
import type { EvaluatedRollout } from './rolloutEvaluator';
import { cancelledError, runSafeAsync } from './runner';
import { arrayOf, objectOf, wholeNumber, withCheckedParams, type Check } from './requestParams';
import type { WorkspaceFolders } from './workspaceFolders';
import { findRollouts, latestJobsFirst } from './workspaceRollouts';
import { compareNames } from '../../../shared/src/order';

/** An error, not an empty listing: the view then says that listing failed rather than that there is nothing. */
const failedListing = new ResponseError<void>(
  ErrorCodes.InternalError,
  'The rollouts could not be listed: the output of Rollout Evidence says why.',
);

export function registerRolloutsRequests(
  connection: Connection,
  validator: DocumentValidator,
  pushed: PushedDiagnostics,
  workspace: WorkspaceFolders,
): void {
  const summaries = new SummaryCache();
  // Other editors call this request too. It walks every folder it is given, so only workspace folders.
  const rolloutsParams: Check<RolloutsParams> = objectOf({
    folders: arrayOf(workspace.walkableFolder),
    maxRollouts: wholeNumber,
  });
  connection.onRequest(
    rolloutsRequest,
    withCheckedParams(rolloutsParams, (params, token) =>
      runSafeAsync(
        async () => {
          const result = await listRollouts(params, validator, pushed, summaries, () => token.isCancellationRequested);
          return result ?? cancelledError<void>();
        },
        failedListing,
        'Listing the rollouts',
        token,
        connection.console,
      ),
    ),
  );
}

/** Resolves to undefined when cancelled. */
async function listRollouts(
  params: RolloutsParams,
  validator: DocumentValidator,
  pushed: PushedDiagnostics,
  summaries: SummaryCache,
  isCancelled: () => boolean,
): Promise<RolloutsResult | undefined> {
  const found = await findRollouts(params.folders, isCancelled);
  if (!found) return undefined;
  const { roots, ioErrors } = found;
  const listed = latestJobsFirst(roots).slice(0, Math.max(0, params.maxRollouts));
  await pushed.setListedByView(new Set(listed));

  const jobs = new Map<string, RolloutSummary[]>();
  for (const root of listed) {
    if (isCancelled()) return undefined;
    // Unchanged since the last listing: its summary stands, and its large files' diagnostics are out.
    const { key, rollout: discovered } = await validator.rolloutKey(root);
    let summary = summaries.get(root, key);
    if (!summary) {
      const rollout = await validator.evaluateRollout(discovered, isCancelled);
      if (!rollout) return undefined;
      summary = summarize(rollout);
      summaries.set(root, rollout.key, summary);
      await pushed.update(rollout);
    }
    const job = dirname(root);
    const rollouts = jobs.get(job);
    if (rollouts) rollouts.push(summary);
    else jobs.set(job, [summary]);
  }
  summaries.keepOnly(new Set(listed));
  const jobSummaries: JobSummary[] = [...jobs.entries()]
    .sort(([a], [b]) => compareNames(a, b))
    .map(([folder, rollouts]) => ({ folder, rollouts: rollouts.sort((a, b) => compareNames(a.root, b.root)) }));
  const left = roots.length - listed.length;
  return {
    jobs: jobSummaries,
    found: roots.length,
    ...(left > 0
      ? {
          notice: `Listing ${listed.length} of ${roots.length} rollouts, those of the latest jobs by folder name; ${left} more were found but not evaluated. Open a narrower folder to see them.`,
        }
      : {}),
    ioErrors,
  };
}

/**
 * The summary of each listed rollout, by the key of the state it summarises: the server keeps the
 * evaluations of only a few rollouts without an open document, and a listing of hundreds would
 * otherwise evaluate every one of them again on each refresh.
 */
class SummaryCache {
  /** Bounded by the listing: what the last listing did not list goes (keepOnly). */
  private readonly entries = new RecentlyUsedCache<RolloutSummary, string>({ maxEntries: Infinity });

  get(root: string, key: string): RolloutSummary | undefined {
    return this.entries.get(root, key);
  }

  set(root: string, key: string, summary: RolloutSummary): void {
    this.entries.set(root, key, summary);
  }

  keepOnly(roots: ReadonlySet<string>): void {
    this.entries.deleteWhere((root) => !roots.has(root));
  }
}

function summarize(rollout: EvaluatedRollout): RolloutSummary {
  const rulesByFile = new Map<string, Severity[]>();
  for (const finding of rollout.evaluation.findings) {
    const severities = rulesByFile.get(finding.file);
    if (severities) severities.push(finding.severity);
    else rulesByFile.set(finding.file, [finding.severity]);
  }

  let lastWrittenMs = 0;
  const files: RolloutFileSummary[] = rollout.bundle.files.map((file) => {
    const problems = countsOf(rulesByFile.get(file.path) ?? [], file.report?.counts);
    const stat = statOf(file.path);
    lastWrittenMs = Math.max(lastWrittenMs, stat?.mtimeMs ?? 0);
    return {
      path: file.path,
      kind: file.kind,
      problems,
      exists: true,
      ...(file.ioError !== undefined ? { ioError: file.ioError } : {}),
      tooLargeForEditor: (stat?.size ?? 0) > editorSyncLimitBytes,
    };
  });
  // The rules also speak of files the rollout lacks (a missing result.json) and of the verifier's reward.
  const known = new Set(files.map((file) => file.path));
  for (const [path, severities] of rulesByFile) {
    if (known.has(path)) continue;
    files.push({
      path,
      kind: null,
      problems: countsOf(severities),
      exists: existsSync(path),
      tooLargeForEditor: false,
    });
  }
  files.sort((a, b) => compareNames(a.path, b.path));
  return {
    root: rollout.bundle.root,
    verdict: rollout.evaluation.verdict,
    trainingReady: rollout.evaluation.trainingReady,
    problems: files.reduce((sum, file) => addCounts(sum, file.problems), zeroCounts()),
    files,
    lastWrittenMs,
  };
}

function zeroCounts(): ProblemCounts {
  return { error: 0, warning: 0, information: 0, hint: 0 };
}

function addCounts(a: ProblemCounts, b: ProblemCounts): ProblemCounts {
  return {
    error: a.error + b.error,
    warning: a.warning + b.warning,
    information: a.information + b.information,
    hint: a.hint + b.hint,
  };
}

/** `own`: a file's own check counts, which include the findings it left out. */
function countsOf(ruleSeverities: readonly Severity[], own: ProblemCounts = zeroCounts()): ProblemCounts {
  const counts = { ...own };
  for (const severity of ruleSeverities) counts[severity]++;
  return counts;
}

function statOf(path: string): { size: number; mtimeMs: number } | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}
