/** A JSON object as parsed: shared because both the settings the client sends and the bundles are JSON. */
export type JsonObject = Record<string, unknown>;

/**
 * What a field holds when its text leaves its value ambiguous: a key written twice with two values (JSON.parse
 * keeps the last, other readers the first), or a number other readers take otherwise than JSON.parse
 * does. It is present, and of no JSON type: every reader reads it as it reads a value of a type its schema
 * does not allow, so it is never absent and never one of the values it may have been, and no reader needs a
 * case of its own for it. The per-file check puts it in place of the value JSON.parse kept
 * (server/src/engine/check/ambiguityFindings.ts).
 */
export const ambiguousValue: object = Object.freeze(
  new (class AmbiguousValue {
    toString(): string {
      return 'an ambiguous value';
    }
  })(),
);

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && value !== ambiguousValue;
}
