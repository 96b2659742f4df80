/**
 * One verdict per rollout, from the effects of everything found in it: `untrusted` when the bundle's
 * own evidence shows a failed or unchecked precondition, else `incomplete` when evidence is missing,
 * malformed or not final, else `trusted-timeout` for an accepted native timeout (countable, not a
 * success, never training-ready), else `trusted`.
 */
import { rolloutVerdicts, type RolloutVerdict } from '../../../shared/src/rollouts';
import { codeInfo, type Effect } from './codes';
import type { Finding } from './findings';

/** Listed once, worst first, in shared/src/rollouts.ts: the client shows the list the engine decides among. */
export type Verdict = RolloutVerdict;

export const verdicts: readonly Verdict[] = rolloutVerdicts;

/** What a finding does to its rollout's verdict: its own override, else its code's effect. */
export function effectOf(finding: Finding): Effect {
  return finding.effect ?? codeInfo(finding.code).effect;
}

export function verdictOf(
  findings: Iterable<Finding>,
  options: { readonly incompleteEvidence: boolean; readonly acceptedTimeout: boolean },
): Verdict {
  let incomplete = options.incompleteEvidence;
  for (const finding of findings) {
    const effect = effectOf(finding);
    if (effect === 'untrusted') return 'untrusted';
    if (effect === 'incomplete') incomplete = true;
  }
  if (incomplete) return 'incomplete';
  return options.acceptedTimeout ? 'trusted-timeout' : 'trusted';
}
