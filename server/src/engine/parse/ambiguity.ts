/**
 * What JSON.parse leaves unsaid about a text it accepted: a key written twice in one object (JSON.parse
 * keeps the last value, Python's json keeps the last too, other readers the first or both), and a number
 * whose text does not read back as a writer writes the value JSON.parse makes of it (`1e-400` is 0 to
 * JSON.parse and to Python, an error to a C or shell reader; `9007199254740993` is 9007199254740992;
 * `-0` is no integer any writer writes). Such a field's value is ambiguous: the check reads it as unknown.
 *
 * Nearly every record has neither, so one pass over the text decides that (`holdsAmbiguity`), skipping
 * the insides of strings with indexOf; only a record that has one is parsed again, into jsonc-parser's
 * tree, to say where each is and whether a repeated key's values differ.
 */
import { ambiguousValue } from '../../../../shared/src/jsonObject';
import { isJsonObject, type JsonObject } from './jsonKind';
import { parseTreeSafely, type JsonPath, type SyntaxNode } from './jsonTree';

export type Ambiguity =
  | {
      readonly kind: 'duplicate-key';
      /** The field's path: the object's, and the key. */
      readonly path: JsonPath;
      /** The repeated key itself (a later occurrence), and the one before it. */
      readonly offset: number;
      readonly length: number;
      readonly earlierOffset: number;
      /** The values differ: the field is unknown. With the same value, it is as written. */
      readonly valuesDiffer: boolean;
    }
  | {
      readonly kind: 'number-ambiguous';
      readonly path: JsonPath;
      readonly offset: number;
      readonly length: number;
      /** The number's text, and the value JSON.parse made of it. */
      readonly text: string;
      readonly parsed: number;
    }
  | {
      /**
       * The record holds one of the above, but nests too deep to be parsed again to say where: every one of
       * its fields is unknown.
       */
      readonly kind: 'whole-record';
      readonly found: 'duplicate-key' | 'number-ambiguous';
    };

const noAmbiguities: readonly Ambiguity[] = [];

/** The ambiguities of `text`, which JSON.parse accepted; none for nearly every record, found in one pass. */
export function ambiguitiesIn(text: string): readonly Ambiguity[] {
  const found = firstAmbiguity(text);
  if (found === undefined) return noAmbiguities;
  const tree = parseTreeSafely(text);
  return tree ? ambiguitiesOfTree(text, tree) : [{ kind: 'whole-record', found }];
}

/**
 * Puts `ambiguousValue` in place of each field of `record` (as JSON.parse gave it from the text the
 * ambiguities were found in) whose value is ambiguous: a key repeated with values that differ, a number
 * not as a writer writes it, every field of a record too deep to say where. The one way every reader of
 * a record (the per-file checks, the outline, the verifier's reward.json) makes them unknown. True when
 * some field is now unknown.
 */
export function makeAmbiguousFieldsUnknown(record: JsonObject, ambiguities: readonly Ambiguity[]): boolean {
  let unknown = false;
  for (const ambiguity of ambiguities) {
    if (ambiguity.kind === 'whole-record') {
      for (const key of Object.keys(record)) record[key] = ambiguousValue;
      unknown = true;
    } else if (ambiguity.kind === 'number-ambiguous' || ambiguity.valuesDiffer) {
      unknown = replaceAt(record, ambiguity.path) || unknown;
    }
  }
  return unknown;
}

/** Puts `ambiguousValue` at `path`; false when the path leads nowhere in the parsed value. */
function replaceAt(root: JsonObject, path: JsonPath): boolean {
  let container: unknown = root;
  for (const segment of path.slice(0, -1)) {
    if (typeof segment === 'number') container = Array.isArray(container) ? container[segment] : undefined;
    else container = isJsonObject(container) ? container[segment] : undefined;
  }
  const last = path.at(-1);
  if (typeof last === 'number' && Array.isArray(container) && last < container.length) container[last] = ambiguousValue;
  else if (typeof last === 'string' && isJsonObject(container)) container[last] = ambiguousValue;
  else return false;
  return true;
}

// ---------------------------------------------------------------------------------------------------
// The pass over the text.

const quote = 0x22;
const backslash = 0x5c;
const colon = 0x3a;
const space = 0x20;
const openBrace = 0x7b;
const closeBrace = 0x7d;
const openBracket = 0x5b;
const closeBracket = 0x5d;
const comma = 0x2c;
const minus = 0x2d;
const plus = 0x2b;
const dot = 0x2e;
const lowerE = 0x65;
const upperE = 0x45;
const digitZero = 0x30;
const digitNine = 0x39;
const lowerT = 0x74;
const lowerF = 0x66;
const lowerN = 0x6e;

/** Past this many keys an object's keys are looked up in a set; below it they are compared in place. */
const keysComparedInPlace = 16;

// The pass's state, reused from record to record (the pass never runs inside itself), so that a record
// with neither ambiguity allocates nothing: where each key of the open objects stands in the text (start
// and end, innermost object's last), where each open object's keys begin there (-1 for an array), and
// the keys of an object with many, or with one spelled with an escape, in a set.
const keyBounds: number[] = [];
const keysFrom: number[] = [];
const keySets: (Set<string> | undefined)[] = [];

/**
 * Which kind of ambiguity `text` holds first, or none. The text is valid JSON, so a string ends at the
 * first quote not escaped, and a string after `{` or `,` inside an object is a key.
 */
function firstAmbiguity(text: string): 'duplicate-key' | 'number-ambiguous' | undefined {
  let top = 0;
  let depth = -1;
  let expectingKey = false;
  // The first backslash at or after the last key looked at: a key holds an escape when it is before the
  // key's end. Looked for again only past it, so the text is searched for backslashes once in all.
  let nextBackslash = -1;
  const length = text.length;
  for (let index = 0; index < length; index++) {
    const code = text.charCodeAt(index);
    if (code === quote) {
      let end = text.indexOf('"', index + 1);
      while (text.charCodeAt(end - 1) === backslash && escaped(text, end)) end = text.indexOf('"', end + 1);
      if (expectingKey) {
        expectingKey = false;
        const from = keysFrom[depth]!;
        let set = keySets[depth];
        if (nextBackslash !== Infinity && nextBackslash <= index) {
          nextBackslash = text.indexOf('\\', index);
          if (nextBackslash === -1) nextBackslash = Infinity;
        }
        if (set === undefined && top - from < 2 * keysComparedInPlace && nextBackslash > end) {
          for (let key = from; key < top; key += 2)
            if (sameText(text, keyBounds[key]!, keyBounds[key + 1]!, index + 1, end)) return 'duplicate-key';
          keyBounds[top++] = index + 1;
          keyBounds[top++] = end;
        } else {
          if (set === undefined) {
            set = new Set();
            for (let key = from; key < top; key += 2) set.add(text.slice(keyBounds[key], keyBounds[key + 1]));
            keySets[depth] = set;
          }
          const key = JSON.parse(text.slice(index, end + 1)) as string;
          if (set.has(key)) return 'duplicate-key';
          set.add(key);
        }
      }
      index = end;
    } else if (code === colon || code === space) {
      continue;
    } else if (code === comma) {
      expectingKey = keysFrom[depth] !== -1;
    } else if (code === openBrace) {
      keysFrom[++depth] = top;
      keySets[depth] = undefined;
      expectingKey = true;
    } else if (code === closeBrace) {
      top = keysFrom[depth--]!;
    } else if (code === openBracket) {
      keysFrom[++depth] = -1;
    } else if (code === closeBracket) {
      depth--;
    } else if (code === minus || (code >= digitZero && code <= digitNine)) {
      const end = numberEnd(text, index);
      if (end < 0 ? !writtenAsAWriterWrites(text.slice(index, -end)) : !plainInteger(text, index, end))
        return 'number-ambiguous';
      index = Math.abs(end) - 1;
    } else if (code === lowerT || code === lowerN) {
      index += 3;
    } else if (code === lowerF) {
      index += 4;
    }
  }
  return undefined;
}

/** Whether the quote at `at` is escaped: an odd number of backslashes before it. */
function escaped(text: string, at: number): boolean {
  let count = 0;
  for (let index = at - 1; text.charCodeAt(index) === backslash; index--) count++;
  return count % 2 === 1;
}

function sameText(text: string, aStart: number, aEnd: number, bStart: number, bEnd: number): boolean {
  if (aEnd - aStart !== bEnd - bStart) return false;
  for (let offset = 0; offset < aEnd - aStart; offset++)
    if (text.charCodeAt(aStart + offset) !== text.charCodeAt(bStart + offset)) return false;
  return true;
}

/** Where the number at `start` ends: negated when it has a fraction or an exponent. */
function numberEnd(text: string, start: number): number {
  let plain = true;
  let index = start + 1;
  for (; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code >= digitZero && code <= digitNine) continue;
    if (code === dot || code === lowerE || code === upperE || code === plus || code === minus) plain = false;
    else break;
  }
  return plain ? index : -index;
}

/**
 * An integer of fifteen digits or fewer (exact, and as every writer writes it) that is not -0; a longer
 * one is exact only up to 2^53, which the full test decides.
 */
function plainInteger(text: string, start: number, end: number): boolean {
  const negative = text.charCodeAt(start) === minus;
  const digits = negative ? end - start - 1 : end - start;
  if (digits > 15) return writtenAsAWriterWrites(text.slice(start, end));
  return !(negative && digits === 1 && text.charCodeAt(start + 1) === digitZero);
}

// ---------------------------------------------------------------------------------------------------
// Numbers as writers write them.

/**
 * Whether a JSON number's text is how a writer writes the value JSON.parse makes of it, so that every
 * reader takes it for the same value. BenchFlow writes with Python's json (an int in decimal digits,
 * exactly, however large; a float as repr gives it: `1.0`, `0.1`, `1e-05`, `1.5e+300`), the probe with
 * JSON.stringify (`1`, `0.1`, `1e-7`, `1e+21`). An integer is exact to JSON.parse only up to 2^53, and a
 * reader in C takes a larger one modulo its width; `-0` is an integer no writer writes.
 */
export function writtenAsAWriterWrites(text: string): boolean {
  const value = Number(text);
  if (!Number.isFinite(value)) return false;
  if (/^-?\d+$/.test(text)) return Number.isSafeInteger(value) && String(value) === text;
  return text === String(value) || text === pythonFloatRepr(value);
}

/** Python's repr of a float: the shortest digits that read back, fixed from 1e-4 to below 1e16, with ".0" when whole. */
export function pythonFloatRepr(value: number): string {
  if (Object.is(value, -0)) return '-0.0';
  // toExponential with no argument gives the shortest digits that read back, as repr does.
  const [mantissa, exponentText] = value.toExponential().split('e') as [string, string];
  const sign = mantissa.startsWith('-') ? '-' : '';
  const digits = mantissa.replace('-', '').replace('.', '');
  const exponent = Number(exponentText);
  if (exponent >= -4 && exponent < 16) {
    if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
    const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0');
    return `${sign}${whole}.${digits.slice(exponent + 1) || '0'}`;
  }
  const shown = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${shown}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
}

// ---------------------------------------------------------------------------------------------------
// Where each is, from the tree of a record that holds one.

/**
 * Every repeated key and every number not as a writer writes it, in the values JSON.parse keeps (the last
 * occurrence of a repeated key: an earlier one is read by no reader of the parsed value, and what it holds
 * is told by whether it equals the last). Walked with a stack of its own.
 */
function ambiguitiesOfTree(text: string, root: SyntaxNode): Ambiguity[] {
  const found: Ambiguity[] = [];
  const pending: { node: SyntaxNode; path: JsonPath }[] = [{ node: root, path: [] }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { node, path } = next;
    if (node.type === 'number') {
      const written = text.slice(node.offset, node.offset + node.length);
      if (!writtenAsAWriterWrites(written))
        found.push({
          kind: 'number-ambiguous',
          path,
          offset: node.offset,
          length: node.length,
          text: written,
          parsed: Number(written),
        });
    } else if (node.type === 'array') {
      (node.children ?? []).forEach((child, index) => pending.push({ node: child, path: [...path, index] }));
    } else if (node.type === 'object') {
      const byKey = new Map<string, SyntaxNode[]>();
      for (const property of node.children ?? []) {
        const key = property.children?.[0]?.value;
        if (typeof key !== 'string') continue;
        const occurrences = byKey.get(key);
        if (occurrences) occurrences.push(property);
        else byKey.set(key, [property]);
      }
      for (const [key, occurrences] of byKey) {
        const last = occurrences.at(-1)!;
        const value = last.children?.[1];
        if (value) pending.push({ node: value, path: [...path, key] });
        if (occurrences.length === 1) continue;
        const valuesDiffer = differ(text, occurrences);
        for (let index = 1; index < occurrences.length; index++) {
          const keyNode = occurrences[index]!.children![0]!;
          found.push({
            kind: 'duplicate-key',
            path: [...path, key],
            offset: keyNode.offset,
            length: keyNode.length,
            earlierOffset: occurrences[index - 1]!.children![0]!.offset,
            valuesDiffer,
          });
        }
      }
    }
  }
  return found.sort((a, b) => offsetOf(a) - offsetOf(b));
}

function offsetOf(ambiguity: Ambiguity): number {
  return ambiguity.kind === 'whole-record' ? 0 : ambiguity.offset;
}

/** Whether the values of a repeated key differ; so when they nest too deep to compare. */
function differ(text: string, occurrences: readonly SyntaxNode[]): boolean {
  try {
    const canonical = occurrences.map((property) => canonicalText(text, property.children?.[1]));
    return canonical.some((written) => written !== canonical[0]);
  } catch {
    return true;
  }
}

/**
 * A value written so that two writings of one value compare equal: keys in order, no whitespace, strings
 * as their value, numbers as written (1 and 1.0 are read alike by some readers only).
 */
function canonicalText(text: string, node: SyntaxNode | undefined): string {
  if (!node) return '';
  switch (node.type) {
    case 'object': {
      const members = (node.children ?? []).map(
        (property) => `${JSON.stringify(property.children?.[0]?.value)}:${canonicalText(text, property.children?.[1])}`,
      );
      return `{${members.sort().join(',')}}`;
    }
    case 'array':
      return `[${(node.children ?? []).map((child) => canonicalText(text, child)).join(',')}]`;
    case 'number':
      return text.slice(node.offset, node.offset + node.length);
    default:
      return JSON.stringify(node.value) ?? 'null';
  }
}
