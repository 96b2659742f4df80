/**
 * The rollout judged again under each other reading of its trajectory rows whose type cannot be taken
 * at its word (facts/rows.ts `uncertainReadings`): a row whose `agent_timeout` became `[]`, or whose
 * `user_message` became `agent_timeout`, may be the other kind, and the rollout must not be judged
 * better than under any reading. Whether the rollout timed out, which calls are unresolved and what the
 * validator asks of it all follow from row types, so the whole evaluation runs again, unlike the action
 * timeline (everyReading.ts), whose rules alone stand on a record's kind. Such rows are rare: each breaks
 * its schema, or has a type no schema knows while carrying another type's keys.
 */
import type { LifecycleFact, PlacedRowReading, TimeoutFact, ToolCallFact, TrajectoryFacts, UncertainRowFact } from '../facts/facts';
import { ruleRowTypes, type RowReadingKind } from '../facts/rows';

/** In one reading every uncertain row that may be read so is: one pass per kind, whatever their number. */
export const rowReadingKinds: readonly RowReadingKind[] = [...ruleRowTypes, 'other'];

/** The trajectory's facts with its uncertain rows read `as`; undefined when no row can be read so. */
export function trajectoryUnder(facts: TrajectoryFacts, as: RowReadingKind): TrajectoryFacts | undefined {
  const reread = new Map<number, { readonly row: UncertainRowFact; readonly reading: PlacedRowReading }>();
  for (const row of facts.uncertainRows) {
    const reading = row.readings.find((candidate) => candidate.as === as);
    if (reading) reread.set(row.ref.line, { row, reading });
  }
  if (reread.size === 0) return undefined;
  const readings = [...reread.values()].map(({ reading }) => reading);
  const asWritten = <T extends { readonly ref: { readonly line: number } }>(items: readonly T[]) => items.filter((item) => !reread.has(item.ref.line));
  const byLine = <T extends { readonly ref: { readonly line: number } }>(items: T[]) => items.sort((a, b) => a.ref.line - b.ref.line);
  // Only the last timeout marker is kept: one read otherwise leaves the rollout with none before it, which
  // is one more reading judged, never one fewer (the rollout as written is judged too).
  const timeouts = byLine([...(facts.lastTimeout && !reread.has(facts.lastTimeout.ref.line) ? [facts.lastTimeout] : []), ...readings.flatMap((reading): TimeoutFact[] => (reading.timeout ? [reading.timeout] : []))]);
  const lastTimeout = timeouts.at(-1);
  return {
    kind: facts.kind,
    rows: facts.rows,
    agentSideRows: facts.agentSideRows,
    ...(lastTimeout ? { lastTimeout } : {}),
    untypedRows: facts.untypedRows - [...reread.values()].filter(({ row }) => !row.typed).length,
    toolCalls: byLine([...asWritten(facts.toolCalls), ...readings.flatMap((reading): ToolCallFact[] => (reading.toolCall ? [reading.toolCall] : []))]),
    lifecycles: byLine([...asWritten(facts.lifecycles), ...readings.flatMap((reading): LifecycleFact[] => (reading.lifecycle ? [reading.lifecycle] : []))]),
    prompts: asWritten(facts.prompts),
    uncertainRows: [],
  };
}

/** The words for a finding that holds only under `as`. */
export function rowReadingNote(facts: TrajectoryFacts, as: RowReadingKind): string {
  const lines = facts.uncertainRows.filter((row) => row.readings.some((reading) => reading.as === as)).map((row) => row.ref.line + 1);
  const which = lines.length === 1 ? `the trajectory row on line ${lines[0]}, whose type cannot be taken at its word, is` : `the trajectory rows on lines ${lines.join(', ')}, whose types cannot be taken at their word, are`;
  return `This holds when ${which} read as ${as === 'other' ? 'a row the rules pass over' : `a ${as} row`}.`;
}
