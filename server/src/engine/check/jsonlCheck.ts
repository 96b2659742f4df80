/**
 * Checks a JSONL artifact line by line. The check is fed one line at a time, so the same code serves a
 * document in memory, a file streamed from disk, and the server's cancellable loop. A bad line never
 * stops the lines after it.
 */
import type { ArtifactKind } from '../../../../shared/src/artifactKinds';
import { rangeOnLine } from '../findings';
import { jsonTypeOf, withArticle } from '../parse/jsonKind';
import { parseJsonText } from '../parse/jsonText';
import { schemaFindings } from '../schema/schemaFindings';
import type { RecordValidator } from '../schema/validators';
import type { SourceLine } from '../text/sourceLines';
import { FindingCollector } from './collector';
import { recordTooLarge, type CheckOptions, type FileReport } from './report';

export class JsonlCheck {
  private readonly collector: FindingCollector;
  private records = 0;

  constructor(
    private readonly kind: ArtifactKind,
    private readonly validate: RecordValidator,
    options: CheckOptions,
  ) {
    this.collector = new FindingCollector(options.maxFindings);
  }

  addLine(line: SourceLine): void {
    const { number, text } = line;
    if (line.oversizedBytes !== undefined) {
      this.records++;
      this.collector.add(recordTooLarge('line', line.oversizedBytes, number));
      return;
    }
    if (line.invalidUtf8) {
      const { character, message } = line.invalidUtf8;
      this.collector.add({ code: 'not-utf8', severity: 'error', message, range: rangeOnLine(number, character, character + 1) });
    }
    const first = firstNonBlank(text);
    if (first === -1) return;
    this.records++;

    const parsed = parseJsonText(text);
    if (!parsed.ok) {
      if (!line.terminated) {
        this.collector.add({
          code: 'jsonl-partial-line',
          severity: 'information',
          message: 'The last line has no newline and is not valid JSON yet: the run may still be writing this file.',
          range: rangeOnLine(number, first, text.length),
        });
      } else {
        this.collector.add({
          code: 'jsonl-syntax',
          severity: 'error',
          message: parsed.message,
          range: rangeOnLine(number, parsed.offset, parsed.offset + parsed.length),
        });
      }
      return;
    }

    const type = jsonTypeOf(parsed.value);
    if (type !== 'object') {
      this.collector.add({
        code: 'record-not-object',
        severity: 'error',
        message: `Each line of a JSONL artifact must be a JSON object; this one is ${withArticle(type)}.`,
        range: rangeOnLine(number, first, lastNonBlank(text) + 1),
      });
      return;
    }

    const errors = this.validate(parsed.value);
    if (errors.length > 0) {
      this.collector.addAll(
        schemaFindings(errors, {
          text,
          value: parsed.value,
          rangeAt: (offset, length) => rangeOnLine(number, offset, offset + length),
        }),
      );
    }
  }

  finish(): FileReport {
    if (this.records === 0) {
      this.collector.add({
        code: 'artifact-empty',
        severity: 'warning',
        message: 'This file holds no records.',
        range: rangeOnLine(0, 0, 0),
      });
    }
    return this.collector.report(this.kind, this.records);
  }
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
