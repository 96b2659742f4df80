/**
 * Checks a JSON artifact (result.json, config.json, …): one document, one record.
 */
import type { ArtifactKind } from '../../../../shared/src/layout';
import { codeInfo } from '../codes';
import { comparePositions, type Finding } from '../findings';
import type { DocumentFacts } from '../facts/facts';
import { jsonTypeOf, withArticle, type JsonObject } from '../parse/jsonKind';
import { parseJsonText } from '../parse/jsonText';
import { damagedKeyFindings } from '../schema/damagedKeys';
import { schemaFindings } from '../schema/schemaFindings';
import type { RecordValidator } from '../schema/validators';
import { byteOrderMarkLength, LineIndex } from '../text/lineLayout';
import { resolveAmbiguities } from './ambiguityFindings';
import { FindingCollector } from './collector';
import type { CheckOptions, FileReport } from './report';

export function checkJsonDocument(
  text: string,
  kind: ArtifactKind,
  validate: RecordValidator,
  options: CheckOptions,
  earlierFindings: readonly Finding[] = [],
): FileReport {
  const collector = new FindingCollector(options.maxFindings);
  collector.addAll(earlierFindings);
  const body = text.slice(byteOrderMarkLength(text));
  const lines = new LineIndex(body);
  const documentKind = kind as DocumentFacts['kind'];
  let value: JsonObject | undefined;
  const report = (records: number): FileReport => ({
    ...collector.report(kind, records),
    facts: { kind: documentKind, value, text: body },
  });

  if (body.trim() === '') {
    // An error, not the code's warning (an empty JSONL file is a log with nothing in it yet): a JSON
    // artifact must hold one object. README's row and the code's description say so.
    collector.add({
      code: 'artifact-empty',
      severity: 'error',
      message: 'This file is empty; it must hold a JSON object.',
      range: lines.rangeAt(0, 0),
    });
    return report(0);
  }
  const parsed = parseJsonText(body);
  if (!parsed.ok) {
    collector.add({
      code: 'json-syntax',
      severity: codeInfo('json-syntax').severity,
      message: parsed.message,
      range: lines.rangeAt(parsed.offset, parsed.length),
    });
    return report(0);
  }
  const type = jsonTypeOf(parsed.value);
  if (type !== 'object') {
    const start = body.length - body.trimStart().length;
    collector.add({
      code: 'record-not-object',
      severity: codeInfo('record-not-object').severity,
      message: `This artifact must be a JSON object; it is ${withArticle(type)}.`,
      range: lines.rangeAt(start, body.trim().length),
    });
    return report(1);
  }
  value = parsed.value as JsonObject;
  const errors = validate(value);
  const record = { text: body, value, rangeAt: (offset: number, length: number) => lines.rangeAt(offset, length) };
  const findings = [
    ...(errors.length > 0 ? schemaFindings(errors, record) : []),
    ...damagedKeyFindings(kind, record),
    // After the schema checks, which judge the document as JSON.parse gave it; before any fact is read.
    ...resolveAmbiguities(record).findings,
  ];
  // ajv reports in schema order; people read a document top to bottom.
  collector.addAll(findings.sort((a, b) => comparePositions(a.range.start, b.range.start)));
  return report(1);
}
