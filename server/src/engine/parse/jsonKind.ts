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

export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** "an object", "an array", "a string", … and plain "null", for messages. */
export function withArticle(type: JsonTypeName | string): string {
  if (type === 'null') return 'null';
  return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}
