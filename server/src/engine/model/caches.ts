/**
 * What the model works out once and keeps across evaluations: command analyses, and, for the language
 * server, which evaluates the same rollouts again after each edit, every rollout's action sequence.
 */
import { RecentlyUsedCache } from '../recentlyUsedCache';
import { analyseCommand, type CommandEvidence } from '../shell/evidence';
import { sandboxUserKey, type SandboxUser } from '../shell/sandboxUser';
import type { Step } from './actions';

/** The analysis of a command for a user never changes: one version of each. */
const analysed = 0;

/**
 * Command analyses keyed by command and sandbox user. Real action logs repeat a handful of commands
 * thousands of times, and the language server keeps this across evaluations; the least recently used
 * analyses go first, so a full cache keeps the commands still in use.
 */
export class CommandEvidenceCache {
  private readonly entries: RecentlyUsedCache<CommandEvidence, typeof analysed>;

  constructor(maxEntries = 10_000) {
    this.entries = new RecentlyUsedCache({ maxEntries });
  }

  evidenceOf(command: string, user: SandboxUser | undefined): CommandEvidence {
    const key = `${sandboxUserKey(user)}\u0000${command}`;
    let evidence = this.entries.get(key, analysed);
    if (!evidence) {
      evidence = analyseCommand(command, user);
      this.entries.set(key, analysed, evidence);
    }
    return evidence;
  }
}

export class ModelCaches {
  readonly commands = new CommandEvidenceCache();
  /**
   * A rollout's action sequence as last read, by rollout root, versioned by what it was read for (the
   * sandbox user, and whether the bundle is a fixture). Absent for a single pass (the CLI), which would
   * only hold memory with it; unbounded, since the language server forgets a rollout's sequence with its
   * evaluation.
   */
  readonly actionSequences: RecentlyUsedCache<readonly Step[], string> | undefined;

  constructor(options: { keepActionSequences?: boolean } = {}) {
    this.actionSequences = options.keepActionSequences ? new RecentlyUsedCache({ maxEntries: Infinity }) : undefined;
  }
}
