/**
 * The machine-readable report, version 1. Its shape is documented in README and only ever extended:
 * fields are added, never renamed or removed. `error` is there exactly when the exit status is 2; when
 * the check could not run at all, the document is only `version` and `error`, so a CI step that keeps
 * the file keeps a reason, never an empty file.
 *
 * Written as the run goes: the head, each rollout as soon as it is its turn, then the summary. The bytes
 * are those of `JSON.stringify(document, null, 2)` of the whole document.
 */
import type { ArtifactKind } from '../../../../shared/src/layout';
import type { DiagnosticCode, Effect } from '../../engine/codes';
import type { Severity } from '../../engine/findings';
import type { Verdict } from '../../engine/verdict';
import type { ExperimentSummary } from '../../engine/experiment/summary';
import type { CheckFailure, CheckRun } from '../checkRun';
import { renderRun, type Output, type ReportWriter, type RunContext } from '../report/reportWriter';

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

export interface JsonBundle {
  /** The rollout folder, relative to the working directory. */
  readonly root: string;
  /** True for artifact files found outside any rollout. */
  readonly loose: boolean;
  /** The rollout's verdict; null for loose files. */
  readonly verdict: Verdict | null;
  /** May the results row be used for training: a trusted rollout whose row says so. Null for loose files. */
  readonly training_ready: boolean | null;
  readonly files: readonly JsonFile[];
  readonly diagnostics: readonly JsonDiagnostic[];
  /** Added fields, read by `merge` to render every format from JSON documents alone: */
  /** What the bundle adds to the summary's counts: its rules' findings and its files' own problems, listed or not. */
  readonly counts: JsonSeverityCounts;
  /** The one-line cause of the verdict, as the text output gives it; null for loose files. */
  readonly cause: string | null;
  /** The rollout as the experiment summary counts it (engine/experiment/summary.ts `tallyOf`): `task_name` of result.json; null when it names none (and for loose files). */
  readonly task: string | null;
  /** `agent` of result.json, else its `agent_name`, else config.json's `agent`; null when none names one. */
  readonly agent: string | null;
  /** Whether the rollout timed out (accepted or not); null for loose files. */
  readonly timed_out: boolean | null;
  /** The codes with effect untrusted or incomplete among all its findings, listed or not, once each, in the public order. */
  readonly causes: readonly DiagnosticCode[];
  /** Files (or places) whose problems --max-problems cut, with how many were left out, in listing order. */
  readonly limited: readonly JsonLimited[];
  /** One per diagnostic, in the same order: what the diagnostic entries leave out (kept apart so they keep their shape). */
  readonly details: readonly JsonDiagnosticDetail[];
}

export interface JsonSeverityCounts {
  readonly errors: number;
  readonly warnings: number;
  readonly information: number;
  readonly hints: number;
}

export interface JsonLimited {
  /** Relative to the bundle's root. */
  readonly file: string;
  readonly omitted: number;
}

export interface JsonDiagnosticDetail {
  /** `rules`: raised by the evidence rules; `file`: the file's own check (syntax, schema, encoding). */
  readonly source: 'rules' | 'file';
  readonly effect: Effect;
  /** The SARIF partial fingerprint (`rolloutEvidenceFinding/v1`); see README. */
  readonly fingerprint: string;
  /** Where each related location ends, 1-based, the end exclusive: [endLine, endColumn]. */
  readonly relatedEnds: readonly (readonly [number, number])[];
}

export interface JsonCheck {
  readonly options: JsonCheckOptions;
  /** Which shard of the discovered bundles this document holds (--shard), or null for all of them. */
  readonly shard: { readonly index: number; readonly count: number } | null;
  /** Folders discovery could not read (also in `summary.unreadable`, before the files that could not be read). */
  readonly unreadableFolders: readonly string[];
}

/** The options that change a run's findings, verdicts or exit status; shards merge only when theirs are equal. */
export interface JsonCheckOptions {
  readonly maxProblems: number;
  readonly failOn: 'incomplete' | 'untrusted';
  readonly allowOracleWithoutLlm: boolean;
  readonly allowNativeSubscriptionWithoutLlm: boolean;
  readonly fixtureFolders: readonly string[];
  readonly map: Readonly<Record<string, ArtifactKind>>;
}

export interface JsonFile {
  /** Relative to the bundle's root. */
  readonly file: string;
  readonly kind: ArtifactKind;
  readonly records?: number;
  /** Problems found but not listed because of --max-problems. */
  readonly omitted?: number;
  /** Why the file could not be read; then it has no records and no diagnostics. Neither is given for a file of a rollout the checker failed on (`internal-error`). */
  readonly error?: string;
}

export interface JsonDiagnostic {
  readonly file: string;
  /** 1-based; columns count UTF-16 code units and the end is exclusive. */
  readonly line: number;
  readonly column: number;
  readonly endLine: number;
  readonly endColumn: number;
  readonly severity: Severity;
  readonly code: DiagnosticCode;
  readonly message: string;
  readonly related: readonly JsonRelated[];
}

export interface JsonRelated {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly message: string;
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
