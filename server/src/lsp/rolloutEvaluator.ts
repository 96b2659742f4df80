/**
 * Evaluates whole rollouts for the language server: each rollout is loaded as engine/load.ts loads
 * every rollout, every artifact read from the editor when open (re-analysing only the lines an edit
 * changed) and from disk otherwise (re-read only when its size or modification time changes), then the
 * evidence rules run. The result is kept per
 * rollout under a key made of every file's version, so unchanged rollouts cost nothing to ask again.
 * An open artifact outside any rollout is checked by the same per-document cache.
 */
import { statSync } from 'node:fs';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { ArtifactKind } from '../../../shared/src/layout';
import { isInside } from '../../../shared/src/paths';
import type { RolloutEvidenceSettings } from '../../../shared/src/settings';
import type { ArtifactClassifier } from '../engine/artifacts/classify';
import { filesOfRollout, type ArtifactFile } from '../engine/bundle/discover';
import { describeFileError } from '../engine/bundle/fileErrors';
import type { RolloutBundle } from '../engine/bundle/rollout';
import type { ArtifactChecker, KeptCheck } from '../engine/check/artifactChecker';
import type { FileReport } from '../engine/check/report';
import { ModelCaches } from '../engine/model/caches';
import { evaluateRollout, type RolloutEvaluation } from '../engine/rules/evaluate';
import { loadRolloutCancellable, prepareLoad } from '../engine/load';
import { RecentlyUsedCache } from '../engine/recentlyUsedCache';
import { fixtureFoldersOf, isFixtureBundle } from '../authoring/fixtureBundles';
import { isFileUri, pathOfUri } from './uris';

export interface EvaluatedRollout {
  /** Changes whenever any file of the rollout or the settings change. */
  readonly key: string;
  /** Evaluated by this call, rather than answered from the cache. */
  readonly fresh: boolean;
  readonly bundle: RolloutBundle;
  readonly evaluation: RolloutEvaluation;
  /** A fixture bundle (authoring/fixtureBundles.ts): authored records count, and the quick fixes that write evidence are offered. */
  readonly fixtureBundle: boolean;
}

/** Kept by document URI for the document's version. */
interface DocumentEntry {
  readonly kind: ArtifactKind;
  readonly maxFindings: number;
  readonly report: FileReport;
  /** For the next check of the same document. */
  readonly kept?: KeptCheck;
}

/** Kept by path for the file's size and time (its stamp). */
interface DiskEntry {
  readonly kind: ArtifactKind;
  readonly maxFindings: number;
  readonly report?: FileReport;
  readonly ioError?: string;
}

export class RolloutEvaluator {
  /** Only open documents are checked here, and each is forgotten on closing: no bound needed. */
  private readonly documents = new RecentlyUsedCache<DocumentEntry, number>({ maxEntries: Infinity });
  /** The files of kept rollouts read from disk, forgotten with their rollout. */
  private readonly disk = new RecentlyUsedCache<DiskEntry, string>({ maxEntries: Infinity });
  private readonly rollouts: RecentlyUsedCache<EvaluatedRollout, string>;
  private readonly caches = new ModelCaches({ keepActionSequences: true });

  constructor(
    private readonly checker: ArtifactChecker,
    /** Whether an editor holds a document of the rollout: such rollouts are always kept. */
    hasOpenDocuments: (root: string) => boolean,
    /** Rollouts kept beyond those with open documents, the most recently used. */
    maxOtherRollouts = 16,
  ) {
    // Listing a thousand rollouts must not keep a thousand bundles: keep the few used last, and nothing
    // else of those evicted.
    this.rollouts = new RecentlyUsedCache({
      maxEntries: maxOtherRollouts,
      isPinned: hasOpenDocuments,
      onEvict: (root) => this.forgetKept(root),
    });
  }

  /**
   * `files`: the rollout's files when the caller has just discovered them (discoverRolloutOf), so that
   * they are not looked up again. Resolves to undefined when cancelled.
   */
  async evaluate(
    root: string,
    settings: RolloutEvidenceSettings,
    classifier: ArtifactClassifier,
    settingsGeneration: number,
    openDocument: (path: string) => TextDocument | undefined,
    isCancelled: () => boolean,
    files?: readonly ArtifactFile[],
  ): Promise<EvaluatedRollout | undefined> {
    const { key, load, stamps, fixtureBundle } = this.stateOf(
      root,
      settings,
      classifier,
      settingsGeneration,
      openDocument,
      files,
    );
    const cached = this.rollouts.get(root, key);
    if (cached) return { ...cached, fresh: false };

    const bundle = await loadRolloutCancellable(load, (file) =>
      file.document
        ? this.checkDocument(file.document, file.kind, settings.maxNumberOfProblems, isCancelled)
        : this.checkDisk(
            file.path,
            stamps.get(file.path) ?? diskStamp(file.path),
            file.kind,
            settings.maxNumberOfProblems,
            load.boundary,
            isCancelled,
          ),
    );
    if (!bundle) return undefined;
    const evaluation = evaluateRollout(bundle, { ...settings, fixtureBundle }, this.caches);
    const evaluated = { key, fresh: true, bundle, evaluation, fixtureBundle };
    this.rollouts.set(root, key, evaluated);
    return evaluated;
  }

  /**
   * What identifies the rollout's current state (every file's version or size and time, the verifier's
   * reward, the settings), without evaluating it: equal keys, equal evaluations.
   */
  keyOf(
    root: string,
    settings: RolloutEvidenceSettings,
    classifier: ArtifactClassifier,
    settingsGeneration: number,
    openDocument: (path: string) => TextDocument | undefined,
    files?: readonly ArtifactFile[],
  ): string {
    return this.stateOf(root, settings, classifier, settingsGeneration, openDocument, files).key;
  }

  private stateOf(
    root: string,
    settings: RolloutEvidenceSettings,
    classifier: ArtifactClassifier,
    settingsGeneration: number,
    openDocument: (path: string) => TextDocument | undefined,
    files = filesOfRollout(root, classifier),
  ) {
    const load = prepareLoad(root, files, { openDocument });
    // A file read from disk is known by its size and time when the rollout was looked up.
    const stamps = new Map(
      load.files.flatMap((file) => (file.document ? [] : [[file.path, diskStamp(file.path)] as const])),
    );
    const versions = load.files.map(
      (file) => `${file.path}@${file.document ? file.document.version : `disk:${stamps.get(file.path)}`}`,
    );
    const { reward } = load;
    // The scaffold's marker may be written or removed while the rollout's artifacts stay as they are.
    const fixtureBundle = isFixtureBundle(root, fixtureFoldersOf(settings.fixtureFolders));
    const key = [
      settingsGeneration,
      settings.maxNumberOfProblems,
      settings.allowOracleWithoutLlm,
      settings.allowNativeSubscriptionWithoutLlm,
      fixtureBundle,
      ...versions,
      reward.text?.text ?? '',
      reward.json?.text ?? '',
      // A reward file that is there but unread (a FIFO, a link out) has no text, as an absent one has.
      ...(reward.notRead ?? []).map(({ path, why }) => `${path}:${'outside' in why ? 'outside' : why.notRegular}`),
      ...(reward.failed ?? []).map(({ path, error }) => `${path}:${error}`),
      reward.text?.unreadable ?? '',
      reward.json?.unreadable ?? '',
    ].join('\n');
    return { key, load, stamps, fixtureBundle };
  }

  /**
   * A document closed. Its rollout is evaluated afresh next time, reading the file from disk: the
   * cached evaluation's key holds the document's version, and versions start at 1 again on reopening.
   */
  forgetDocument(uri: string): void {
    this.documents.delete(uri);
    if (!isFileUri(uri)) return;
    const path = pathOfUri(uri);
    this.rollouts.deleteWhere((root) => isInside(path, root));
  }

  /** No document of the rollout is open any more: nothing of it is kept. */
  forgetRollout(root: string): void {
    this.rollouts.delete(root);
    this.forgetKept(root);
  }

  /** What is kept for the next evaluation of a rollout besides the evaluation itself. */
  private forgetKept(root: string): void {
    this.caches.actionSequences?.delete(root);
    this.disk.deleteWhere((path) => isInside(path, root));
  }

  /** The lines of the last check of this very version of the document, as its check kept them. */
  checkedLinesOf(document: TextDocument, kind: ArtifactKind): KeptCheck | undefined {
    const entry = this.documents.get(document.uri, document.version);
    return entry?.kind === kind ? entry.kept : undefined;
  }

  /**
   * Checks an open document on its own, re-analysing only the lines changed since its last check; for
   * a rollout's files and for artifacts outside any rollout alike. Resolves to undefined when cancelled.
   */
  async checkDocument(
    document: TextDocument,
    kind: ArtifactKind,
    maxFindings: number,
    isCancelled: () => boolean,
  ): Promise<{ report: FileReport } | undefined> {
    const current = this.documents.get(document.uri, document.version);
    if (current?.kind === kind && current.maxFindings === maxFindings) return { report: current.report };
    // Another version: its lines are reused where the text is the same.
    const previous = this.documents.latest(document.uri)?.value;
    const reusable = previous?.kind === kind && previous.maxFindings === maxFindings ? previous.kept : undefined;
    const checked = await this.checker.checkTextCancellable(
      document.getText(),
      kind,
      { maxFindings },
      isCancelled,
      reusable,
    );
    if (!checked) return undefined;
    this.documents.set(document.uri, document.version, {
      kind,
      maxFindings,
      report: checked.report,
      ...(checked.kept ? { kept: checked.kept } : {}),
    });
    return { report: checked.report };
  }

  /** `stamp`: the file's size and time when the rollout was looked up, which its key holds. */
  private async checkDisk(
    path: string,
    stamp: string,
    kind: ArtifactKind,
    maxFindings: number,
    boundary: string,
    isCancelled: () => boolean,
  ): Promise<{ report?: FileReport; ioError?: string } | undefined> {
    const previous = this.disk.get(path, stamp);
    if (previous?.kind === kind && previous.maxFindings === maxFindings) return previous;
    let entry: DiskEntry;
    try {
      const report = await this.checker.checkFileCancellable(path, kind, { maxFindings, boundary }, isCancelled);
      if (!report) return undefined;
      entry = { kind, maxFindings, report };
    } catch (error) {
      entry = { kind, maxFindings, ioError: describeFileError(error) };
    }
    this.disk.set(path, stamp, entry);
    return entry;
  }
}

function diskStamp(path: string): string {
  try {
    const stat = statSync(path);
    return `${stat.size}:${stat.mtimeMs}`;
  } catch (error) {
    return `error:${describeFileError(error)}`;
  }
}
