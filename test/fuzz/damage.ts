/**
 * Which mutations damage evidence, and which are legitimate edits. The fuzz property holds only the
 * damaging ones to "never raise the verdict": a legitimate edit (a return code 1 → 0, `separate` →
 * `shared`, a whole line deleted) may change what the bundle proves, and is checked only for crashes,
 * CPU time and memory.
 *
 * The rule, applied to the mutated file against the original, record by record (a JSONL line, or the
 * whole JSON document). A mutation is damaging when
 *   - the file has bytes that are not UTF-8 where the original had none;
 *   - (JSONL) its lines were split, merged or truncated rather than one whole line deleted;
 *   - a changed record no longer parses as JSON, or is no longer an object, or its original did not
 *     parse (there is no reading of it to compare against);
 *   - a changed record breaks its schema in more places than before (the engine's own compiled
 *     validators, from `schemas/`); one that breaks it in fewer places was repaired, not damaged;
 *   - a changed record holds more ambiguities than before (a key written twice, a number no writer
 *     writes: the engine's `ambiguitiesIn`, since JSON.parse hides both); one that holds fewer was
 *     repaired (a repeated key deleted, `1e-400` → `0`), whatever else the edit did, even a schema
 *     break: what JSON.parse made of the original was only one of its readings;
 *   - a changed record has a value whose JSON type changed (to a type its schema does not allow
 *     both before and after), an array whose length changed, a key the
 *     schema does not know at that place (`SchemaKnowledge.isKnownKey`), a kind field
 *     (`kindFields`) whose value is not exactly one the schema names, or a timestamp that no longer
 *     reads as one.
 * Anything else is a legitimate edit: a whole line or key deleted, a value changed to another of its
 * type that the schema accepts and, for a kind field, that the schema names.
 */
import type { ArtifactFormat, ArtifactKind } from '../../shared/src/layout';
import type { RecordValidator } from '../../server/src/engine/schema/validators';
import { kindFields, SchemaKnowledge } from '../../server/src/engine/schema/knownKeys';
import { ambiguitiesIn } from '../../server/src/engine/parse/ambiguity';

export interface DamageVerdict {
  readonly damaging: boolean;
  /** What made it damaging, with the line and field: the failure's class names it. */
  readonly reason: string;
  /** Damage that leaves nothing of the record to read: it no longer decodes, parses or is an object. */
  readonly unreadable?: boolean;
}

const legitimate = (reason: string): DamageVerdict => ({ damaging: false, reason });
const damage = (reason: string): DamageVerdict => ({ damaging: true, reason });
const unreadable = (reason: string): DamageVerdict => ({ damaging: true, reason, unreadable: true });

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function isUtf8(bytes: Uint8Array): boolean {
  try {
    strictUtf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

type Parsed = { readonly ok: true; readonly value: unknown } | { readonly ok: false };

function parse(text: string): Parsed {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

const timestampShape = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/;
const readsAsTimestamp = (value: string): boolean => timestampShape.test(value) && !Number.isNaN(Date.parse(value));

/** JSONL lines as the engine numbers them: split on LF, a CR before it dropped. */
function linesOf(text: string): string[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}

/**
 * Where a record's ambiguities are, one word each (the kind and the field's path); a record too deep to
 * say where holds the one word `whole-record`.
 */
function ambiguitiesOf(text: string): Set<string> {
  return new Set(
    ambiguitiesIn(text).map((ambiguity) =>
      ambiguity.kind === 'whole-record' ? 'whole-record' : `${ambiguity.kind} ${JSON.stringify(ambiguity.path)}`,
    ),
  );
}

export class DamageClassifier {
  private readonly knowledge: SchemaKnowledge;

  constructor(
    kind: ArtifactKind,
    private readonly format: ArtifactFormat,
    private readonly validate: RecordValidator,
  ) {
    this.knowledge = SchemaKnowledge.of(kind);
  }

  classify(original: Uint8Array, mutated: Uint8Array): DamageVerdict {
    if (isUtf8(original) && !isUtf8(mutated)) return unreadable('bytes that are not UTF-8');
    const before = Buffer.from(original)
      .toString('utf8')
      .replace(/^\uFEFF/, '');
    const after = Buffer.from(mutated)
      .toString('utf8')
      .replace(/^\uFEFF/, '');
    if (this.format === 'json') return this.classifyRecord(before, after, 'the document');
    return this.classifyLines(linesOf(before), linesOf(after));
  }

  private classifyLines(before: readonly string[], after: readonly string[]): DamageVerdict {
    if (after.length === before.length) {
      for (let line = 0; line < before.length; line++) {
        if (before[line] === after[line]) continue;
        const verdict = this.classifyRecord(before[line]!, after[line]!, `line ${line + 1}`);
        if (verdict.damaging) return verdict;
      }
      return legitimate('values edited within their types and known sets');
    }
    if (after.length === before.length - 1) {
      let line = 0;
      while (line < after.length && before[line] === after[line]) line++;
      if (before.slice(line + 1).every((text, offset) => text === after[line + offset]))
        return legitimate(`line ${line + 1} deleted whole`);
    }
    return unreadable(`lines split or merged (${before.length} → ${after.length})`);
  }

  private classifyRecord(before: string, after: string, where: string): DamageVerdict {
    const original = parse(before);
    const mutated = parse(after);
    if (!original.ok) return unreadable(`${where}: a change to a record that did not parse`);
    if (!mutated.ok) return unreadable(`${where}: no longer JSON`);
    if (isObject(original.value) && !isObject(mutated.value)) return unreadable(`${where}: no longer an object`);
    // First, since JSON.parse's reading of an ambiguous record is only one of its readings: an edit that
    // removes an ambiguity gives the record a reading it did not surely have, whatever else it breaks.
    // A mutation that re-serialises the record repairs each ambiguity it had (JSON.stringify writes 1e-400
    // as 0 and a repeated key once) while it may add one elsewhere: any ambiguity gone is a repair.
    const ambiguitiesBefore = ambiguitiesOf(before);
    const ambiguitiesAfter = ambiguitiesOf(after);
    if ([...ambiguitiesBefore].some((ambiguity) => !ambiguitiesAfter.has(ambiguity)))
      return legitimate(`${where}: repairs an ambiguity`);
    const errorsBefore = this.validate(original.value).length;
    const errorsAfter = this.validate(mutated.value).length;
    if (errorsAfter > errorsBefore) return damage(`${where}: breaks its schema`);
    if (errorsAfter < errorsBefore) return legitimate(`${where}: repairs a schema break`);
    if (ambiguitiesAfter.size > ambiguitiesBefore.size) return damage(`${where}: adds an ambiguity`);
    const found = this.compare(original.value, mutated.value, this.knowledge.rootNodes(), []);
    return found ? damage(`${where}: ${found}`) : legitimate(`${where}: edited within types and known values`);
  }

  /** The first damaging difference between two values at `path`, or undefined. */
  private compare(
    before: unknown,
    after: unknown,
    nodes: ReturnType<SchemaKnowledge['rootNodes']>,
    path: readonly (string | number)[],
  ): string | undefined {
    const at = path.length === 0 ? 'the record' : path.join('.');
    if (jsonType(before) !== jsonType(after)) {
      const allowed = this.knowledge.allowedTypes(nodes);
      if (allowed?.has(jsonType(before)) && allowed.has(jsonType(after))) return undefined;
      return `${at} changed type (${jsonType(before)} → ${jsonType(after)})`;
    }
    if (Array.isArray(before) && Array.isArray(after)) {
      if (before.length !== after.length) return `${at} changed length (${before.length} → ${after.length})`;
      for (let index = 0; index < before.length; index++) {
        const found = this.compare(before[index], after[index], this.knowledge.childNodes(nodes, index), [
          ...path,
          index,
        ]);
        if (found) return found;
      }
      return undefined;
    }
    if (isObject(before) && isObject(after)) {
      for (const key of Object.keys(after)) {
        const child = this.knowledge.childNodes(nodes, key);
        if (!Object.hasOwn(before, key)) {
          // One unknown key renamed to another (a damaged fixture's key damaged again) adds no unknown key.
          const unknownRenamed = Object.keys(before).some(
            (old) => !Object.hasOwn(after, old) && !this.knowledge.isKnownKey(nodes, old),
          );
          if (!this.knowledge.isKnownKey(nodes, key) && !unknownRenamed)
            return `unknown key ${JSON.stringify(key)} at ${at}`;
          continue;
        }
        const found = this.compare(before[key], after[key], child, [...path, key]);
        if (found) return found;
      }
      return undefined;
    }
    if (before === after) return undefined;
    const key = path[path.length - 1];
    if (typeof key === 'string' && kindFields.has(key)) {
      const known = this.knowledge.knownValues(nodes);
      // One unknown value for another (a damaged fixture's value replaced) adds no unknown kind.
      if (known && !known.has(after) && known.has(before))
        return `${at}: ${JSON.stringify(after)} is not a known value`;
    }
    if (
      typeof before === 'string' &&
      typeof after === 'string' &&
      readsAsTimestamp(before) &&
      !readsAsTimestamp(after)
    ) {
      return `${at}: ${JSON.stringify(after)} no longer reads as a timestamp`;
    }
    return undefined;
  }
}
