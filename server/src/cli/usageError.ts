/** A failure of the command line itself: a one-line message on stderr and exit status 2. */
export class UsageError extends Error {}

/** Nothing to check was found: a usage failure of its own kind in the JSON and SARIF documents. */
export class NothingToCheckError extends UsageError {}
