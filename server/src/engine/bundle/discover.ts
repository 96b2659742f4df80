/**
 * Finds rollout bundles on disk the way BenchFlow's experiment-review validator does (a `result.json`
 * file, a folder holding one, or every one found below), and also accepts a folder with `trajectory/`
 * or `benchguard/` as a rollout, since a run that is still going has no result.json yet.
 */
import { readdirSync, statSync, type Dirent } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import {
  marksRolloutFolder,
  rolloutFiles,
  rolloutFolders,
  rolloutLayoutDepth,
  skippedFolders,
  type ArtifactKind,
} from '../../../../shared/src/layout';
import type { ArtifactClassifier } from '../artifacts/classify';
import { boundaryOf } from '../io/containment';
import { describeFileError } from './fileErrors';
import { compareNames } from '../../../../shared/src/order';

export interface ArtifactFile {
  /** Absolute path. */
  readonly path: string;
  readonly kind: ArtifactKind;
}

export interface DiscoveredBundle {
  /** The rollout folder, or for loose files the folder holding them. */
  readonly root: string;
  /** True for artifact files found outside any rollout, checked on their own. */
  readonly loose: boolean;
  readonly files: readonly ArtifactFile[];
  /** For a rollout, what the walk saw of its layout; plain data, so that it passes to a worker thread. */
  readonly listing?: RolloutListing;
  /**
   * The real path of `root` (containment.ts `boundaryOf`), when the walk reached it: the walk never
   * follows a link, so below the real path of the folder it started from there is none to resolve.
   */
  readonly boundary?: string;
}

/**
 * The entries that are not folders in the folders of a rollout's layout (its own and one level down)
 * that discovery read, by path relative to the rollout folder with `/` between parts: a file looked up
 * by name (the verifier's reward, the fixture marker) that is not there need not be looked for on disk
 * again, a system call per rollout each. Only a folder in `folders` was read: of any other, nothing is known.
 */
export interface RolloutListing {
  readonly folders: Set<string>;
  /** `file`: a regular file; `other`: a link, FIFO, socket or device. */
  readonly entries: Map<string, 'file' | 'other'>;
}

/**
 * What the listing says of `relativePath`: a regular file, another entry that is not a folder, absent,
 * or undefined when its folder was not read (or there is no listing) and only the disk can tell.
 */
export function listedEntry(
  listing: RolloutListing | undefined,
  relativePath: string,
): 'file' | 'other' | 'absent' | undefined {
  const slash = relativePath.lastIndexOf('/');
  if (!listing?.folders.has(slash === -1 ? '' : relativePath.slice(0, slash))) return undefined;
  return listing.entries.get(relativePath) ?? 'absent';
}

export interface Discovery {
  readonly bundles: readonly DiscoveredBundle[];
  /** Folders or files that exist but could not be read; each a one-line message. */
  readonly ioErrors: readonly string[];
}

/** A path the user named that does not exist, or is not something we can check. */
export class DiscoveryUsageError extends Error {}

interface MutableBundle {
  root: string;
  loose: boolean;
  files: ArtifactFile[];
  listing?: RolloutListing;
  /** The folder the walk that found it started from. */
  walkedFrom?: string;
}

/** A rollout folder with its artifact files. */
export interface DiscoveredRollout {
  readonly root: string;
  readonly files: readonly ArtifactFile[];
}

/**
 * `maxDepth`: how many folder levels below each named folder to search; every level by default.
 * `onBundleFound`: called with the number of bundles found so far as each is found, for a caller that
 * gets ready to check them while the walk goes on.
 */
export function discoverBundles(
  paths: readonly string[],
  classifier: ArtifactClassifier,
  maxDepth = Infinity,
  onBundleFound?: (found: number) => void,
): Discovery {
  return discoverReading(paths, classifier, maxDepth, readFolder, onBundleFound);
}

/** `read`: a folder's entries; one already read is not read again. */
function discoverReading(
  paths: readonly string[],
  classifier: ArtifactClassifier,
  maxDepth: number,
  read: (folder: string) => Dirent[],
  onBundleFound?: (found: number) => void,
): Discovery {
  const bundles = new Map<string, MutableBundle>();
  const ioErrors: string[] = [];
  const visitedFolders = new Set<string>();

  let walkedFrom: string | undefined;
  const bundleAt = (root: string, loose: boolean): MutableBundle => {
    const key = `${loose ? 'loose' : 'rollout'}:${root}`;
    let bundle = bundles.get(key);
    if (!bundle) {
      bundle = loose
        ? { root, loose, files: [] }
        : { root, loose, files: [], listing: { folders: new Set(), entries: new Map() } };
      if (walkedFrom !== undefined) bundle.walkedFrom = walkedFrom;
      bundles.set(key, bundle);
      onBundleFound?.(bundles.size);
    }
    return bundle;
  };

  const walk = (folder: string, enclosingRollout: MutableBundle | undefined, depth: number): void => {
    if (visitedFolders.has(folder) || depth > maxDepth) return;
    visitedFolders.add(folder);
    let entries: Dirent[];
    try {
      entries = read(folder);
    } catch (error) {
      ioErrors.push(`cannot read folder ${folder}: ${describeFileError(error)}`);
      return;
    }
    const rollout = isRolloutFolder(entries) ? bundleAt(folder, false) : enclosingRollout;
    // Inside a rollout only its own layout counts: the folder itself and one level of trajectory/,
    // agent/, benchguard/ and the like.
    const layoutFolder = rollout ? layoutFolderOf(rollout.root, folder) : undefined;
    const listing = layoutFolder !== undefined ? rollout?.listing : undefined;
    listing?.folders.add(layoutFolder!);
    for (const entry of entries) {
      const path = join(folder, entry.name);
      const isFolder = entry.isDirectory();
      if (listing && !isFolder) {
        const name = layoutFolder === '' ? entry.name : `${layoutFolder}/${entry.name}`;
        listing.entries.set(name, entry.isFile() ? 'file' : 'other');
      }
      // Whatever carries an artifact's name is kept as that artifact: a folder, a FIFO, a socket, a
      // device or a link to anything (a dangling one too), so the check reports what it is instead of
      // the file being silently absent. Nothing is opened here; a link to a folder is not followed.
      const kind = classifier.kindOf(path);
      if (kind) {
        if (!rollout) bundleAt(folder, true).files.push({ path, kind });
        else if (layoutFolder !== undefined) rollout.files.push({ path, kind });
      } else if (isFolder && !skippedFolders.has(entry.name)) {
        // The agent-collected output of a rollout is not evidence.
        if (rollout?.root === folder && entry.name === rolloutFolders.agentOutput) continue;
        walk(path, rollout, depth + 1);
      }
    }
  };

  for (const given of paths) {
    const path = resolve(given);
    let isFolder: boolean;
    try {
      isFolder = statSync(path).isDirectory();
    } catch (error) {
      throw new DiscoveryUsageError(`cannot check ${given}: ${describeFileError(error)}`);
    }
    if (isFolder) {
      walkedFrom = path;
      walk(path, undefined, 0);
    } else if (basename(path) === rolloutFiles.result) {
      walkedFrom = dirname(path);
      walk(walkedFrom, undefined, 0);
    } else {
      walkedFrom = undefined;
      const kind = classifier.kindOf(path);
      if (!kind) {
        throw new DiscoveryUsageError(
          `${given} is not a known rollout artifact; name a rollout folder, or map the file to a kind with --map GLOB=KIND`,
        );
      }
      bundleAt(dirname(path), true).files.push({ path, kind });
    }
  }

  const realPaths = new RealPaths();
  const sorted = [...bundles.values()]
    .filter((bundle) => bundle.files.length > 0 || !bundle.loose)
    .map(({ walkedFrom: from, ...bundle }) => ({
      ...bundle,
      files: uniqueSorted(bundle.files),
      ...(from !== undefined ? { boundary: join(realPaths.of(from), relative(from, bundle.root)) } : {}),
    }))
    .sort((a, b) => compareNames(a.root, b.root) || Number(a.loose) - Number(b.loose));
  return { bundles: sorted, ioErrors };
}

/**
 * The rollout a file belongs to: its own folder or the one above (the layout keeps artifacts at most
 * one level down, as in trajectory/ and benchguard/), whichever is a rollout folder first.
 */
export function rolloutRootOf(path: string): string | undefined {
  return rolloutFolderOf(path)?.folder;
}

/**
 * The rollout a file belongs to (as `rolloutRootOf`) with its files (as `filesOfRollout`), in one look:
 * the entries of the rollout folder, read to tell that it is one, are not read again to list its files.
 */
export function discoverRolloutOf(path: string, classifier: ArtifactClassifier): DiscoveredRollout | undefined {
  const found = rolloutFolderOf(path);
  return found ? { root: found.folder, files: filesOfRollout(found.folder, classifier, found.entries) } : undefined;
}

function rolloutFolderOf(path: string): { readonly folder: string; readonly entries: Dirent[] } | undefined {
  let folder = dirname(path);
  for (let level = 0; level <= rolloutLayoutDepth; level++, folder = dirname(folder)) {
    try {
      const entries = readFolder(folder);
      if (isRolloutFolder(entries)) return { folder, entries };
    } catch {
      // Not readable: not a rollout we can read as a whole.
    }
  }
  return undefined;
}

/**
 * The artifact files of one rollout, found as discovery finds them. Its layout goes one level down, so
 * the search does too: the server asks after every edit, and a rollout may hold deep folders.
 * `entries`: the rollout folder's own, when already read.
 */
export function filesOfRollout(
  root: string,
  classifier: ArtifactClassifier,
  entries?: Dirent[],
): readonly ArtifactFile[] {
  const read = (folder: string): Dirent[] => (entries && folder === root ? entries : readFolder(folder));
  return (
    discoverReading([root], classifier, rolloutLayoutDepth, read).bundles.find(
      (bundle) => !bundle.loose && bundle.root === root,
    )?.files ?? []
  );
}

/** Each folder's real path, resolved once. */
class RealPaths {
  private readonly known = new Map<string, string>();

  of(folder: string): string {
    let real = this.known.get(folder);
    if (real === undefined) {
      real = boundaryOf(folder);
      this.known.set(folder, real);
    }
    return real;
  }
}

function readFolder(folder: string): Dirent[] {
  return readdirSync(folder, { withFileTypes: true });
}

/** A Dirent of a link is never a directory: linked folders do not make a rollout, as the walk does not follow them. */
function isRolloutFolder(entries: readonly Dirent[]): boolean {
  return entries.some((entry) => marksRolloutFolder(entry.name, entry.isDirectory()));
}

/** `folder` relative to the rollout folder `root`, with `/` between parts, when it is one of the rollout's layout; else undefined. */
function layoutFolderOf(root: string, folder: string): string | undefined {
  const parts = relative(root, folder)
    .split(sep)
    .filter((part) => part !== '');
  return parts.length <= rolloutLayoutDepth ? parts.join('/') : undefined;
}

function uniqueSorted(files: readonly ArtifactFile[]): ArtifactFile[] {
  const byPath = new Map(files.map((file) => [file.path, file]));
  return [...byPath.values()].sort((a, b) => compareNames(a.path, b.path));
}
