/**
 * Whether a tool call's status ends it. The facts builder keeps a row's text only when the adapter did not
 * end the call (the rules place findings inside such rows); the model's tool-call index and the trajectory
 * rules read the same test, so it lives here, below both.
 */
import type { ToolCallFact } from './facts';

const terminalStatuses = new Set(['completed', 'failed', 'cancelled']);

export function isTerminalStatus(status: unknown): boolean {
  return typeof status === 'string' && terminalStatuses.has(status);
}

/** Terminal as the adapter reported it: a terminal status that no framework terminal_source claims. */
export function isAdapterTerminal(call: Pick<ToolCallFact, 'status' | 'terminalSource'>): boolean {
  return isTerminalStatus(call.status) && call.terminalSource === undefined;
}
