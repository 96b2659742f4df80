/**
 * When a timeout is countable (BenchFlow #1079, gap 3): a timed-out rollout is not a success and never
 * training-ready, but it is a valid, countable outcome when its evidence is complete and tells one
 * story. Every claim the bundle makes about whether its trajectory is complete or partial
 * (`partial_trajectory`, `trajectory_source` and their copies in `trajectory_summary`, the row's
 * `is_truncated`, `terminal_trajectory_complete` in the `agent_timeout` row and in
 * `agent_timeout_info`) must agree, and the rows themselves must leave no tool call unresolved. A
 * native ACP timeout, which has no provider trajectory, must also carry its usage and reward in its
 * row and no synthesized training data. Each item that is missing or contradicts another is reported
 * on the line that carries it; a contradiction that makes the reward untrustworthy is reported by the
 * trajectory rules instead (terminal-claim-contradicted, timeout-pending-mismatch).
 *
 * The contract is held in each reading of the trajectory's last agent_timeout row in which the rollout
 * timed out (timeout.ts `timeoutReadingsOf`); an item is reported once, in the first reading that finds
 * it at its place, and the timeout is countable only when no reading finds one.
 */
import { rolloutFiles } from '../../../../../shared/src/layout';
import type { DocumentFacts, ResultsRowFact, TimeoutFact } from '../../facts/facts';
import { describeValue, isJsonObject, type JsonObject } from '../../parse/jsonKind';
import type { Place, RuleContext } from '../context';
import { rowHasRewardOrScore } from '../../model/reward';
import { RowReadings } from '../../model/rowReadings';
import { positiveTokenComponents } from '../review/resultsRow';
import type { RolloutTimeout, TimeoutReading } from './timeout';
import type { TrajectoryResult } from '../trajectory/trajectory';

/** A claim about the trajectory: partial (true) or complete (false), and where it is made. */
interface Claim {
  readonly label: string;
  readonly place: Place;
  readonly partial: boolean;
}

/**
 * Returns whether the timeout is countable: the rollout may have timed out, and in no reading in which
 * it did is an item missing or contradictory.
 */
export function checkTimeoutContract(
  context: RuleContext,
  timeouts: readonly TimeoutReading[],
  trajectory: TrajectoryResult,
): boolean {
  let timedOut = false;
  let countable = true;
  // The places of the items already reported: readings come as written first, and the same item at the
  // same place in another reading, even in other words (its timeout named by another row), is the same.
  const reported = new Set<string>();
  for (const { timeout, marker, rows } of timeouts) {
    if (!timeout) continue;
    timedOut = true;
    if (!holdsContract(context, timeout, marker, rows, trajectory, reported)) countable = false;
  }
  return timedOut && countable;
}

/** The contract in one reading; returns whether no item is missing or contradictory in it. */
function holdsContract(
  context: RuleContext,
  timeout: RolloutTimeout,
  marker: TimeoutFact | undefined,
  rows: RowReadings,
  trajectory: TrajectoryResult,
  reported: Set<string>,
): boolean {
  const code = timeout.native ? 'native-timeout-incomplete' : 'timeout-incomplete';
  const what = `This ${timeout.native ? 'native ACP ' : ''}${timeout.kind === 'unspecified' ? '' : `${timeout.kind} `}timeout, reported by ${timeout.evidence[0]},`;
  let items = 0;
  const item: Item = (place, message, related = [], itemRows = rows) => {
    items++;
    const key = `${place.file}\u0000${place.range.start.line}\u0000${place.range.start.character}\u0000${place.range.end.line}\u0000${place.range.end.character}`;
    if (reported.has(key)) return;
    reported.add(key);
    context.report(code, place, `${what} is not countable: ${message}`, {
      ...(related.length > 0 ? { related: related.map((at) => context.related(at, 'the claim it contradicts')) } : {}),
      holdsWhen: itemRows.note,
    });
  };

  const result = context.bundle.facts('result', 'result');
  const results = context.bundle.facts('results', 'results');
  const row = results?.count === 1 ? results.rows[0] : undefined;
  const claims = [
    ...resultClaims(context, result, item),
    ...rowClaims(context, row, item),
    ...markerClaims(context, timeout, result, marker, item),
  ];

  // The story most claims tell (result.json's partial_trajectory, the framework's own reading, breaks a
  // tie) decides only where a disagreement is reported: either way the timeout is not countable.
  const partialClaims = claims.filter((claim) => claim.partial).length;
  const story = partialClaims * 2 === claims.length ? claims[0]?.partial : partialClaims * 2 > claims.length;
  const agreeing = claims.filter((claim) => claim.partial === story);
  for (const claim of claims.filter((claim) => claim.partial !== story)) {
    item(
      claim.place,
      `${claim.label} says the trajectory is ${storyOf(claim.partial)}, but ${agreeing.map((other) => other.label).join(', ')} say${agreeing.length === 1 ? 's' : ''} it is ${storyOf(!claim.partial)}.`,
      agreeing.map((other) => other.place),
    );
  }

  // The marker's own row is no call while it is the marker.
  const unresolved = trajectory.unresolved?.beside(marker?.kinds ? marker.ref.line : undefined);
  const [first, ...rest] = unresolved?.calls ?? [];
  if (unresolved && first) {
    const file = context.bundle.pathOf('trajectory');
    item(
      context.inRecord(file, first.ref, ['status']),
      `${unresolved.calls.length === 1 ? 'this tool call is' : `${unresolved.calls.length} tool calls are`} unresolved (this one is ${describeValue(first.status)}); a timeout counts only when every call reached a terminal status or was ended by the framework after proven quiescence.`,
      rest.map((call) => context.inRecord(file, call.ref, ['status'])),
      rows.and(unresolved.rows),
    );
  }

  if (timeout.native && row) checkNativeRow(context, row, item);
  return items === 0;
}

/** Reports an item; `rows`: the readings it holds under, when not those of its timeout. */
type Item = (place: Place, message: string, related?: readonly Place[], rows?: RowReadings) => void;

function storyOf(partial: boolean): string {
  return partial ? 'partial' : 'complete';
}

function resultClaims(context: RuleContext, result: DocumentFacts | undefined, item: Item): Claim[] {
  const value = result?.value;
  if (!result || !value) return [];
  const file = context.bundle.pathOf('result');
  const at = (path: readonly string[]) => context.inDocument(file, result, path);
  const claims: Claim[] = [];
  const partial = value['partial_trajectory'];
  if (typeof partial === 'boolean')
    claims.push({
      label: `${rolloutFiles.result} partial_trajectory ${partial}`,
      place: at(['partial_trajectory']),
      partial,
    });
  else
    item(
      context.inDocument(file, result),
      `${rolloutFiles.result} has no boolean partial_trajectory (found ${describeValue(partial)}).`,
    );
  const source = value['trajectory_source'];
  const sourceClaim = trajectorySourceClaim(source, rolloutFiles.result, at(['trajectory_source']));
  if (sourceClaim) claims.push(sourceClaim);
  else if (typeof source !== 'string')
    item(
      context.inDocument(file, result),
      `${rolloutFiles.result} has no trajectory_source (found ${describeValue(source)}).`,
    );

  const summary = value['trajectory_summary'];
  if (isJsonObject(summary)) {
    const summaryPartial = summary['partial_trajectory'];
    if (typeof summaryPartial === 'boolean')
      claims.push({
        label: `trajectory_summary.partial_trajectory ${summaryPartial}`,
        place: at(['trajectory_summary', 'partial_trajectory']),
        partial: summaryPartial,
      });
    const summarySource = trajectorySourceClaim(
      summary['trajectory_source'],
      'trajectory_summary',
      at(['trajectory_summary', 'trajectory_source']),
    );
    if (summarySource) claims.push(summarySource);
  }
  return claims;
}

/** BenchFlow records `partial_acp` exactly when it marks the trajectory partial, `acp` otherwise; scraped and hosted sources say nothing either way. */
function trajectorySourceClaim(source: unknown, where: string, place: Place): Claim | undefined {
  if (source === 'partial_acp') return { label: `${where} trajectory_source "partial_acp"`, place, partial: true };
  if (source === 'acp') return { label: `${where} trajectory_source "acp"`, place, partial: false };
  return undefined;
}

function rowClaims(context: RuleContext, row: ResultsRowFact | undefined, item: Item): Claim[] {
  if (!row) return [];
  const file = context.bundle.pathOf('results');
  const truncated = row.value['is_truncated'];
  if (typeof truncated === 'boolean')
    return [
      {
        label: `${rolloutFiles.results} is_truncated ${truncated}`,
        place: context.inRecord(file, row.ref, ['is_truncated']),
        partial: truncated,
      },
    ];
  item(
    context.inRecord(file, row.ref),
    `the results row has no boolean is_truncated (found ${describeValue(truncated)}).`,
  );
  return [];
}

/** A wall-clock timeout's own record of whether it left tool calls pending, in the trajectory and in result.json. */
function markerClaims(
  context: RuleContext,
  timeout: RolloutTimeout,
  result: DocumentFacts | undefined,
  marker: TimeoutFact | undefined,
  item: Item,
): Claim[] {
  const claims: Claim[] = [];
  const trajectoryFile = context.bundle.pathOf('trajectory');
  if (marker) {
    const place = (path: readonly string[]) => context.inRecord(trajectoryFile, marker.ref, path);
    claims.push(...completeness(marker.complete, marker.pendingIds, 'the agent_timeout row', place, item));
  }
  const info = result?.value?.['agent_timeout_info'];
  const resultFile = context.bundle.pathOf('result');
  if (isJsonObject(info)) {
    const place = (path: readonly string[]) => context.inDocument(resultFile, result, ['agent_timeout_info', ...path]);
    if (typeof info['terminal_trajectory_complete'] !== 'boolean')
      item(
        place([]),
        `agent_timeout_info has no boolean terminal_trajectory_complete (found ${describeValue(info['terminal_trajectory_complete'])}).`,
      );
    claims.push(
      ...completeness(
        info['terminal_trajectory_complete'],
        info['pending_tool_call_ids'],
        'agent_timeout_info',
        place,
        item,
      ),
    );
  } else if (marker && result?.value && timeout.kind === 'wall-clock') {
    item(
      context.inDocument(resultFile, result),
      `the trajectory has an agent_timeout row, but ${rolloutFiles.result} has no agent_timeout_info to say the same.`,
      [context.inRecord(trajectoryFile, marker.ref)],
    );
  }
  return claims;
}

/** BenchFlow computes terminal_trajectory_complete as "no call pending", so false with an empty pending list contradicts itself. */
function completeness(
  complete: unknown,
  pendingIds: unknown,
  where: string,
  place: (path: readonly string[]) => Place,
  item: Item,
): Claim[] {
  if (typeof complete !== 'boolean') return [];
  if (!complete && Array.isArray(pendingIds) && pendingIds.length === 0) {
    item(
      place(['terminal_trajectory_complete']),
      `${where} says terminal_trajectory_complete false, but its pending_tool_call_ids is empty: no call was pending.`,
      [place(['pending_tool_call_ids'])],
    );
  }
  return [
    {
      label: `${where} terminal_trajectory_complete ${complete}`,
      place: place(['terminal_trajectory_complete']),
      partial: !complete,
    },
  ];
}

/** A native ACP row stands in for the provider trajectory it lacks: its usage and reward must be there, and nothing may pass for training data. */
function checkNativeRow(context: RuleContext, row: ResultsRowFact, item: Item): void {
  const file = context.bundle.pathOf('results');
  const at = (key: string) => context.inRecord(file, row.ref, [key], 'key');
  const value: JsonObject = row.value;
  const agentResult = context.bundle.facts('result', 'result')?.value?.['agent_result'];
  const agentUsage =
    isJsonObject(agentResult) &&
    positiveTokenComponents({
      input_tokens: agentResult['n_input_tokens'],
      output_tokens: agentResult['n_output_tokens'],
    });
  if (!positiveTokenComponents(value['token_usage']) && !agentUsage) {
    item(
      at('token_usage'),
      `it has no positive native usage: neither token_usage nor ${rolloutFiles.result} agent_result has positive input and output tokens.`,
    );
  }
  if (!rowHasRewardOrScore(value)) item(context.inRecord(file, row.ref), 'the results row has no reward or score.');
  const trajectory = value['trajectory'];
  if (
    value['completion'] !== null ||
    !(trajectory === null || (Array.isArray(trajectory) && trajectory.length === 0))
  ) {
    item(
      at(value['completion'] !== null ? 'completion' : 'trajectory'),
      `a native ACP row has no provider trajectory to train on, so completion must be null and trajectory empty (found completion ${describeValue(value['completion'])}, trajectory ${describeValue(trajectory)}).`,
    );
  }
}
