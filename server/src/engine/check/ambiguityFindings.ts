/**
 * A record's ambiguous fields (parse/ambiguity.ts), reported and made unknown: a key written twice gets
 * `duplicate-key` on its repeat, a number not as a writer writes it `number-ambiguous`, and a field whose
 * value is ambiguous (the repeat's values differ, or such a number) holds `ambiguousValue` in place of the
 * value JSON.parse kept. The per-file checks call this before any fact is read from the record, so every
 * reader of every field reads an ambiguous one as a value it cannot take for any of the values it may have
 * been, and no rule needs a case of its own.
 */
import { codeInfo } from '../codes';
import type { Finding } from '../findings';
import { ambiguitiesIn, makeAmbiguousFieldsUnknown, type Ambiguity } from '../parse/ambiguity';
import { shownPrefix, type JsonObject } from '../parse/jsonKind';
import type { JsonPath } from '../parse/jsonTree';
import type { RecordText } from '../schema/schemaFindings';

export interface AmbiguityOutcome {
  readonly findings: readonly Finding[];
  /** Some field's value is unknown: the record is read as damaged (in every way it may have been written). */
  readonly unknownFields: boolean;
}

const none: AmbiguityOutcome = { findings: [], unknownFields: false };

/**
 * The findings of `record`'s ambiguities, after making each ambiguous field of `record.value` (the
 * record JSON.parse gave, not yet read by anything but the schema checks) unknown.
 */
export function resolveAmbiguities(record: RecordText & { readonly value: JsonObject }): AmbiguityOutcome {
  const ambiguities = ambiguitiesIn(record.text);
  if (ambiguities.length === 0) return none;
  const unknownFields = makeAmbiguousFieldsUnknown(record.value, ambiguities);
  return { findings: ambiguities.map((ambiguity) => findingOf(ambiguity, record)), unknownFields };
}

function findingOf(ambiguity: Ambiguity, record: RecordText): Finding {
  switch (ambiguity.kind) {
    case 'duplicate-key': {
      const earlier = record.rangeAt(ambiguity.earlierOffset, 0).start;
      const where = record.text.includes('\n') ? `line ${earlier.line + 1}` : `column ${earlier.character + 1}`;
      return {
        code: 'duplicate-key',
        severity: codeInfo('duplicate-key').severity,
        message: ambiguity.valuesDiffer
          ? `${pathWords(ambiguity.path)} is written twice (before at ${where}), with different values. Readers differ on which counts (JSON.parse and Python's json take the last, others the first or refuse the record), so neither is taken: it is read as unknown.`
          : `${pathWords(ambiguity.path)} is written twice (before at ${where}), with the same value: it is read as that value, but no writer writes a key twice.`,
        range: record.rangeAt(ambiguity.offset, ambiguity.length),
      };
    }
    case 'number-ambiguous':
      return {
        code: 'number-ambiguous',
        severity: codeInfo('number-ambiguous').severity,
        message: `The number ${shownPrefix(ambiguity.text, 24)} is not written as any writer writes a number (${numberReason(ambiguity.text, ambiguity.parsed)}), so readers may take it for different values: ${pathWords(ambiguity.path)} is read as unknown.`,
        range: record.rangeAt(ambiguity.offset, ambiguity.length),
      };
    case 'whole-record':
      return {
        code: ambiguity.found,
        severity: codeInfo(ambiguity.found).severity,
        message: `This record holds ${ambiguity.found === 'duplicate-key' ? 'a key written twice' : 'a number not written as any writer writes one'}, and nests too deep to say where: every field of it is read as unknown.`,
        range: record.rangeAt(0, record.text.length),
      };
  }
}

/**
 * `status` at the root, `trajectory_summary.tool_call_status_counts` below it: the field's place, cut
 * longer than a value is (a place is keys the writer chose, and a message must still tell two apart).
 */
function pathWords(path: JsonPath): string {
  const shown = path.map((segment) => (typeof segment === 'number' ? `[${segment}]` : segment)).join('.');
  return JSON.stringify(shownPrefix(shown.replace(/\.\[/g, '['), 80));
}

function numberReason(text: string, parsed: number): string {
  if (!Number.isFinite(parsed)) return 'it is beyond the largest number a double holds';
  if (Object.is(parsed, -0) && /^-0+$/.test(text)) return 'no integer is minus zero';
  if (parsed === 0 && /[1-9]/.test(text.split(/[eE]/)[0]!)) return 'it is too small for a double and reads as 0';
  if (/^-?\d+$/.test(text)) return `it is beyond 2^53, and reads as ${String(parsed)}`;
  return `it reads as ${String(parsed)}, which a writer writes otherwise`;
}
