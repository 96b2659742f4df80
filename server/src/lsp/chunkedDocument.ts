/**
 * The server's text document: the text held in chunks of a few thousand characters, each with where
 * its line breaks are, so that an incremental edit rewrites the one or two chunks it touches and the
 * small table of chunks, never the whole text. (`vscode-languageserver-textdocument` rebuilds its whole
 * string on every edit: 62–65 ms per edit of an 11 MB document.) The whole text is joined only when
 * asked for, once per version, which the validation does after a pause in typing.
 *
 * The text is held once, not twice: a version that has its whole text (as opened, or once joined)
 * keeps its chunks as views into that text, which costs a few bytes a chunk; only the chunks an edit
 * rewrites are strings of their own. Joining rebases the version's chunks onto the joined text, so the
 * text they viewed before is freed with the versions that still use it. (Copying each chunk, as this
 * store first did, held a 50 MB document twice from the moment it was opened: chunks and joined text.)
 *
 * Each version is a value of its own: an edit makes a new document that shares the unchanged chunks
 * with the old one, so whoever holds a version (a validation under way) reads one consistent text.
 * Positions are LSP's: lines end at "\n", "\r\n" or "\r", characters count UTF-16 code units.
 */
import type { Position, Range, TextDocument, TextDocumentContentChangeEvent } from 'vscode-languageserver-textdocument';
import { detachedCopy } from '../engine/text/detachedCopy';

const lineFeed = 10;
const carriageReturn = 13;

/** Chunks are cut near this many characters, and an edited chunk is split again beyond twice it. */
const chunkTarget = 8 * 1024;
/**
 * Chunks are grouped in pages of about this many (at most twice it): an edit rebuilds its page and the
 * table of pages, so that its cost stays near constant from a small file to a 100 MB one.
 */
const pageTarget = 32;

interface Chunk {
  /**
   * A view into the whole text of the version that made or last joined it, or, for a chunk an edit
   * rewrote, a string of its own (never a view of an edited region, which would keep that version's
   * neighbouring chunks alive).
   */
  readonly text: string;
  /** The offset in `text` just after each line break. A chunk never ends between "\r" and "\n". */
  readonly breaks: readonly number[];
}

/** A run of chunks, with where each starts and how many line breaks precede it inside the run. */
class Page {
  readonly starts: number[];
  readonly breaksBefore: number[];

  constructor(readonly chunks: readonly Chunk[]) {
    this.starts = new Array<number>(chunks.length + 1);
    this.breaksBefore = new Array<number>(chunks.length + 1);
    let start = 0;
    let breaks = 0;
    for (let index = 0; index < chunks.length; index++) {
      this.starts[index] = start;
      this.breaksBefore[index] = breaks;
      start += chunks[index]!.text.length;
      breaks += chunks[index]!.breaks.length;
    }
    this.starts[chunks.length] = start;
    this.breaksBefore[chunks.length] = breaks;
  }

  get length(): number {
    return this.starts[this.chunks.length]!;
  }

  get breaks(): number {
    return this.breaksBefore[this.chunks.length]!;
  }
}

/** A chunk by where it is: its page, its index in the page, and where it starts in the text. */
interface ChunkPlace {
  readonly page: number;
  readonly index: number;
  readonly start: number;
  readonly chunk: Chunk;
}

/** Why a change cannot be applied to this version of the document. */
export class ChangeOutsideDocument extends Error {}

export class ChunkedDocument implements TextDocument {
  /** Where each page starts in the text, how many line breaks and chunks precede it; one entry more than pages. */
  private readonly pageStarts: number[];
  private readonly pageBreaksBefore: number[];
  private readonly pageChunksBefore: number[];
  /** The whole text, once this version has it: as opened, or joined when first asked for. */
  private joined: string | undefined;

  private constructor(
    readonly uri: string,
    readonly languageId: string,
    readonly version: number,
    /** Replaced only by rebase(), with pages of the same chunks' text. */
    private pages: readonly Page[],
    whole?: string,
  ) {
    this.joined = whole;
    this.pageStarts = new Array<number>(pages.length + 1);
    this.pageBreaksBefore = new Array<number>(pages.length + 1);
    this.pageChunksBefore = new Array<number>(pages.length + 1);
    let start = 0;
    let breaks = 0;
    let chunks = 0;
    for (let index = 0; index < pages.length; index++) {
      this.pageStarts[index] = start;
      this.pageBreaksBefore[index] = breaks;
      this.pageChunksBefore[index] = chunks;
      start += pages[index]!.length;
      breaks += pages[index]!.breaks;
      chunks += pages[index]!.chunks.length;
    }
    this.pageStarts[pages.length] = start;
    this.pageBreaksBefore[pages.length] = breaks;
    this.pageChunksBefore[pages.length] = chunks;
  }

  static create(uri: string, languageId: string, version: number, text: string): ChunkedDocument {
    return new ChunkedDocument(uri, languageId, version, pagesOf(viewsOf(text)), text);
  }

  get lineCount(): number {
    return this.pageBreaksBefore[this.pages.length]! + 1;
  }

  private get length(): number {
    return this.pageStarts[this.pages.length]!;
  }

  private get chunkCount(): number {
    return this.pageChunksBefore[this.pages.length]!;
  }

  getText(range?: Range): string {
    if (range) return this.slice(this.offsetAt(range.start), this.offsetAt(range.end));
    if (this.joined === undefined) {
      const texts: string[] = [];
      for (const page of this.pages) for (const chunk of page.chunks) texts.push(chunk.text);
      // One chunk left may still view a text that edits have since cut down: it is copied, not kept.
      this.joined = texts.length === 1 ? detachedCopy(texts[0]!) : texts.join('');
      this.rebase(this.joined);
    }
    return this.joined;
  }

  /**
   * This version's chunks made views into `whole`, its joined text, at the same places and with the same
   * line breaks: whatever texts they viewed or were before are no longer kept alive by this version.
   */
  private rebase(whole: string): void {
    let start = 0;
    this.pages = this.pages.map(
      (page) =>
        new Page(
          page.chunks.map((chunk) => {
            const text = whole.slice(start, start + chunk.text.length);
            start += chunk.text.length;
            return { text, breaks: chunk.breaks };
          }),
        ),
    );
  }

  offsetAt(position: Position): number {
    if (position.line >= this.lineCount) return this.length;
    if (position.line < 0) return 0;
    const lineStart = this.lineStart(position.line);
    if (position.character <= 0) return lineStart;
    const nextLineStart = position.line + 1 < this.lineCount ? this.lineStart(position.line + 1) : this.length;
    return this.beforeLineEnd(Math.min(lineStart + position.character, nextLineStart), lineStart);
  }

  positionAt(offset: number): Position {
    const clamped = Math.max(0, Math.min(offset, this.length));
    const line = this.lineAt(clamped);
    const lineStart = this.lineStart(line);
    return { line, character: this.beforeLineEnd(clamped, lineStart) - lineStart };
  }

  getLineRange(line: number): Range {
    if (line < 0) return { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
    const last = Math.min(line, this.lineCount - 1);
    const start = this.lineStart(last);
    const next = last + 1 < this.lineCount ? this.lineStart(last + 1) : this.length;
    return {
      start: { line: last, character: 0 },
      end: { line: last, character: this.beforeLineEnd(next, start) - start },
    };
  }

  getEOLCharacters(line: number): string {
    if (line < 0 || line >= this.lineCount) return '';
    const start = this.lineStart(line);
    const next = line + 1 < this.lineCount ? this.lineStart(line + 1) : this.length;
    return this.slice(this.beforeLineEnd(next, start), next);
  }

  /**
   * This document with `changes` applied in order, as version `version`; this one is left as it is.
   * Throws ChangeOutsideDocument when a change's range names a line the document (as the changes
   * before it left it) does not have. A character past the end of its line means the end of the line,
   * as LSP says.
   */
  withChanges(changes: readonly TextDocumentContentChangeEvent[], version: number): ChunkedDocument {
    let document: ChunkedDocument = this;
    for (const change of changes) {
      if (!('range' in change) || change.range === undefined) {
        document = ChunkedDocument.create(this.uri, this.languageId, version, change.text);
        continue;
      }
      const { start, end } = ordered(change.range);
      if (end.line >= document.lineCount)
        throw new ChangeOutsideDocument(`line ${end.line} is past the document's last line, ${document.lineCount - 1}`);
      document = document.replaced(document.offsetAt(start), document.offsetAt(end), change.text, version);
    }
    return document.version === version
      ? document
      : new ChunkedDocument(this.uri, this.languageId, version, document.pages, document.joined);
  }

  /** Characters [start, end) replaced by `text`: only the chunks that hold them, and their page, are rebuilt. */
  private replaced(start: number, end: number, text: string, version: number): ChunkedDocument {
    if (this.chunkCount === 0) return ChunkedDocument.create(this.uri, this.languageId, version, text);
    const firstPlace = this.chunkAt(start);
    const lastPlace = this.chunkAt(end);
    let first = this.pageChunksBefore[firstPlace.page]! + firstPlace.index;
    let last = this.pageChunksBefore[lastPlace.page]! + lastPlace.index;
    let region = `${firstPlace.chunk.text.slice(0, start - firstPlace.start)}${text}${lastPlace.chunk.text.slice(end - lastPlace.start)}`;
    // Keep "\r\n" inside one chunk, and keep chunks from shrinking to nothing as text is deleted.
    for (;;) {
      const before = first > 0 ? this.chunk(first - 1).text : undefined;
      const after = last + 1 < this.chunkCount ? this.chunk(last + 1).text : undefined;
      if (
        before !== undefined &&
        endsWith(before, carriageReturn) &&
        (region.length === 0 || region.charCodeAt(0) === lineFeed)
      ) {
        region = before + region;
        first--;
      } else if (
        after !== undefined &&
        after.charCodeAt(0) === lineFeed &&
        (region.length === 0 || endsWith(region, carriageReturn))
      ) {
        region += after;
        last++;
      } else if (after !== undefined && region.length < chunkTarget / 2) {
        region += after;
        last++;
      } else break;
    }
    return new ChunkedDocument(this.uri, this.languageId, version, this.spliced(first, last, copiesOf(region)));
  }

  /** The pages with chunks first..last (counted over the whole text) replaced by `chunks`. */
  private spliced(first: number, last: number, chunks: readonly Chunk[]): Page[] {
    const firstPage = this.pageOfChunk(first);
    const lastPage = this.pageOfChunk(last);
    const kept = [
      ...this.pages[firstPage]!.chunks.slice(0, first - this.pageChunksBefore[firstPage]!),
      ...chunks,
      ...this.pages[lastPage]!.chunks.slice(last - this.pageChunksBefore[lastPage]! + 1),
    ];
    return [...this.pages.slice(0, firstPage), ...pagesOf(kept), ...this.pages.slice(lastPage + 1)];
  }

  /** Chunk `index`, counted over the whole text. */
  private chunk(index: number): Chunk {
    const page = this.pageOfChunk(index);
    return this.pages[page]!.chunks[index - this.pageChunksBefore[page]!]!;
  }

  private pageOfChunk(index: number): number {
    return lastAtMost(this.pageChunksBefore, this.pages.length - 1, index);
  }

  /** The chunk that holds the character at `offset`; the last chunk for the end of the text. */
  private chunkAt(offset: number): ChunkPlace {
    const page = lastAtMost(this.pageStarts, this.pages.length - 1, offset);
    const local = offset - this.pageStarts[page]!;
    const chunks = this.pages[page]!;
    const index = lastAtMost(chunks.starts, chunks.chunks.length - 1, local);
    return { page, index, start: this.pageStarts[page]! + chunks.starts[index]!, chunk: chunks.chunks[index]! };
  }

  /** The offset where line `line` (0 < line < lineCount, or 0) starts. */
  private lineStart(line: number): number {
    if (line <= 0) return 0;
    // The chunk that holds the line break ending line `line - 1`: the last one with fewer breaks before it than `line`.
    const page = lastAtMost(this.pageBreaksBefore, this.pages.length - 1, line - 1);
    const chunks = this.pages[page]!;
    const local = line - 1 - this.pageBreaksBefore[page]!;
    const index = lastAtMost(chunks.breaksBefore, chunks.chunks.length - 1, local);
    return (
      this.pageStarts[page]! +
      chunks.starts[index]! +
      chunks.chunks[index]!.breaks[local - chunks.breaksBefore[index]!]!
    );
  }

  /** The line that holds `offset`: the number of line breaks at or before it. */
  private lineAt(offset: number): number {
    if (this.chunkCount === 0) return 0;
    const place = this.chunkAt(offset);
    const breaks = place.chunk.breaks;
    const local = offset - place.start;
    let low = 0;
    let high = breaks.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (breaks[middle]! <= local) low = middle + 1;
      else high = middle;
    }
    return this.pageBreaksBefore[place.page]! + this.pages[place.page]!.breaksBefore[place.index]! + low;
  }

  /** `offset` moved back over a line ending, never before `lineStart`. */
  private beforeLineEnd(offset: number, lineStart: number): number {
    let result = offset;
    while (result > lineStart && isLineEnding(this.charCodeAt(result - 1))) result--;
    return result;
  }

  private charCodeAt(offset: number): number {
    const place = this.chunkAt(offset);
    return place.chunk.text.charCodeAt(offset - place.start);
  }

  private slice(start: number, end: number): string {
    if (end <= start) return '';
    if (this.joined !== undefined) return this.joined.slice(start, end);
    const pieces: string[] = [];
    const first = this.chunkAt(start);
    let chunkStart = first.start;
    for (
      let index = this.pageChunksBefore[first.page]! + first.index;
      index < this.chunkCount && chunkStart < end;
      index++
    ) {
      const text = this.chunk(index).text;
      pieces.push(text.slice(Math.max(0, start - chunkStart), end - chunkStart));
      chunkStart += text.length;
    }
    return pieces.join('');
  }
}

/**
 * The last index in [0, highest] whose entry in the ascending `values` is at most `target`; 0 when
 * there is none. Entries repeat where a page or chunk holds nothing of what is counted, and the last of
 * equal entries is the one that holds it.
 */
function lastAtMost(values: readonly number[], highest: number, target: number): number {
  let low = 0;
  let high = Math.max(0, highest);
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (values[middle]! <= target) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** Chunks grouped into pages of pageTarget (a last one of up to twice that). */
function pagesOf(chunks: readonly Chunk[]): Page[] {
  const pages: Page[] = [];
  for (let start = 0; start < chunks.length;) {
    const end = chunks.length - start <= 2 * pageTarget ? chunks.length : start + pageTarget;
    pages.push(new Page(chunks.slice(start, end)));
    start = end;
  }
  return pages;
}

/** A whole text cut into chunks that are views into it. */
function viewsOf(text: string): Chunk[] {
  return chunksOf(text, (piece) => piece);
}

/** An edited region cut into chunks of their own. */
function copiesOf(region: string): Chunk[] {
  return chunksOf(region, detachedCopy);
}

/** `text` cut into chunks near chunkTarget characters, never between "\r" and "\n", each piece made by `own`. */
function chunksOf(text: string, own: (piece: string) => string): Chunk[] {
  const chunks: Chunk[] = [];
  let start = 0;
  while (start < text.length) {
    let end = text.length - start <= 2 * chunkTarget ? text.length : start + chunkTarget;
    if (end < text.length && text.charCodeAt(end - 1) === carriageReturn && text.charCodeAt(end) === lineFeed) end++;
    const piece = own(text.slice(start, end));
    chunks.push({ text: piece, breaks: lineBreaksIn(piece) });
    start = end;
  }
  return chunks;
}

function lineBreaksIn(text: string): number[] {
  const breaks: number[] = [];
  if (text.indexOf('\r') === -1) {
    for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) breaks.push(index + 1);
    return breaks;
  }
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === lineFeed || (code === carriageReturn && text.charCodeAt(index + 1) !== lineFeed))
      breaks.push(index + 1);
  }
  return breaks;
}

function isLineEnding(code: number): boolean {
  return code === lineFeed || code === carriageReturn;
}

function endsWith(text: string, code: number): boolean {
  return text.length > 0 && text.charCodeAt(text.length - 1) === code;
}

function ordered(range: Range): Range {
  const { start, end } = range;
  return start.line > end.line || (start.line === end.line && start.character > end.character)
    ? { start: end, end: start }
    : range;
}
