/** A JSON object as parsed: shared because both the settings the client sends and the bundles are JSON. */
export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
