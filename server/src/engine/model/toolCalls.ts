/**
 * A trajectory's tool calls as the rules look them up. The rules run again after every edit of any file
 * of a rollout; the index is made once per version of the trajectory's facts, and only when a rule asks
 * (a check of the file on its own never does). It holds every row that may be a tool call: a row whose
 * type cannot be taken at its word (model/rowReadings.ts) is only maybe one, and the rules read it so.
 */
import type { ToolCallFact, TrajectoryFacts } from '../facts/facts';
import { isTerminalStatus } from '../facts/toolCallStatus';
import { writtenAs } from './rowReadings';

export interface ToolCallIndex {
  /** Rows that may be tool calls, by tool_call_id, in line order. */
  readonly byId: ReadonlyMap<string, readonly ToolCallFact[]>;
  /** The ids a row that surely is a tool call carries. */
  readonly surelyCalled: ReadonlySet<string>;
  /** The rows of ids that appear on more than one row that may be a tool call. */
  readonly duplicated: readonly (readonly ToolCallFact[])[];
  /** Calls whose status is not terminal, in line order. */
  readonly open: readonly ToolCallFact[];
  /** Calls in the prototype form of a framework-owned ending (with a terminal_source), in line order. */
  readonly endedByFramework: readonly ToolCallFact[];
  /** Rows written as tool calls, by string status. */
  readonly statusCounts: ReadonlyMap<string, number>;
  /** How many rows are written as tool calls. */
  readonly written: number;
  /** The first row whose type cannot be taken at its word that may be a tool call with a string status: it may change the counts. */
  readonly uncounted: ToolCallFact | undefined;
}

// Facts are never changed once built, so the index of a facts object never goes stale.
const indexes = new WeakMap<TrajectoryFacts, ToolCallIndex>();

export function toolCallIndexOf(facts: TrajectoryFacts): ToolCallIndex {
  let index = indexes.get(facts);
  if (!index) {
    index = indexToolCalls(facts.toolCalls);
    indexes.set(facts, index);
  }
  return index;
}

function indexToolCalls(calls: readonly ToolCallFact[]): ToolCallIndex {
  const byId = new Map<string, ToolCallFact[]>();
  const surelyCalled = new Set<string>();
  const open: ToolCallFact[] = [];
  const endedByFramework: ToolCallFact[] = [];
  const statusCounts = new Map<string, number>();
  let written = 0;
  let uncounted: ToolCallFact | undefined;
  for (const call of calls) {
    if (typeof call.id === 'string') {
      const rows = byId.get(call.id);
      if (rows) rows.push(call);
      else byId.set(call.id, [call]);
      if (call.kinds === undefined) surelyCalled.add(call.id);
    }
    if (!isTerminalStatus(call.status)) open.push(call);
    if (call.terminalSource !== undefined) endedByFramework.push(call);
    if (writtenAs(call, 'tool_call')) {
      written++;
      if (typeof call.status === 'string') statusCounts.set(call.status, (statusCounts.get(call.status) ?? 0) + 1);
    }
    if (call.kinds !== undefined && typeof call.status === 'string') uncounted ??= call;
  }
  const duplicated = [...byId.values()].filter((rows) => rows.length > 1);
  return { byId, surelyCalled, duplicated, open, endedByFramework, statusCounts, written, uncounted };
}
