/**
 * Evaluates whole rollouts for the language server: every artifact of the rollout is read from the
 * editor when open (re-analysing only the lines an edit changed) and from disk otherwise (re-read only
 * when its size or modification time changes), then the evidence rules run. The result is kept per
 * rollout under a key made of every file's version, so unchanged rollouts cost nothing to ask again.
 * An open artifact outside any rollout is checked by the same per-document cache.
 */
import { statSync } from 'node:fs';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { ArtifactKind } from '../../../shared/src/layout';
import { isInside } from '../../../shared/src/paths';
import type { RolloutEvidenceSettings } from '../../../shared/src/settings';
import type { ArtifactClassifier } from '../engine/artifacts/classify';
import { readVerifierReward } from '../engine/bundle/checkBundle';
import { boundaryOf, resolvedInside } from '../engine/bundle/containment';
import { rolloutFiles, type ArtifactFile } from '../engine/bundle/discover';
import { describeFileError } from '../engine/bundle/fileErrors';
import { RolloutBundle, type BundleFile } from '../engine/bundle/rollout';
import type { ArtifactChecker, KeptCheck } from '../engine/check/artifactChecker';
import type { FileReport } from '../engine/check/report';
import { ModelCaches } from '../engine/model/caches';
import { evaluateRollout, type RolloutEvaluation } from '../engine/rules/evaluate';
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

interface DocumentEntry {
  readonly version: number;
  readonly kind: ArtifactKind;
  readonly maxFindings: number;
  readonly report: FileReport;
  /** For the next check of the same document. */
  readonly kept?: KeptCheck;
}

interface DiskEntry {
  readonly stamp: string;
  readonly kind: ArtifactKind;
  readonly maxFindings: number;
  readonly report?: FileReport;
  readonly ioError?: string;
}

export class RolloutEvaluator {
  private readonly documents = new Map<string, DocumentEntry>();
  private readonly disk = new Map<string, DiskEntry>();
  private readonly rollouts = new Map<string, EvaluatedRollout>();
  private readonly caches = new ModelCaches({ keepActionSequences: true });

  constructor(
    private readonly checker: ArtifactChecker,
    /** Whether an editor holds a document of the rollout: such rollouts are always kept. */
    private readonly hasOpenDocuments: (root: string) => boolean,
    /** Rollouts kept beyond those with open documents, the most recently used first. */
    private readonly maxOtherRollouts = 16,
  ) {}

  /** Resolves to undefined when cancelled. */
  async evaluate(
    root: string,
    settings: RolloutEvidenceSettings,
    classifier: ArtifactClassifier,
    settingsGeneration: number,
    openDocument: (path: string) => TextDocument | undefined,
    isCancelled: () => boolean,
  ): Promise<EvaluatedRollout | undefined> {
    const { key, sources, reward, boundary, fixtureBundle } = this.stateOf(root, settings, classifier, settingsGeneration, openDocument);
    const cached = this.rollouts.get(root);
    if (cached?.key === key) {
      this.markUsed(root, cached);
      return { ...cached, fresh: false };
    }

    const files: BundleFile[] = [];
    for (const file of sources) {
      const checked =
        'document' in file
          ? await this.checkDocument(file.document, file.kind, settings.maxNumberOfProblems, isCancelled)
          : await this.checkDisk(file.path, file.diskStamp, file.kind, settings.maxNumberOfProblems, boundary, isCancelled);
      if (!checked) return undefined;
      files.push({ path: file.path, kind: file.kind, ...checked });
    }
    const bundle = new RolloutBundle(root, files, reward);
    const evaluation = evaluateRollout(bundle, { ...settings, fixtureBundle }, this.caches);
    const evaluated = { key, fresh: true, bundle, evaluation, fixtureBundle };
    this.markUsed(root, evaluated);
    this.evictUnused();
    return evaluated;
  }

  /**
   * What identifies the rollout's current state (every file's version or size and time, the verifier's
   * reward, the settings), without evaluating it: equal keys, equal evaluations.
   */
  keyOf(root: string, settings: RolloutEvidenceSettings, classifier: ArtifactClassifier, settingsGeneration: number, openDocument: (path: string) => TextDocument | undefined): string {
    return this.stateOf(root, settings, classifier, settingsGeneration, openDocument).key;
  }

  private stateOf(root: string, settings: RolloutEvidenceSettings, classifier: ArtifactClassifier, settingsGeneration: number, openDocument: (path: string) => TextDocument | undefined) {
    const boundary = boundaryOf(root);
    const sources = rolloutFiles(root, classifier).map((file): FileSource => {
      // The editor follows links: an open file that leads out of the rollout is read from disk instead,
      // where the check reports it and reads nothing behind it.
      const document = isInsideRollout(file.path, boundary) ? openDocument(file.path) : undefined;
      return document ? { ...file, document } : { ...file, diskStamp: diskStamp(file.path) };
    });
    const stamps = sources.map((file) => `${file.path}@${'document' in file ? file.document.version : `disk:${file.diskStamp}`}`);
    const reward = readVerifierReward(root);
    // The scaffold's marker may be written or removed while the rollout's artifacts stay as they are.
    const fixtureBundle = isFixtureBundle(root, fixtureFoldersOf(settings.fixtureFolders));
    const key = [settingsGeneration, settings.maxNumberOfProblems, settings.allowOracleWithoutLlm, settings.allowNativeSubscriptionWithoutLlm, fixtureBundle, ...stamps, reward.text?.text ?? '', reward.json?.text ?? ''].join('\n');
    return { key, sources, reward, boundary, fixtureBundle };
  }

  /** The map's order is the order of use: a rollout used again moves to the end. */
  private markUsed(root: string, evaluated: EvaluatedRollout): void {
    this.rollouts.delete(root);
    this.rollouts.set(root, evaluated);
  }

  /** Listing a thousand rollouts must not keep a thousand bundles: keep the few used last. */
  private evictUnused(): void {
    const unused = [...this.rollouts.keys()].filter((root) => !this.hasOpenDocuments(root));
    for (const root of unused.slice(0, Math.max(0, unused.length - this.maxOtherRollouts))) this.forgetRollout(root);
  }

  /**
   * A document closed. Its rollout is evaluated afresh next time, reading the file from disk: the
   * cached evaluation's key holds the document's version, and versions start at 1 again on reopening.
   */
  forgetDocument(uri: string): void {
    this.documents.delete(uri);
    if (!isFileUri(uri)) return;
    const path = pathOfUri(uri);
    for (const root of this.rollouts.keys()) if (isInside(path, root)) this.rollouts.delete(root);
  }

  /** No document of the rollout is open any more: nothing of it is kept. */
  forgetRollout(root: string): void {
    this.rollouts.delete(root);
    this.caches.actionSequences?.delete(root);
    for (const path of this.disk.keys()) if (isInside(path, root)) this.disk.delete(path);
  }

  /** The lines of the last check of this very version of the document, as its check kept them. */
  checkedLinesOf(document: TextDocument, kind: ArtifactKind): KeptCheck | undefined {
    const entry = this.documents.get(document.uri);
    return entry?.version === document.version && entry.kind === kind ? entry.kept : undefined;
  }

  /**
   * Checks an open document on its own, re-analysing only the lines changed since its last check; for
   * a rollout's files and for artifacts outside any rollout alike. Resolves to undefined when cancelled.
   */
  async checkDocument(document: TextDocument, kind: ArtifactKind, maxFindings: number, isCancelled: () => boolean): Promise<{ report: FileReport } | undefined> {
    const previous = this.documents.get(document.uri);
    if (previous && previous.version === document.version && previous.kind === kind && previous.maxFindings === maxFindings) return { report: previous.report };
    const reusable = previous?.kind === kind && previous.maxFindings === maxFindings ? previous.kept : undefined;
    const checked = await this.checker.checkTextCancellable(document.getText(), kind, { maxFindings }, isCancelled, reusable);
    if (!checked) return undefined;
    this.documents.set(document.uri, { version: document.version, kind, maxFindings, report: checked.report, ...(checked.kept ? { kept: checked.kept } : {}) });
    return { report: checked.report };
  }

  /** `stamp`: the file's size and time when the rollout was looked up, which its key holds. */
  private async checkDisk(path: string, stamp: string, kind: ArtifactKind, maxFindings: number, boundary: string, isCancelled: () => boolean): Promise<{ report?: FileReport; ioError?: string } | undefined> {
    const previous = this.disk.get(path);
    if (previous && previous.stamp === stamp && previous.kind === kind && previous.maxFindings === maxFindings) return previous;
    let entry: DiskEntry;
    try {
      const report = await this.checker.checkFileCancellable(path, kind, { maxFindings, boundary }, isCancelled);
      if (!report) return undefined;
      entry = { stamp, kind, maxFindings, report };
    } catch (error) {
      entry = { stamp, kind, maxFindings, ioError: describeFileError(error) };
    }
    this.disk.set(path, entry);
    return entry;
  }
}

/** A file of the rollout, with where it is read from: the editor's document, or the disk as stamped. */
type FileSource = ArtifactFile & ({ readonly document: TextDocument } | { readonly diskStamp: string });

function isInsideRollout(path: string, boundary: string): boolean {
  try {
    return resolvedInside(path, boundary) !== undefined;
  } catch {
    // Gone since it was listed: its check from disk says so.
    return false;
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
