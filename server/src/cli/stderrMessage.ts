/**
 * A message for the person running the CLI, on stderr, as one line: what it quotes (a path, an argument,
 * a folder's name) is made printable, so that a name cannot forge another line or reach the terminal as
 * an escape sequence.
 */
import { printable } from '../engine/text/printable';

export function writeStderrMessage(message: string): void {
  process.stderr.write(`rollout-evidence: ${printable(message)}\n`);
}
