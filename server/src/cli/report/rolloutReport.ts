/**
 * One rollout's report, the form every format renders from: the JSON format's per-bundle entry, with
 * its added fields (counts, cause, task and agent, the listing's details). It is plain data, so it
 * crosses from a worker thread and is read back from a JSON document by `merge`.
 */
import { resolve } from 'node:path';
import { RolloutBundle } from '../../engine/bundle/rollout';
import { tallyOf, type RolloutTally } from '../../engine/experiment/summary';
import type { BundleFinding } from '../../engine/findings';
import { effectOf } from '../../engine/verdict';
import { displayPath } from '../../../../shared/src/paths';
import { fingerprintsOf } from './fingerprints';
import type { JsonBundle, JsonDiagnostic, JsonFile, JsonSeverityCounts } from './reportTypes';
import { pathInBundle, type ListedBundle } from './run';
import { verdictCause } from './verdictCause';

export type RolloutReport = JsonBundle;

export interface ReportOptions {
  /** Whether to read the files again for SARIF's fingerprints (the text format needs none: an empty string stands in). */
  readonly fingerprints: boolean;
}

export function rolloutReport(bundle: ListedBundle, cwd: string, options: ReportOptions): RolloutReport {
  const { findings, omitted } = bundle.listed;
  const fingerprints = options.fingerprints ? fingerprintsOf(bundle) : undefined;
  const root = displayPath(cwd, bundle.root);
  const tally = tallyOfBundle(bundle, root);
  return {
    root,
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
    counts: countsOf(bundle),
    cause: verdictCause(bundle) ?? null,
    task: tally?.task ?? null,
    agent: tally?.agent ?? null,
    timed_out: tally ? tally.timedOut : null,
    causes: tally ? [...tally.causes] : [],
    limited: [...omitted].map(([path, count]) => ({ file: pathInBundle(bundle, path), omitted: count })),
    details: findings.map((finding) => ({
      source: finding.source,
      effect: effectOf(finding),
      fingerprint: fingerprints?.get(finding) ?? '',
      relatedEnds: (finding.related ?? []).map(({ range: { end } }) => [end.line + 1, end.character + 1] as const),
    })),
  };
}

/** A path of the report (`file` relative to its root) as the absolute path it was when checked from `cwd`. */
export function absolutePathOf(cwd: string, report: Pick<RolloutReport, 'root'>, file: string): string {
  return resolve(cwd, report.root, file);
}

/** The checker failed on the bundle (its error boundary caught it): nothing of it was checked. */
export function checkerFailed(report: RolloutReport): boolean {
  return report.diagnostics.some((diagnostic) => diagnostic.code === 'internal-error');
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

/** What the bundle adds to the run's counts: the rules' findings and the files' own, listed or not. */
function countsOf(bundle: ListedBundle): JsonSeverityCounts {
  const counts = { error: 0, warning: 0, information: 0, hint: 0 };
  // A failed rollout's finding is in its evaluation; a failed folder of loose files has none.
  const failure = bundle.loose
    ? bundle.listed.findings.find((finding) => finding.code === 'internal-error')
    : undefined;
  if (failure) counts[failure.severity]++;
  for (const finding of bundle.evaluation?.findings ?? []) counts[finding.severity]++;
  for (const file of bundle.files) {
    if (!file.report) continue;
    for (const severity of ['error', 'warning', 'information', 'hint'] as const)
      counts[severity] += file.report.counts[severity];
  }
  return { errors: counts.error, warnings: counts.warning, information: counts.information, hints: counts.hint };
}

/**
 * What the experiment summary counts of a rollout (engine/experiment/summary.ts, the one reading of its
 * task, agent, timeout and causes, shared with the editor); a rollout the checker failed on has no model,
 * so its tally is read from its files as listed. Loose files have none.
 */
function tallyOfBundle(bundle: ListedBundle, root: string): RolloutTally | undefined {
  const { evaluation } = bundle;
  if (!evaluation) return undefined;
  return tallyOf(root, evaluation.model?.bundle ?? new RolloutBundle(bundle.root, bundle.files), evaluation);
}

/** The tally a report carries, as the summary counts it: reports of loose files carry none. */
export function tallyOfReport(report: RolloutReport): RolloutTally | undefined {
  if (report.verdict === null) return undefined;
  const { root, task, agent, verdict, timed_out: timedOut, causes } = report;
  return { root, task, agent, verdict, timedOut: timedOut === true, causes };
}
