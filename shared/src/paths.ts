import { sep } from 'node:path';

/** Whether `path` is `root` or lies below it (both absolute, as the file system spells them). */
export function isInside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}
