/**
 * The open documents of a rollout, in one place. A caller knows a rollout in one of three ways, and
 * each way has its own cost, so each has its own question: by a file's path (what the evaluation reads
 * instead of the disk), by its folder (cheap, or exact at the cost of reading folders), or by an
 * evaluated bundle (exact, reading nothing, since its files were just looked up). Only file documents
 * count: a rollout is read from disk, and no other URI names a file there.
 */
import type { TextDocuments } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { isInside } from '../../../shared/src/paths';
import type { RolloutBundle } from '../engine/bundle/rollout';
import { isFileUri, pathOfUri, rolloutRootOfUri } from './uris';

type OpenDocuments = TextDocuments<TextDocument>;

/** The document open for the file at `path`: the rollout reads it instead of the file on disk. */
export function openDocumentAt(documents: OpenDocuments, path: string): TextDocument | undefined {
  return documents.all().find((document) => isFileUri(document.uri) && pathOfUri(document.uri) === path);
}

/** Whether a document below `root` is open; reads no folder, so it is cheap to ask often. */
export function hasOpenDocumentIn(documents: OpenDocuments, root: string): boolean {
  return documents.all().some((document) => isFileUri(document.uri) && isInside(pathOfUri(document.uri), root));
}

/** The uris of the open documents whose rollout is `root`; reads the folders of every open document. */
export function openDocumentsInRollout(documents: OpenDocuments, root: string): string[] {
  return documents
    .all()
    .filter((document) => rolloutRootOfUri(document.uri) === root)
    .map((document) => document.uri);
}

/**
 * The uris of the open documents of an evaluated rollout's files: the only ones whose diagnostics its
 * evaluation decides. Its files were just looked up, so no folder is read again after every edit.
 */
export function openDocumentsOfRollout(documents: OpenDocuments, rollout: RolloutBundle): string[] {
  const paths = new Set(rollout.files.map((file) => file.path));
  return documents
    .all()
    .filter((document) => isFileUri(document.uri) && paths.has(pathOfUri(document.uri)))
    .map((document) => document.uri);
}

/** The rollouts with an open document; reads the folders of every open document. */
export function rolloutsWithOpenDocuments(documents: OpenDocuments): string[] {
  return [...new Set(documents.all().flatMap((document) => rolloutRootOfUri(document.uri) ?? []))];
}
