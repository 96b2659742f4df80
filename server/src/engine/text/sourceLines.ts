/**
 * Lines of a JSONL file, from text already in memory (the editor's document) or streamed from disk (the
 * CLI). Both yield the same line numbering: LF or CRLF endings, a leading UTF-8 byte order mark
 * dropped, and a last line without a newline kept and marked as unterminated.
 */
import { readSync } from 'node:fs';
import { isTerminated, layoutOf, lineCount, lineText } from './lineLayout';
import { invalidUtf8In, isUtf8, utf8ByteOrderMarkLength } from './utf8';

export interface SourceLine {
  /** 0-based line number. */
  readonly number: number;
  /** The line without its line ending (and without a byte order mark on the first line). */
  readonly text: string;
  /** False only for a last line that has no newline after it. */
  readonly terminated: boolean;
  /** Set when the line's bytes are not valid UTF-8: where the first bad byte sits, and what it is. */
  readonly invalidUtf8?: { readonly character: number; readonly message: string };
  /** Set instead of `text` being meaningful when the line is longer than `maxLineBytes`. */
  readonly oversizedBytes?: number;
}

export function* linesOfText(text: string): Generator<SourceLine> {
  const layout = layoutOf(text);
  for (let number = 0; number < lineCount(layout); number++)
    yield { number, text: lineText(layout, number), terminated: isTerminated(layout, number) };
}

export interface FileLineOptions {
  /** Lines longer than this are reported by size instead of being decoded and parsed. */
  readonly maxLineBytes: number;
  readonly chunkBytes?: number;
  /** Called after each chunk with the bytes read so far, for progress reporting. */
  readonly onBytesRead?: (bytesRead: number) => void;
}

const defaultChunkBytes = 1 << 20;
/**
 * Chunk buffers of finished reads, reused: a jobs tree holds thousands of small files, and allocating a
 * fresh 1 MiB buffer for each cost more than reading it. A buffer is here only while no read holds it.
 */
const spareChunks: Buffer[] = [];
const maxSpareChunks = 4;

/**
 * Streams a file, opened by the caller (who closes it: the opening is where containment is checked), in
 * fixed-size chunks so that memory stays bounded by the longest line, not by the file. Throws the
 * underlying error when the file cannot be read.
 */
export function* linesOfFile(descriptor: number, options: FileLineOptions): Generator<SourceLine> {
  const chunkBytes = options.chunkBytes ?? defaultChunkBytes;
  const chunk = (chunkBytes === defaultChunkBytes ? spareChunks.pop() : undefined) ?? Buffer.allocUnsafe(chunkBytes);
  try {
    yield* linesInChunks(descriptor, chunk, options);
  } finally {
    if (chunk.length === defaultChunkBytes && spareChunks.length < maxSpareChunks) spareChunks.push(chunk);
  }
}

function* linesInChunks(descriptor: number, chunk: Buffer, options: FileLineOptions): Generator<SourceLine> {
  const pending: Buffer[] = [];
  let pendingBytes = 0;
  let fileOffsetOfLine = 0;
  let number = 0;
  let bytesRead = 0;

  const makeLine = (parts: Buffer[], lineBytes: number, terminated: boolean): SourceLine => {
    const line = lineOfBytes(parts, lineBytes, number, fileOffsetOfLine, terminated, options.maxLineBytes);
    fileOffsetOfLine += lineBytes + (terminated ? 1 : 0);
    number++;
    return line;
  };

  for (;;) {
    const count = readSync(descriptor, chunk, 0, chunk.length, null);
    if (count === 0) break;
    bytesRead += count;
    // Searched only where this read wrote: past it lie stale bytes, and for a small file most of the chunk.
    const filled = count === chunk.length ? chunk : chunk.subarray(0, count);
    let start = 0;
    for (;;) {
      const newline = filled.indexOf(10, start);
      if (newline === -1) break;
      const piece = filled.subarray(start, newline);
      if (pendingBytes === 0) {
        yield makeLine([piece], piece.length, true);
      } else {
        pending.push(piece);
        yield makeLine(pending.splice(0), pendingBytes + piece.length, true);
        pendingBytes = 0;
      }
      start = newline + 1;
    }
    if (start < count) {
      // Copy: the chunk buffer is reused by the next read.
      pending.push(Buffer.from(filled.subarray(start)));
      pendingBytes += count - start;
    }
    options.onBytesRead?.(bytesRead);
  }
  if (pendingBytes > 0) yield makeLine(pending, pendingBytes, false);
}

function lineOfBytes(
  parts: Buffer[],
  lineBytes: number,
  number: number,
  fileOffset: number,
  terminated: boolean,
  maxLineBytes: number,
): SourceLine {
  if (lineBytes > maxLineBytes) return { number, text: '', terminated, oversizedBytes: lineBytes };
  let bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts, lineBytes);
  if (bytes.length > 0 && bytes[bytes.length - 1] === 13) bytes = bytes.subarray(0, bytes.length - 1);
  const bomBytes = number === 0 ? utf8ByteOrderMarkLength(bytes) : 0;
  bytes = bytes.subarray(bomBytes);
  const text = bytes.toString('utf8');
  const invalid = isUtf8(bytes) ? undefined : invalidUtf8In(bytes, fileOffset + bomBytes);
  return invalid
    ? { number, text, terminated, invalidUtf8: { character: invalid.before.length, message: invalid.message } }
    : { number, text, terminated };
}
