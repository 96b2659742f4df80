/**
 * What a rollout's report holds, in the shape the JSON format writes it (version 1, only ever extended:
 * fields are added, never renamed or removed; README documents it). The report owns these types and
 * every format renders from them; the JSON format writes them as they are, and `merge` reads them back.
 */
import type { ArtifactKind } from '../../../../shared/src/layout';
import type { DiagnosticCode, Effect } from '../../engine/codes';
import type { Severity } from '../../engine/codeContract';
import type { Verdict } from '../../engine/verdict';

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
