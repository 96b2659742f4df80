/**
 * Lines of a JSONL file, from text already in memory (the editor's document) or streamed from disk (the
 * CLI). Both yield the same line numbering: LF or CRLF endings, a leading UTF-8 byte order mark
 * dropped, and a last line without a newline kept and marked as unterminated.
 */
import { readSync } from 'node:fs';
import { isTerminated, layoutOf, lineCount, lineSlice } from './lineLayout';
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

/** The lines of a text in memory, each a view into it (`lineSlice`): what is kept of one must be copied. */
export function* linesOfText(text: string): Generator<SourceLine> {
  const layout = layoutOf(text);
  for (let number = 0; number < lineCount(layout); number++)
    yield { number, text: lineSlice(layout, number), terminated: isTerminated(layout, number) };
}

export interface FileLineOptions {
  /** Lines longer than this are reported by size instead of being decoded and parsed; past it, a line's bytes are counted, not kept. */
  readonly maxLineBytes: number;
  /** Bytes read at most: a file with more ends its reading with `ReadLimitReached` instead of being read through. */
  readonly maxFileBytes: number;
  readonly chunkBytes?: number;
}

/** Yielded after the lines of each chunk: the reader's caller may report progress, give way, or stop. */
export interface ChunkRead {
  readonly read: 'chunk';
  readonly bytesRead: number;
}

/**
 * The last thing a reading cut at `maxFileBytes` yields: the line it stopped in (`line`) is not yielded,
 * since what was read of it is not all of it, and nothing after it is read.
 */
export interface ReadLimitReached {
  readonly read: 'limit';
  readonly line: number;
  readonly bytesRead: number;
}

/** What reading a file yields, in file order. */
export type FileReading = SourceLine | ChunkRead | ReadLimitReached;

const defaultChunkBytes = 1 << 20;
/**
 * Chunk buffers of finished reads, reused: a jobs tree holds thousands of small files, and allocating a
 * fresh 1 MiB buffer for each cost more than reading it. A buffer is here only while no read holds it.
 */
const spareChunks: Buffer[] = [];
const maxSpareChunks = 4;

/**
 * Streams a file, opened by the caller (who closes it: the opening is where containment is checked), in
 * fixed-size chunks, so that memory stays bounded by a chunk and `maxLineBytes` whatever the file holds,
 * and time by `maxFileBytes` whatever its size. Yields each line, and a `ChunkRead` after each chunk, so
 * that a caller can give way even inside a line that never ends. Throws the underlying error when the
 * file cannot be read. One generator, and a line that lies inside one chunk is decoded straight from it:
 * this runs for every line of 50 MB files, so no view or array is made for it.
 */
export function* linesOfFile(descriptor: number, options: FileLineOptions): Generator<FileReading> {
  const chunkBytes = options.chunkBytes ?? defaultChunkBytes;
  const chunk = (chunkBytes === defaultChunkBytes ? spareChunks.pop() : undefined) ?? Buffer.allocUnsafe(chunkBytes);
  const { maxLineBytes, maxFileBytes } = options;
  const unfinished = new UnfinishedLine(maxLineBytes);
  let fileOffsetOfLine = 0;
  let number = 0;
  let bytesRead = 0;
  try {
    for (;;) {
      const count = readSync(descriptor, chunk, 0, chunk.length, null);
      if (count === 0) break;
      // A read that goes past the limit shows that the file has more than it: only the bytes up to the
      // limit are looked at, so what is checked does not depend on how the reads fell.
      const limitReached = bytesRead + count > maxFileBytes;
      const used = limitReached ? maxFileBytes - bytesRead : count;
      bytesRead += used;
      // Searched only where this read wrote: past it lie stale bytes, and for a small file most of the chunk.
      const filled = used === chunk.length ? chunk : chunk.subarray(0, used);
      let start = 0;
      for (let newline = filled.indexOf(10, 0); newline !== -1; newline = filled.indexOf(10, start)) {
        let line: SourceLine;
        if (unfinished.bytes === 0) {
          line = lineIn(filled, start, newline, number, fileOffsetOfLine, true, maxLineBytes);
          fileOffsetOfLine += newline - start + 1;
        } else {
          const lineBytes = unfinished.bytes + newline - start;
          line = unfinished.end(filled.subarray(start, newline), number, fileOffsetOfLine, true);
          fileOffsetOfLine += lineBytes + 1;
        }
        number++;
        start = newline + 1;
        yield line;
      }
      if (start < used) unfinished.continueWith(filled.subarray(start));
      if (limitReached) {
        yield { read: 'limit', line: number, bytesRead };
        return;
      }
      yield { read: 'chunk', bytesRead };
    }
    if (unfinished.bytes > 0) yield unfinished.end(undefined, number, fileOffsetOfLine, false);
  } finally {
    if (chunk.length === defaultChunkBytes && spareChunks.length < maxSpareChunks) spareChunks.push(chunk);
  }
}

/**
 * The start of a line that continues past the chunks read so far. Its bytes are copied (the chunk is
 * reused by the next read) while the line may still be short enough to parse; once it is longer than
 * `maxLineBytes` they are let go and only counted, so a line that never ends costs a counter.
 */
class UnfinishedLine {
  private parts: Buffer[] = [];
  /** Bytes of the line so far. */
  bytes = 0;

  constructor(private readonly maxLineBytes: number) {}

  continueWith(bytes: Buffer): void {
    this.bytes += bytes.length;
    if (this.bytes > this.maxLineBytes) this.parts = [];
    else this.parts.push(Buffer.from(bytes));
  }

  /** The whole line, its last piece `rest` (absent at the end of a file without a final newline); starts the next. */
  end(rest: Buffer | undefined, number: number, fileOffset: number, terminated: boolean): SourceLine {
    const lineBytes = this.bytes + (rest?.length ?? 0);
    const parts = this.parts;
    this.parts = [];
    this.bytes = 0;
    if (lineBytes > this.maxLineBytes) return { number, text: '', terminated, oversizedBytes: lineBytes };
    if (rest) parts.push(rest);
    return lineIn(Buffer.concat(parts, lineBytes), 0, lineBytes, number, fileOffset, terminated, this.maxLineBytes);
  }
}

/** The line held in `bytes[start, end)`, its newline left out (and found at `fileOffset` in the file). */
function lineIn(
  bytes: Buffer,
  start: number,
  end: number,
  number: number,
  fileOffset: number,
  terminated: boolean,
  maxLineBytes: number,
): SourceLine {
  if (end - start > maxLineBytes) return { number, text: '', terminated, oversizedBytes: end - start };
  if (end > start && bytes[end - 1] === 13) end--;
  const bomBytes = number === 0 ? utf8ByteOrderMarkLength(bytes.subarray(start, end)) : 0;
  start += bomBytes;
  const text = bytes.toString('utf8', start, end);
  // Decoding replaces every byte that is not UTF-8 with U+FFFD, so a text without one came from well-formed
  // bytes; only a text that has one (written, or put there by decoding) has its bytes checked.
  if (!text.includes('\uFFFD')) return { number, text, terminated };
  const lineBytes = bytes.subarray(start, end);
  const invalid = isUtf8(lineBytes) ? undefined : invalidUtf8In(lineBytes, fileOffset + bomBytes);
  return invalid
    ? { number, text, terminated, invalidUtf8: { character: invalid.before.length, message: invalid.message } }
    : { number, text, terminated };
}
