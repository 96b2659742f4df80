/**
 * How a rollout is loaded, for the CLI and the language server alike: each artifact file of the rollout
 * is read from its source (an editor's open document where the server has one, the disk otherwise),
 * reads stay inside the rollout folder, the verifier's reward files are read beside the artifacts, and
 * the whole becomes the bundle the rules read. How each file is checked stays with the caller: the CLI
 * checks every file once, synchronously; the server reuses earlier checks and can be cancelled.
 */
import { join } from 'node:path';
import { rolloutFiles } from '../../../shared/src/layout';
import { listedEntry, type ArtifactFile, type RolloutListing } from './bundle/discover';
import { boundaryOf, readInside, readPrefixBytes, resolvedInside, type OpenedArtifact } from './io/containment';
import { isUtf8 } from './text/utf8';
import { describeFileError } from './bundle/fileErrors';
import {
  RolloutBundle,
  type BundleFile,
  type FailedVerifierFile,
  type UnreadVerifierFile,
  type VerifierFile,
  type VerifierReward,
} from './bundle/rollout';

/** An editor's document of a file, as far as loading reads it (the language server's TextDocument is one). */
export interface OpenDocument {
  readonly version: number;
  getText(): string;
}

/** Where a rollout's files are read from: an editor's document of the file, when there is one, else the disk. */
export interface RolloutSource<Document extends OpenDocument> {
  readonly openDocument: (path: string) => Document | undefined;
}

/** The CLI's source: every file from disk. */
export const diskSource: RolloutSource<never> = { openDocument: () => undefined };

/** A file of the rollout with where it is read from: the editor's document, or without one the disk. */
export type SourcedFile<Document extends OpenDocument> = ArtifactFile & { readonly document?: Document };

/** A rollout about to be read: each file with its source, the folder reads stay inside, and the verifier's reward. */
export interface RolloutLoad<Document extends OpenDocument> {
  readonly root: string;
  /** The real path of the rollout folder (`boundaryOf`), which every file read from disk must resolve inside. */
  readonly boundary: string;
  readonly files: readonly SourcedFile<Document>[];
  readonly reward: VerifierReward;
}

/** What reading one file gave: its check report, or why it could not be read. */
export type FileRead = Pick<BundleFile, 'report' | 'ioError'>;

/** What the caller knows of the rollout already, so that it is not looked up again per rollout. */
export interface KnownOfRollout {
  /** The rollout's boundary (`boundaryOf`), when resolved already (the CLI's check has). */
  readonly boundary?: string;
  /** What discovery saw of its layout: reward files it did not see are not looked for. */
  readonly listing?: RolloutListing;
}

/**
 * Decides where each file of the rollout in `root` is read from, and reads the verifier's reward: what
 * the server keys its cached evaluations by before reading anything else.
 */
export function prepareLoad<Document extends OpenDocument>(
  root: string,
  files: readonly ArtifactFile[],
  source: RolloutSource<Document>,
  { boundary = boundaryOf(root), listing }: KnownOfRollout = {},
): RolloutLoad<Document> {
  const sourced = files.map((file): SourcedFile<Document> => {
    // The editor follows links: an open file that leads out of the rollout is read from disk instead,
    // where the check reports it and reads nothing behind it.
    const document = source.openDocument(file.path);
    return document && isInsideRollout(file.path, boundary) ? { ...file, document } : file;
  });
  return { root, boundary, files: sourced, reward: readVerifierReward(root, { boundary, listing }) };
}

/** The bundle the rules read, each file read by `read` (the CLI's check, once and synchronously). */
export function loadRollout<Document extends OpenDocument>(
  load: RolloutLoad<Document>,
  read: (file: SourcedFile<Document>) => FileRead,
): RolloutBundle {
  return bundleOf(
    load,
    load.files.map((file) => ({ ...file, ...read(file) })),
  );
}

/** As `loadRollout`, for reads that give the event loop a turn; resolves to undefined when a read was cancelled. */
export async function loadRolloutCancellable<Document extends OpenDocument>(
  load: RolloutLoad<Document>,
  read: (file: SourcedFile<Document>) => Promise<FileRead | undefined>,
): Promise<RolloutBundle | undefined> {
  const files: (SourcedFile<Document> & FileRead)[] = [];
  for (const file of load.files) {
    const checked = await read(file);
    if (!checked) return undefined;
    files.push({ ...file, ...checked });
  }
  return bundleOf(load, files);
}

function bundleOf<Document extends OpenDocument>(
  load: RolloutLoad<Document>,
  files: readonly (SourcedFile<Document> & FileRead)[],
): RolloutBundle {
  // The bundle holds what was read, not where from: the rules judge a file the same either way.
  return new RolloutBundle(
    load.root,
    files.map(({ path, kind, report, ioError }) => ({
      path,
      kind,
      ...(report ? { report } : {}),
      ...(ioError !== undefined ? { ioError } : {}),
    })),
    load.reward,
  );
}

/**
 * Read of verifier/reward.*: far more than any reward file BenchFlow writes (an LLM judge's or ORS
 * reward.json carries its whole rewards map), and the file may be anything. A longer one is read as cut
 * off, so its reward is unreadable, never a prefix taken for the whole.
 */
const rewardBytes = 1024 * 1024;

/**
 * verifier/reward.txt and reward.json: small files the verifier writes. Absent is fine; one that resolves
 * outside the rollout or is no regular file (a FIFO, a dangling link) is listed as such and not read, and
 * one that is there but cannot be read (permission denied, an I/O error) is listed with why: a reward the
 * bundle states but the checker cannot read is never taken for no reward (model/reward.ts). The listing of
 * discovery holds every entry that is no folder, so such a file is never taken for absent without a look.
 */
export function readVerifierReward(
  root: string,
  { boundary = boundaryOf(root), listing }: KnownOfRollout = {},
): VerifierReward {
  const notRead: UnreadVerifierFile[] = [];
  const failed: FailedVerifierFile[] = [];
  const read = (relativePath: string): VerifierFile | undefined => {
    if (listedEntry(listing, relativePath) === 'absent') return undefined;
    const path = join(root, relativePath);
    try {
      const opened = readInside(path, boundary, (file) => readRewardFile(file));
      if ('text' in opened) return { path, ...opened };
      notRead.push({ path, why: opened });
    } catch (error) {
      // Gone since it was listed, or a folder (which the listing, too, takes for no file): no reward here.
      if (!absentCodes.has((error as NodeJS.ErrnoException).code ?? ''))
        failed.push({ path, error: describeFileError(error) });
    }
    return undefined;
  };
  const text = read(rolloutFiles.rewardText);
  const json = read(rolloutFiles.rewardJson);
  return {
    ...(text ? { text } : {}),
    ...(json ? { json } : {}),
    ...(notRead.length > 0 ? { notRead } : {}),
    ...(failed.length > 0 ? { failed } : {}),
  };
}

/** A reward file's text, and why it cannot be taken as written when it cannot (BenchFlow reads it as UTF-8, whole). */
function readRewardFile(file: OpenedArtifact): Pick<VerifierFile, 'text' | 'unreadable'> {
  const bytes = readPrefixBytes(file, rewardBytes);
  const text = bytes.toString('utf8');
  if (file.size > rewardBytes)
    return { text, unreadable: `is larger than the ${rewardBytes / 1024 / 1024} MiB read of a reward file` };
  if (!isUtf8(bytes)) return { text, unreadable: 'holds bytes that are not UTF-8' };
  return { text };
}

/** Errors that mean there is no reward file to read. */
const absentCodes: ReadonlySet<string> = new Set(['ENOENT', 'ENOTDIR', 'EISDIR']);

function isInsideRollout(path: string, boundary: string): boolean {
  try {
    return resolvedInside(path, boundary) !== undefined;
  } catch {
    // Gone since it was listed: its check from disk says so.
    return false;
  }
}
