/** Caught values as text: `throw` can throw anything, not only Errors. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** With the stack, for logs that a developer reads. */
export function errorDetail(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
