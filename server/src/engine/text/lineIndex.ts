/**
 * Offset ↔ position for a multi-line text (a JSON artifact). JSONL records need none of this: each
 * record is one line, so an offset in the line is already its character.
 */
import type { TextPosition, TextRange } from '../findings';

export class LineIndex {
  private readonly lineStarts: number[] = [0];

  constructor(text: string) {
    for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) {
      this.lineStarts.push(index + 1);
    }
  }

  positionAt(offset: number): TextPosition {
    let low = 0;
    let high = this.lineStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.lineStarts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    return { line: low, character: offset - this.lineStarts[low]! };
  }

  rangeAt(offset: number, length: number): TextRange {
    return { start: this.positionAt(offset), end: this.positionAt(offset + length) };
  }
}
