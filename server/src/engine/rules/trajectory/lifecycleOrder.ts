/**
 * A framework lifecycle annotation in the trajectory's order. BenchFlow's ACP trajectory is chronological
 * (`ACPSession.events`, written by `trajectories/_capture.py`): each event is appended when it happens,
 * and a tool call keeps the place where it was first seen, with its latest status. The `agent_timeout`
 * marker is appended when the prompt budget runs out (`acp/runtime.py` `_agent_prompt_timeout_error`),
 * before `Rollout.verify()` hardens the sandbox; the quiescence observation a `tool_call_lifecycle` row
 * rests on is made by that hardening, and the row can be written only after it. So the row comes after
 * the timeout marker, and after the row of the call it ends, or it was written before the observation
 * it cites existed.
 *
 * The trajectory's line order is the order: BenchFlow writes no time on ACP rows (nor does this project's
 * `tool_call_lifecycle` proposal), so the observation's own time in the action records has nothing in
 * the trajectory to be compared with. The prototype form of BenchFlow PR #1051 changes the call's own row
 * in place, at its first sighting, so its place says nothing of when the framework wrote it.
 */
import type { LifecycleFact, RecordRef, ToolCallFact } from '../../facts/facts';
import { RowReadings, writtenAs } from '../../model/rowReadings';
import type { RuleContext } from '../context';
import type { TimeoutReading } from '../timeout/timeout';

/** A row the annotation may come before, and the readings of rows under which it does. */
interface Earlier {
  readonly ref: RecordRef;
  readonly what: string;
  readonly why: string;
  readonly rows: RowReadings;
}

/**
 * Whether the annotation surely comes after the timeout marker and the call it ends; reports it when it
 * may not. Rows whose type cannot be taken at its word may be the last marker or the call's first row
 * (model/rowReadings.ts), so the annotation may come before a marker that may be the last, or before a
 * call whose rows before the annotation may all be other kinds. `rows`: the readings under which the
 * annotation's row is one at all; `callRows`: the rows that may be the call it ends, its own left out.
 */
export function checkLifecycleOrder(
  context: RuleContext,
  file: string,
  lifecycle: LifecycleFact,
  rows: RowReadings,
  timeouts: readonly TimeoutReading[],
  callRows: readonly ToolCallFact[] | undefined,
): boolean {
  const line = lifecycle.ref.line;
  const marker = timeouts.find((reading) => reading.marker !== undefined && reading.marker.ref.line > line);
  const call = firstCallAfter(callRows ?? [], line);
  const earlier: Earlier[] = [
    ...(marker?.marker
      ? [
          {
            ref: marker.marker.ref,
            what: 'the agent_timeout marker',
            why: 'the marker when the budget runs out, before hardening observes the sandbox',
            rows: marker.rows,
          },
        ]
      : []),
    ...(call
      ? [
          {
            ref: call.ref,
            what: 'the tool call it ends',
            why: 'a call where it is first seen, before anything can end it',
            rows: call.rows,
          },
        ]
      : []),
  ];
  if (earlier.length === 0) return true;
  context.report(
    'lifecycle-out-of-order',
    context.inRecord(file, lifecycle.ref),
    `This framework lifecycle annotation comes before ${earlier.map(({ what, ref }) => `${what} (line ${ref.line + 1})`).join(' and ')}: BenchFlow writes the trajectory in the order things happen, ${earlier.map(({ why }) => why).join(', and ')}. So it was recorded before the quiescence observation it rests on was made, and it ends no call.`,
    {
      related: earlier.map(({ ref, what }) => context.related(context.inRecord(file, ref), what)),
      holdsWhen: earlier.reduce((all, { rows: each }) => all.and(each), rows).note,
    },
  );
  return false;
}

/**
 * The call's first row, when it may come after `line`: no row before it surely is the call, and one
 * after it may be (one written as the call when there is), with the readings that make it so.
 */
function firstCallAfter(
  callRows: readonly ToolCallFact[],
  line: number,
): { ref: RecordRef; rows: RowReadings } | undefined {
  const before = callRows.filter((row) => row.ref.line < line);
  if (before.some((row) => row.kinds === undefined)) return undefined;
  const after =
    callRows.find((row) => row.ref.line > line && writtenAs(row, 'tool_call')) ??
    callRows.find((row) => row.ref.line > line);
  if (!after) return undefined;
  return {
    ref: after.ref,
    rows: RowReadings.noneOf(before, 'tool_call').and(RowReadings.as(after, 'tool_call')),
  };
}
