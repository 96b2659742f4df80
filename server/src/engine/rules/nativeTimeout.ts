/**
 * Native ACP timeouts (BenchFlow #1079, gap 3): a rollout whose usage came from the ACP peer, with no
 * provider trajectory, that timed out. Its row is not a success, so the validator's success-only native
 * branch rejects it; under this contract it is countable when its evidence is complete, and it is never
 * training-ready. Infrastructure failures are never reclassified as agent timeouts.
 */
import { isJsonObject } from '../parse/jsonKind';
import type { RuleContext } from './context';
import { hasTiming } from './review/result';
import { infraErrors, isNativeAcp } from './review/mode';
import { hasRewardOrScore, positiveTokens } from './review/resultsRow';
import type { TrajectoryResult } from './trajectory';

export interface NativeTimeoutResult {
  /** The row reports a native ACP timeout, so this contract, not the success branch, judges it. */
  readonly candidate: boolean;
  /** Its evidence is complete: a countable, non-successful, never training-ready outcome. */
  readonly accepted: boolean;
}

const timeoutStops: ReadonlySet<unknown> = new Set(['agent_error', 'agent_timeout']);

export function checkNativeTimeout(context: RuleContext, trajectory: TrajectoryResult): NativeTimeoutResult {
  const result = context.bundle.facts('result', 'result')?.value;
  const results = context.bundle.facts('results', 'results');
  const row = results?.count === 1 ? results.rows[0] : undefined;
  if (!result || !row || !isNativeAcp(context)) return { candidate: false, accepted: false };
  const value = row.value;
  const timedOut =
    value['error'] !== null && value['error'] !== undefined && value['is_completed'] === false && timeoutStops.has(value['stop_condition']) && (isJsonObject(result['agent_timeout_info']) || isJsonObject(result['idle_timeout_info']));
  if (!timedOut || infraErrors(result).length > 0) return { candidate: false, accepted: false };

  const info = isJsonObject(value['info']) ? value['info'] : {};
  const agentResult = isJsonObject(result['agent_result']) ? result['agent_result'] : {};
  const nativeUsage = positiveTokens(value['token_usage']) || (Number(agentResult['n_input_tokens']) > 0 && Number(agentResult['n_output_tokens']) > 0);
  const noSynthesizedData = value['completion'] === null && (value['trajectory'] === null || (Array.isArray(value['trajectory']) && value['trajectory'].length === 0));
  const missing = [
    ...(nativeUsage ? [] : ['positive native usage (input and output tokens)']),
    ...(hasTiming(result) ? [] : ['timing in result.json']),
    ...(hasRewardOrScore(value) ? [] : ['a reward or score']),
    ...(trajectory.unresolved === undefined
      ? ['terminal trajectory evidence (trajectory/acp_trajectory.jsonl is missing)']
      : trajectory.unresolved.length > 0
        ? [`terminal trajectory evidence (${trajectory.unresolved.length} tool call${trajectory.unresolved.length === 1 ? '' : 's'} unresolved)`]
        : []),
    ...(info['training_ready'] === false && typeof info['training_ready_reason'] === 'string' && info['training_ready_reason'] !== '' ? [] : ['training_ready false with a reason']),
    ...(noSynthesizedData ? [] : ['no synthesized training data (completion null, trajectory empty)']),
  ];
  if (missing.length > 0) {
    context.report('native-timeout-incomplete', context.inRecord(context.bundle.pathOf('results'), row.ref, ['stop_condition']), `This native ACP timeout is not countable yet; it lacks: ${missing.join('; ')}.`);
  }
  return { candidate: true, accepted: missing.length === 0 };
}
