/**
 * The Rollouts view, served: every rollout under the workspace folders, grouped into jobs, each
 * evaluated by the document validator (so the view agrees with the diagnostics and shares their caches).
 * Files too large for VS Code to hand to extensions get their diagnostics pushed from here, since no
 * editor will ever ask for them.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ErrorCodes, ResponseError, type Connection, type TextDocuments } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import {
  editorSyncLimitBytes,
  rolloutsRequest,
  type JobSummary,
  type ProblemCounts,
  type RolloutFileSummary,
  type RolloutsParams,
  type RolloutsResult,
  type RolloutSummary,
} from '../../../shared/src/rollouts';
import { ArtifactClassifier } from '../engine/artifacts/classify';
import { discoverBundles, DiscoveryUsageError } from '../engine/bundle/discover';
import type { Severity } from '../engine/findings';
import type { DocumentValidator } from './documentValidator';
import type { EvaluatedRollout } from './rolloutEvaluator';
import { cancelledError, runSafeAsync } from './runner';
import { arrayOf, objectOf, wholeNumber, withCheckedParams, type Check } from './requestParams';
import { isFileUri, pathOfUri } from './uris';
import type { WorkspaceFolders } from './workspaceFolders';

/** An error, not an empty listing: the view then says that listing failed rather than that there is nothing. */
const failedListing = new ResponseError<void>(ErrorCodes.InternalError, 'The rollouts could not be listed: the output of Rollout Evidence says why.');

export function registerRolloutsRequests(connection: Connection, documents: TextDocuments<TextDocument>, validator: DocumentValidator, workspace: WorkspaceFolders): void {
  const largeFiles = new LargeFileDiagnostics(connection, documents, validator);
  const summaries = new SummaryCache();
  // Other editors call this request too. It walks every folder it is given, so only workspace folders.
  const rolloutsParams: Check<RolloutsParams> = objectOf({ folders: arrayOf(workspace.walkableFolder), maxRollouts: wholeNumber });
  connection.onRequest(
    rolloutsRequest,
    withCheckedParams(rolloutsParams, (params, token) =>
      runSafeAsync(
        async () => {
          const result = await listRollouts(params, validator, largeFiles, summaries, () => token.isCancellationRequested);
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
async function listRollouts(params: RolloutsParams, validator: DocumentValidator, largeFiles: LargeFileDiagnostics, summaries: SummaryCache, isCancelled: () => boolean): Promise<RolloutsResult | undefined> {
  const found = await findRollouts(params.folders, isCancelled);
  if (!found) return undefined;
  const { roots, ioErrors } = found;
  // BenchFlow names job folders by their start time: past the limit, the latest jobs are the ones kept.
  const ordered = [...roots].sort((a, b) => dirname(b).localeCompare(dirname(a)) || a.localeCompare(b));
  const listed = ordered.slice(0, Math.max(0, params.maxRollouts));

  const jobs = new Map<string, RolloutSummary[]>();
  for (const root of listed) {
    if (isCancelled()) return undefined;
    // Unchanged since the last listing: its summary stands, and its large files' diagnostics are out.
    const key = await validator.rolloutKey(root);
    let summary = summaries.get(root, key);
    if (!summary) {
      const rollout = await validator.evaluateRollout(root, isCancelled);
      if (!rollout) return undefined;
      summary = summarize(rollout);
      summaries.set(root, rollout.key, summary);
      await largeFiles.publish(rollout, summary.files);
    }
    const job = dirname(root);
    const rollouts = jobs.get(job);
    if (rollouts) rollouts.push(summary);
    else jobs.set(job, [summary]);
  }
  largeFiles.keepOnly(new Set(listed));
  summaries.keepOnly(new Set(listed));
  const jobSummaries: JobSummary[] = [...jobs.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([folder, rollouts]) => ({ folder, rollouts: rollouts.sort((a, b) => a.root.localeCompare(b.root)) }));
  const left = roots.length - listed.length;
  return {
    jobs: jobSummaries,
    found: roots.length,
    ...(left > 0 ? { notice: `Listing ${listed.length} of ${roots.length} rollouts, those of the latest jobs by folder name; ${left} more were found but not evaluated. Open a narrower folder to see them.` } : {}),
    ioErrors,
  };
}

/**
 * The summary of each listed rollout, by the key of the state it summarises: the server keeps the
 * evaluations of only a few rollouts without an open document, and a listing of hundreds would
 * otherwise evaluate every one of them again on each refresh.
 */
class SummaryCache {
  private readonly entries = new Map<string, { readonly key: string; readonly summary: RolloutSummary }>();

  get(root: string, key: string): RolloutSummary | undefined {
    const entry = this.entries.get(root);
    return entry?.key === key ? entry.summary : undefined;
  }

  set(root: string, key: string, summary: RolloutSummary): void {
    this.entries.set(root, { key, summary });
  }

  keepOnly(roots: ReadonlySet<string>): void {
    for (const root of this.entries.keys()) if (!roots.has(root)) this.entries.delete(root);
  }
}

/**
 * Rollout folders under the given folders, once each; undefined when cancelled. Discovery only finds the
 * folders: each is evaluated with its own settings. Each folder's walk blocks the server, so between
 * folders it lets the cancellation (and other requests) in.
 */
async function findRollouts(folders: readonly string[], isCancelled: () => boolean): Promise<{ roots: string[]; ioErrors: string[] } | undefined> {
  const classifier = new ArtifactClassifier({});
  const roots = new Set<string>();
  const ioErrors: string[] = [];
  for (const folder of folders) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (isCancelled()) return undefined;
    try {
      const discovery = discoverBundles([folder], classifier);
      for (const bundle of discovery.bundles) if (!bundle.loose) roots.add(bundle.root);
      ioErrors.push(...discovery.ioErrors);
    } catch (error) {
      if (!(error instanceof DiscoveryUsageError)) throw error;
      ioErrors.push(error.message);
    }
  }
  return { roots: [...roots], ioErrors };
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
    files.push({ path, kind: null, problems: countsOf(severities), exists: existsSync(path), tooLargeForEditor: false });
  }
  files.sort((a, b) => a.path.localeCompare(b.path));
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
  return { error: a.error + b.error, warning: a.warning + b.warning, information: a.information + b.information, hint: a.hint + b.hint };
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

/**
 * Pushes the diagnostics of rollout files over the editor's size limit. They go to the client's push
 * collection, which vscode-languageclient shows alongside the pulled diagnostics. Each is sent again
 * only when its rollout changed, so a view refreshing on diagnostic changes does not feed itself.
 */
class LargeFileDiagnostics {
  /**
   * Per rollout: the files (by path: an editor may spell a file's URI otherwise than the server) whose
   * diagnostics were pushed, with the rollout key they were pushed for.
   */
  private readonly pushed = new Map<string, Map<string, string>>();

  constructor(
    private readonly connection: Connection,
    private readonly documents: TextDocuments<TextDocument>,
    private readonly validator: DocumentValidator,
  ) {
    // An editor that can open the file after all pulls its diagnostics itself: the pushed ones would double them.
    documents.onDidOpen((event) => {
      if (!isFileUri(event.document.uri)) return;
      const path = pathOfUri(event.document.uri);
      for (const files of this.pushed.values()) if (files.delete(path)) this.clear(path);
    });
  }

  async publish(rollout: EvaluatedRollout, files: readonly RolloutFileSummary[]): Promise<void> {
    const previous = this.pushed.get(rollout.bundle.root) ?? new Map<string, string>();
    const current = new Map<string, string>();
    for (const file of files) {
      if (!file.tooLargeForEditor || file.ioError !== undefined || this.isOpen(file.path)) continue;
      current.set(file.path, rollout.key);
      if (previous.get(file.path) === rollout.key) continue;
      await this.connection.sendDiagnostics({ uri: pathToFileURL(file.path).href, diagnostics: await this.validator.diagnosticsOnDisk(rollout, file.path) });
    }
    // A file that shrank below the limit, was removed or was opened: its pushed diagnostics go.
    for (const path of previous.keys()) if (!current.has(path)) this.clear(path);
    if (current.size > 0) this.pushed.set(rollout.bundle.root, current);
    else this.pushed.delete(rollout.bundle.root);
  }

  /**
   * Clears the pushed diagnostics of every rollout not in `listed`: one removed, moved out of the
   * workspace or past the listing's limit is evaluated no more, so nothing else would ever clear them.
   */
  keepOnly(listed: ReadonlySet<string>): void {
    for (const [root, files] of this.pushed) {
      if (listed.has(root)) continue;
      this.pushed.delete(root);
      for (const path of files.keys()) if (!this.isOpen(path)) this.clear(path);
    }
  }

  private isOpen(path: string): boolean {
    return this.documents.all().some((document) => isFileUri(document.uri) && pathOfUri(document.uri) === path);
  }

  private clear(path: string): void {
    void this.connection.sendDiagnostics({ uri: pathToFileURL(path).href, diagnostics: [] });
  }
}
