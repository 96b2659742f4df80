import { fileURLToPath } from 'node:url';

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
