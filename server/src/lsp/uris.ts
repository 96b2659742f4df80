import { fileURLToPath } from 'node:url';
import { rolloutRootOf } from '../engine/bundle/discover';

/**
 * The file-system path a document URI names, for artifact classification. Non-file URIs (untitled,
 * virtual file systems) have no path on disk; their URI path still carries the file name, which is
 * what the patterns look at.
 */
export function pathOfUri(uri: string): string {
  try {
    const url = new URL(uri);
    return url.protocol === 'file:' ? fileURLToPath(url) : decodeURIComponent(url.pathname);
  } catch {
    return uri;
  }
}

export function isFileUri(uri: string): boolean {
  return uri.startsWith('file:');
}

/**
 * The rollout folder a document's file belongs to. Only a file URI can have one: the rollout is read
 * from disk, and any other URI's path names nothing there. Reads up to two folders.
 */
export function rolloutRootOfUri(uri: string): string | undefined {
  return isFileUri(uri) ? rolloutRootOf(pathOfUri(uri)) : undefined;
}
