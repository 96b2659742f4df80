/**
 * The order a person reads a rollout's findings in: what makes it untrusted first, then what leaves it
 * incomplete, then what only informs, and the files' own problems (syntax, schema, encoding) last,
 * since they are many and rarely the reason a reward cannot be trusted.
 */
import type { Effect } from '../engine/codes';
import type { BundleFinding } from '../engine/findings';
import { effectOf } from '../engine/verdict';
import type { ListedBundle } from './checkRun';

const effectRank: Readonly<Record<Effect, number>> = { untrusted: 0, incomplete: 1, none: 2 };

/**
 * Whether the evidence rules raised a finding, not its file's own check. The listing holds the rules'
 * findings themselves (the files' own are copied to add their path), so identity tells them apart.
 */
export function ruleFindingsOf(bundle: ListedBundle): ReadonlySet<BundleFinding> {
  return new Set(bundle.evaluation?.findings ?? []);
}

export function byEffect(a: BundleFinding, b: BundleFinding): number {
  return effectRank[effectOf(a)] - effectRank[effectOf(b)];
}

/** The listed findings of a bundle, rules' before the files' own, each part by effect; the sort is stable, so file and position order stay within a rank. */
export function inReadingOrder(bundle: ListedBundle): BundleFinding[] {
  const fromRules = ruleFindingsOf(bundle);
  const rank = (finding: BundleFinding) => (fromRules.has(finding) ? 0 : 1);
  return [...bundle.listed.findings].sort((a, b) => rank(a) - rank(b) || byEffect(a, b));
}
