/**
 * Trajectory rows whose type cannot be taken at its word (facts/rows.ts `rowKindsOf`): such a row may be
 * each kind in its `kinds`, and is read once, into the fact of each.
 */
import type { TimeoutFact, TrajectoryFacts, TrajectoryRowFact } from '../facts/facts';
import type { RowKind } from '../facts/rows';

/** Whether the row is written as `kind`, the kind of its fact: what views show. */
export function writtenAs(row: TrajectoryRowFact, kind: RowKind): boolean {
  return row.kinds === undefined || row.kinds[0] === kind;
}

/** The last row written as an agent_timeout row, as views show it. */
export function writtenLastTimeout(facts: TrajectoryFacts): TimeoutFact | undefined {
  for (let index = facts.timeouts.length - 1; index >= 0; index--)
    if (writtenAs(facts.timeouts[index]!, 'agent_timeout')) return facts.timeouts[index];
  return undefined;
}
