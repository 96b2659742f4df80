/**
 * The record under a position: for JSONL the line itself (each record is one line), for a JSON
 * artifact the whole text. Positions inside it are offsets of that text.
 */
import type { Position, Range } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { artifactKindInfo, type ArtifactKind } from '../../../../shared/src/layout';
import type { TextRange } from '../../engine/findings';
import { layoutOf, lineContentEnd, LineIndex } from '../../engine/text/lineLayout';

export interface RecordText {
  readonly text: string;
  /** The position's offset in `text`. */
  readonly offset: number;
  readonly lines: LineIndex;
  /** The document line `text` starts on. */
  readonly firstLine: number;
}

export function recordAt(document: TextDocument, kind: ArtifactKind, position: Position): RecordText {
  if (artifactKindInfo(kind).format === 'json') {
    const text = document.getText();
    return { text, offset: document.offsetAt(position), lines: new LineIndex(text), firstLine: 0 };
  }
  const withEnding = document.getText({
    start: { line: position.line, character: 0 },
    end: { line: position.line + 1, character: 0 },
  });
  // From 0, not from the layout's line start: a byte order mark the document holds takes its column 0.
  const line = withEnding.slice(0, lineContentEnd(layoutOf(withEnding), 0));
  return {
    text: line,
    offset: Math.min(position.character, line.length),
    lines: new LineIndex(line),
    firstLine: position.line,
  };
}

/** A range in a record's text as a range in the document. */
export function inDocument(record: RecordText, range: TextRange): Range {
  return {
    start: { line: range.start.line + record.firstLine, character: range.start.character },
    end: { line: range.end.line + record.firstLine, character: range.end.character },
  };
}
