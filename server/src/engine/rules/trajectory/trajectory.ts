/**
 * Tools and timeouts (BenchFlow #1079, gap 2): a tool call left pending or in progress is unresolved
 * unless the framework ended it, with unknown effects, after a positive quiescence observation. The
 * timeout marker, result.json and results.jsonl must say the same about which calls were pending and
 * whether the trajectory is complete.
 *
 * A row whose type cannot be taken at its word is only maybe a tool call, a timeout marker or an
 * annotation (model/rowReadings.ts): what it may be counts against trust (a maybe call may be unresolved,
 * a maybe annotation may overclaim, a maybe marker's list may disagree), and only what it surely is counts
 * for it (only a sure annotation ends a call). A finding that needs a row read otherwise than written
 * says so.
 */
import { rolloutFiles } from '../../../../../shared/src/layout';
import type { DocumentFacts, LifecycleFact, RecordRef, TimeoutFact, ToolCallFact } from '../../facts/facts';
import type { RelatedEvidence } from '../../findings';
import { isAdapterTerminal } from '../../facts/toolCallStatus';
import { describeValue, isJsonObject, type JsonObject } from '../../parse/jsonKind';
import { claimsNothing, keyForFinding } from '../../schema/knownKeys';
import type { Place, RuleContext } from '../context';
import { annotationProvenances, provenanceCounts, provenanceOf } from '../../model/provenance';
import { RowReadings, rowIs, writtenAs } from '../../model/rowReadings';
import type { ToolCallIndex } from '../../model/toolCalls';
import { howToAnnotate, reportUncountedProvenance } from '../provenance/provenance';
import { checkLifecycleOrder } from './lifecycleOrder';
import type { QuiescenceResult } from '../quiescence/quiescence';
import type { TimeoutReading } from '../timeout/timeout';

export interface TrajectoryResult {
  /** Tool calls that may be unresolved; undefined without a trajectory. */
  readonly unresolved?: UnresolvedCalls;
}

/**
 * The calls that may be left unresolved (neither terminal nor ended by the framework after proven
 * quiescence), in line order, as the findings that list them name them, each with a related place on its
 * status, made once for every such finding.
 */
export class UnresolvedCalls {
  /** The calls unresolved as written: what views count. */
  readonly written: ToolCallFact[] = [];
  private readonly writtenRelated: RelatedEvidence[] = [];
  private readonly all: ToolCallFact[] = [];
  private readonly allRelated: RelatedEvidence[] = [];
  /** Lines of the calls on rows whose type cannot be taken at its word. */
  private readonly uncertainLines = new Set<number>();

  add(call: ToolCallFact, related: RelatedEvidence): void {
    this.all.push(call);
    this.allRelated.push(related);
    if (writtenAs(call, 'tool_call')) {
      this.written.push(call);
      this.writtenRelated.push(related);
    }
    if (call.kinds !== undefined) this.uncertainLines.add(call.ref.line);
  }

  /**
   * The calls a finding lists as unresolved while the row on `line` (if any) is read as another kind (a
   * timeout marker's own row is no call while it is the marker): those unresolved as written when there
   * are, else every one that may be, with the readings that make them calls. Undefined when none may be.
   */
  beside(line?: number): UnresolvedView | undefined {
    const excluded = line !== undefined && this.uncertainLines.has(line);
    const keep = (calls: readonly ToolCallFact[], related: readonly RelatedEvidence[]) =>
      excluded
        ? {
            calls: calls.filter((call) => call.ref.line !== line),
            related: related.filter((_, index) => calls[index]!.ref.line !== line),
          }
        : { calls, related };
    const written = keep(this.written, this.writtenRelated);
    if (written.calls.length > 0) return { ...written, rows: RowReadings.asWritten };
    const all = keep(this.all, this.allRelated);
    return all.calls.length > 0 ? { ...all, rows: RowReadings.allOf(all.calls, 'tool_call') } : undefined;
  }
}

export interface UnresolvedView {
  readonly calls: readonly ToolCallFact[];
  readonly related: readonly RelatedEvidence[];
  /** The readings of rows under which they are calls. */
  readonly rows: RowReadings;
}

export function checkTrajectory(
  context: RuleContext,
  quiescence: QuiescenceResult,
  timeouts: readonly [TimeoutReading, ...TimeoutReading[]],
): TrajectoryResult {
  const facts = context.bundle.facts('trajectory', 'acp-trajectory');
  const calls = context.model.toolCalls;
  if (!facts || !calls) return {};
  const result = context.bundle.facts('result', 'result');
  const file = context.bundle.pathOf('trajectory');
  checkDuplicates(context, file, calls);

  // Framework-owned lifecycle evidence: the proposed tool_call_lifecycle rows and the prototype form.
  const annotated = new Set<string>();
  for (const lifecycle of facts.lifecycles) {
    const rows = RowReadings.as(lifecycle, 'tool_call_lifecycle');
    const ended = checkLifecycle(context, file, lifecycle, rows, calls, quiescence, timeouts);
    // An annotation that may not prove anything here ends no call (rules/provenance/provenance.ts).
    const provenance = provenanceOf(lifecycle.provenance, annotationProvenances);
    if (!provenanceCounts(provenance, context.options.fixtureBundle))
      reportUncountedProvenance(
        context,
        file,
        lifecycle.ref,
        { provenance, value: lifecycle.provenance, known: annotationProvenances },
        'This lifecycle annotation',
        howToAnnotate,
        rows.note,
      );
    // Only a row that surely is an annotation ends a call.
    else if (ended !== undefined && rowIs(lifecycle) === 'yes') annotated.add(ended);
  }
  for (const call of calls.endedByFramework)
    checkPrototypeLifecycle(context, file, call, RowReadings.as(call, 'tool_call'), quiescence);

  const unresolved = checkOpenCalls(context, file, calls, annotated, quiescence, timeouts[0].marker);
  const markerLists = timeouts.flatMap(({ marker, rows }) =>
    marker ? [checkTimeoutRow(context, file, marker, rows, unresolved)] : [],
  );
  checkPendingLists(context, file, markerLists, calls);
  checkResultClaims(context, file, result, calls, unresolved);
  checkTimeoutMarker(context, result, timeouts);
  checkStatusCounts(context, file, result, calls);
  return { unresolved };
}

/** Ids on more than one row that may be a call: on two written as calls when there are, else on as few read otherwise as can be. */
function checkDuplicates(context: RuleContext, file: string, calls: ToolCallIndex): void {
  for (const rows of calls.duplicated) {
    const written = rows.filter((row) => writtenAs(row, 'tool_call'));
    const others = rows.filter((row) => !writtenAs(row, 'tool_call'));
    const [first, second] = ([...written, ...others].slice(0, 2) as [ToolCallFact, ToolCallFact]).sort(
      (a, b) => a.ref.line - b.ref.line,
    );
    const count = new Set([...written, first, second]).size;
    context.report(
      'tool-id-duplicate',
      context.inRecord(file, second.ref, ['tool_call_id']),
      `Tool call id ${describeValue(first.id)} appears on ${count} rows; BenchFlow writes each call once, so which row holds its latest state is ambiguous.`,
      {
        related: [context.related(context.inRecord(file, first.ref, ['tool_call_id']), 'the first row with this id')],
        holdsWhen: RowReadings.as(first, 'tool_call').and(RowReadings.as(second, 'tool_call')).note,
      },
    );
  }
}

/** The open calls: each unresolved unless a sure annotation ended it after proven quiescence. */
function checkOpenCalls(
  context: RuleContext,
  file: string,
  calls: ToolCallIndex,
  annotated: ReadonlySet<string>,
  quiescence: QuiescenceResult,
  writtenMarker: TimeoutFact | undefined,
): UnresolvedCalls {
  const proof = quiescence.proof;
  const unresolved = new UnresolvedCalls();
  const listed = pendingIdsOf(writtenMarker?.pendingIds);
  for (const call of calls.open) {
    const rows = RowReadings.as(call, 'tool_call');
    const id = typeof call.id === 'string' ? call.id : undefined;
    const endedByFramework = id !== undefined && annotated.has(id) && proof !== undefined;
    const status = context.inRecord(file, call.ref, ['status']);
    if (!endedByFramework) {
      unresolved.add(call, context.related(status, 'an unresolved tool call'));
      const related =
        writtenMarker && id !== undefined && listed.has(id) && writtenMarker.ref.line !== call.ref.line
          ? [
              context.related(
                context.inRecord(file, writtenMarker.ref, ['pending_tool_call_ids']),
                'listed as pending by the timeout marker',
              ),
            ]
          : [];
      context.report(
        'tool-pending',
        status,
        `${describeCall(call)} ${call.status === undefined ? 'has no status' : `is still ${describeValue(call.status)}`}: no terminal update is recorded${annotated.has(id ?? '') ? ', and its framework lifecycle annotation is not backed by proven quiescence' : ''}. Its effects, and whether it is still running, are unknown.`,
        { related, holdsWhen: rows.note },
      );
    }
    if (proof && id !== undefined && !annotated.has(id)) {
      const actions = context.bundle.pathOf('actions');
      context.report(
        'tool-terminalizable',
        status,
        `Quiescence of the sandbox user is proven (action record on line ${proof.action.ref.line + 1}), so the framework can record that this call ended, with unknown effects (a tool_call_lifecycle row).`,
        {
          related: [
            context.related(context.inRecord(actions, proof.action.ref), 'the positive quiescence observation'),
          ],
          holdsWhen: rows.note,
        },
      );
    }
  }
  return unresolved;
}

/**
 * Returns the id of the call the annotation ends when it is well formed (whether or not quiescence backs
 * it). `rows`: the readings under which the row is an annotation at all.
 */
function checkLifecycle(
  context: RuleContext,
  file: string,
  lifecycle: LifecycleFact,
  rows: RowReadings,
  calls: ToolCallIndex,
  quiescence: QuiescenceResult,
  timeouts: readonly TimeoutReading[],
): string | undefined {
  const at = (path: string) => context.inRecord(file, lifecycle.ref, [path]);
  const holdsWhen = rows.note;
  // Only "ended_by_framework" ends a call; the schema finding already says what any other value is.
  let wellFormed = lifecycle.lifecycle === 'ended_by_framework';
  const id = lifecycle.toolCallId;
  // The annotation's own row, when it may also be a tool call, is no call while it is the annotation.
  const started =
    typeof id === 'string' ? calls.byId.get(id)?.filter((call) => call.ref.line !== lifecycle.ref.line) : undefined;
  if (!started?.length || (typeof id === 'string' && !calls.surelyCalled.has(id))) {
    // No row that surely is a call has the id: the rows that may, read as other kinds, leave it unstarted.
    context.report(
      'lifecycle-overclaims',
      at('tool_call_id'),
      id === undefined
        ? 'This annotation names no tool_call_id, so it ends no call the trajectory started.'
        : `This annotation ends tool call ${describeValue(id)}, which the trajectory never started.`,
      { holdsWhen: rows.and(RowReadings.noneOf(started ?? [], 'tool_call')).note },
    );
    wellFormed = false;
  }
  const terminal =
    started?.find((call) => isAdapterTerminal(call) && writtenAs(call, 'tool_call')) ??
    started?.find(isAdapterTerminal);
  if (terminal) {
    context.report(
      'lifecycle-overclaims',
      at('tool_call_id'),
      `The adapter already reported tool call ${describeValue(id)} as ${describeValue(terminal.status)}; a framework annotation must not override it.`,
      {
        related: [context.related(context.inRecord(file, terminal.ref), 'the adapter-reported status')],
        holdsWhen: rows.and(RowReadings.as(terminal, 'tool_call')).note,
      },
    );
    wellFormed = false;
  }
  if (lifecycle.effects !== 'unknown') {
    context.report(
      'lifecycle-overclaims',
      at('effects'),
      `The framework cannot know what an interrupted command did: effects must be "unknown", not ${describeValue(lifecycle.effects)}.`,
      { holdsWhen },
    );
    wellFormed = false;
  }
  if (lifecycle.source !== 'benchflow') {
    context.report(
      'lifecycle-overclaims',
      at('source'),
      `A framework lifecycle annotation must say source "benchflow"; ${describeValue(lifecycle.source)} passes an inference off as another party's report.`,
      { holdsWhen },
    );
    wellFormed = false;
  }
  if (lifecycle.status !== undefined && lifecycle.status !== 'cancelled') {
    context.report(
      'lifecycle-overclaims',
      at('status'),
      `Status ${describeValue(lifecycle.status)} claims an outcome the adapter never reported.`,
      { holdsWhen },
    );
    wellFormed = false;
  }
  if (!checkLifecycleOrder(context, file, lifecycle, rows, timeouts, started)) wellFormed = false;
  checkQuiescenceBehind(context, file, lifecycle.ref, lifecycle.quiescenceRef, quiescence, holdsWhen);
  return wellFormed && typeof id === 'string' ? id : undefined;
}

function checkPrototypeLifecycle(
  context: RuleContext,
  file: string,
  call: ToolCallFact,
  rows: RowReadings,
  quiescence: QuiescenceResult,
): void {
  const holdsWhen = rows.note;
  if (call.effects !== 'unknown') {
    context.report(
      'lifecycle-overclaims',
      context.inRecord(file, call.ref, [call.effects === undefined ? 'terminal_source' : 'effects']),
      `This call was ended by the framework (terminal_source ${describeValue(call.terminalSource)}), so its effects must be recorded as "unknown".`,
      { holdsWhen },
    );
  }
  checkQuiescenceBehind(context, file, call.ref, undefined, quiescence, holdsWhen);
}

function checkQuiescenceBehind(
  context: RuleContext,
  file: string,
  ref: RecordRef,
  quiescenceRef: unknown,
  quiescence: QuiescenceResult,
  holdsWhen: string | undefined,
): void {
  const proof = quiescence.proof;
  const place = context.inRecord(file, ref);
  if (!quiescence.applies) {
    context.report(
      'lifecycle-without-quiescence',
      place,
      'The framework ended this call, but the rollout has no sandbox user (sandbox_user is null), so no quiescence observation can back the claim that it stopped.',
      { holdsWhen },
    );
    return;
  }
  if (!proof) {
    context.report(
      'lifecycle-without-quiescence',
      place,
      'The framework ended this call, but no positive quiescence observation (after the last kill, before grading) backs the claim that it can no longer run.',
      { holdsWhen },
    );
    return;
  }
  if (quiescenceRef === undefined || quiescenceRef === null) return;
  const matches = quiescenceRef === proof.action.record.actionId || quiescenceRef === proof.action.ref.line + 1;
  if (!matches) {
    context.report(
      'lifecycle-without-quiescence',
      context.inRecord(file, ref, ['quiescence_ref']),
      `quiescence_ref ${describeValue(quiescenceRef)} does not name the positive quiescence observation (action ${describeValue(proof.action.record.actionId ?? null)}, line ${proof.action.ref.line + 1}).`,
      {
        related: [
          context.related(
            context.inRecord(context.bundle.pathOf('actions'), proof.action.ref),
            'the positive quiescence observation',
          ),
        ],
        holdsWhen,
      },
    );
  }
}

/** A pending list to hold against the rows: a timeout marker's, or result.json's. */
interface PendingList {
  readonly place: (index: number) => Place;
  readonly pendingIds: unknown;
  /** What holds it, as a message names it. */
  readonly where: string;
  /** It must be there: a missing one cannot agree. */
  readonly required: boolean;
  /** The readings under which it is the list (a marker's: its row is the last agent_timeout row). */
  readonly rows: RowReadings;
  /** The line of the marker that holds it: that row is no tool call while it is the marker. */
  readonly markerLine?: number;
}

/**
 * The pending lists against the rows: each list's own entries, then each open call that a list may
 * leave out, once, on the first such list (a call not listed by several markers that may each be the
 * last is one disagreement).
 */
function checkPendingLists(
  context: RuleContext,
  trajectoryFile: string,
  lists: readonly PendingList[],
  calls: ToolCallIndex,
): void {
  const readable = lists.filter((list) => checkListedIds(context, trajectoryFile, list, calls));
  if (readable.length === 0) return;
  const listed = readable.map((list) => pendingIdsOf(list.pendingIds));
  for (const call of calls.open) {
    if (typeof call.id !== 'string') continue;
    const id = call.id;
    const index = readable.findIndex((list, at) => list.markerLine !== call.ref.line && !listed[at]!.has(id));
    if (index === -1) continue;
    const list = readable[index]!;
    context.report(
      'timeout-pending-mismatch',
      context.inRecord(trajectoryFile, call.ref, ['tool_call_id']),
      `Tool call ${describeValue(call.id)} ${call.status === undefined ? 'has no status' : `is ${describeValue(call.status)}`}, but ${list.where} does not list it as pending.`,
      {
        related: [context.related(list.place(-1), 'the pending list')],
        holdsWhen: list.rows.and(RowReadings.as(call, 'tool_call')).note,
      },
    );
  }
}

/** A list's own entries against the rows; returns whether it is a list at all. */
function checkListedIds(
  context: RuleContext,
  trajectoryFile: string,
  list: PendingList,
  calls: ToolCallIndex,
): boolean {
  const { pendingIds, where } = list;
  if (!Array.isArray(pendingIds)) {
    // A list that is there but no list, or a required one that is missing, is never read as one that agrees.
    if (pendingIds !== undefined || list.required) {
      context.report(
        'timeout-pending-mismatch',
        list.place(-1),
        `${capitalized(where)}'s pending_tool_call_ids ${pendingIds === undefined ? 'is missing' : `is ${describeValue(pendingIds)}`}, so it cannot be shown to agree with the tool_call rows.`,
        { holdsWhen: list.rows.note },
      );
    }
    return false;
  }
  pendingIds.forEach((id, index) => {
    if (typeof id !== 'string') return;
    const rows = calls.byId.get(id) ?? [];
    const started = list.markerLine === undefined ? rows : rows.filter((call) => call.ref.line !== list.markerLine);
    if (!calls.surelyCalled.has(id)) {
      context.report(
        'timeout-pending-mismatch',
        list.place(index),
        `${capitalized(where)} lists ${describeValue(id)} as pending, but no tool_call row has that id.`,
        { holdsWhen: list.rows.and(RowReadings.noneOf(started, 'tool_call')).note },
      );
    }
    const last = lastTerminalRow(started);
    if (last) {
      context.report(
        'timeout-pending-mismatch',
        list.place(index),
        `${capitalized(where)} lists ${describeValue(id)} as pending, but its row says ${describeValue(last.row.status)}.`,
        {
          related: [context.related(context.inRecord(trajectoryFile, last.row.ref, ['status']), 'the tool call row')],
          holdsWhen: list.rows.and(last.rows).note,
        },
      );
    }
  });
  return true;
}

/**
 * A row of one id that an adapter ended and that may be the id's last tool_call row (the one that holds
 * its latest state), with the readings that make it so: the last written as a call when it is ended,
 * else the last that may be.
 */
function lastTerminalRow(rows: readonly ToolCallFact[]): { row: ToolCallFact; rows: RowReadings } | undefined {
  const last = (index: number) =>
    RowReadings.as(rows[index]!, 'tool_call').and(RowReadings.noneOf(rows, 'tool_call', index + 1));
  let written = -1;
  for (let index = rows.length - 1; index >= 0 && written === -1; index--)
    if (writtenAs(rows[index]!, 'tool_call')) written = index;
  if (written !== -1 && isAdapterTerminal(rows[written]!)) return { row: rows[written]!, rows: last(written) };
  // Rows after the last that surely is a call cannot be read away from behind it.
  for (let index = rows.length - 1; index >= 0; index--) {
    const row = rows[index]!;
    if (isAdapterTerminal(row)) return { row, rows: last(index) };
    if (row.kinds === undefined) return undefined;
  }
  return undefined;
}

/** The ids a pending list names, when it is a list. */
function pendingIdsOf(pendingIds: unknown): ReadonlySet<string> {
  return new Set(Array.isArray(pendingIds) ? pendingIds.filter((id): id is string => typeof id === 'string') : []);
}

/** A row that may be the last agent_timeout row: its claim against the calls; returns its pending list, for checkPendingLists. */
function checkTimeoutRow(
  context: RuleContext,
  file: string,
  timeout: TimeoutFact,
  rows: RowReadings,
  unresolved: UnresolvedCalls,
): PendingList {
  const { ref } = timeout;
  // BenchFlow always writes the claim as a boolean: one that cannot be read may be the true one.
  const claim =
    timeout.complete === true
      ? 'is true'
      : timeout.complete === false
        ? undefined
        : `${timeout.complete === undefined ? 'is missing' : `is ${describeValue(timeout.complete)}`}, so it may claim a complete trajectory`;
  const calls = claim ? unresolved.beside(timeout.kinds ? ref.line : undefined) : undefined;
  if (claim && calls) {
    context.report(
      'terminal-claim-contradicted',
      context.inRecord(file, ref, timeout.complete === undefined ? [] : ['terminal_trajectory_complete']),
      `terminal_trajectory_complete ${claim}, but ${describeUnresolved(calls.calls)} unresolved.`,
      { related: calls.related, holdsWhen: rows.and(calls.rows).note },
    );
  }
  return {
    place: (index) =>
      context.inRecord(file, ref, index === -1 ? ['pending_tool_call_ids'] : ['pending_tool_call_ids', index]),
    pendingIds: timeout.pendingIds,
    // Several rows may each be the last one: those read so only otherwise than written are named by line.
    where: rows.holdsAsWritten ? 'the agent_timeout row' : `the agent_timeout row on line ${ref.line + 1}`,
    required: true,
    rows,
    markerLine: ref.line,
  };
}

function checkResultClaims(
  context: RuleContext,
  trajectoryFile: string,
  result: DocumentFacts | undefined,
  calls: ToolCallIndex,
  unresolved: UnresolvedCalls,
): void {
  const open = unresolved.beside(undefined);
  const contradicted = (place: Place, claim: string) => {
    if (!open) return;
    context.report(
      'terminal-claim-contradicted',
      place,
      `${claim}, but ${describeUnresolved(open.calls)} unresolved.`,
      { related: open.related, holdsWhen: open.rows.note },
    );
  };
  const value = result?.value;
  if (result && value) {
    const resultFile = context.bundle.pathOf('result');
    const info = value['agent_timeout_info'];
    if (isJsonObject(info)) {
      const list: PendingList = {
        place: (index) =>
          context.inDocument(
            resultFile,
            result,
            index === -1
              ? ['agent_timeout_info', 'pending_tool_call_ids']
              : ['agent_timeout_info', 'pending_tool_call_ids', index],
          ),
        pendingIds: info['pending_tool_call_ids'],
        where: `${rolloutFiles.result}'s agent_timeout_info`,
        required: false,
        rows: RowReadings.asWritten,
      };
      checkPendingLists(context, trajectoryFile, [list], calls);
      if (info['terminal_trajectory_complete'] === true)
        contradicted(
          context.inDocument(resultFile, result, ['agent_timeout_info', 'terminal_trajectory_complete']),
          'agent_timeout_info.terminal_trajectory_complete is true',
        );
    }
    const summary = value['trajectory_summary'];
    for (const [path, claim] of [
      [['partial_trajectory'], value['partial_trajectory']],
      [['trajectory_summary', 'partial_trajectory'], isJsonObject(summary) ? summary['partial_trajectory'] : undefined],
    ] as const) {
      if (claim === false) contradicted(context.inDocument(resultFile, result, path), `${path.join('.')} is false`);
    }
  }
  // Any readable row may be the rollout's (review/resultsRow.ts says why).
  for (const row of context.bundle.facts('results', 'results')?.rows ?? [])
    if (row.value['is_truncated'] === false)
      contradicted(
        context.inRecord(context.bundle.pathOf('results'), row.ref, ['is_truncated']),
        'is_truncated is false',
      );
}

/** A timeout result.json reports, in a reading with no agent_timeout row (none surely is one). */
function checkTimeoutMarker(
  context: RuleContext,
  result: DocumentFacts | undefined,
  timeouts: readonly TimeoutReading[],
): void {
  const value = result?.value;
  const unmarked = timeouts.find((reading) => reading.marker === undefined && reading.timeout !== undefined);
  if (!value || !unmarked) return;
  const timedOut = unmarked.timeout!;
  const holdsWhen = unmarked.rows.note;
  const file = context.bundle.pathOf('result');
  if (timedOut.kind === 'idle') {
    const key = isJsonObject(value['idle_timeout_info']) ? 'idle_timeout_info' : 'error';
    context.report(
      'timeout-marker-missing',
      context.inDocument(file, result, [key], 'key'),
      'The agent hit its idle timeout; BenchFlow writes no agent_timeout row for idle timeouts, so the trajectory carries no terminal marker. Pending tool calls stay unresolved.',
      {
        severity: 'information',
        effect: 'none',
        holdsWhen,
      },
    );
    return;
  }
  if (timedOut.kind !== 'wall-clock') return;
  const key =
    ['agent_timeout_info', 'error_category', 'error'].find(
      (name) => value[name] !== null && value[name] !== undefined,
    ) ?? 'error';
  context.report(
    'timeout-marker-missing',
    context.inDocument(file, result, [key], 'key'),
    `${rolloutFiles.result} reports a wall-clock agent timeout (${timedOut.evidence.join(', ')}), but ${rolloutFiles.acpTrajectory} has no agent_timeout row: BenchFlow writes one when the prompt was cancelled and drained cleanly, so this timeout's terminal state is unrecorded.`,
    { holdsWhen },
  );
}

function checkStatusCounts(
  context: RuleContext,
  trajectoryFile: string,
  result: DocumentFacts | undefined,
  calls: ToolCallIndex,
): void {
  const value = result?.value;
  if (!value) return;
  // Counts that disagree are a finding against the reward, so damaged keys on their path are read as
  // the keys they resemble.
  const summaryKey = keyForFinding('result', [], value, 'trajectory_summary');
  const summary = value[summaryKey];
  const countsKey = isJsonObject(summary)
    ? keyForFinding('result', [summaryKey], summary, 'tool_call_status_counts')
    : 'tool_call_status_counts';
  const claimed = isJsonObject(summary) ? summary[countsKey] : undefined;
  if (!isJsonObject(claimed)) {
    // Counts that are there but cannot be read are never taken as counts that agree (README "Damaged evidence").
    // A null trajectory_summary claims nothing (the schema allows it), unless it stands under a damaged
    // key (claimsNothing). Counts are always an object (result_metadata.py counts into a dict), so null
    // counts are damage too, and a summary with none at all is no summary BenchFlow writes (the counts came
    // with the summary, in one change): they may be any other key of it, damaged past recognition.
    const unreadable =
      !claimsNothing(summary, summaryKey, 'trajectory_summary') && !isJsonObject(summary)
        ? { path: [summaryKey], what: `trajectory_summary is ${describeValue(summary)}` }
        : claimed !== undefined
          ? { path: [summaryKey, countsKey], what: `it is ${describeValue(claimed)}` }
          : isJsonObject(summary)
            ? { path: [summaryKey], what: 'trajectory_summary has none, and BenchFlow writes them in every summary' }
            : undefined;
    if (unreadable) {
      context.report(
        'status-counts-mismatch',
        context.inDocument(context.bundle.pathOf('result'), result, unreadable.path),
        `trajectory_summary.tool_call_status_counts cannot be read (${unreadable.what}), so it cannot be shown to agree with the tool_call rows.`,
        {
          related: [context.related(context.atStart(trajectoryFile), 'the trajectory the counts describe')],
        },
      );
    }
    return;
  }
  const asWritten = countDifferences(claimed, calls.statusCounts);
  const reread = asWritten.length === 0 ? rereadCounts(calls) : undefined;
  const differences = reread ? countDifferences(claimed, reread.counts) : asWritten;
  if (differences.length === 0) return;
  context.report(
    'status-counts-mismatch',
    context.inDocument(context.bundle.pathOf('result'), result, [summaryKey, countsKey]),
    `trajectory_summary.tool_call_status_counts disagrees with the tool_call rows (${differences.join('; ')}).`,
    {
      related: [context.related(context.atStart(trajectoryFile), 'the trajectory the counts describe')],
      holdsWhen: reread?.rows.note,
    },
  );
}

/**
 * Counts that agree with the rows as written may not under another reading: the counts with the first
 * row that may be a call with a status read the other way (counted when written as another kind, left
 * out when written as a call), and the readings that make it so.
 */
function rereadCounts(calls: ToolCallIndex): { counts: Map<string, number>; rows: RowReadings } | undefined {
  const row = calls.uncounted;
  if (!row || typeof row.status !== 'string') return undefined;
  const counted = !writtenAs(row, 'tool_call');
  const counts = new Map(calls.statusCounts);
  counts.set(row.status, (counts.get(row.status) ?? 0) + (counted ? 1 : -1));
  return { counts, rows: counted ? RowReadings.as(row, 'tool_call') : RowReadings.noneOf([row], 'tool_call') };
}

/** How claimed counts differ from the rows', in words; empty when they agree. */
function countDifferences(claimed: JsonObject, actual: ReadonlyMap<string, number>): string[] {
  const statuses = new Set([...Object.keys(claimed), ...actual.keys()]);
  return [...statuses]
    .filter((status) => (typeof claimed[status] === 'number' ? claimed[status] : 0) !== (actual.get(status) ?? 0))
    .map(
      (status) =>
        `${describeValue(status)}: ${describeValue(claimed[status] ?? 0)} claimed, ${actual.get(status) ?? 0} in the trajectory`,
    );
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A tool call row as a message names it: by its id, or by its line when it has none. */
function callLabel(call: ToolCallFact): string {
  return typeof call.id === 'string'
    ? `tool call ${describeValue(call.id)}`
    : `the tool_call row on line ${call.ref.line + 1} (no tool_call_id)`;
}

function describeCall(call: ToolCallFact): string {
  return capitalized(callLabel(call));
}

function describeUnresolved(unresolved: readonly ToolCallFact[]): string {
  if (unresolved.length === 1) return `${callLabel(unresolved[0]!)} is`;
  const ids = unresolved
    .slice(0, 5)
    .map((call) => (typeof call.id === 'string' ? describeValue(call.id) : `the row on line ${call.ref.line + 1}`))
    .join(', ');
  return `${unresolved.length} tool calls (${ids}${unresolved.length > 5 ? ', …' : ''}) are`;
}
