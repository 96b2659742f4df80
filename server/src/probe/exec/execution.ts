/**
 * One command run in a target, whatever carries it (a local process, `docker exec`, the Engine API):
 * its output arrives line by line, and it ends either with an exit status or with a reason it could not.
 */
export interface ExecHooks {
  readonly onStdout: (line: string) => void;
  readonly onStderr: (line: string) => void;
  /** Aborted on timeout or cancellation: the exec stops and ends as failed. */
  readonly signal: AbortSignal;
}

export type ExecEnd =
  { readonly kind: 'exited'; readonly code: number } | { readonly kind: 'failed'; readonly reason: string };

export interface Exec {
  /** The command as the transcript shows it. */
  readonly display: readonly string[];
  run(hooks: ExecHooks): Promise<ExecEnd>;
}

/** Why an aborted exec ended, in the words of the signal's reason. */
export function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.name === 'TimeoutError') return 'timed out';
  return reason instanceof Error && reason.message !== '' && reason.name !== 'AbortError'
    ? reason.message
    : 'cancelled';
}
