/**
 * What every language feature starts from: the open document, its artifact kind and its rollout's
 * evaluation (shared with the diagnostics, so asking again costs nothing), and the text of the
 * rollout's other files, from the editor when open and from disk otherwise.
 */
import { pathToFileURL } from 'node:url';
import type { CancellationToken, TextDocuments } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { ArtifactKind } from '../../../../shared/src/layout';
import { boundaryOf, readInside, readPrefix, resolvedInside } from '../../engine/io/containment';
import type { KeptCheck } from '../../engine/check/artifactChecker';
import type { SourceFile } from '../../engine/inspect/ids';
import type { DocumentValidator } from '../documentValidator';
import type { EvaluatedRollout } from '../rolloutEvaluator';
import { openDocumentAt } from '../rolloutDocuments';
import type { SettingsCache } from '../settingsCache';
import { pathOfUri } from '../uris';

export interface ArtifactDocument {
  readonly document: TextDocument;
  readonly path: string;
  readonly kind: ArtifactKind;
  readonly rollout?: EvaluatedRollout;
}

/** Files larger than this are not read for cross-file navigation: their ids are not looked up. */
const maxNavigatedFileBytes = 64 * 1024 * 1024;

export class ArtifactDocuments {
  private keptSources: { readonly key: string; readonly sources: SourceFile[] } | undefined;
  constructor(
    readonly documents: TextDocuments<TextDocument>,
    private readonly validator: DocumentValidator,
    readonly settings: SettingsCache,
  ) {}

  /** The artifact open as `uri`; undefined when it is not open, not an artifact, or the request was cancelled. */
  async get(uri: string, token: CancellationToken): Promise<ArtifactDocument | undefined> {
    const document = this.documents.get(uri);
    if (!document || token.isCancellationRequested) return undefined;
    const artifact = await this.validator.artifactOf(document, () => token.isCancellationRequested);
    if (!artifact?.kind || token.isCancellationRequested) return undefined;
    return {
      document,
      path: pathOfUri(uri),
      kind: artifact.kind,
      ...(artifact.rollout ? { rollout: artifact.rollout } : {}),
    };
  }

  /** The lines the check of this version of the document kept, with each record's name. */
  checkedLinesOf(document: TextDocument, kind: ArtifactKind): KeptCheck | undefined {
    return this.validator.checkedLinesOf(document, kind);
  }

  /**
   * The artifact's own text, and with a rollout, every readable file of it. Kept for the rollout's
   * current state (its key holds every file's version), since hovers and navigation ask again and again.
   */
  sourcesOf(artifact: ArtifactDocument): SourceFile[] {
    if (!artifact.rollout) return [{ path: artifact.path, kind: artifact.kind, text: artifact.document.getText() }];
    const { key, bundle } = artifact.rollout;
    if (this.keptSources?.key === key) return this.keptSources.sources;
    const sources: SourceFile[] = [];
    for (const file of bundle.files) {
      const text = this.textOf(file.path, bundle.root);
      if (text !== undefined) sources.push({ path: file.path, kind: file.kind, text });
    }
    this.keptSources = { key, sources };
    return sources;
  }

  private textOf(path: string, root: string): string | undefined {
    try {
      // A file that leads out of its rollout is neither read nor navigated, open in the editor or not.
      const boundary = boundaryOf(root);
      if (resolvedInside(path, boundary) === undefined) return undefined;
      const open = openDocumentAt(this.documents, path);
      if (open) return open.getText();
      // The size first: a 1 GB log is not read to be thrown away.
      const text = readInside(path, boundary, (file) =>
        file.size > maxNavigatedFileBytes ? undefined : readPrefix(file, file.size),
      );
      return typeof text === 'string' ? text : undefined;
    } catch {
      // Gone or unreadable since the rollout was evaluated: its diagnostics already say so.
      return undefined;
    }
  }
}

export function uriOfPath(path: string): string {
  return pathToFileURL(path).href;
}
