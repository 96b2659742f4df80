/**
 * The Rollouts view: every rollout in the workspace, by job, with its verdict and problem counts as the
 * language server evaluates them, and its files. It follows runs that are still writing through file
 * watchers, refreshing at most once a second, and only while it is visible.
 */
import * as vscode from 'vscode';
import { errorMessage } from '../../../shared/src/errors';
import { anywhere, rolloutFolders, verifierRewardFiles } from '../../../shared/src/layout';
import { isInside } from '../../../shared/src/paths';
import { rolloutsRequest } from '../../../shared/src/protocol';
import {
  rolloutVerdicts,
  type RolloutsResult,
  type RolloutSummary,
  type RolloutVerdict,
} from '../../../shared/src/rollouts';
import { settingsSection } from '../../../shared/src/settings';
import { commandIds } from '../commandIds';
import type { ServerController } from '../serverController';
import { mayChangeListing } from './listingChanges';
import {
  arrangeJobs,
  fileItem,
  jobItem,
  rolloutItem,
  type FileNode,
  type JobNode,
  type RolloutEntry,
  type RolloutsNode,
} from './rolloutItems';
import { Throttle } from '../throttle';
import { sortArgument, sortLabels, rolloutSorts, verdictsArgument, ViewOptionsStore } from './viewOptions';

export const rolloutsViewId = 'rolloutEvidence.rollouts';

/** Which welcome message the manifest's `viewsWelcome` shows while the tree is empty. */
const stateContextKey = 'rolloutEvidence.rolloutsState';

/** Beyond this the server lists the latest jobs' rollouts and says how many it left out. */
const maxRollouts = 1000;

const refreshIntervalMs = 1000;

type ListingState =
  | { readonly kind: 'loading' }
  | { readonly kind: 'noFolder' }
  | { readonly kind: 'serverDown' }
  | { readonly kind: 'failed'; readonly reason: string }
  | { readonly kind: 'listed'; readonly result: RolloutsResult };

/**
 * What activate() returns for the real-editor tests: the tree view and the data behind it, which a test
 * reads as VS Code does (getChildren, getTreeItem), since the workbench's tree is not reachable from an
 * extension.
 */
export interface RolloutsViewForTests {
  readonly view: vscode.TreeView<RolloutsNode>;
  readonly provider: vscode.TreeDataProvider<RolloutsNode>;
}

export function registerRolloutsView(context: vscode.ExtensionContext, server: ServerController): RolloutsView {
  const rollouts = new RolloutsView(server, new ViewOptionsStore(context.workspaceState));
  context.subscriptions.push(
    rollouts,
    vscode.commands.registerCommand(commandIds.refreshRollouts, () => rollouts.refresh()),
    vscode.commands.registerCommand(commandIds.filterRollouts, (verdicts?: unknown) =>
      rollouts.chooseVerdicts(verdictsArgument(verdicts)),
    ),
    vscode.commands.registerCommand(commandIds.sortRollouts, (sort?: unknown) =>
      rollouts.chooseSort(sortArgument(sort)),
    ),
  );
  return rollouts;
}

export class RolloutsView implements vscode.TreeDataProvider<RolloutsNode>, RolloutsViewForTests, vscode.Disposable {
  readonly view: vscode.TreeView<RolloutsNode>;
  readonly provider: vscode.TreeDataProvider<RolloutsNode> = this;
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private state: ListingState = { kind: 'loading' };
  private jobs: JobNode[] = [];
  private readonly entries = new Map<string, RolloutEntry>();
  private readonly throttle = new Throttle(() => this.load(), refreshIntervalMs);
  /** Something changed while the view was hidden: it lists again when shown. */
  private stale = true;
  private inFlight: vscode.CancellationTokenSource | undefined;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly server: ServerController,
    private readonly options: ViewOptionsStore,
  ) {
    this.view = vscode.window.createTreeView(rolloutsViewId, { treeDataProvider: this, showCollapseAll: true });
    this.setStateContext();
    const artifacts = vscode.workspace.createFileSystemWatcher('**/*.{json,jsonl}');
    const rewards = vscode.workspace.createFileSystemWatcher(
      anywhere(`${rolloutFolders.verifier}/{${Object.values(verifierRewardFiles).join(',')}}`),
    );
    // A removed rollout or job folder: file watchers may report only the folder itself.
    const removals = vscode.workspace.createFileSystemWatcher('**/*', true, true, false);
    const onArtifact = (uri: vscode.Uri) => {
      if (mayChangeListing(uri.fsPath, this.listedRoots())) this.refresh();
    };
    this.subscriptions.push(
      this.view,
      this.changed,
      // A stopped or restarted server changes what the view can say.
      server.onDidChangeState(() => this.refresh()),
      artifacts,
      rewards,
      removals,
      artifacts.onDidCreate(onArtifact),
      artifacts.onDidChange(onArtifact),
      artifacts.onDidDelete(onArtifact),
      rewards.onDidCreate(onArtifact),
      rewards.onDidChange(onArtifact),
      rewards.onDidDelete(onArtifact),
      removals.onDidDelete((uri) => {
        if (this.listsSomethingIn(uri.fsPath)) this.refresh();
      }),
      // The server's validations of open documents: an edit that changes a verdict changes diagnostics.
      vscode.languages.onDidChangeDiagnostics((event) => {
        if (event.uris.some((uri) => uri.scheme === 'file' && this.rolloutOf(uri.fsPath) !== undefined)) this.refresh();
      }),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.refresh()),
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration(settingsSection)) this.refresh();
      }),
      this.view.onDidChangeVisibility(() => {
        if (this.view.visible && this.stale) this.refresh();
      }),
    );
  }

  /** Lists the rollouts again (throttled); while the view is hidden, only remembers that it must. */
  refresh(): void {
    if (!this.view.visible) {
      this.stale = true;
      return;
    }
    this.stale = false;
    this.throttle.schedule();
  }

  async chooseVerdicts(given: RolloutVerdict[] | undefined): Promise<void> {
    let verdicts = given;
    if (!verdicts) {
      const shown = new Set(this.options.get().verdicts);
      const counts = this.verdictCounts();
      const picked = await vscode.window.showQuickPick(
        rolloutVerdicts.map((verdict) => ({
          label: verdict,
          description: counts ? `${counts.byVerdict[verdict]} ${counts.among}` : undefined,
          picked: shown.has(verdict),
          verdict,
        })),
        {
          canPickMany: true,
          title: 'Rollouts: show the verdicts',
          placeHolder: 'The rollouts with these verdicts are shown',
        },
      );
      if (!picked) return;
      verdicts = picked.map((item) => item.verdict);
    }
    await this.options.setVerdicts(verdicts);
    this.show(this.state);
  }

  async chooseSort(given: (typeof rolloutSorts)[number] | undefined): Promise<void> {
    let sort = given;
    if (!sort) {
      const current = this.options.get().sort;
      const picked = await vscode.window.showQuickPick(
        rolloutSorts.map((candidate) => ({
          label: sortLabels[candidate],
          description: candidate === current ? 'current' : undefined,
          sort: candidate,
        })),
        { title: 'Rollouts: sort' },
      );
      if (!picked) return;
      sort = picked.sort;
    }
    await this.options.setSort(sort);
    this.show(this.state);
  }

  getChildren(node?: RolloutsNode): RolloutsNode[] {
    if (!node) return this.jobs;
    if (node instanceof vscode.Uri) {
      const entry = this.entries.get(node.toString());
      return entry ? entry.rollout.files.map((file): FileNode => ({ type: 'file', file, parent: entry })) : [];
    }
    return node.type === 'job' ? node.rollouts.map((entry) => entry.uri) : [];
  }

  getTreeItem(node: RolloutsNode): vscode.TreeItem {
    if (node instanceof vscode.Uri) {
      const entry = this.entries.get(node.toString());
      // Asked for a rollout that a refresh has just removed: VS Code asks for its children next, and gets none.
      return entry ? rolloutItem(entry.rollout) : new vscode.TreeItem(node);
    }
    if (node.type === 'file') return fileItem(node.file, node.parent.rollout);
    return jobItem(node, this.options.get().verdicts.length < rolloutVerdicts.length);
  }

  getParent(node: RolloutsNode): RolloutsNode | undefined {
    if (node instanceof vscode.Uri) return this.entries.get(node.toString())?.parent;
    return node.type === 'file' ? node.parent.uri : undefined;
  }

  dispose(): void {
    this.throttle.dispose();
    this.inFlight?.cancel();
    for (const subscription of this.subscriptions) subscription.dispose();
  }

  private async load(): Promise<void> {
    const folders = (vscode.workspace.workspaceFolders ?? [])
      .filter((folder) => folder.uri.scheme === 'file')
      .map((folder) => folder.uri.fsPath);
    if (folders.length === 0) return this.show({ kind: 'noFolder' });
    const client = this.server.runningClient;
    if (!client) return this.show({ kind: 'serverDown' });
    const cancel = new vscode.CancellationTokenSource();
    this.inFlight = cancel;
    try {
      const result = await vscode.window.withProgress({ location: { viewId: rolloutsViewId } }, () =>
        client.sendRequest(rolloutsRequest, { folders, maxRollouts }, cancel.token),
      );
      this.show({ kind: 'listed', result });
    } catch (error) {
      if (cancel.token.isCancellationRequested) return;
      this.show(this.server.runningClient ? { kind: 'failed', reason: errorMessage(error) } : { kind: 'serverDown' });
    } finally {
      this.inFlight = undefined;
      cancel.dispose();
    }
  }

  private show(state: ListingState): void {
    this.state = state;
    const options = this.options.get();
    this.jobs = state.kind === 'listed' ? arrangeJobs(state.result.jobs, options) : [];
    this.entries.clear();
    for (const job of this.jobs) for (const entry of job.rollouts) this.entries.set(entry.uri.toString(), entry);
    this.setStateContext();

    if (state.kind === 'listed') {
      const found = state.result.found;
      const shown = this.entries.size;
      const filter =
        options.verdicts.length === rolloutVerdicts.length
          ? 'all verdicts'
          : options.verdicts.length === 0
            ? 'no verdict'
            : options.verdicts.join(', ');
      this.view.description =
        found === 0 ? undefined : `${shown} of ${found} · ${filter} · ${sortLabels[options.sort]}`;
      const listedCount = state.result.jobs.reduce((sum, job) => sum + job.rollouts.length, 0);
      const hiddenAll =
        listedCount > 0 && shown === 0 ? [`All ${listedCount} rollouts are hidden by the verdict filter.`] : [];
      const lines = [
        ...hiddenAll,
        ...(state.result.notice ? [state.result.notice] : []),
        ...state.result.ioErrors.map((line) => `Not searched: ${line}`),
      ];
      this.view.message = lines.length > 0 ? lines.join('\n') : undefined;
    } else {
      this.view.description = undefined;
      this.view.message = state.kind === 'failed' ? `The rollouts could not be listed: ${state.reason}` : undefined;
    }
    this.changed.fire();
  }

  private setStateContext(): void {
    const state = this.state.kind === 'listed' ? (this.state.result.found === 0 ? 'none' : 'listed') : this.state.kind;
    void vscode.commands.executeCommand('setContext', stateContextKey, state);
  }

  /** Only the listed rollouts have verdicts: past the limit, the counts say they are of those listed. */
  private verdictCounts(): { byVerdict: Record<RolloutVerdict, number>; among: string } | undefined {
    if (this.state.kind !== 'listed') return undefined;
    const byVerdict = { untrusted: 0, incomplete: 0, 'trusted-timeout': 0, trusted: 0 };
    let listed = 0;
    for (const rollout of this.listedRollouts()) {
      byVerdict[rollout.verdict]++;
      listed++;
    }
    return { byVerdict, among: listed < this.state.result.found ? `of the ${listed} listed` : 'in the workspace' };
  }

  private listedRollouts(): RolloutSummary[] {
    return this.state.kind === 'listed' ? this.state.result.jobs.flatMap((job) => job.rollouts) : [];
  }

  private listedRoots(): string[] {
    return this.listedRollouts().map((rollout) => rollout.root);
  }

  /** The listed rollout a path lies in, if any. */
  private rolloutOf(path: string): string | undefined {
    return this.listedRoots().find((root) => isInside(path, root));
  }

  /** Whether a listed rollout or job lies in (or is) the folder at `path`. */
  private listsSomethingIn(path: string): boolean {
    if (this.state.kind !== 'listed') return false;
    return this.state.result.jobs.some(
      (job) => isInside(job.folder, path) || job.rollouts.some((rollout) => isInside(rollout.root, path)),
    );
  }
}
