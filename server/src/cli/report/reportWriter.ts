/**
 * How every format writes a run: told what the run is (`RunContext`) before the first rollout, given each
 * rollout's report in the listing order as soon as it is its turn, and the run's totals at the end. A
 * format keeps counts, never the reports, so a run's memory does not grow with its rollouts.
 */
import type { ExperimentSummary } from '../../engine/experiment/summary';
import type { JsonCheck } from './reportTypes';
import type { RolloutReport } from './rolloutReport';
import type { CheckFailure, CheckRequest, ExitStatus, Totals } from './run';

export interface RunContext {
  /** Paths in the reports are relative to it, as the JSON document gives them. */
  readonly cwd: string;
  readonly check: JsonCheck;
  /** Text only: one verdict line per rollout. */
  readonly quiet: boolean;
}

export interface RunEnd {
  readonly totals: Totals;
  /** Every path that exists but could not be read, as one-line messages: folders first, then files in listing order. */
  readonly ioErrors: readonly string[];
  readonly failure: CheckFailure | undefined;
  readonly exitStatus: ExitStatus;
  /** The experiment summary over every rollout written. */
  readonly experiment: ExperimentSummary;
}

export interface ReportWriter {
  rollout(report: RolloutReport): void;
  end(end: RunEnd): void;
}

export type Output = (text: string) => void;

/** `spool`: where a format whose document puts the totals before the rollouts keeps what it has written so far. */
export type WriterFactory = (context: RunContext, write: Output, spool?: Spool) => ReportWriter;

/** Text held back until the end of the run. */
export interface Spool {
  write(text: string): void;
  /** Hands everything written, in order, to `write`, and lets it go. */
  drainTo(write: Output): void;
}

export function memorySpool(): Spool {
  let parts: string[] = [];
  return {
    write: (text) => void parts.push(text),
    drainTo(write) {
      for (const part of parts) write(part);
      parts = [];
    },
  };
}

/** The context of a run: `shard` null for every bundle, as a run made in memory (`runCheck`) checks them. */
export function contextOf(
  request: CheckRequest,
  unreadableFolders: readonly string[],
  { quiet = false, shard = null }: { readonly quiet?: boolean; readonly shard?: JsonCheck['shard'] } = {},
): RunContext {
  return {
    cwd: request.cwd,
    quiet,
    check: {
      options: {
        maxProblems: request.maxProblems,
        failOn: request.failOn,
        allowOracleWithoutLlm: request.rules.allowOracleWithoutLlm,
        allowNativeSubscriptionWithoutLlm: request.rules.allowNativeSubscriptionWithoutLlm,
        fixtureFolders: request.fixtureFolders,
        map: request.artifactMap,
      },
      shard,
      unreadableFolders,
    },
  };
}
