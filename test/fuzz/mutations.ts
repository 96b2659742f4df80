/**
 * The fuzzer's mutations of one artifact file, each drawn from a seeded generator so that a seed and an
 * input's index replay it exactly. Some damage the file (byte flips, truncated lines, changed types,
 * unknown keys and kinds, deep nesting, bytes that are not UTF-8); some are legitimate edits (a whole
 * line or key deleted, a value changed to another valid one, a huge or hostile but well-formed
 * string). Which is which is not decided here but by the damage rule (damage.ts), from the result.
 */
import type { ArtifactFormat, ArtifactKind } from '../../shared/src/layout';
import type { SeededRandom } from '../support/random';
import { kindFields, SchemaKnowledge } from '../../server/src/engine/schema/knownKeys';

export interface Mutation {
  /** The operator's name: failures are classed by it. */
  readonly operator: string;
  /** What was done, precisely enough to read in a failure report. */
  readonly description: string;
  readonly bytes: Buffer;
  /** What the file becomes on disk instead of a regular file of `bytes`, when it does (engineRun.ts makes it). */
  readonly shape?: FileShape;
}

/**
 * A file that is present but not a regular file of the rollout (a FIFO, a dangling link, a link to
 * /dev/null or to a file outside the rollout), or whose last line never ends within the engine's
 * bound: the file's bytes, then a sparse hole of `holeBytes` zero bytes with no newline.
 */
export type FileShape =
  { readonly kind: NotRegularShape } | { readonly kind: 'unending-line'; readonly holeBytes: number };
type NotRegularShape = 'fifo' | 'dangling-link' | 'link-to-dev-null' | 'link-outside';

export interface MutationTarget {
  readonly kind: ArtifactKind;
  readonly format: ArtifactFormat;
  readonly bytes: Buffer;
}

type Operator = (random: SeededRandom, target: MutationTarget) => Omit<Mutation, 'operator'> | undefined;

const pick = <T>(random: SeededRandom, items: readonly T[]): T => items[random.below(items.length)]!;

/**
 * The file's text for the operators that edit text, or undefined when decoding it would change its
 * bytes (they are not UTF-8): such an operator writes its text back, so it would silently repair every
 * bad byte of the file besides making its own change, and the repair could raise the verdict. Those
 * operators do not apply there; the byte-level ones still do.
 */
function editableText(target: MutationTarget): string | undefined {
  const decoded = target.bytes.toString('utf8');
  return Buffer.from(decoded).equals(target.bytes) ? decoded : undefined;
}

/** A size between `low` and `high`, most of them small: the costly inputs stay a minority. */
const logSize = (random: SeededRandom, low: number, high: number): number =>
  Math.floor(low * (high / low) ** random.fraction());

const identifierCharacters = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_';

/** One character of `text` replaced by another identifier character (half of the time its case flipped). */
function flipCharacter(random: SeededRandom, text: string): { text: string; at: number } {
  const at = random.below(text.length);
  const old = text[at]!;
  let replacement =
    old.toLowerCase() === old.toUpperCase() || random.below(2) === 0
      ? pick(random, [...identifierCharacters])
      : old === old.toLowerCase()
        ? old.toUpperCase()
        : old.toLowerCase();
  if (replacement === old) replacement = old === 'x' ? 'y' : 'x';
  return { text: text.slice(0, at) + replacement + text.slice(at + 1), at };
}

/** Regex matches in `text` whose group 1 is what a mutation may change, with where that group starts. */
function groupsOf(text: string, pattern: RegExp): { start: number; value: string }[] {
  const found: { start: number; value: string }[] = [];
  for (const match of text.matchAll(pattern)) {
    if (match.index === undefined || match[1] === undefined || match[1].length === 0) continue;
    found.push({ start: match.index + match[0].indexOf(match[1]), value: match[1] });
  }
  return found;
}

const keyPattern = /"([A-Za-z_][A-Za-z0-9_]*)"\s*:/g;
const kindValuePattern = new RegExp(`"(?:${[...kindFields].join('|')})"\\s*:\\s*"([^"\\\\]*)"`, 'g');
const numberPattern = /[:[,]\s*(-?\d+(?:\.\d+)?)\s*(?=[,}\]])/g;

/** A textual change of one regex group: one character of it replaced. */
function flipInGroup(
  random: SeededRandom,
  target: MutationTarget,
  pattern: RegExp,
  what: string,
): Omit<Mutation, 'operator'> | undefined {
  const text = editableText(target);
  if (text === undefined) return undefined;
  const groups = groupsOf(text, pattern);
  if (groups.length === 0) return undefined;
  const group = pick(random, groups);
  const flipped = flipCharacter(random, group.value);
  const mutated = text.slice(0, group.start) + flipped.text + text.slice(group.start + group.value.length);
  return {
    description: `${what} ${JSON.stringify(group.value)} → ${JSON.stringify(flipped.text)} at offset ${group.start}`,
    bytes: Buffer.from(mutated),
  };
}

// ---------------------------------------------------------------------------------------------------
// Records as values: a JSONL line or the JSON document, parsed, changed, written back.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Path = readonly (string | number)[];

interface RecordSlot {
  readonly value: Json;
  /** Writes a changed value back into the file's text, in the file's own style. */
  readonly write: (value: Json, raw?: { placeholder: string; text: string }) => Buffer;
  readonly where: string;
}

/** A record of the file to change: a parseable JSONL line, or the JSON document. */
function recordOf(random: SeededRandom, target: MutationTarget): RecordSlot | undefined {
  const text = editableText(target);
  if (text === undefined) return undefined;
  const splice = (serialised: string, raw?: { placeholder: string; text: string }) =>
    raw ? serialised.split(JSON.stringify(raw.placeholder)).join(raw.text) : serialised;
  if (target.format === 'json') {
    const value = parseOrUndefined(text);
    if (value === undefined) return undefined;
    return {
      value,
      where: 'the document',
      write: (changed, raw) => Buffer.from(splice(`${JSON.stringify(changed, null, 2)}\n`, raw)),
    };
  }
  const lines = text.split('\n');
  const parseable = lines.flatMap((line, index) => (parseOrUndefined(line) === undefined ? [] : [index]));
  if (parseable.length === 0) return undefined;
  const index = pick(random, parseable);
  const crlf = lines[index]!.endsWith('\r');
  return {
    value: parseOrUndefined(lines[index]!)!,
    where: `line ${index + 1}`,
    write: (changed, raw) => {
      const copy = [...lines];
      copy[index] = splice(JSON.stringify(changed), raw) + (crlf ? '\r' : '');
      return Buffer.from(copy.join('\n'));
    },
  };
}

/** A record of the file and a place in it, drawn from `paths` (of the record's value); undefined when there is none. */
function placeIn(
  random: SeededRandom,
  target: MutationTarget,
  paths: (value: Json) => Path[],
): { readonly record: RecordSlot; readonly path: Path } | undefined {
  const record = recordOf(random, target);
  if (!record) return undefined;
  const found = paths(record.value);
  return found.length === 0 ? undefined : { record, path: pick(random, found) };
}

function parseOrUndefined(text: string): Json | undefined {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
}

/** Every path under `value` (at most a few thousand), the root first. */
function pathsOf(value: Json, path: Path = [], found: Path[] = []): Path[] {
  if (found.length > 5000) return found;
  found.push(path);
  if (Array.isArray(value)) value.forEach((item, index) => pathsOf(item, [...path, index], found));
  else if (value !== null && typeof value === 'object')
    for (const [key, item] of Object.entries(value)) pathsOf(item, [...path, key], found);
  return found;
}

function valueAt(value: Json, path: Path): Json {
  let node: Json = value;
  for (const part of path) node = (node as Record<string | number, Json>)[part]!;
  return node;
}

/** A deep copy of `value` with the value at `path` replaced, or removed when `replacement` is undefined. */
function withValueAt(value: Json, path: Path, replacement: Json | undefined): Json {
  if (path.length === 0) return replacement ?? null;
  const copy = structuredClone(value);
  const parent = valueAt(copy, path.slice(0, -1)) as Record<string | number, Json>;
  const last = path[path.length - 1]!;
  if (replacement === undefined) {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else parent[last] = replacement;
  return copy;
}

const showPath = (path: Path): string => (path.length === 0 ? '(root)' : path.join('.'));
const brief = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}… (${text.length} characters)` : text;
};

const jsonType = (value: Json): string => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

/** Values of other JSON types than `value`'s. */
function otherTypedValues(value: Json): Json[] {
  const candidates: Json[] = [
    0,
    1,
    -1,
    1.5,
    1e308,
    '',
    '0',
    'x',
    String(value),
    true,
    false,
    null,
    [],
    {},
    [value],
    { value },
  ];
  return candidates.filter((candidate) => jsonType(candidate) !== jsonType(value));
}

// ---------------------------------------------------------------------------------------------------
// The operators.

const byteFlip: Operator = (random, target) => {
  if (target.bytes.length === 0) return undefined;
  const at = random.below(target.bytes.length);
  const bytes = Buffer.from(target.bytes);
  const bit = random.below(8);
  bytes[at] = bytes[at]! ^ (1 << bit);
  return { description: `byte ${at} 0x${target.bytes[at]!.toString(16)} → 0x${bytes[at]!.toString(16)}`, bytes };
};

const keyFlip: Operator = (random, target) => flipInGroup(random, target, keyPattern, 'key');

const kindFlip: Operator = (random, target) => flipInGroup(random, target, kindValuePattern, 'kind value');

const numberFlip: Operator = (random, target) => {
  const text = editableText(target);
  if (text === undefined) return undefined;
  const groups = groupsOf(text, numberPattern);
  if (groups.length === 0) return undefined;
  const group = pick(random, groups);
  const at = random.below(group.value.length);
  const replacement = random.below(3) === 0 ? pick(random, ['a', 'e', '-', '.', ' ', '"']) : String(random.below(10));
  const changed = group.value.slice(0, at) + replacement + group.value.slice(at + 1);
  const mutated = text.slice(0, group.start) + changed + text.slice(group.start + group.value.length);
  return { description: `number ${group.value} → ${changed} at offset ${group.start}`, bytes: Buffer.from(mutated) };
};

const truncateLine: Operator = (random, target) => {
  const text = editableText(target);
  if (text === undefined) return undefined;
  const lines = text.split('\n');
  const candidates = lines.flatMap((line, index) => (line.length > 1 ? [index] : []));
  if (candidates.length === 0) return undefined;
  const index = pick(random, candidates);
  const keep = 1 + random.below(lines[index]!.length - 1);
  const copy = [...lines];
  copy[index] = lines[index]!.slice(0, keep);
  return {
    description: `line ${index + 1} cut to its first ${keep} of ${lines[index]!.length} characters`,
    bytes: Buffer.from(copy.join('\n')),
  };
};

const changeType: Operator = (random, target) => {
  const place = placeIn(random, target, (value) => pathsOf(value).filter((path) => path.length > 0));
  if (!place) return undefined;
  const { record, path } = place;
  const old = valueAt(record.value, path);
  const replacement = pick(random, otherTypedValues(old));
  return {
    description: `${record.where}: ${showPath(path)} ${brief(old)} → ${brief(replacement)}`,
    bytes: record.write(withValueAt(record.value, path, replacement)),
  };
};

const objectPaths = (value: Json): Path[] =>
  pathsOf(value).filter((path) => {
    const node = valueAt(value, path);
    return node !== null && typeof node === 'object' && !Array.isArray(node);
  });

const unknownKey: Operator = (random, target) => {
  const place = placeIn(random, target, objectPaths);
  if (!place) return undefined;
  const { record, path } = place;
  const key = pick(random, ['fuzz_unknown', 'verifier_environment_mode_v2', 'eventType', 'Phase', 'return_code_']);
  const added = pick(random, [1, 'separate', true, null, {}] as Json[]);
  const node = { ...(valueAt(record.value, path) as Record<string, Json>), [key]: added };
  return {
    description: `${record.where}: key ${JSON.stringify(key)} added at ${showPath(path)}`,
    bytes: record.write(withValueAt(record.value, path, node)),
  };
};

/** Paths to every kind field in the record. */
const kindPaths = (value: Json): Path[] =>
  pathsOf(value).filter((path) => {
    const last = path[path.length - 1];
    return typeof last === 'string' && kindFields.has(last) && typeof valueAt(value, path) === 'string';
  });

const unknownKind: Operator = (random, target) => {
  const place = placeIn(random, target, kindPaths);
  if (!place) return undefined;
  const { record, path } = place;
  const old = valueAt(record.value, path) as string;
  const replacement = pick(random, [`${old}V2`, old.toUpperCase(), `${old} `, '', 'Unknown', old.slice(1), `x-${old}`]);
  if (replacement === old) return undefined;
  return {
    description: `${record.where}: ${showPath(path)} ${JSON.stringify(old)} → ${JSON.stringify(replacement)}`,
    bytes: record.write(withValueAt(record.value, path, replacement)),
  };
};

const deepNesting: Operator = (random, target) => {
  const place = placeIn(random, target, (value) => pathsOf(value).filter((path) => path.length > 0));
  if (!place) return undefined;
  const { record, path } = place;
  const depth = logSize(random, 100, 100_000);
  const text =
    random.below(2) === 0
      ? `${'['.repeat(depth)}${']'.repeat(depth)}`
      : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  const placeholder = '\u0000fuzz-deep\u0000';
  return {
    description: `${record.where}: ${showPath(path)} replaced by a value nested ${depth} deep`,
    bytes: record.write(withValueAt(record.value, path, placeholder), { placeholder, text }),
  };
};

const hugeLine: Operator = (random, target) => {
  const place = placeIn(random, target, (value) =>
    pathsOf(value).filter((path) => typeof valueAt(value, path) === 'string'),
  );
  if (!place) return undefined;
  const { record, path } = place;
  const length = logSize(random, 10_000, 900_000);
  const old = valueAt(record.value, path) as string;
  const replacement = old + pick(random, ['x', ' ', '\\', '"', 'é', '\u2028']).repeat(length);
  return {
    description: `${record.where}: ${showPath(path)} grown by ${length} characters`,
    bytes: record.write(withValueAt(record.value, path, replacement)),
  };
};

const invalidSequences: readonly (readonly number[])[] = [
  [0xff],
  [0xc3, 0x28],
  [0xed, 0xa0, 0x80],
  [0xc0, 0xaf],
  [0xe2, 0x82],
  [0xf4, 0x90, 0x80, 0x80],
  [0x80],
];

const invalidUtf8: Operator = (random, target) => {
  const at = random.below(target.bytes.length + 1);
  const sequence = pick(random, invalidSequences);
  const replace = random.below(2) === 0 && at < target.bytes.length;
  const bytes = Buffer.concat([
    target.bytes.subarray(0, at),
    Buffer.from(sequence),
    target.bytes.subarray(replace ? at + 1 : at),
  ]);
  return {
    description: `${replace ? 'byte replaced' : 'inserted'} at ${at}: ${sequence.map((byte) => byte.toString(16)).join(' ')}`,
    bytes,
  };
};

/** Shell the analyser must bound: nesting, long chains, many commands, unbalanced quoting. */
const hostileCommands: readonly ((count: number) => string)[] = [
  (count) => '$('.repeat(count),
  (count) => `${'$('.repeat(count)}pgrep -u agent${')'.repeat(count)}`,
  (count) => `${'true && '.repeat(count)}pgrep -u agent`,
  (count) => 'pgrep -u agent; '.repeat(count),
  (count) => `${'('.repeat(count)}pgrep -u agent${')'.repeat(count)}`,
  (count) => `${'{ '.repeat(count)}pgrep -u agent${'; }'.repeat(count)}`,
  (count) => `${'if true; then '.repeat(count)}pgrep -u agent${'; fi'.repeat(count)}`,
  (count) => `${'! '.repeat(count)}pgrep -u agent`,
  (count) => `${'pkill -u agent || '.repeat(count)}pgrep -u agent; sleep 1`,
  (count) => `${'"$('.repeat(count)}pgrep -u agent`,
  (count) => `pgrep -u agent${' | cat'.repeat(count)}`,
  (count) => `${'case $? in 1) '.repeat(count)}exit 0`,
  (count) => `${"'".repeat(count)}pgrep -u agent`,
  (count) => `sh -c "${'sh -c \\"'.repeat(Math.min(count, 2000))}pgrep -u agent"`,
];

const hostileShell: Operator = (random, target) => {
  if (target.kind !== 'action-records') return undefined;
  const record = recordOf(random, target);
  if (!record || record.value === null || typeof record.value !== 'object' || Array.isArray(record.value))
    return undefined;
  const generator = random.below(hostileCommands.length);
  // Up to about 900 KB: the CPU rule covers inputs under 1 MB.
  let count = logSize(random, 10, 60_000);
  let command = hostileCommands[generator]!(count);
  while (command.length > 900_000) command = hostileCommands[generator]!((count = Math.floor(count / 2)));
  const value = {
    ...record.value,
    event_type: 'SandboxExec',
    phase: pick(random, ['Harden', 'Verify']),
    command_preview: command,
    return_code: pick(random, [0, 1, 2]),
  };
  return {
    description: `${record.where}: command_preview set to hostile shell #${generator} (count ${count}, ${command.length} characters): ${brief(command.slice(0, 40))}`,
    bytes: record.write(value),
  };
};

const deleteLine: Operator = (random, target) => {
  if (target.format !== 'jsonl') return undefined;
  const text = editableText(target);
  if (text === undefined) return undefined;
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  if (lines.length === 0) return undefined;
  const index = random.below(lines.length);
  const kept = lines.filter((_, line) => line !== index);
  return {
    description: `line ${index + 1} deleted`,
    bytes: Buffer.from(kept.length > 0 ? `${kept.join('\n')}\n` : ''),
  };
};

const deleteKey: Operator = (random, target) => {
  const place = placeIn(random, target, (value) =>
    pathsOf(value).filter((path) => typeof path[path.length - 1] === 'string'),
  );
  if (!place) return undefined;
  const { record, path } = place;
  return {
    description: `${record.where}: key ${showPath(path)} deleted`,
    bytes: record.write(withValueAt(record.value, path, undefined)),
  };
};

/** Another value of the same type: for a kind field, another value its schema names. */
function legitimateReplacement(random: SeededRandom, kind: ArtifactKind, path: Path, old: Json): Json | undefined {
  const last = path[path.length - 1];
  if (typeof last === 'string' && kindFields.has(last)) {
    const known = SchemaKnowledge.of(kind)
      .knownValuesOfKey(last)
      .filter((value) => value !== old && typeof value === typeof old);
    return known.length > 0 ? (pick(random, known) as Json) : undefined;
  }
  if (typeof old === 'number')
    return pick(
      random,
      [0, 1, 2, old + 1, old - 1].filter((value) => value !== old && Number.isInteger(value) === Number.isInteger(old)),
    );
  if (typeof old === 'boolean') return !old;
  if (typeof old === 'string') return pick(random, ['', 'x', `${old}x`, 'pgrep -u agent', 'separate', 'shared']);
  return undefined;
}

const legitimateEdit: Operator = (random, target) => {
  const place = placeIn(random, target, (value) =>
    pathsOf(value).filter((path) => {
      const node = valueAt(value, path);
      return path.length > 0 && (node === null || typeof node !== 'object');
    }),
  );
  if (!place) return undefined;
  const { record, path } = place;
  const old = valueAt(record.value, path);
  const replacement = legitimateReplacement(random, target.kind, path, old);
  if (replacement === undefined || replacement === old) return undefined;
  return {
    description: `${record.where}: ${showPath(path)} ${brief(old)} → ${brief(replacement)}`,
    bytes: record.write(withValueAt(record.value, path, replacement)),
  };
};

/**
 * A key written twice in one object: the second time with the same value or another (JSON.stringify
 * never repeats a key, so the repeat is spliced in where the first value is written).
 */
const repeatedKey: Operator = (random, target) => {
  const place = placeIn(random, target, (value) =>
    pathsOf(value).filter((path) => typeof path[path.length - 1] === 'string'),
  );
  if (!place) return undefined;
  const { record, path } = place;
  const key = path[path.length - 1] as string;
  const old = valueAt(record.value, path);
  const other = random.below(3) === 0 ? old : (legitimateReplacement(random, target.kind, path, old) ?? null);
  const placeholder = `\u0000repeated-key-${random.below(1 << 30)}`;
  const text = `${JSON.stringify(old)},${JSON.stringify(key)}:${JSON.stringify(other)}`;
  return {
    description: `${record.where}: key ${showPath(path)} written again with ${other === old ? 'the same value' : brief(other)}`,
    bytes: record.write(withValueAt(record.value, path, placeholder), { placeholder, text }),
  };
};

/** A number as no writer writes it: JSON.parse reads each as a number a C or shell reader reads otherwise. */
const ambiguousNumbers: readonly string[] = ['1e-400', '-0', '9007199254740993', '1E0', '0.0e0', '1e400'];

const ambiguousNumber: Operator = (random, target) => {
  const place = placeIn(random, target, (value) =>
    pathsOf(value).filter((path) => path.length > 0 && typeof valueAt(value, path) === 'number'),
  );
  if (!place) return undefined;
  const { record, path } = place;
  const placeholder = `\u0000ambiguous-number-${random.below(1 << 30)}`;
  const text = pick(random, ambiguousNumbers);
  return {
    description: `${record.where}: ${showPath(path)} ${brief(valueAt(record.value, path))} → ${text}`,
    bytes: record.write(withValueAt(record.value, path, placeholder), { placeholder, text }),
  };
};

const fileShapes: readonly NotRegularShape[] = ['fifo', 'dangling-link', 'link-to-dev-null', 'link-outside'];

const notRegularFile: Operator = (random, target) => {
  const kind = pick(random, fileShapes);
  return { description: `the file replaced by a ${kind}`, bytes: target.bytes, shape: { kind } };
};

/** Past the engine's 64 MiB bound for one record: a sparse hole, so the disk holds none of it. */
const unendingLine: Operator = (random, target) => {
  const holeBytes = logSize(random, 64 * 1024 * 1024 + 1, 256 * 1024 * 1024);
  return {
    description: `a line of ${holeBytes} zero bytes with no newline added after the file's bytes (a sparse hole)`,
    bytes: target.bytes,
    shape: { kind: 'unending-line', holeBytes },
  };
};

/** Operators with their weights: the costly ones (huge, deep, hostile) are rare, so a run of 100,000 fits in minutes. */
const operators: readonly (readonly [string, Operator, number])[] = [
  ['byte-flip', byteFlip, 200],
  ['key-flip', keyFlip, 100],
  ['kind-flip', kindFlip, 100],
  ['number-flip', numberFlip, 80],
  ['truncate-line', truncateLine, 80],
  ['change-type', changeType, 100],
  ['unknown-key', unknownKey, 50],
  ['unknown-kind', unknownKind, 80],
  ['deep-nesting', deepNesting, 4],
  ['huge-line', hugeLine, 3],
  ['invalid-utf8', invalidUtf8, 40],
  ['hostile-shell', hostileShell, 3],
  ['delete-line', deleteLine, 50],
  ['delete-key', deleteKey, 40],
  ['legitimate-edit', legitimateEdit, 100],
  ['repeated-key', repeatedKey, 40],
  ['ambiguous-number', ambiguousNumber, 30],
  ['not-regular-file', notRegularFile, 10],
  ['unending-line', unendingLine, 1],
];

export const operatorNames: readonly string[] = operators.map(([name]) => name);

const totalWeight = operators.reduce((sum, [, , weight]) => sum + weight, 0);

/** One mutation of `target`: an operator drawn by weight, falling back to a byte flip where it does not apply. */
export function mutate(random: SeededRandom, target: MutationTarget, only?: string): Mutation {
  let draw = random.below(totalWeight);
  let chosen = operators[0]!;
  for (const entry of operators) {
    if (draw < entry[2]) {
      chosen = entry;
      break;
    }
    draw -= entry[2];
  }
  if (only) chosen = operators.find(([name]) => name === only) ?? chosen;
  const [operator, apply] = chosen;
  const applied = apply(random, target);
  if (applied && (applied.shape || !applied.bytes.equals(target.bytes))) return { operator, ...applied };
  const fallback = byteFlip(random, target) ?? { description: 'empty file: a byte added', bytes: Buffer.from('x') };
  return { operator: 'byte-flip', ...fallback };
}
