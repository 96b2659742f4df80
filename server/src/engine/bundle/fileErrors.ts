import { errorMessage } from '../../../../shared/src/errors';

/** File-system errors in the words a person reading a CI log needs. */
export function describeFileError(error: unknown): string {
  const code = error instanceof Error ? (error as NodeJS.ErrnoException).code : undefined;
  if (code === 'ENOENT') return 'no such file or folder';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'is a folder, not a file';
  if (code === 'ENOTDIR') return 'a part of the path is not a folder';
  // O_NOFOLLOW met a link: one appeared where a file was just resolved, or where a write must not follow.
  if (code === 'ELOOP') return 'is a symbolic link, which is not followed here';
  return errorMessage(error);
}
