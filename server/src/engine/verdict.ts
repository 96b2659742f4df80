/**
 * One verdict per rollout, from the effects of everything found in it: `untrusted` when the bundle's
 * own evidence shows a failed or unchecked precondition, else `incomplete` when evidence is missing,
 * malformed or not final, else `trusted-timeout` for an accepted native timeout (countable, not a
 * success, never training-ready), else `trusted`.
 */
import { codeInfo, type Effect } from './codes';
import type { Finding } from './findings';

export type Verdict = 'untrusted' | 'incomplete' | 'trusted-timeout' | 'trusted';

export const verdicts: readonly Verdict[] = ['untrusted', 'incomplete', 'trusted-timeout', 'trusted'];

/** What a finding does to its rollout's verdict: its own override, else its code's effect. */
export function effectOf(finding: Finding): Effect {
  return finding.effect ?? codeInfo(finding.code).effect;
}

export function verdictOf(findings: Iterable<Finding>, options: { readonly incompleteEvidence: boolean; readonly acceptedTimeout: boolean }): Verdict {
  let incomplete = options.incompleteEvidence;
  for (const finding of findings) {
    const effect = effectOf(finding);
    if (effect === 'untrusted') return 'untrusted';
    if (effect === 'incomplete') incomplete = true;
  }
  if (incomplete) return 'incomplete';
  return options.acceptedTimeout ? 'trusted-timeout' : 'trusted';
}
