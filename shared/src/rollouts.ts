/**
 * What the Rollouts view lists: every rollout under some folders, grouped into jobs, each with its
 * verdict, its problem counts and its files, evaluated as the diagnostics are. The request that asks
 * for it, `rolloutsRequest`, is in protocol.ts.
 */

/** The engine's verdicts, worst first: the one list of them (engine/verdict.ts derives its own from it). */
export const rolloutVerdicts = ['untrusted', 'incomplete', 'trusted-timeout', 'trusted'] as const;

export type RolloutVerdict = (typeof rolloutVerdicts)[number];

/** Problems by severity, those left out by `rolloutEvidence.maxNumberOfProblems` included. */
export interface ProblemCounts {
  readonly error: number;
  readonly warning: number;
  readonly information: number;
  readonly hint: number;
}

export interface RolloutFileSummary {
  /** Absolute path. */
  readonly path: string;
  /** The artifact kind; null for a file the rules name that the rollout does not have. */
  readonly kind: string | null;
  readonly problems: ProblemCounts;
  /** False for a required file that is missing: its problems are about its absence. */
  readonly exists: boolean;
  /** Why the file could not be read, when it could not. */
  readonly ioError?: string;
  /** Over the size VS Code hands to extensions: analysed from disk, its diagnostics pushed by the server. */
  readonly tooLargeForEditor: boolean;
}

export interface RolloutSummary {
  /** The rollout folder. */
  readonly root: string;
  readonly verdict: RolloutVerdict;
  readonly trainingReady: boolean;
  /** Over all its files: their own problems and the rules' findings. */
  readonly problems: ProblemCounts;
  readonly files: readonly RolloutFileSummary[];
  /** The latest modification time of its files (ms since the epoch), 0 when none could be read. */
  readonly lastWrittenMs: number;
}

export interface JobSummary {
  /** The folder holding the rollouts (BenchFlow's `jobs/<timestamp>/`). */
  readonly folder: string;
  readonly rollouts: readonly RolloutSummary[];
}

export interface RolloutsResult {
  /** Jobs by folder path, rollouts within each by path. */
  readonly jobs: readonly JobSummary[];
  /** Rollouts found, listed or not. */
  readonly found: number;
  /** Set when rollouts were found but not listed, saying how many and why. */
  readonly notice?: string;
  /** Folders that could not be searched, and given folders that do not exist; one line each. */
  readonly ioErrors: readonly string[];
}

/** VS Code does not hand files larger than this to extensions (`TextModel._MODEL_SYNC_LIMIT`). */
export const editorSyncLimitBytes = 50 * 1024 * 1024;

/**
 * The experiment summary of some rollouts, as the CLI's `--format summary` gives it for the same
 * rollouts (server/src/engine/experiment/summary.ts makes both). The request that asks for it,
 * `experimentSummaryRequest`, is in protocol.ts.
 */
export interface ExperimentSummaryResult {
  /** The summary in Markdown, character for character the CLI's `--format summary` run from `relativeTo`. */
  readonly markdown: string;
  /** Rollouts summarised. */
  readonly rollouts: number;
  /** Rollouts by verdict; they add up to `rollouts`. */
  readonly verdicts: Readonly<Record<RolloutVerdict, number>>;
  /** The folder the summary's rollout paths are relative to: the workspace folder that holds the one asked about. */
  readonly relativeTo: string;
  /** Folders that could not be searched; one line each. */
  readonly ioErrors: readonly string[];
}
