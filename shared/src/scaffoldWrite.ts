/**
 * Writes a scaffold's files into a new rollout folder on disk, for the extension and the CLI alike. It
 * never overwrites and never writes through a symbolic link: the rollout folder is made with one `mkdir`
 * (which fails on anything already there, a link included), each folder below it likewise, and each
 * file is created exclusively (`wx`: O_CREAT|O_EXCL, which fails on an existing path and never follows
 * a link). Making is the check, so nothing can appear between a check and the write.
 */
import { lstatSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScaffoldFile } from './scaffold';

/** `exists`: something is at the rollout folder's path already (`symlink`: a symbolic link); nothing was written. */
export type ScaffoldWriteOutcome =
  { readonly kind: 'written' } | { readonly kind: 'exists' } | { readonly kind: 'symlink' };

/** Throws, with the path in its message, when a file or folder below `root` cannot be made. */
export function writeScaffoldFiles(root: string, files: readonly ScaffoldFile[]): ScaffoldWriteOutcome {
  try {
    mkdirSync(root);
  } catch (error) {
    if (codeOf(error) !== 'EEXIST') throw error;
    return { kind: lstatSync(root).isSymbolicLink() ? 'symlink' : 'exists' };
  }
  for (const file of files) {
    const segments = file.path.split('/');
    if (segments.some((segment) => segment === '' || segment === '.' || segment === '..'))
      throw new Error(`the scaffold's file path ${JSON.stringify(file.path)} would leave the rollout folder`);
    let folder = root;
    for (const segment of segments.slice(0, -1)) {
      folder = join(folder, segment);
      makeFolderNoFollow(folder);
    }
    const path = join(folder, segments.at(-1)!);
    try {
      writeFileSync(path, file.content, { flag: 'wx' });
    } catch (error) {
      if (codeOf(error) === 'EEXIST')
        throw new Error(
          `${path} appeared while the scaffold was being written${lstatSync(path).isSymbolicLink() ? ', as a symbolic link' : ''}; it was left as it was`,
        );
      throw error;
    }
  }
  return { kind: 'written' };
}

/** A folder below the new rollout folder: made here, or already made by an earlier file, never a link. */
function makeFolderNoFollow(folder: string): void {
  try {
    mkdirSync(folder);
  } catch (error) {
    if (codeOf(error) !== 'EEXIST') throw error;
    const stats = lstatSync(folder);
    if (!stats.isDirectory())
      throw new Error(
        `${folder} is ${stats.isSymbolicLink() ? 'a symbolic link' : 'not a folder'}; the scaffold writes only into folders it made`,
      );
  }
}

function codeOf(error: unknown): string | undefined {
  return error instanceof Error ? (error as NodeJS.ErrnoException).code : undefined;
}
