/**
 * The rollout judged again under each other reading of its trajectory rows whose type cannot be taken
 * at its word (facts/rows.ts `uncertainReadings`): a row whose `agent_timeout` became `[]`, or whose
 * `user_message` became `agent_timeout`, may be the other kind, and the rollout must not be judged
 * better than under any reading. Whether the rollout timed out, which calls are unresolved and what the
 * validator asks of it all follow from row types, so the whole evaluation runs again, unlike the action
 * sequence (everyReading.ts), whose rules alone stand on a record's kind. Such rows are rare: each breaks
 * its schema, or has a type no schema knows while carrying another type's keys.
 */
import type { TrajectoryFacts, TrajectoryRowFact } from '../facts/facts';
import { ruleRowTypes, type RowKind } from '../facts/rows';

/** In one reading every uncertain row that may be read so is: one pass per kind, whatever their number. */
export const rowReadingKinds: readonly RowKind[] = [...ruleRowTypes, 'other'];

/** The trajectory's facts with its uncertain rows read `as`, and the 1-based lines of those rows; undefined when no row can be read so. */
export function trajectoryUnder(
  facts: TrajectoryFacts,
  as: RowKind,
): { readonly facts: TrajectoryFacts; readonly lines: readonly number[] } | undefined {
  const lists = [facts.toolCalls, facts.timeouts, facts.lifecycles];
  const reread = new Set<number>();
  for (const list of lists)
    for (const item of list)
      if (item.kinds && item.kinds[0] !== as && item.kinds.includes(as)) reread.add(item.ref.line);
  if (reread.size === 0) return undefined;
  // The rules read what each row is written as: a row read `as` is written so, and so is nothing else.
  const readAs = <T extends TrajectoryRowFact>(items: readonly T[]): T[] =>
    items.map((item) => (reread.has(item.ref.line) ? { ...item, kinds: [as] } : item));
  return {
    lines: [...reread].sort((a, b) => a - b).map((line) => line + 1),
    facts: {
      ...facts,
      toolCalls: readAs(facts.toolCalls),
      timeouts: readAs(facts.timeouts),
      lifecycles: readAs(facts.lifecycles),
    },
  };
}

/** The words for a finding that holds only when the rows on `lines` are read `as`. */
export function rowReadingNote(lines: readonly number[], as: RowKind): string {
  const which =
    lines.length === 1
      ? `the trajectory row on line ${lines[0]}, whose type cannot be taken at its word, is`
      : `the trajectory rows on lines ${lines.join(', ')}, whose types cannot be taken at their word, are`;
  return `This holds when ${which} read as ${as === 'other' ? 'a row the rules pass over' : `a ${as} row`}.`;
}
