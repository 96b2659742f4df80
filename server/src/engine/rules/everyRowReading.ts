/**
 * The rollout judged again under each other reading of its trajectory rows whose type cannot be taken
 * at its word (facts/rows.ts `uncertainReadings`): a row whose `agent_timeout` became `[]`, or whose
 * `user_message` became `agent_timeout`, may be the other kind, and the rollout must not be judged
 * better than under any reading. Whether the rollout timed out, which calls are unresolved and what the
 * validator asks of it all follow from row types, so the whole evaluation runs again, unlike the action
 * sequence (everyReading.ts), whose rules alone stand on a record's kind. Such rows are rare: each breaks
 * its schema, or has a type no schema knows while carrying another type's keys.
 */
import type { PlacedRowReading, TrajectoryFacts, UncertainRowFact } from '../facts/facts';
import { ruleRowTypes, type RowReadingKind } from '../facts/rows';

/** In one reading every uncertain row that may be read so is: one pass per kind, whatever their number. */
export const rowReadingKinds: readonly RowReadingKind[] = [...ruleRowTypes, 'other'];

/** The trajectory's facts with its uncertain rows read `as`, and the 1-based lines of those rows; undefined when no row can be read so. */
export function trajectoryUnder(
  facts: TrajectoryFacts,
  as: RowReadingKind,
): { readonly facts: TrajectoryFacts; readonly lines: readonly number[] } | undefined {
  const reread = new Map<number, { readonly row: UncertainRowFact; readonly reading: PlacedRowReading }>();
  for (const row of facts.uncertainRows) {
    const reading = row.readings.find((candidate) => candidate.as === as);
    if (reading) reread.set(row.ref.line, { row, reading });
  }
  if (reread.size === 0) return undefined;
  const readings = [...reread.values()].map(({ reading }) => reading);
  const asWritten = <T extends { readonly ref: { readonly line: number } }>(items: readonly T[]) =>
    items.filter((item) => !reread.has(item.ref.line));
  /** The facts of `part` as written, with those the rows read otherwise give in their place, in line order. */
  const merged = <K extends 'toolCall' | 'timeout' | 'lifecycle'>(
    written: readonly NonNullable<PlacedRowReading[K]>[],
    part: K,
  ) =>
    [
      ...asWritten(written),
      ...readings.flatMap((reading) => (reading[part] ? [reading[part] as NonNullable<PlacedRowReading[K]>] : [])),
    ].sort((a, b) => a.ref.line - b.ref.line);
  // Only the last timeout marker is kept: one read otherwise leaves the rollout with none before it, which
  // is one more reading judged, never one fewer (the rollout as written is judged too).
  const lastTimeout = merged(facts.lastTimeout ? [facts.lastTimeout] : [], 'timeout').at(-1);
  return {
    lines: [...reread.keys()].map((line) => line + 1),
    facts: {
      kind: facts.kind,
      rows: facts.rows,
      agentSideRows: facts.agentSideRows,
      ...(lastTimeout ? { lastTimeout } : {}),
      untypedRows: facts.untypedRows - [...reread.values()].filter(({ row }) => !row.typed).length,
      toolCalls: merged(facts.toolCalls, 'toolCall'),
      lifecycles: merged(facts.lifecycles, 'lifecycle'),
      prompts: asWritten(facts.prompts),
      uncertainRows: [],
    },
  };
}

/** The words for a finding that holds only when the rows on `lines` are read `as`. */
export function rowReadingNote(lines: readonly number[], as: RowReadingKind): string {
  const which =
    lines.length === 1
      ? `the trajectory row on line ${lines[0]}, whose type cannot be taken at its word, is`
      : `the trajectory rows on lines ${lines.join(', ')}, whose types cannot be taken at their word, are`;
  return `This holds when ${which} read as ${as === 'other' ? 'a row the rules pass over' : `a ${as} row`}.`;
}
