/**
 * Checks a JSONL artifact line by line and gathers its evidence facts. The check is fed one line at a
 * time, so the same code serves a document in memory, a file streamed from disk and the server's
 * cancellable loop; a bad line never stops the lines after it. What a line yields depends only on its
 * text, so a caller that keeps the previous lines and outcomes (the language server) can hand back the
 * outcome of every line an edit did not change.
 */
import type { ArtifactKind } from '../../../../shared/src/layout';
import { codeInfo } from '../codes';
import { FactsBuilder, type Placed } from '../facts/builder';
import { recordDamage } from '../facts/facts';
import { summarizeRow, type RowFact } from '../facts/rows';
import { keptRecordName, type RecordName } from '../facts/recordNames';
import { rangeOnLine, type Finding, type TextRange } from '../findings';
import { jsonTypeOf, withArticle, type JsonObject } from '../parse/jsonKind';
import { parseJsonText } from '../parse/jsonText';
import { damagedKeyFindings } from '../schema/damagedKeys';
import { schemaFindings } from '../schema/schemaFindings';
import type { RecordValidator } from '../schema/validators';
import { detachedCopy } from '../text/detachedCopy';
import type { SourceLine } from '../text/sourceLines';
import { resolveAmbiguities } from './ambiguityFindings';
import { FindingCollector } from './collector';
import { artifactTooLarge, recordTooLarge, type CheckOptions, type FileReport } from './report';

/** What one line yields, with findings placed on line 0. */
export interface LineOutcome {
  /** False for a blank line. */
  readonly record: boolean;
  /** Set when the line is not JSON; whether that is an error or a line still being written depends on where it is. */
  readonly syntax?: { readonly offset: number; readonly length: number; readonly message: string };
  readonly findings: readonly Finding[];
  readonly fact?: RowFact;
  /**
   * What the record is called in the outline, named while it is parsed anyway; only in a check that
   * keeps its lines (the language server's), whose outline then costs no second parse.
   */
  readonly name?: RecordName;
}

/** What each line of a check yielded, and the facts it became, by line number. */
export interface LineOutcomes {
  readonly outcomes: readonly LineOutcome[];
  readonly placed: readonly (Placed | undefined)[];
}

/** Where a check's lines come from. */
export interface LineSource {
  /**
   * The lines are views into one text in memory (`linesOfText`, `lineSlice`), cut without a copy since
   * most are only parsed: the facts copy what they keep of them (FactsBuilder's `keepText`).
   */
  readonly viewsOfText: boolean;
  /** Keep the outcome of each of this many lines, for the next check of the same document. */
  readonly keepOutcomesOf?: { readonly lineCount: number };
}

export class JsonlCheck {
  private readonly collector: FindingCollector;
  private readonly facts: FactsBuilder;
  private records = 0;
  /** Set when the reading stopped at the read limit: the file holds more than its records. */
  private readWhole = true;
  private readonly kept: { outcomes: LineOutcome[]; placed: (Placed | undefined)[] } | undefined;

  constructor(
    private readonly kind: ArtifactKind,
    private readonly validate: RecordValidator,
    options: CheckOptions,
    { viewsOfText, keepOutcomesOf }: LineSource,
  ) {
    this.collector = new FindingCollector(options.maxFindings);
    this.facts = new FactsBuilder(kind, viewsOfText ? detachedCopy : undefined);
    // Sized up front: a 100,000-line document would otherwise grow each array a dozen times per check.
    this.kept = keepOutcomesOf
      ? { outcomes: new Array(keepOutcomesOf.lineCount), placed: new Array(keepOutcomesOf.lineCount) }
      : undefined;
  }

  addLine(line: SourceLine): void {
    const { number, text } = line;
    if (line.oversizedBytes !== undefined) {
      this.records++;
      this.facts.addBrokenRow();
      this.collector.add(recordTooLarge('line', line.oversizedBytes, number));
      return;
    }
    if (line.invalidUtf8) {
      const { character, message } = line.invalidUtf8;
      this.collector.add({
        code: 'not-utf8',
        severity: codeInfo('not-utf8').severity,
        message,
        range: rangeOnLine(number, character, character + 1),
      });
    }
    const outcome = this.analyse(text);
    this.keep(number, outcome, this.account(number, text, line.terminated, outcome, undefined));
  }

  /**
   * The reading stopped at the read limit, in line `line` (`ReadLimitReached`): that line is there but was
   * not read whole, so it counts as a row that holds no usable record, and nothing after it counts at all.
   * The finding is listed whatever the maximum of findings: it is why the rest of the file says nothing.
   */
  stopAtReadLimit(line: number, sizeWhenOpened: number): void {
    this.readWhole = false;
    this.facts.addBrokenRow();
    this.collector.addListed(artifactTooLarge(line, sizeWhenOpened));
  }

  /**
   * A line an edit did not change: what it yielded in the previous check, and the facts it became.
   * Its text is asked of `textOf` only when the line is broken, or its facts must be placed anew.
   */
  reuseLine(
    number: number,
    terminated: boolean,
    outcome: LineOutcome,
    placedBefore: Placed | undefined,
    textOf: (line: number) => string,
  ): void {
    const readsText =
      outcome.syntax !== undefined ||
      (outcome.fact !== undefined && this.facts.readsText(outcome.fact, number, placedBefore));
    this.keep(
      number,
      outcome,
      this.account(number, readsText ? textOf(number) : '', terminated, outcome, placedBefore),
    );
  }

  private keep(line: number, outcome: LineOutcome, placed: Placed | undefined): void {
    if (!this.kept) return;
    this.kept.outcomes[line] = outcome;
    this.kept.placed[line] = placed;
  }

  private account(
    number: number,
    text: string,
    terminated: boolean,
    outcome: LineOutcome,
    placedBefore: Placed | undefined,
  ): Placed | undefined {
    if (!outcome.record) return undefined;
    this.records++;

    if (outcome.syntax) {
      this.facts.addBrokenRow();
      const first = text.length - text.trimStart().length;
      this.collector.add(
        terminated
          ? {
              code: 'jsonl-syntax',
              severity: codeInfo('jsonl-syntax').severity,
              message: outcome.syntax.message,
              range: rangeOnLine(number, outcome.syntax.offset, outcome.syntax.offset + outcome.syntax.length),
            }
          : {
              code: 'jsonl-partial-line',
              severity: codeInfo('jsonl-partial-line').severity,
              message:
                'The last line has no newline and is not valid JSON yet: the run may still be writing this file.',
              range: rangeOnLine(number, first, text.length),
            },
      );
      return undefined;
    }
    for (const finding of outcome.findings) this.collector.add(number === 0 ? finding : onLine(finding, number));
    if (outcome.fact) return this.facts.add(outcome.fact, number, text, placedBefore);
    this.facts.addBrokenRow();
    return undefined;
  }

  finish(): FileReport {
    if (this.records === 0 && this.readWhole) {
      this.collector.add({
        code: 'artifact-empty',
        severity: codeInfo('artifact-empty').severity,
        message: 'This file holds no records.',
        range: rangeOnLine(0, 0, 0),
      });
    }
    return { ...this.collector.report(this.kind, this.records), facts: this.facts.build() };
  }

  /** The outcomes of this check's lines, for the next check of the same document. */
  lineOutcomes(): LineOutcomes | undefined {
    return this.kept;
  }

  private analyse(text: string): LineOutcome {
    const first = firstNonBlank(text);
    if (first === -1) return { record: false, findings: [] };
    const parsed = parseJsonText(text);
    if (!parsed.ok) return { record: true, syntax: parsed, findings: [] };
    const type = jsonTypeOf(parsed.value);
    if (type !== 'object') {
      return {
        record: true,
        findings: [
          {
            code: 'record-not-object',
            severity: codeInfo('record-not-object').severity,
            message: `Each line of a JSONL artifact must be a JSON object; this one is ${withArticle(type)}.`,
            range: rangeOnLine(0, first, lastNonBlank(text) + 1),
          },
        ],
      };
    }
    const record = parsed.value as JsonObject;
    const errors = this.validate(record);
    const recordText = { text, value: record, rangeAt: rangeOnLineZero };
    // Most lines have no finding: no array is made for them beyond the damaged-key check's own.
    const damaged = damagedKeyFindings(this.kind, recordText);
    const schemaDamaged = errors.length === 0 ? damaged : [...schemaFindings(errors, recordText), ...damaged];
    // After the schema checks, which judge the record as JSON.parse gave it; before any fact is read.
    const ambiguous = resolveAmbiguities(recordText);
    const findings = ambiguous.findings.length === 0 ? schemaDamaged : [...schemaDamaged, ...ambiguous.findings];
    // A key repeated with the same value only informs: the record is read as written.
    const fact = summarizeRow(this.kind, record, recordDamage(schemaDamaged.length > 0, ambiguous.unknownFields));
    return this.kept
      ? { record: true, findings, fact, name: keptRecordName(this.kind, record) }
      : { record: true, findings, fact };
  }
}

/** A range of a line's own text: its findings are placed on line 0 and moved to the line's number when counted. */
function rangeOnLineZero(offset: number, length: number): TextRange {
  return rangeOnLine(0, offset, offset + length);
}

function onLine(finding: Finding, line: number): Finding {
  const { start, end } = finding.range;
  return {
    ...finding,
    range: {
      start: { line: start.line + line, character: start.character },
      end: { line: end.line + line, character: end.character },
    },
  };
}

function firstNonBlank(text: string): number {
  for (let index = 0; index < text.length; index++) {
    if (!isJsonWhitespace(text.charCodeAt(index))) return index;
  }
  return -1;
}

function lastNonBlank(text: string): number {
  for (let index = text.length - 1; index >= 0; index--) {
    if (!isJsonWhitespace(text.charCodeAt(index))) return index;
  }
  return -1;
}

function isJsonWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0d || code === 0x0a;
}
