/**
 * Diagnostics the server pushes for rollout files that no editor holds, so that the reasons for a
 * verdict reach the Problems panel wherever they lie, not only in the files the user opened:
 * - every file of a rollout with an open document (the open ones have their diagnostics pulled);
 * - every file of the rollouts the user asked to see all the problems of (`showWorkspaceProblems`);
 * - the files over VS Code's size limit of the rollouts the Rollouts view lists, which no editor can open.
 * The client shows pushed diagnostics in a collection of their own beside the pulled ones, so a file
 * that opens has its pushed diagnostics cleared, and a rollout none of these reasons covers any more
 * (its last open document closed, say) has all of its pushed diagnostics cleared: none stay stale.
 */
import { existsSync, statSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { Connection, TextDocuments } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { errorDetail } from '../../../shared/src/errors';
import { isInside } from '../../../shared/src/paths';
import { editorSyncLimitBytes } from '../../../shared/src/rollouts';
import { rolloutRootOf } from '../engine/bundle/discover';
import type { DocumentValidator } from './documentValidator';
import type { EvaluatedRollout } from './rolloutEvaluator';
import { isFileUri, pathOfUri } from './uris';

interface PushedFile {
  /** The key of the rollout state the file's diagnostics were pushed for. */
  readonly key: string;
  /** Whether the client holds diagnostics of ours for it, which must be cleared when it leaves. */
  readonly shown: boolean;
}

export class PushedDiagnostics {
  /** Per rollout folder, by path (an editor may spell a file's URI otherwise than the server). */
  private readonly pushed = new Map<string, Map<string, PushedFile>>();
  /** Rollouts whose every problem the user asked to see. */
  private readonly requested = new Set<string>();
  private listedByView = new Set<string>();
  /** The paths the client says it shows in tabs; undefined when it never said (every synchronised one is). */
  private shown: ReadonlySet<string> | undefined;
  /** Updates run one after another, so an older state is never pushed over a newer one. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly connection: Connection,
    private readonly documents: TextDocuments<TextDocument>,
    private readonly validator: DocumentValidator,
  ) {
    // An editor that shows the file pulls its diagnostics itself: the pushed ones would double them.
    documents.onDidOpen((event) => {
      if (!isFileUri(event.document.uri)) return;
      const path = pathOfUri(event.document.uri);
      if (!this.isOpen(path)) return;
      for (const files of this.pushed.values()) {
        const file = files.get(path);
        if (!file) continue;
        files.delete(path);
        if (file.shown) this.clear(path);
      }
    });
  }

  /** Pushes what the rollout's evaluation says of its files no editor holds; cheap when nothing changed. */
  update(rollout: EvaluatedRollout): Promise<void> {
    this.queue = this.queue
      .then(() => this.updateNow(rollout))
      .catch((error: unknown) =>
        this.connection.console.error(
          `Pushing the diagnostics of ${rollout.bundle.root} failed: ${errorDetail(error)}`,
        ),
      );
    return this.queue;
  }

  /**
   * The client's tabs changed. A file whose tab closed has its diagnostics pushed if its rollout is still
   * shown; a rollout no tab shows any more has its pushed diagnostics cleared.
   */
  async shownDocumentsChanged(uris: readonly string[]): Promise<void> {
    const before = this.shown;
    const now = new Set(uris.filter(isFileUri).map(pathOfUri));
    this.shown = now;
    const changed = [...now].filter((path) => !before?.has(path));
    if (before) changed.push(...[...before].filter((path) => !now.has(path)));
    else
      changed.push(
        ...this.documents
          .all()
          .flatMap((document) =>
            isFileUri(document.uri) && !now.has(pathOfUri(document.uri)) ? [pathOfUri(document.uri)] : [],
          ),
      );
    const roots = new Set(changed.flatMap((path) => rolloutRootOf(path) ?? []));
    for (const root of roots) {
      if (this.isRolloutShown(root)) await this.filesChanged([root]);
      else await this.rolloutClosed(root);
    }
  }

  /** Whether the editor shows a document of the rollout: then every file of it has its problems shown. */
  isRolloutShown(root: string): boolean {
    return this.documents
      .all()
      .some(
        (document) =>
          isFileUri(document.uri) &&
          isInside(pathOfUri(document.uri), root) &&
          (this.shown === undefined || this.shown.has(pathOfUri(document.uri))),
      );
  }

  /** The rollout's last shown document closed: its pushed diagnostics go unless another reason keeps them. */
  async rolloutClosed(root: string): Promise<void> {
    if (this.requested.has(root)) {
      await this.filesChanged([root]);
      return;
    }
    await this.dropUnwanted(root);
  }

  /**
   * The user asked for the problems of these rollouts (all of the workspace's, up to the bound): they
   * are pushed from now on, as their files change; those asked for before and left out now are cleared.
   */
  async showAll(roots: readonly string[], isCancelled: () => boolean): Promise<boolean> {
    const dropped = [...this.requested].filter((root) => !roots.includes(root));
    this.requested.clear();
    for (const root of roots) this.requested.add(root);
    for (const root of dropped) await this.dropUnwanted(root);
    return this.reevaluate(roots, isCancelled);
  }

  /** The Rollouts view lists these rollouts now: their files over the editor's limit are pushed. */
  async setListedByView(roots: ReadonlySet<string>): Promise<void> {
    const dropped = [...this.listedByView].filter((root) => !roots.has(root));
    this.listedByView = new Set(roots);
    for (const root of dropped) await this.dropUnwanted(root);
    await this.dropVanished();
  }

  /**
   * Files of these rollouts changed on disk, or settings changed, or a document closed: those whose
   * problems are pushed are evaluated again here, since an editor pulls again only for the documents it
   * shows. A rollout folder that is gone is dropped.
   */
  async filesChanged(roots: Iterable<string>): Promise<void> {
    await this.dropVanished();
    const pushedFor = [...new Set(roots)].filter(
      (root) => existsSync(root) && (this.requested.has(root) || this.isRolloutShown(root)),
    );
    await this.reevaluate(pushedFor);
  }

  /**
   * Rollout folders that are gone (deleted, moved) take their pushed problems with them: the events of
   * a deleted folder may name no file the client watches, so every change and listing looks.
   */
  async dropVanished(): Promise<void> {
    for (const root of [...new Set([...this.requested, ...this.pushed.keys()])]) {
      if (existsSync(root)) continue;
      this.requested.delete(root);
      await this.dropUnwanted(root);
    }
  }

  /** The rollouts whose every problem the user asked to see. */
  get requestedRollouts(): readonly string[] {
    return [...this.requested];
  }

  /** Resolves to false when cancelled. */
  private async reevaluate(roots: readonly string[], isCancelled: () => boolean = () => false): Promise<boolean> {
    for (const root of roots) {
      // Each evaluation blocks the server: let other requests and the cancellation in between them.
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (isCancelled()) return false;
      const rollout = await this.validator.evaluateRollout(root, isCancelled);
      if (!rollout) return false;
      // A fresh evaluation has pushed already, through the validator's hook; a cached one had pushed for an
      // earlier reason, perhaps fewer files.
      await this.update(rollout);
    }
    return true;
  }

  private async updateNow(rollout: EvaluatedRollout): Promise<void> {
    const root = rollout.bundle.root;
    const previous = this.pushed.get(root) ?? new Map<string, PushedFile>();
    const current = new Map<string, PushedFile>();
    for (const path of this.wantedPaths(rollout)) {
      const before = previous.get(path);
      if (before?.key === rollout.key) {
        current.set(path, before);
        continue;
      }
      const diagnostics = await this.validator.diagnosticsOnDisk(rollout, path);
      // A clean file needs no message, unless it showed problems before.
      if (diagnostics.length > 0 || before?.shown)
        await this.connection.sendDiagnostics({ uri: pathToFileURL(path).href, diagnostics });
      current.set(path, { key: rollout.key, shown: diagnostics.length > 0 });
    }
    for (const [path, file] of previous) if (!current.has(path) && file.shown) this.clear(path);
    if (current.size > 0) this.pushed.set(root, current);
    else this.pushed.delete(root);
  }

  /** Clears the pushed diagnostics no reason wants any more, without evaluating the rollout again. */
  private async dropUnwanted(root: string): Promise<void> {
    await this.queue;
    const files = this.pushed.get(root);
    if (!files) return;
    const everyFile = this.requested.has(root) || this.isRolloutShown(root);
    if (everyFile) return;
    for (const [path, file] of files) {
      if (this.listedByView.has(root) && isOverEditorLimit(path)) continue;
      files.delete(path);
      if (file.shown) this.clear(path);
    }
    if (files.size === 0) this.pushed.delete(root);
  }

  private wantedPaths(rollout: EvaluatedRollout): string[] {
    const root = rollout.bundle.root;
    const everyFile = this.requested.has(root) || this.isRolloutShown(root);
    const paths = new Set<string>();
    for (const file of rollout.bundle.files) {
      if (everyFile || (this.listedByView.has(root) && file.ioError === undefined && isOverEditorLimit(file.path)))
        paths.add(file.path);
    }
    // The rules also speak of files the rollout lacks (a missing llm_trajectory.jsonl), as the CLI does.
    if (everyFile) for (const finding of rollout.evaluation.findings) paths.add(finding.file);
    return [...paths].filter((path) => !this.isOpen(path));
  }

  /** Whether the editor holds the document and shows it, and so pulls its diagnostics. */
  private isOpen(path: string): boolean {
    return (
      (this.shown === undefined || this.shown.has(path)) &&
      this.documents.all().some((document) => isFileUri(document.uri) && pathOfUri(document.uri) === path)
    );
  }

  private clear(path: string): void {
    void this.connection.sendDiagnostics({ uri: pathToFileURL(path).href, diagnostics: [] });
  }
}

function isOverEditorLimit(path: string): boolean {
  try {
    return statSync(path).size > editorSyncLimitBytes;
  } catch {
    return false;
  }
}
