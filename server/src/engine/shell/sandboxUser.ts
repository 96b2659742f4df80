/** The sandbox user a command is read for, below every shell module that reads one. */
export interface SandboxUser {
  readonly name: string;
  readonly uid?: number;
}

/** One text per sandbox user (or none), for keeping what was worked out for that user. */
export function sandboxUserKey(user: SandboxUser | undefined): string {
  return `${user?.name ?? ''}\u0000${user?.uid ?? ''}`;
}
