/**
 * The machine-readable report, version 1. Its shape is documented in README and only ever extended:
 * fields are added, never renamed or removed. `error` is there exactly when the exit status is 2; when
 * the check could not run at all, the document is only `version` and `error`, so a CI step that keeps
 * the file keeps a reason, never an empty file.
 */
import type { ArtifactKind } from '../../../../shared/src/layout';
import type { DiagnosticCode } from '../../engine/codes';
import type { BundleFinding, Severity } from '../../engine/findings';
import type { Verdict } from '../../engine/verdict';
import type { ExperimentSummary } from '../../engine/experiment/summary';
import {
  displayPath,
  pathInBundle,
  runFailure,
  type CheckFailure,
  type CheckRun,
  type ListedBundle,
} from '../checkRun';

export interface JsonReport {
  readonly version: 1;
  readonly rollouts: readonly JsonBundle[];
  readonly summary: JsonSummary;
  /** Why the exit status is 2: paths that could not be read, or the checker failed on every bundle. */
  readonly error?: CheckFailure;
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

export function formatJson(run: CheckRun): string {
  const { cwd } = run.request;
  const failure = runFailure(run);
  const report: JsonReport = {
    version: 1,
    rollouts: run.bundles.map((bundle) => {
      const { findings, omitted } = bundle.listed;
      return {
        root: displayPath(cwd, bundle.root),
        loose: bundle.loose,
        verdict: bundle.evaluation?.verdict ?? null,
        training_ready: bundle.evaluation ? bundle.evaluation.trainingReady : null,
        files: bundle.files.map((file): JsonFile => ({
          file: pathInBundle(bundle, file.path),
          kind: file.kind,
          ...(file.report
            ? { records: file.report.records, omitted: omitted.get(file.path) ?? 0 }
            : { error: file.ioError }),
        })),
        diagnostics: findings.map((finding) => jsonDiagnostic(bundle, finding)),
      };
    }),
    summary: {
      rollouts: run.totals.rollouts,
      looseFiles: run.totals.looseFiles,
      files: run.totals.files,
      errors: run.totals.error,
      warnings: run.totals.warning,
      information: run.totals.information,
      hints: run.totals.hint,
      omitted: run.totals.omitted,
      unreadable: run.ioErrors,
      verdicts: run.totals.verdicts,
      experiment: run.experiment,
    },
    ...(failure ? { error: failure } : {}),
  };
  return `${JSON.stringify(report, null, 2)}\n`;
}

function jsonDiagnostic(bundle: ListedBundle, finding: BundleFinding): JsonDiagnostic {
  const { start, end } = finding.range;
  return {
    file: pathInBundle(bundle, finding.file),
    line: start.line + 1,
    column: start.character + 1,
    endLine: end.line + 1,
    endColumn: end.character + 1,
    severity: finding.severity,
    code: finding.code,
    message: finding.message,
    related: (finding.related ?? []).map((related) => ({
      file: pathInBundle(bundle, related.file),
      line: related.range.start.line + 1,
      column: related.range.start.character + 1,
      message: related.message,
    })),
  };
}
