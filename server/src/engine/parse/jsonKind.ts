import { isJsonObject } from '../../../../shared/src/jsonObject';
/** Names JSON value types the way messages should, distinguishing what `typeof` lumps together. */
export type JsonTypeName = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';

export function jsonTypeOf(value: unknown): JsonTypeName {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    default:
      return 'object';
  }
}

export { isJsonObject, type JsonObject } from '../../../../shared/src/jsonObject';

/** The value at `path` (keys and array indexes) inside `value`, when there is one. */
export function valueAt(value: unknown, path: readonly (string | number)[]): unknown {
  let current = value;
  for (const segment of path) {
    if (typeof segment === 'number') current = Array.isArray(current) ? current[segment] : undefined;
    else
      current =
        isJsonObject(current) && Object.prototype.hasOwnProperty.call(current, segment) ? current[segment] : undefined;
  }
  return current;
}

/** The value when it is an array, else none: for fields that hold a list when they hold anything usable. */
export function arrayOrEmpty(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

/** "an object", "an array", "a string", … and plain "null", for messages. */
export function withArticle(type: JsonTypeName | string): string {
  if (type === 'null') return 'null';
  return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}

/**
 * Longest a string from a bundle is shown in a message. Messages reach CI logs and SARIF uploads, and a
 * bundle may hold a secret the agent printed: a message says what kind of value it found and shows a
 * prefix that identifies it, never the whole of a value that could be one.
 */
const shownCharacters = 12;

/**
 * The one cut of bundle text: at most `characters` characters (`shownCharacters` in messages; views that
 * stay in the editor, as the outline, may show more), with an ellipsis when more followed, never
 * splitting a surrogate pair. Everything that shows bundle text goes through here, directly or by
 * `quotedText` and `describeValue`.
 */
/** A value that is text with something in it besides whitespace, or null: a name a writer gave. */
export function nonBlankText(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

export function shownPrefix(text: string, characters = shownCharacters): string {
  if (text.length <= characters) return text;
  // Enough UTF-16 units for one character more than shown, however many units each takes.
  const leading = Array.from(text.slice(0, (characters + 1) * 2));
  return leading.length > characters ? `${leading.slice(0, characters).join('')}…` : text;
}

/** Bundle text as a message quotes it: the prefix of `shownPrefix`, as a JSON string. */
export function quotedText(text: string): string {
  return JSON.stringify(shownPrefix(text));
}

/**
 * A value read from a bundle as a message shows it: strings quoted and cut short, other scalars as JSON,
 * arrays and objects by their type and size. Never the whole of a large value, and nothing that could
 * fail on one nested deeper than JSON.stringify can go.
 */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return quotedText(value);
  if (Array.isArray(value)) return `an array of ${value.length} item${value.length === 1 ? '' : 's'}`;
  if (isJsonObject(value)) return 'an object';
  return String(value);
}
