/**
 * Tools and timeouts (BenchFlow #1079, gap 2): a tool call left pending or in progress is unresolved
 * unless the framework ended it, with unknown effects, after a positive quiescence observation. The
 * timeout marker, result.json and results.jsonl must say the same about which calls were pending and
 * whether the trajectory is complete.
 */
import { rolloutFiles } from '../../../../../shared/src/layout';
import type { DocumentFacts, LifecycleFact, RecordRef, TimeoutFact, ToolCallFact } from '../../facts/facts';
import type { RelatedEvidence } from '../../findings';
import { isAdapterTerminal } from '../../facts/toolCallStatus';
import { describeValue, isJsonObject } from '../../parse/jsonKind';
import { keyForFinding } from '../../schema/knownKeys';
import type { Place, RuleContext } from '../context';
import { annotationProvenances, provenanceCounts, provenanceOf } from '../../model/provenance';
import { writtenAs, writtenLastTimeout } from '../../model/rowReadings';
import { howToAnnotate, reportUncountedProvenance } from '../provenance/provenance';
import type { QuiescenceResult } from '../quiescence/quiescence';
import type { RolloutTimeout } from '../timeout/timeout';

export interface TrajectoryResult {
  /** Tool calls neither terminal nor ended by the framework after proven quiescence; undefined without a trajectory. */
  readonly unresolved?: readonly ToolCallFact[];
}

/** The calls left unresolved, with a related place on each one's status, made once for every finding that lists them. */
interface Unresolved {
  readonly calls: ToolCallFact[];
  readonly related: RelatedEvidence[];
}

export function checkTrajectory(
  context: RuleContext,
  quiescence: QuiescenceResult,
  timedOut: RolloutTimeout | undefined,
): TrajectoryResult {
  const facts = context.bundle.facts('trajectory', 'acp-trajectory');
  const calls = context.model.toolCalls;
  const result = context.bundle.facts('result', 'result');
  if (!facts || !calls) {
    checkTimeoutMarker(context, result, timedOut, undefined);
    return {};
  }
  const file = context.bundle.pathOf('trajectory');
  const proof = quiescence.proof;
  const { byId: rowsById, open } = calls;
  for (const rows of calls.duplicated) {
    context.report(
      'tool-id-duplicate',
      context.inRecord(file, rows[1]!.ref, ['tool_call_id']),
      `Tool call id ${describeValue(rows[0]!.id)} appears on ${rows.length} rows; BenchFlow writes each call once, so which row holds its latest state is ambiguous.`,
      {
        related: [
          context.related(context.inRecord(file, rows[0]!.ref, ['tool_call_id']), 'the first row with this id'),
        ],
      },
    );
  }

  // Framework-owned lifecycle evidence: the proposed tool_call_lifecycle rows and the prototype form.
  const annotated = new Set<string>();
  for (const lifecycle of facts.lifecycles) {
    if (!writtenAs(lifecycle, 'tool_call_lifecycle')) continue;
    const ended = checkLifecycle(context, file, lifecycle, rowsById, quiescence);
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
      );
    else if (ended !== undefined) annotated.add(ended);
  }
  for (const call of calls.endedByFramework) checkPrototypeLifecycle(context, file, call, quiescence);

  const unresolved: Unresolved = { calls: [], related: [] };
  const timeout = writtenLastTimeout(facts);
  const listed = pendingIdsOf(timeout?.pendingIds);
  for (const call of open) {
    const id = typeof call.id === 'string' ? call.id : undefined;
    const endedByFramework = id !== undefined && annotated.has(id) && proof !== undefined;
    const status = context.inRecord(file, call.ref, ['status']);
    if (!endedByFramework) {
      unresolved.calls.push(call);
      unresolved.related.push(context.related(status, 'an unresolved tool call'));
      const related =
        timeout && id !== undefined && listed.has(id)
          ? [
              context.related(
                context.inRecord(file, timeout.ref, ['pending_tool_call_ids']),
                'listed as pending by the timeout marker',
              ),
            ]
          : [];
      context.report(
        'tool-pending',
        status,
        `${describeCall(call)} ${call.status === undefined ? 'has no status' : `is still ${describeValue(call.status)}`}: no terminal update is recorded${annotated.has(id ?? '') ? ', and its framework lifecycle annotation is not backed by proven quiescence' : ''}. Its effects, and whether it is still running, are unknown.`,
        { related },
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
        },
      );
    }
  }

  if (timeout) checkTimeoutRow(context, file, timeout, rowsById, open, unresolved);
  checkResultClaims(context, file, result, rowsById, open, unresolved);
  checkTimeoutMarker(context, result, timedOut, timeout !== undefined);
  checkStatusCounts(context, file, result, calls.statusCounts);
  return { unresolved: unresolved.calls };
}

/** Returns the id of the call the annotation ends when it is well formed (whether or not quiescence backs it). */
function checkLifecycle(
  context: RuleContext,
  file: string,
  lifecycle: LifecycleFact,
  rowsById: ReadonlyMap<string, readonly ToolCallFact[]>,
  quiescence: QuiescenceResult,
): string | undefined {
  const at = (path: string) => context.inRecord(file, lifecycle.ref, [path]);
  // Only "ended_by_framework" ends a call; the schema finding already says what any other value is.
  let wellFormed = lifecycle.lifecycle === 'ended_by_framework';
  const id = lifecycle.toolCallId;
  const rows = typeof id === 'string' ? rowsById.get(id) : undefined;
  if (!rows) {
    context.report(
      'lifecycle-overclaims',
      at('tool_call_id'),
      id === undefined
        ? 'This annotation names no tool_call_id, so it ends no call the trajectory started.'
        : `This annotation ends tool call ${describeValue(id)}, which the trajectory never started.`,
    );
    wellFormed = false;
  } else {
    const terminal = rows.find(isAdapterTerminal);
    if (terminal) {
      context.report(
        'lifecycle-overclaims',
        at('tool_call_id'),
        `The adapter already reported tool call ${describeValue(id)} as ${describeValue(terminal.status)}; a framework annotation must not override it.`,
        {
          related: [context.related(context.inRecord(file, terminal.ref), 'the adapter-reported status')],
        },
      );
      wellFormed = false;
    }
  }
  if (lifecycle.effects !== 'unknown') {
    context.report(
      'lifecycle-overclaims',
      at('effects'),
      `The framework cannot know what an interrupted command did: effects must be "unknown", not ${describeValue(lifecycle.effects)}.`,
    );
    wellFormed = false;
  }
  if (lifecycle.source !== 'benchflow') {
    context.report(
      'lifecycle-overclaims',
      at('source'),
      `A framework lifecycle annotation must say source "benchflow"; ${describeValue(lifecycle.source)} passes an inference off as another party's report.`,
    );
    wellFormed = false;
  }
  if (lifecycle.status !== undefined && lifecycle.status !== 'cancelled') {
    context.report(
      'lifecycle-overclaims',
      at('status'),
      `Status ${describeValue(lifecycle.status)} claims an outcome the adapter never reported.`,
    );
    wellFormed = false;
  }
  checkQuiescenceBehind(context, file, lifecycle.ref, lifecycle.quiescenceRef, quiescence);
  return wellFormed && typeof id === 'string' ? id : undefined;
}

function checkPrototypeLifecycle(
  context: RuleContext,
  file: string,
  call: ToolCallFact,
  quiescence: QuiescenceResult,
): void {
  if (call.effects !== 'unknown') {
    context.report(
      'lifecycle-overclaims',
      context.inRecord(file, call.ref, [call.effects === undefined ? 'terminal_source' : 'effects']),
      `This call was ended by the framework (terminal_source ${describeValue(call.terminalSource)}), so its effects must be recorded as "unknown".`,
    );
  }
  checkQuiescenceBehind(context, file, call.ref, undefined, quiescence);
}

function checkQuiescenceBehind(
  context: RuleContext,
  file: string,
  ref: RecordRef,
  quiescenceRef: unknown,
  quiescence: QuiescenceResult,
): void {
  const proof = quiescence.proof;
  const place = context.inRecord(file, ref);
  if (!quiescence.applies) {
    context.report(
      'lifecycle-without-quiescence',
      place,
      'The framework ended this call, but the rollout has no sandbox user (sandbox_user is null), so no quiescence observation can back the claim that it stopped.',
    );
    return;
  }
  if (!proof) {
    context.report(
      'lifecycle-without-quiescence',
      place,
      'The framework ended this call, but no positive quiescence observation (after the last kill, before grading) backs the claim that it can no longer run.',
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
      },
    );
  }
}

/** The pending list of a timeout marker (or of result.json) against the rows. */
function checkPendingList(
  context: RuleContext,
  trajectoryFile: string,
  listPlace: (index: number) => Place,
  pendingIds: unknown,
  rowsById: ReadonlyMap<string, readonly ToolCallFact[]>,
  openCalls: readonly ToolCallFact[],
  where: string,
  required: boolean,
): void {
  if (!Array.isArray(pendingIds)) {
    // A list that is there but no list, or a required one that is missing, is never read as one that agrees.
    if (pendingIds !== undefined || required) {
      context.report(
        'timeout-pending-mismatch',
        listPlace(-1),
        `${capitalized(where)}'s pending_tool_call_ids ${pendingIds === undefined ? 'is missing' : `is ${describeValue(pendingIds)}`}, so it cannot be shown to agree with the tool_call rows.`,
      );
    }
    return;
  }
  pendingIds.forEach((id, index) => {
    if (typeof id !== 'string') return;
    const row = rowsById.get(id)?.at(-1);
    if (!row) {
      context.report(
        'timeout-pending-mismatch',
        listPlace(index),
        `${capitalized(where)} lists ${describeValue(id)} as pending, but no tool_call row has that id.`,
      );
    } else if (isAdapterTerminal(row)) {
      context.report(
        'timeout-pending-mismatch',
        listPlace(index),
        `${capitalized(where)} lists ${describeValue(id)} as pending, but its row says ${describeValue(row.status)}.`,
        {
          related: [context.related(context.inRecord(trajectoryFile, row.ref, ['status']), 'the tool call row')],
        },
      );
    }
  });
  const listed = pendingIdsOf(pendingIds);
  for (const call of openCalls) {
    if (typeof call.id !== 'string' || listed.has(call.id)) continue;
    context.report(
      'timeout-pending-mismatch',
      context.inRecord(trajectoryFile, call.ref, ['tool_call_id']),
      `Tool call ${describeValue(call.id)} ${call.status === undefined ? 'has no status' : `is ${describeValue(call.status)}`}, but ${where} does not list it as pending.`,
      {
        related: [context.related(listPlace(-1), 'the pending list')],
      },
    );
  }
}

/** The ids a pending list names, when it is a list. */
function pendingIdsOf(pendingIds: unknown): ReadonlySet<string> {
  return new Set(Array.isArray(pendingIds) ? pendingIds.filter((id): id is string => typeof id === 'string') : []);
}

function checkTimeoutRow(
  context: RuleContext,
  file: string,
  timeout: TimeoutFact,
  rowsById: ReadonlyMap<string, readonly ToolCallFact[]>,
  openCalls: readonly ToolCallFact[],
  unresolved: Unresolved,
): void {
  const { ref } = timeout;
  checkPendingList(
    context,
    file,
    (index) => context.inRecord(file, ref, index === -1 ? ['pending_tool_call_ids'] : ['pending_tool_call_ids', index]),
    timeout.pendingIds,
    rowsById,
    openCalls,
    'the agent_timeout row',
    true,
  );
  // BenchFlow always writes the claim as a boolean: one that cannot be read may be the true one.
  const claim =
    timeout.complete === true
      ? 'is true'
      : timeout.complete === false
        ? undefined
        : `${timeout.complete === undefined ? 'is missing' : `is ${describeValue(timeout.complete)}`}, so it may claim a complete trajectory`;
  if (claim && unresolved.calls.length > 0) {
    context.report(
      'terminal-claim-contradicted',
      context.inRecord(file, ref, timeout.complete === undefined ? [] : ['terminal_trajectory_complete']),
      `terminal_trajectory_complete ${claim}, but ${describeUnresolved(unresolved.calls)} unresolved.`,
      {
        related: unresolved.related,
      },
    );
  }
}

function checkResultClaims(
  context: RuleContext,
  trajectoryFile: string,
  result: DocumentFacts | undefined,
  rowsById: ReadonlyMap<string, readonly ToolCallFact[]>,
  openCalls: readonly ToolCallFact[],
  unresolved: Unresolved,
): void {
  const { related } = unresolved;
  const value = result?.value;
  if (result && value) {
    const resultFile = context.bundle.pathOf('result');
    const info = value['agent_timeout_info'];
    if (isJsonObject(info)) {
      checkPendingList(
        context,
        trajectoryFile,
        (index) =>
          context.inDocument(
            resultFile,
            result,
            index === -1
              ? ['agent_timeout_info', 'pending_tool_call_ids']
              : ['agent_timeout_info', 'pending_tool_call_ids', index],
          ),
        info['pending_tool_call_ids'],
        rowsById,
        openCalls,
        `${rolloutFiles.result}'s agent_timeout_info`,
        false,
      );
      if (info['terminal_trajectory_complete'] === true && unresolved.calls.length > 0) {
        context.report(
          'terminal-claim-contradicted',
          context.inDocument(resultFile, result, ['agent_timeout_info', 'terminal_trajectory_complete']),
          `agent_timeout_info.terminal_trajectory_complete is true, but ${describeUnresolved(unresolved.calls)} unresolved.`,
          { related },
        );
      }
    }
    const summary = value['trajectory_summary'];
    for (const [path, claim] of [
      [['partial_trajectory'], value['partial_trajectory']],
      [['trajectory_summary', 'partial_trajectory'], isJsonObject(summary) ? summary['partial_trajectory'] : undefined],
    ] as const) {
      if (claim === false && unresolved.calls.length > 0) {
        context.report(
          'terminal-claim-contradicted',
          context.inDocument(resultFile, result, path),
          `${path.join('.')} is false, but ${describeUnresolved(unresolved.calls)} unresolved.`,
          { related },
        );
      }
    }
  }
  const row = context.bundle.facts('results', 'results')?.rows[0];
  if (row && row.value['is_truncated'] === false && unresolved.calls.length > 0) {
    context.report(
      'terminal-claim-contradicted',
      context.inRecord(context.bundle.pathOf('results'), row.ref, ['is_truncated']),
      `is_truncated is false, but ${describeUnresolved(unresolved.calls)} unresolved.`,
      { related },
    );
  }
}

function checkTimeoutMarker(
  context: RuleContext,
  result: DocumentFacts | undefined,
  timedOut: RolloutTimeout | undefined,
  hasMarker: boolean | undefined,
): void {
  const value = result?.value;
  if (!value || !timedOut || hasMarker !== false) return;
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
  );
}

function checkStatusCounts(
  context: RuleContext,
  trajectoryFile: string,
  result: DocumentFacts | undefined,
  actual: ReadonlyMap<string, number>,
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
    // Null claims nothing, unless it stands under a damaged key: then it is what is left of the claim.
    const claims = (value: unknown, key: string, name: string) =>
      value !== undefined && (value !== null || key !== name);
    const unreadable =
      claims(summary, summaryKey, 'trajectory_summary') && !isJsonObject(summary)
        ? { path: [summaryKey], what: `trajectory_summary is ${describeValue(summary)}` }
        : claims(claimed, countsKey, 'tool_call_status_counts')
          ? { path: [summaryKey, countsKey], what: `it is ${describeValue(claimed)}` }
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
  const statuses = new Set([...Object.keys(claimed), ...actual.keys()]);
  const differences = [...statuses]
    .filter((status) => (typeof claimed[status] === 'number' ? claimed[status] : 0) !== (actual.get(status) ?? 0))
    .map(
      (status) =>
        `${describeValue(status)}: ${describeValue(claimed[status] ?? 0)} claimed, ${actual.get(status) ?? 0} in the trajectory`,
    );
  if (differences.length === 0) return;
  context.report(
    'status-counts-mismatch',
    context.inDocument(context.bundle.pathOf('result'), result, [summaryKey, countsKey]),
    `trajectory_summary.tool_call_status_counts disagrees with the tool_call rows (${differences.join('; ')}).`,
    {
      related: [context.related(context.atStart(trajectoryFile), 'the trajectory the counts describe')],
    },
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
