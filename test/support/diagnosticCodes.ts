/**
 * The codes a file earns on its own, before the evidence rules read its rollout as a whole: tests that
 * check a file's own problems filter by them, so that rule findings on the same file do not interfere.
 */
export const perFileCodes: ReadonlySet<string> = new Set([
  'jsonl-syntax',
  'jsonl-partial-line',
  'json-syntax',
  'record-not-object',
  'schema',
  'artifact-empty',
  'not-utf8',
  'record-too-large',
]);
