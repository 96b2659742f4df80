/**
 * The file-writing half of "Record as evidence", without VS Code, so that it runs (and is tested) in
 * plain Node.js: one JSONL line appended to an action records file on an opened descriptor. The file is
 * opened with O_NOFOLLOW, so a symbolic link put where the records belong (pointing at a file the user
 * never meant to touch) is refused rather than written through, and O_APPEND, so the line lands at the
 * end whatever else writes to the file. O_CREAT because the user may pick a new file to record into.
 */
import { closeSync, constants, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { textToAppend } from '../../../shared/src/probe';

const appendFlags = constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0);

/** Appends `line` as one record, ending a last line that has no newline first; returns its 1-based line number. */
export function appendRecordToFile(path: string, line: string): number {
  let descriptor: number;
  try {
    descriptor = openSync(path, appendFlags, 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP')
      throw new Error(
        `${path} is a symbolic link; the observation is recorded only in a regular file, never through a link`,
      );
    throw error;
  }
  try {
    const stats = fstatSync(descriptor);
    if (!stats.isFile()) throw new Error(`${path} is not a regular file`);
    const existing = newlinesAndLastByte(descriptor, stats.size);
    const text = textToAppend(existing.lastCharacter, line);
    writeSync(descriptor, text);
    return existing.newlines + (text.startsWith('\n') ? 1 : 0) + 1;
  } finally {
    closeSync(descriptor);
  }
}

/** The newlines in the first `size` bytes, and the last of those bytes ('' for none). */
function newlinesAndLastByte(descriptor: number, size: number): { newlines: number; lastCharacter: string } {
  const chunk = Buffer.alloc(Math.min(size, 1 << 20));
  let newlines = 0;
  let lastCharacter = '';
  for (let offset = 0; offset < size;) {
    const count = readSync(descriptor, chunk, 0, Math.min(chunk.length, size - offset), offset);
    if (count === 0) break;
    for (let index = chunk.indexOf(10); index !== -1 && index < count; index = chunk.indexOf(10, index + 1)) newlines++;
    lastCharacter = String.fromCharCode(chunk[count - 1]!);
    offset += count;
  }
  return { newlines, lastCharacter };
}
