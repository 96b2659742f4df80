/**
 * The engine's entry point for single files: check an artifact held in memory (the editor) or on disk
 * (the CLI), against the schema of its kind.
 */
import { closeSync } from 'node:fs';
import { artifactKindInfo, type ArtifactKind } from '../../../../shared/src/layout';
import {
  openInside,
  ownFolderBoundary,
  readInside,
  readPrefixBytes,
  type NotRead,
  type OpenedArtifact,
} from '../io/containment';
import { codeInfo } from '../codes';
import type { Finding } from '../findings';
import { SchemaRegistry } from '../schema/validators';
import { isTerminated, layoutOf, lineCount, LineIndex, lineSlice, relayout, type LineLayout } from '../text/lineLayout';
import { linesOfFile, linesOfText, type FileReading, type SourceLine } from '../text/sourceLines';
import { invalidUtf8In, isUtf8, utf8ByteOrderMarkLength } from '../text/utf8';
import { checkJsonDocument } from './jsonCheck';
import { FindingCollector } from './collector';
import { JsonlCheck, type LineOutcomes } from './jsonlCheck';
import {
  maxArtifactBytes,
  maxRecordBytes,
  notReadFinding,
  recordTooLarge,
  type CheckOptions,
  type FileReport,
} from './report';

export interface FileCheckOptions extends CheckOptions {
  readonly onBytesRead?: (bytesRead: number) => void;
  /**
   * The real path of the folder the file must resolve inside (`boundaryOf` the rollout folder); a file
   * that resolves outside it is reported, not read. Without one, the file's own folder: the strictest.
   */
  readonly boundary?: string;
}

/**
 * What a check of a document in memory keeps for the next check of it: where its lines are, and what
 * each one yielded.
 */
export interface KeptCheck {
  readonly layout: LineLayout;
  readonly lines: LineOutcomes;
}

/**
 * How often a cancellable check gives the event loop a turn: every 2,000 analysed lines, a line taken
 * over unchanged from the previous check counting as a small fraction of one.
 */
const analysedLineWork = 16;
const workBetweenYields = 2000 * analysedLineWork;

class EventLoopTurns {
  private work = 0;

  constructor(private readonly isCancelled: () => boolean) {}

  /** Counts `units` of work; true when it is time to give the event loop a turn. */
  due(units: number): boolean {
    this.work += units;
    if (this.work < workBetweenYields) return false;
    this.work = 0;
    return true;
  }

  /** Gives the event loop a turn; resolves to whether the check was cancelled meanwhile. */
  async take(): Promise<boolean> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    return this.isCancelled();
  }
}

export class ArtifactChecker {
  constructor(private readonly schemas: SchemaRegistry = new SchemaRegistry()) {}

  checkText(text: string, kind: ArtifactKind, options: CheckOptions): FileReport {
    if (artifactKindInfo(kind).format === 'json')
      return checkJsonDocument(text, kind, this.schemas.validatorFor(kind), options);
    return this.checkLines(linesOfText(text), kind, options);
  }

  /**
   * Like `checkText`, but gives the event loop a turn every few thousand lines and stops early when
   * `isCancelled` says so (returning undefined), so that a language server stays responsive. Given what
   * the previous check of the same document kept, re-analyses only the lines an edit changed, and
   * returns what to pass next time.
   */
  async checkTextCancellable(
    text: string,
    kind: ArtifactKind,
    options: CheckOptions,
    isCancelled: () => boolean,
    previous?: KeptCheck,
  ): Promise<{ report: FileReport; kept?: KeptCheck } | undefined> {
    if (isCancelled()) return undefined;
    if (artifactKindInfo(kind).format === 'json') return { report: this.checkText(text, kind, options) };
    const edit = previous ? relayout(previous.layout, text) : undefined;
    const layout = edit?.layout ?? layoutOf(text);
    const textOf = (line: number): string => lineSlice(layout, line);
    const check = new JsonlCheck(kind, this.schemas.validatorFor(kind), options, {
      viewsOfText: true,
      keepOutcomesOf: { lineCount: lineCount(layout) },
    });
    const turns = new EventLoopTurns(isCancelled);
    for (let line = 0; line < lineCount(layout); line++) {
      const before = !edit
        ? -1
        : line < edit.unchangedBefore
          ? line
          : line >= edit.unchangedFrom
            ? line - edit.shift
            : -1;
      if (before === -1) check.addLine({ number: line, text: textOf(line), terminated: isTerminated(layout, line) });
      else
        check.reuseLine(
          line,
          isTerminated(layout, line),
          previous!.lines.outcomes[before]!,
          previous!.lines.placed[before],
          textOf,
        );
      if (turns.due(before === -1 ? analysedLineWork : 1) && (await turns.take())) return undefined;
    }
    const report = check.finish();
    return isCancelled() ? undefined : { report, kept: { layout, lines: check.lineOutcomes()! } };
  }

  /** `checkFile`, cancellable and giving the event loop a turn, for files the editor does not hold. */
  async checkFileCancellable(
    path: string,
    kind: ArtifactKind,
    options: FileCheckOptions,
    isCancelled: () => boolean,
  ): Promise<FileReport | undefined> {
    if (isCancelled()) return undefined;
    if (artifactKindInfo(kind).format === 'json') return this.checkFile(path, kind, options);
    const opened = openInside(path, options.boundary ?? ownFolderBoundary(path));
    if (!('descriptor' in opened)) return notReadReport(opened, kind, options);
    try {
      const check = new JsonlCheck(kind, this.schemas.validatorFor(kind), options, { viewsOfText: false });
      const turns = new EventLoopTurns(isCancelled);
      for (const reading of linesOfFile(opened.descriptor, artifactReading)) {
        // Every chunk gives a turn, whatever it held: a line that never ends yields no line to count.
        const chunkEnded = feed(check, reading, opened.size, options.onBytesRead);
        if ((chunkEnded || turns.due(analysedLineWork)) && (await turns.take())) return undefined;
      }
      const report = check.finish();
      return isCancelled() ? undefined : report;
    } finally {
      closeSync(opened.descriptor);
    }
  }

  /**
   * Throws a Node.js system error (ENOENT, EISDIR, EACCES, …) when the file cannot be read; a file that
   * resolves outside its boundary, or is no regular file (a FIFO, a dangling link), is not read, and its
   * report says so.
   */
  checkFile(path: string, kind: ArtifactKind, options: FileCheckOptions): FileReport {
    const checked = readInside(path, options.boundary ?? ownFolderBoundary(path), (file) =>
      this.checkOpened(file, kind, options),
    );
    return 'outside' in checked || 'notRegular' in checked ? notReadReport(checked, kind, options) : checked;
  }

  private checkOpened(file: OpenedArtifact, kind: ArtifactKind, options: FileCheckOptions): FileReport {
    if (artifactKindInfo(kind).format === 'jsonl') {
      const check = new JsonlCheck(kind, this.schemas.validatorFor(kind), options, { viewsOfText: false });
      for (const reading of linesOfFile(file.descriptor, artifactReading))
        feed(check, reading, file.size, options.onBytesRead);
      return check.finish();
    }
    if (file.size > maxRecordBytes) {
      const collector = new FindingCollector(options.maxFindings);
      collector.add(recordTooLarge('file', file.size, 0));
      return collector.report(kind, 0);
    }
    // The size fstat gave when it was opened: a file that grows meanwhile is read as it was then, and
    // the read ends without the extra fstat and end-of-file read readFileSync makes.
    const bytes = readPrefixBytes(file, file.size);
    options.onBytesRead?.(bytes.length);
    const text = bytes.toString('utf8');
    return checkJsonDocument(
      text,
      kind,
      this.schemas.validatorFor(kind),
      options,
      isUtf8(bytes) ? [] : [invalidUtf8Finding(bytes)],
    );
  }

  private checkLines(lines: Iterable<SourceLine>, kind: ArtifactKind, options: CheckOptions): FileReport {
    const check = new JsonlCheck(kind, this.schemas.validatorFor(kind), options, { viewsOfText: true });
    for (const line of lines) check.addLine(line);
    return check.finish();
  }
}

/** How an artifact on disk is read: records over the record limit are counted, files over the artifact limit cut. */
const artifactReading = { maxLineBytes: maxRecordBytes, maxFileBytes: maxArtifactBytes };

/**
 * Feeds one thing a file's reading yielded to its check; true at the end of a chunk. `sizeWhenOpened`:
 * what fstat said when the file was opened (it may grow while it is read).
 */
function feed(
  check: JsonlCheck,
  reading: FileReading,
  sizeWhenOpened: number,
  onBytesRead: ((bytesRead: number) => void) | undefined,
): boolean {
  if (!('read' in reading)) {
    check.addLine(reading);
    return false;
  }
  if (reading.read === 'limit') check.stopAtReadLimit(reading.line, sizeWhenOpened);
  onBytesRead?.(reading.bytesRead);
  return reading.read === 'chunk';
}

/** One finding and no facts: the rules see a file that is there but that they cannot read, and nothing of it is kept. */
function notReadReport(notRead: NotRead, kind: ArtifactKind, options: CheckOptions): FileReport {
  const collector = new FindingCollector(options.maxFindings);
  collector.add(notReadFinding(notRead));
  return collector.report(kind, 0);
}

/** For a file that is not UTF-8. */
function invalidUtf8Finding(bytes: Buffer): Finding {
  const bomBytes = utf8ByteOrderMarkLength(bytes);
  const { before, message } = invalidUtf8In(bytes.subarray(bomBytes), bomBytes)!;
  const position = new LineIndex(before).positionAt(before.length);
  return {
    code: 'not-utf8',
    severity: codeInfo('not-utf8').severity,
    message,
    range: { start: position, end: { line: position.line, character: position.character + 1 } },
  };
}
