/**
 * Reads stay inside the bundle. An artifact is opened only when its path, after every symbolic link,
 * lies inside its rollout folder; a link that leads out of it is reported, and nothing behind it is read
 * or quoted. The boundary is the rollout folder's own real path, so a rollout reached through a linked
 * `jobs/` folder, or one that is itself a link, is read where it really lies, and links between its own
 * files are fine.
 *
 * How the check and the open are made one (Node has no openat or O_BENEATH):
 * 1. `realpath` first, and nothing outside is opened at all: opening is not harmless (a FIFO blocks, a
 *    device may act on open). A path spelled below the boundary itself, whose folders below it are real
 *    folders (lstat), is its own real path but for its last component, which step 2 opens without
 *    following: the common case costs a system call or two instead of realpath's one per component of
 *    the whole path, and a link met on the way is resolved by realpath as before.
 * 2. What is about to be opened is looked at first (lstat of the last component, or stat of the resolved
 *    path): a FIFO, socket or device is answered as not a regular file and never opened, nor is a link
 *    that resolves to nothing. The resolved path is then opened with O_NOFOLLOW, so its last component
 *    cannot be swapped for a link after the check, and O_NONBLOCK, so a FIFO swapped in meanwhile cannot
 *    stall the checker; fstat then demands a regular file again.
 * 3. A swapped parent folder is the remaining race, so the opened descriptor itself is checked: where
 *    the kernel names it (`/proc/self/fd`, Linux) its path must still lie inside; elsewhere the file at
 *    the resolved path must still be the one opened (device and inode), which leaves only a second swap
 *    back in between, a window of two system calls.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readlinkSync,
  readSync,
  realpathSync,
  statSync,
  type Stats,
} from 'node:fs';
import { dirname, normalize, resolve, sep } from 'node:path';
import { isInside } from '../../../../shared/src/paths';

/** A file opened for reading inside its boundary; the caller closes `descriptor`. */
export interface OpenedArtifact {
  readonly descriptor: number;
  readonly size: number;
}

/**
 * What an artifact's name is when it is there but not a regular file: a FIFO, a socket, a device, or a
 * symbolic link that resolves to nothing (its target is missing, or links loop).
 */
export type NotRegularFile = 'FIFO' | 'socket' | 'device' | 'dangling symbolic link';

/**
 * Why a path that is there was not read: it leads outside the boundary, or it is not a regular file.
 * Nothing behind it was opened, and it is never absent: the rules read it as present but unreadable.
 */
export type NotRead = { readonly outside: true } | { readonly notRegular: NotRegularFile };

/** What `openInside` found: the file opened, or why it was not (nothing was opened). */
export type Containment = OpenedArtifact | NotRead;

/**
 * The real path of a rollout folder, which its files must resolve inside. A folder that cannot be
 * resolved keeps its own path: its files then fail to open with the error that says why.
 */
export function boundaryOf(folder: string): string {
  try {
    return realpathSync.native(folder);
  } catch {
    return resolve(folder);
  }
}

/** The boundary of a file checked without a rollout around it: its own folder. */
export function ownFolderBoundary(path: string): string {
  return boundaryOf(dirname(path));
}

const readFlags = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/**
 * Opens `path` for reading when it resolves inside `boundary` (a real path, from `boundaryOf`).
 * Throws a Node.js system error (ENOENT, EACCES, EISDIR, …) when the file cannot be opened.
 */
export function openInside(path: string, boundary: string): Containment {
  const direct = openBelow(path, boundary);
  if (direct !== undefined) return 'descriptor' in direct ? checkedOpen(direct, path, boundary) : direct;
  let resolved: string | undefined;
  try {
    resolved = resolvedInside(path, boundary);
  } catch (error) {
    if (isDanglingLink(path, error)) return { notRegular: 'dangling symbolic link' };
    throw error;
  }
  if (resolved === undefined) return { outside: true };
  const notRegular = notRegularFile(statSync(resolved));
  if (notRegular !== undefined) return { notRegular };
  return checkedOpen({ descriptor: openSync(resolved, readFlags), resolved }, path, boundary);
}

/**
 * `path` opened as it is spelled, when it lies below `boundary` through real folders only, or what it
 * is when that is not a regular file (then it is not opened); undefined when it does not lie so, or when
 * its last component is a link (O_NOFOLLOW refuses it), so that realpath decides.
 */
function openBelow(
  path: string,
  boundary: string,
): { descriptor: number; resolved: string } | { notRegular: NotRegularFile } | undefined {
  if (constants.O_NOFOLLOW === undefined || !path.startsWith(boundary + sep) || normalize(path) !== path)
    return undefined;
  for (let end = path.indexOf(sep, boundary.length + 1); end !== -1; end = path.indexOf(sep, end + 1)) {
    if (lstatSync(path.slice(0, end), { throwIfNoEntry: false })?.isDirectory() !== true) return undefined;
  }
  // Absent: the open below says so. A link: realpath decides.
  const own = lstatSync(path, { throwIfNoEntry: false });
  if (own?.isSymbolicLink()) return undefined;
  const notRegular = own && notRegularFile(own);
  if (notRegular !== undefined) return { notRegular };
  try {
    return { descriptor: openSync(path, readFlags), resolved: path };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') return undefined;
    throw error;
  }
}

function checkedOpen(
  { descriptor, resolved }: { descriptor: number; resolved: string },
  path: string,
  boundary: string,
): Containment {
  try {
    const stats = fstatSync(descriptor);
    if (stats.isDirectory()) throw systemError('EISDIR', `EISDIR: illegal operation on a directory, open '${path}'`);
    // Swapped in since it was looked at: O_NONBLOCK let the open return, and nothing is read from it.
    const notRegular = notRegularFile(stats);
    if (notRegular !== undefined) {
      closeSync(descriptor);
      return { notRegular };
    }
    if (!stillInside(descriptor, resolved, stats, boundary)) {
      closeSync(descriptor);
      return { outside: true };
    }
    return { descriptor, size: stats.size };
  } catch (error) {
    closeSync(descriptor);
    throw error;
  }
}

/**
 * The real path of `path` when it lies inside `boundary`, else undefined: for text that an editor read
 * (which follows links), whether it may stand for the rollout's file. Throws when `path` cannot be resolved.
 */
export function resolvedInside(path: string, boundary: string): string | undefined {
  const resolved = realpathSync.native(path);
  return isInside(resolved, boundary) ? resolved : undefined;
}

/** Runs `read` on the opened file and closes it, or answers why it was not opened, reading nothing. */
export function readInside<T>(path: string, boundary: string, read: (file: OpenedArtifact) => T): T | NotRead {
  const opened = openInside(path, boundary);
  if (!('descriptor' in opened)) return opened;
  try {
    return read(opened);
  } finally {
    closeSync(opened.descriptor);
  }
}

/** The first `maxBytes` of an opened file, decoded as UTF-8. */
export function readPrefix(file: OpenedArtifact, maxBytes: number): string {
  return readPrefixBytes(file, maxBytes).toString('utf8');
}

/** The first `maxBytes` of an opened file (fewer when it is shorter, or shrank since it was opened). */
export function readPrefixBytes(file: OpenedArtifact, maxBytes: number): Buffer {
  const bytes = Buffer.alloc(Math.min(maxBytes, file.size));
  let filled = 0;
  while (filled < bytes.length) {
    const count = readSync(file.descriptor, bytes, filled, bytes.length - filled, filled);
    if (count === 0) break;
    filled += count;
  }
  return bytes.subarray(0, filled);
}

/**
 * What a file is when it is neither a regular file nor a folder (a folder is refused as EISDIR); else
 * undefined. Never given a link: links are resolved before what they lead to is looked at.
 */
function notRegularFile(stats: Stats): NotRegularFile | undefined {
  if (stats.isFile() || stats.isDirectory()) return undefined;
  if (stats.isFIFO()) return 'FIFO';
  if (stats.isSocket()) return 'socket';
  // Character and block devices, and any kind a platform adds: whatever it is, it is not read.
  return 'device';
}

/** Whether realpath failed because `path` itself is a link that resolves to nothing (a missing target, or a loop). */
function isDanglingLink(path: string, error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== 'ENOENT' && code !== 'ELOOP' && code !== 'ENOTDIR') return false;
  return lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() === true;
}

function stillInside(descriptor: number, resolved: string, opened: Stats, boundary: string): boolean {
  const named = kernelPathOf(descriptor);
  if (named !== undefined) return isInside(named, boundary);
  const current = statSync(resolved, { throwIfNoEntry: false });
  return current !== undefined && current.dev === opened.dev && current.ino === opened.ino;
}

/** The path the kernel holds for an open descriptor, where it tells (Linux); else undefined. */
function kernelPathOf(descriptor: number): string | undefined {
  try {
    return readlinkSync(`/proc/self/fd/${descriptor}`);
  } catch {
    return undefined;
  }
}

function systemError(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code });
}
