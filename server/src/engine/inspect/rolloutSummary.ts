/**
 * A rollout's verdict and the facts behind it in one line, for the code lens on each artifact:
 * `untrusted · quiescence: survivors 1234 · verifier: setup-only · 1 tool pending`.
 */
import type { DiagnosticCode } from '../codes';
import type { RolloutEvaluation } from '../rules/evaluate';

/** The first of these codes found says what the quiescence rules concluded. */
const quiescenceWords: readonly (readonly [DiagnosticCode, string])[] = [
  ['quiescence-survivors', 'survivors'],
  ['quiescence-unobservable', 'unobservable'],
  ['masked-exit-status', 'masked exit status'],
  ['quiescence-stale', 'stale'],
  ['verifier-before-quiescence', 'after grading'],
  ['quiescence-unproven', 'unproven'],
];

const verifierWords: readonly (readonly [DiagnosticCode, string])[] = [
  ['verifier-setup-only', 'setup-only'],
  ['verifier-evidence-missing', 'no start recorded'],
  ['verifier-grading-unproven', 'grading unproven'],
];

export function summarizeRollout(evaluation: RolloutEvaluation): string {
  // The facts as written: what holds only under another reading of damaged evidence is in the verdict and the problems.
  const codes = new Set(evaluation.findings.flatMap((finding) => (finding.underReading ? [] : [finding.code])));
  const parts: string[] = [evaluation.verdict];
  parts.push(`quiescence: ${quiescenceOf(evaluation, codes)}`);
  const verifier =
    verifierWords.find(([code]) => codes.has(code))?.[1] ??
    (evaluation.model.actions.gradings.length > 0 ? 'graded' : undefined);
  if (verifier) parts.push(`verifier: ${verifier}`);
  const pending = evaluation.unresolvedTools?.length ?? 0;
  if (pending > 0) parts.push(`${pending} ${pending === 1 ? 'tool' : 'tools'} pending`);
  return parts.join(' · ');
}

function quiescenceOf(evaluation: RolloutEvaluation, codes: ReadonlySet<DiagnosticCode>): string {
  if (!evaluation.quiescence.applies) return 'not needed (agent ran as root)';
  const word = quiescenceWords.find(([code]) => codes.has(code))?.[1];
  if (word === 'survivors') {
    const pids = evaluation.model.actions.steps.flatMap((step) => step.reading.survivorPids);
    const shown = [...new Set(pids)].slice(-5);
    return shown.length > 0 ? `survivors ${shown.join(' ')}` : word;
  }
  if (word) return word;
  return evaluation.quiescence.proof ? 'proven' : 'unproven';
}
