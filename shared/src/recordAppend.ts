/**
 * Appending one record to an action records file, for the extension's "Record as evidence" and the CLI's
 * `probe --record` alike. The file is opened with O_NOFOLLOW, so a symbolic link put where the records
 * belong (pointing at a file the user never meant to touch) is refused rather than written through; the
 * opened descriptor is then checked to be a regular file (fstat, not a second look at the path, so
 * nothing can be swapped in between); O_APPEND makes the line land at the end whatever else writes to the
 * file, and O_NONBLOCK keeps the open of a FIFO from waiting for a reader. What the file already holds is
 * never rewritten: a last line without its newline stays as damaged as it was, and the record starts on a
 * line of its own.
 */
import { closeSync, constants, fstatSync, openSync, readSync, writeSync, type Stats } from 'node:fs';

const openFlags = constants.O_RDWR | constants.O_APPEND | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** The file cannot take a record: a link, a folder, a FIFO... Its message names the path and why. */
export class RecordFileRefusedError extends Error {}

/**
 * Appends `line` as one record, starting it on a new line when the file's last line has no newline;
 * creates a file that does not exist yet. Returns the record's 1-based line number.
 */
export function appendRecordToFile(path: string, line: string): number {
  const { descriptor, size } = openRecordFile(path, true);
  try {
    const existing = newlinesAndLastByte(descriptor, size);
    const text = textToAppend(existing.lastCharacter, line);
    writeSync(descriptor, text);
    return existing.newlines + (text.startsWith('\n') ? 1 : 0) + 1;
  } finally {
    closeSync(descriptor);
  }
}

/**
 * Throws RecordFileRefusedError when `path` is there but could not take a record, making nothing: for a
 * caller to refuse before it does what it would record (appendRecordToFile checks again when it writes).
 */
export function checkRecordFile(path: string): void {
  let opened: OpenedRecordFile;
  try {
    opened = openRecordFile(path, false);
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return;
    throw error;
  }
  closeSync(opened.descriptor);
}

/** The text to append after a file whose last character is `lastCharacter` ('' for an empty file). */
export function textToAppend(lastCharacter: string, line: string): string {
  return `${lastCharacter === '' || lastCharacter === '\n' ? '' : '\n'}${line}\n`;
}

interface OpenedRecordFile {
  readonly descriptor: number;
  readonly size: number;
}

function openRecordFile(path: string, create: boolean): OpenedRecordFile {
  let descriptor: number;
  try {
    descriptor = openSync(path, openFlags | (create ? constants.O_CREAT : 0), 0o644);
  } catch (error) {
    const code = codeOf(error);
    if (code === 'ELOOP') throw refused(path, 'a symbolic link');
    if (code === 'EISDIR') throw refused(path, 'a folder');
    throw error;
  }
  const stats = fstatSync(descriptor);
  if (!stats.isFile()) {
    closeSync(descriptor);
    throw refused(path, shapeOf(stats));
  }
  return { descriptor, size: stats.size };
}

function refused(path: string, what: string): RecordFileRefusedError {
  return new RecordFileRefusedError(
    `${path} is ${what}: a record is appended only to a regular file, never through a symbolic link`,
  );
}

function shapeOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a folder';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'not a regular file';
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

function codeOf(error: unknown): string | undefined {
  return error instanceof Error ? (error as NodeJS.ErrnoException).code : undefined;
}
