/**
 * The machine-readable report, version 1. Its shape is documented in README and only ever extended:
 * fields are added, never renamed or removed. `error` is there exactly when the exit status is 2; when
 * the check could not run at all, the document is only `version` and `error`, so a CI step that keeps
 * the file keeps a reason, never an empty file.
 *
 * Written as the run goes: the head, each rollout as soon as it is its turn, then the summary. The bytes
 * are those of `JSON.stringify(document, null, 2)` of the whole document.
 */
import type { Verdict } from '../../engine/verdict';
import type { ExperimentSummary } from '../../engine/experiment/summary';
import type { CheckFailure, CheckRun } from '../report/run';
import { renderRun } from '../report/renderRun';
import type { Output, ReportWriter, RunContext } from '../report/reportWriter';
import type { JsonBundle, JsonCheck } from '../report/reportTypes';

export interface JsonReport {
  readonly version: 1;
  readonly rollouts: readonly JsonBundle[];
  readonly summary: JsonSummary;
  /** Why the exit status is 2: paths that could not be read, or the checker failed on every bundle. */
  readonly error?: CheckFailure;
  /** What the run was asked to do: the options that change its findings, and its shard. `merge` reads it. */
  readonly check: JsonCheck;
}

/** The whole document when the check could not run (bad arguments, nothing to check). */
export interface JsonFailure {
  readonly version: 1;
  readonly error: CheckFailure;
}

export interface JsonSummary {
  readonly rollouts: number;
  /** Artifact files checked outside any rollout. */
  readonly looseFiles: number;
  readonly files: number;
  readonly errors: number;
  readonly warnings: number;
  readonly information: number;
  readonly hints: number;
  readonly omitted: number;
  /** One message per path that exists but could not be read. */
  readonly unreadable: readonly string[];
  /** Rollouts per verdict. */
  readonly verdicts: Readonly<Record<Verdict, number>>;
  /** The experiment summary: countable rollouts, timeouts kept and excluded, top causes, rows per task and agent. */
  readonly experiment: ExperimentSummary;
}

export function formatJsonFailure(failure: CheckFailure): string {
  const document: JsonFailure = { version: 1, error: failure };
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** The whole document of a finished run, held in memory. */
export function formatJson(run: CheckRun): string {
  return renderRun(run, jsonWriter);
}

export function jsonWriter(context: RunContext, write: Output): ReportWriter {
  let count = 0;
  return {
    rollout(report) {
      write(`${count++ === 0 ? '{\n  "version": 1,\n  "rollouts": [' : ','}\n    ${indented(report, '    ')}`);
    },
    end(end) {
      const summary: JsonSummary = {
        rollouts: end.totals.rollouts,
        looseFiles: end.totals.looseFiles,
        files: end.totals.files,
        errors: end.totals.error,
        warnings: end.totals.warning,
        information: end.totals.information,
        hints: end.totals.hint,
        omitted: end.totals.omitted,
        unreadable: end.ioErrors,
        verdicts: end.totals.verdicts,
        experiment: end.experiment,
      };
      const tail = { summary, check: context.check, ...(end.failure ? { error: end.failure } : {}) };
      const rollouts = count === 0 ? '{\n  "version": 1,\n  "rollouts": []' : '\n  ]';
      // The tail's members, as they stand inside the document: the object's braces dropped.
      const members = indented(tail, '').slice(1, -2);
      write(`${rollouts},${members}\n}\n`);
    },
  };
}

/** A value as JSON.stringify(…, null, 2) writes it nested at `indent`: JSON strings hold no raw newline. */
function indented(value: unknown, indent: string): string {
  return JSON.stringify(value, null, 2).replaceAll('\n', `\n${indent}`);
}
