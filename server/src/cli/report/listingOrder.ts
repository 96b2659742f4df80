/**
 * The order a person reads a rollout's findings in: what makes it untrusted first, then what leaves it
 * incomplete, then what only informs, and the files' own problems (syntax, schema, encoding) last,
 * since they are many and rarely the reason a reward cannot be trusted.
 */
import type { Effect } from '../../engine/codes';
import type { BundleFinding } from '../../engine/findings';
import { effectOf } from '../../engine/verdict';
import type { ListedBundle } from './run';

const effectRank: Readonly<Record<Effect, number>> = { untrusted: 0, incomplete: 1, none: 2 };

/** Where a finding comes in the reading order: the rules' before the files' own, each part by effect. */
export function readingRank(fromRules: boolean, effect: Effect): number {
  return (fromRules ? 0 : 3) + effectRank[effect];
}

/** The listed findings of a bundle in reading order; the sort is stable, so file and position order stay within a rank. */
export function inReadingOrder(bundle: ListedBundle): BundleFinding[] {
  const rank = (finding: BundleFinding) => readingRank(finding.source === 'rules', effectOf(finding));
  return [...bundle.listed.findings].sort((a, b) => rank(a) - rank(b));
}
