/**
 * The engine's entry point for single files: check an artifact held in memory (the editor) or on disk
 * (the CLI), against the schema of its kind.
 */
import { readFileSync, statSync } from 'node:fs';
import { artifactKindInfo, type ArtifactKind } from '../../../../shared/src/artifactKinds';
import type { Finding } from '../findings';
import { SchemaRegistry } from '../schema/validators';
import { linesOfFile, linesOfText, type SourceLine } from '../text/sourceLines';
import { describeInvalidUtf8, firstInvalidUtf8Offset, isUtf8 } from '../text/utf8';
import { LineIndex } from '../text/lineIndex';
import { checkJsonDocument } from './jsonCheck';
import { FindingCollector } from './collector';
import { JsonlCheck, type LineOutcomes } from './jsonlCheck';
import { maxRecordBytes, recordTooLarge, type CheckOptions, type FileReport } from './report';

export interface FileCheckOptions extends CheckOptions {
  readonly onBytesRead?: (bytesRead: number) => void;
}

/** How often a cancellable check gives the event loop a turn, in lines. */
const linesBetweenYields = 2000;

export class ArtifactChecker {
  constructor(private readonly schemas: SchemaRegistry = new SchemaRegistry()) {}

  checkText(text: string, kind: ArtifactKind, options: CheckOptions): FileReport {
    if (artifactKindInfo(kind).format === 'json') return checkJsonDocument(text, kind, this.schemas.validatorFor(kind), options);
    return this.checkLines(linesOfText(text), kind, options);
  }

  /**
   * Like `checkText`, but gives the event loop a turn every few thousand lines and stops early when
   * `isCancelled` says so (returning undefined), so that a language server stays responsive. Given the
   * lines and outcomes of the previous check of the same document, re-analyses only the lines between
   * the unchanged start and the unchanged end, and returns the outcomes to pass next time.
   */
  async checkTextCancellable(
    text: string,
    kind: ArtifactKind,
    options: CheckOptions,
    isCancelled: () => boolean,
    previous: LineOutcomes = { lines: [], outcomes: [], placed: [] },
  ): Promise<{ report: FileReport; lineOutcomes?: LineOutcomes } | undefined> {
    if (isCancelled()) return undefined;
    if (artifactKindInfo(kind).format === 'json') return { report: this.checkText(text, kind, options) };
    const lines = [...linesOfText(text)];
    return this.checkLinesCancellable(lines, kind, options, isCancelled, true, previous, unchangedLines(lines, previous));
  }

  /** `checkFile`, cancellable and giving the event loop a turn, for files the editor does not hold. */
  async checkFileCancellable(path: string, kind: ArtifactKind, options: FileCheckOptions, isCancelled: () => boolean): Promise<FileReport | undefined> {
    if (isCancelled()) return undefined;
    if (artifactKindInfo(kind).format === 'json') return this.checkFile(path, kind, options);
    const lines = linesOfFile(path, { maxLineBytes: maxRecordBytes, onBytesRead: options.onBytesRead });
    return (await this.checkLinesCancellable(lines, kind, options, isCancelled, false))?.report;
  }

  private async checkLinesCancellable(
    lines: Iterable<SourceLine>,
    kind: ArtifactKind,
    options: CheckOptions,
    isCancelled: () => boolean,
    keepOutcomes: boolean,
    previous?: LineOutcomes,
    unchanged?: UnchangedLines,
  ): Promise<{ report: FileReport; lineOutcomes?: LineOutcomes } | undefined> {
    const check = new JsonlCheck(kind, this.schemas.validatorFor(kind), options, keepOutcomes);
    let sinceYield = 0;
    let index = 0;
    for (const line of lines) {
      const before = previous && unchanged ? unchanged.previousIndex(index) : -1;
      if (before === -1) check.addLine(line);
      else check.addLine(line, previous!.outcomes[before], previous!.placed[before]);
      index++;
      if (++sinceYield === linesBetweenYields) {
        sinceYield = 0;
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (isCancelled()) return undefined;
      }
    }
    const report = check.finish();
    return isCancelled() ? undefined : { report, lineOutcomes: check.lineOutcomes() };
  }

  /** Throws a Node.js system error (ENOENT, EISDIR, EACCES, …) when the file cannot be read. */
  checkFile(path: string, kind: ArtifactKind, options: FileCheckOptions): FileReport {
    if (artifactKindInfo(kind).format === 'jsonl') {
      return this.checkLines(linesOfFile(path, { maxLineBytes: maxRecordBytes, onBytesRead: options.onBytesRead }), kind, options);
    }
    const size = statSync(path).size;
    if (size > maxRecordBytes) {
      const collector = new FindingCollector(options.maxFindings);
      collector.add(recordTooLarge('file', size, 0));
      return collector.report(kind, 0);
    }
    const bytes = readFileSync(path);
    options.onBytesRead?.(bytes.length);
    const text = bytes.toString('utf8');
    return checkJsonDocument(text, kind, this.schemas.validatorFor(kind), options, isUtf8(bytes) ? [] : [invalidUtf8Finding(bytes)]);
  }

  private checkLines(lines: Iterable<SourceLine>, kind: ArtifactKind, options: CheckOptions): FileReport {
    const check = new JsonlCheck(kind, this.schemas.validatorFor(kind), options);
    for (const line of lines) check.addLine(line);
    return check.finish();
  }
}

/** For each line, where it stood in the previous check when an edit did not change it, else -1. */
interface UnchangedLines {
  previousIndex(index: number): number;
}

/**
 * The lines an edit did not touch: those before the first changed line and those after the last,
 * matched from the start and from the end of the document against the previous check's lines.
 */
function unchangedLines(lines: readonly SourceLine[], previous: LineOutcomes): UnchangedLines {
  const before = previous.lines;
  const most = Math.min(lines.length, before.length);
  let prefix = 0;
  while (prefix < most && lines[prefix]!.text === before[prefix]) prefix++;
  let suffix = 0;
  while (suffix < most - prefix && lines[lines.length - 1 - suffix]!.text === before[before.length - 1 - suffix]) suffix++;
  const shift = before.length - lines.length;
  const suffixStart = lines.length - suffix;
  return { previousIndex: (index) => (index < prefix ? index : index >= suffixStart ? index + shift : -1) };
}

function invalidUtf8Finding(bytes: Buffer): Finding {
  const offset = firstInvalidUtf8Offset(bytes);
  const hasByteOrderMark = offset >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  // The prefix is well formed, so its decoded length places the bad byte where an editor shows it.
  const prefix = bytes.subarray(hasByteOrderMark ? 3 : 0, offset).toString('utf8');
  const position = new LineIndex(prefix).positionAt(prefix.length);
  return {
    code: 'not-utf8',
    severity: 'error',
    message: describeInvalidUtf8(bytes.subarray(offset), offset),
    range: { start: position, end: { line: position.line, character: position.character + 1 } },
  };
}
