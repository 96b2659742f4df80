import { relative, sep } from 'node:path';

/** Whether `path` is `root` or lies below it (both absolute, as the file system spells them). */
export function isInside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}

/**
 * A path as a person wants it: relative to where they stand (the CLI's working directory, the editor's
 * workspace folder), with forward slashes, so the CLI and the editor name a rollout alike.
 */
export function displayPath(cwd: string, path: string): string {
  const relativePath = relative(cwd, path);
  if (relativePath === '') return '.';
  if (relativePath.startsWith('..')) return path.split(sep).join('/');
  return relativePath.split(sep).join('/');
}
