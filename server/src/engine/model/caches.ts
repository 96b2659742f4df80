/**
 * What the model works out once and keeps across evaluations: command analyses, and, for the language
 * server, which evaluates the same rollouts again after each edit, every rollout's action sequence.
 */
import { analyseCommand, sandboxUserKey, type CommandEvidence, type SandboxUser } from '../shell/evidence';
import type { Step } from './actions';

/**
 * Command analyses keyed by command and sandbox user. Real action logs repeat a handful of commands
 * thousands of times, and the language server keeps this across evaluations.
 */
export class CommandEvidenceCache {
  private readonly entries = new Map<string, CommandEvidence>();

  constructor(private readonly maxEntries = 10_000) {}

  evidenceOf(command: string, user: SandboxUser | undefined): CommandEvidence {
    const key = `${sandboxUserKey(user)}\u0000${command}`;
    let evidence = this.entries.get(key);
    if (!evidence) {
      evidence = analyseCommand(command, user);
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(key, evidence);
    }
    return evidence;
  }
}

/** A rollout's action sequence as last read, with what it was read for: the sandbox user, and whether the bundle is a fixture. */
export interface KeptActionSequence {
  readonly readFor: string;
  readonly steps: readonly Step[];
}

export class ModelCaches {
  readonly commands = new CommandEvidenceCache();
  /** By rollout root; absent for a single pass (the CLI), which would only hold memory with it. */
  readonly actionSequences: Map<string, KeptActionSequence> | undefined;

  constructor(options: { keepActionSequences?: boolean } = {}) {
    this.actionSequences = options.keepActionSequences ? new Map() : undefined;
  }
}
