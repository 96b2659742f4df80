import { errorMessage } from '../../../../shared/src/errors';

/** File-system errors in the words a person reading a CI log needs. */
export function describeFileError(error: unknown): string {
  const code = error instanceof Error ? (error as NodeJS.ErrnoException).code : undefined;
  if (code === 'ENOENT') return 'no such file or folder';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'is a folder, not a file';
  if (code === 'ENOTDIR') return 'a part of the path is not a folder';
  return errorMessage(error);
}
