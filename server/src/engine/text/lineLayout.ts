/**
 * The one line table: where each line of a text in memory starts, with the same line rules as the files
 * streamed from disk (LF or CRLF, a leading byte order mark dropped, a last line without a newline kept),
 * and offset ↔ position over it (`LineIndex`). A layout is
 * carried from one version of a document to the next: after an edit, only the lines between the
 * unchanged start and the unchanged end are looked at again, so a one-line edit of a 100,000-line
 * document does not split the other 99,999 lines anew. A line taken out of a layout is a copy of its
 * own, so that what is kept of it across edits never keeps an old version of the whole text alive.
 */
import type { TextPosition, TextRange } from '../findings';
import { detachedCopy } from './detachedCopy';

/** 1 when the text starts with a byte order mark, which is not part of its first line; else 0. */
export function byteOrderMarkLength(text: string): number {
  return text.startsWith('\uFEFF') ? 1 : 0;
}

export interface LineLayout {
  readonly text: string;
  /**
   * `starts[i]` is where line i starts; `starts[count]` is one past the last line's newline, or
   * `text.length + 1` when the last line has none, so that line i always ends at `starts[i + 1] - 1`.
   */
  readonly starts: readonly number[];
}

/** A new layout, and where each of its lines stood in the previous layout when an edit left it as it was. */
export interface Relayout {
  readonly layout: LineLayout;
  /** Lines before this index are unchanged and unmoved. */
  readonly unchangedBefore: number;
  /** Lines from this index on are unchanged, moved by `shift` lines. */
  readonly unchangedFrom: number;
  readonly shift: number;
}

export function layoutOf(text: string): LineLayout {
  const starts: number[] = [];
  appendStarts(text, byteOrderMarkLength(text), text.length, starts);
  return { text, starts };
}

export function lineCount(layout: LineLayout): number {
  return layout.starts.length - 1;
}

/** Where line `index` ends in the text, its LF or CRLF left out. */
export function lineContentEnd(layout: LineLayout, index: number): number {
  const start = layout.starts[index]!;
  const end = Math.min(layout.starts[index + 1]! - 1, layout.text.length);
  return end > start && layout.text.charCodeAt(end - 1) === 13 ? end - 1 : end;
}

/**
 * Line `index` without its line ending, as a string of its own: the checks keep lines (and slices of
 * them, in findings and facts) across edits, and a plain slice would keep the whole text alive.
 */
export function lineText(layout: LineLayout, index: number): string {
  return detachedCopy(layout.text.slice(layout.starts[index]!, lineContentEnd(layout, index)));
}

/**
 * Line `index` without its line ending, as a view into the text: for reading it now (a check parses
 * every line and keeps few), never for keeping, which `lineText` is for.
 */
export function lineSlice(layout: LineLayout, index: number): string {
  return layout.text.slice(layout.starts[index]!, lineContentEnd(layout, index));
}

/** The length of line `index` without its line ending, without slicing it out. */
export function lineLength(layout: LineLayout, index: number): number {
  return lineContentEnd(layout, index) - layout.starts[index]!;
}

/** False only for a last line that has no newline after it. */
export function isTerminated(layout: LineLayout, index: number): boolean {
  return layout.starts[index + 1]! <= layout.text.length;
}

/**
 * Offset ↔ position over a text's layout, for ranges placed by offset: a JSON artifact's keys, an id in
 * a file, the record under the cursor. (The checks of a JSONL file need none of this: each record is one
 * line, so an offset in the line is already its character.) Characters are UTF-16 code units of the text
 * as given, so a leading byte order mark, which the layout leaves out of line 0's text, still takes
 * column 0 there: callers that place ranges in the text without it pass that text, as checkJsonDocument
 * does.
 */
export class LineIndex {
  readonly layout: LineLayout;

  constructor(text: string) {
    this.layout = layoutOf(text);
  }

  /**
   * The end sentinel takes part in the search: an offset at the end of a text that ends with a newline
   * lies on the empty line after it, as an editor counts lines.
   */
  positionAt(offset: number): TextPosition {
    const starts = this.layout.starts;
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    return { line: low, character: offset - (low === 0 ? 0 : starts[low]!) };
  }

  rangeAt(offset: number, length: number): TextRange {
    return { start: this.positionAt(offset), end: this.positionAt(offset + length) };
  }
}

/**
 * The layout of `text`, an edited version of `previous.text`: lines wholly inside the characters both
 * texts share at the start, or at the end, are taken over without being looked at.
 */
export function relayout(previous: LineLayout, text: string): Relayout {
  const before = previous.text;
  const starts = previous.starts;
  const count = starts.length - 1;
  const prefixChars = commonPrefixLength(before, text);
  // Line i is unchanged when its newline lies inside the shared start.
  let unchangedBefore = 0;
  while (unchangedBefore < count && starts[unchangedBefore + 1]! <= prefixChars) unchangedBefore++;

  // The shared end may reach back over the newline that ends the last unchanged line, no further: so
  // the lines it holds start, in the new text, after the unchanged lines at the start.
  const changedStart = unchangedBefore === 0 ? byteOrderMarkLength(text) : starts[unchangedBefore]!;
  const most = Math.min(before.length, text.length);
  const suffixChars = commonSuffixLength(before, text, Math.min(most, most - changedStart + 1));
  const sharedEndStart = before.length - suffixChars;
  const delta = text.length - before.length;
  // Line j is unchanged when the newline before it lies inside the shared end (so line 0, which has none, never is).
  let unchangedFrom = count;
  while (unchangedFrom > Math.max(unchangedBefore, 1) && starts[unchangedFrom - 1]! > sharedEndStart) unchangedFrom--;

  const changedEnd = unchangedFrom < count ? starts[unchangedFrom]! + delta : text.length;
  const next = starts.slice(0, unchangedBefore);
  appendStarts(text, changedStart, changedEnd, next, unchangedFrom < count);
  if (unchangedFrom < count) for (let index = unchangedFrom; index <= count; index++) next.push(starts[index]! + delta);
  const shift = next.length - starts.length;
  return { layout: { text, starts: next }, unchangedBefore, unchangedFrom: unchangedFrom + shift, shift };
}

/**
 * Appends the start of every line in text[from, to), then, unless `more` says lines follow `to`, the
 * end sentinel.
 */
function appendStarts(text: string, from: number, to: number, starts: number[], more = false): void {
  let start = from;
  while (start < to) {
    starts.push(start);
    const end = text.indexOf('\n', start);
    if (end === -1 || end >= to) {
      start = to + 1;
      break;
    }
    start = end + 1;
  }
  if (!more) starts.push(start);
}

/** Compared a chunk at a time, so that the engine's native string comparison does the work. */
const chunk = 4096;

function commonPrefixLength(a: string, b: string): number {
  const most = Math.min(a.length, b.length);
  let length = 0;
  while (length + chunk <= most && a.slice(length, length + chunk) === b.slice(length, length + chunk)) length += chunk;
  while (length < most && a.charCodeAt(length) === b.charCodeAt(length)) length++;
  return length;
}

function commonSuffixLength(a: string, b: string, most: number): number {
  let length = 0;
  while (
    length + chunk <= most &&
    a.slice(a.length - length - chunk, a.length - length) === b.slice(b.length - length - chunk, b.length - length)
  )
    length += chunk;
  while (length < most && a.charCodeAt(a.length - 1 - length) === b.charCodeAt(b.length - 1 - length)) length++;
  return length;
}
