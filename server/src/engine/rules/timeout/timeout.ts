/**
 * Did this rollout time out? The one place that decides it, from the rollout's own evidence: BenchFlow's
 * timeout diagnostics in result.json (`agent_timeout_info`, `idle_timeout_info`), the `agent_timeout`
 * row of the trajectory, the timeout categories and messages BenchFlow writes into `error`, and a
 * results row that stops on `agent_timeout`. Native or not, wall-clock or idle. An infrastructure or
 * provider failure is never an agent timeout, even when timeout information is also present: its
 * reward says nothing about the agent, and calling it a timeout would make it countable. Where the
 * trajectory's last agent_timeout row is uncertain (a row whose type cannot be taken at its word may be
 * it), whether the rollout timed out may be only maybe: it is decided for each reading of that row.
 */
import { rolloutFiles } from '../../../../../shared/src/layout';
import { isJsonObject, type JsonObject } from '../../parse/jsonKind';
import type { RuleContext } from '../context';
import type { TimeoutFact } from '../../facts/facts';
import { lastTimeoutReadings, type MarkerReading } from '../../model/rowReadings';
import { infraErrors, isNativeAcp } from '../review/mode';

export type TimeoutKind = 'wall-clock' | 'idle' | 'unspecified';

export interface RolloutTimeout {
  /** Which budget ran out: BenchFlow's wall-clock prompt budget, its idle watchdog, or not said. */
  readonly kind: TimeoutKind;
  /** Usage came from the ACP peer and there is no provider trajectory (the #1079 gap 3 case). */
  readonly native: boolean;
  /** What in the bundle says the rollout timed out, in words, for messages. */
  readonly evidence: readonly string[];
}

/** BenchFlow's error categories (`_utils/scoring.py`, `diagnostics.py`) of failures that are not the agent's. */
const infraCategories: ReadonlySet<unknown> = new Set([
  'pipe_closed',
  'sandbox_setup',
  'infra_failure',
  'install_failure',
  'api_error',
  'suspected_api_error',
  'provider_auth',
  'provider_rate_limit',
  'provider_rejected',
]);
/** BenchFlow's diagnostics of failures that are not the agent's; each is null when absent. */
const infraDiagnostics = [
  'transport_error_info',
  'sandbox_startup_info',
  'api_error_info',
  'suspected_api_error_info',
] as const;

/** The messages of BenchFlow's own timeout errors (`acp/runtime.py`), then any other timeout wording. */
const wallClockMessage = /exceeded wall-clock budget/i;
const idleMessage = /agent idle for/i;
const timeoutMessage = /timed out|timeout/i;

/** The rollout's timeout in one way its last agent_timeout row may be read. */
export interface TimeoutReading extends MarkerReading {
  /** Whether and how the rollout timed out in this reading; undefined when it did not. */
  readonly timeout: RolloutTimeout | undefined;
}

/**
 * Whether and how the rollout timed out, in each way its last agent_timeout row may be read
 * (model/rowReadings.ts `lastTimeoutReadings`), as written first: it surely timed out when it did in
 * every reading, maybe when in some. Rules read each reading their conclusion depends on.
 */
export function timeoutReadingsOf(context: RuleContext): readonly [TimeoutReading, ...TimeoutReading[]] {
  const [written, ...others] = lastTimeoutReadings(context.bundle.facts('trajectory', 'acp-trajectory'));
  const result = context.bundle.facts('result', 'result')?.value;
  if (result && infraFailure(result)) {
    const noTimeout = (reading: MarkerReading): TimeoutReading => ({ ...reading, timeout: undefined });
    return [noTimeout(written), ...others.map(noTimeout)];
  }
  const documented = documentedTimeout(context, result);
  const native = isNativeAcp(context);
  const withTimeout = (reading: MarkerReading): TimeoutReading => ({
    ...reading,
    timeout: timeoutWith(documented, reading.marker, native),
  });
  return [withTimeout(written), ...others.map(withTimeout)];
}

/** What result.json and the results row say of a timeout, whatever the trajectory's rows are read as. */
interface DocumentedTimeout {
  readonly wallClock: readonly string[];
  readonly idle: readonly string[];
  readonly unspecified: readonly string[];
}

function documentedTimeout(context: RuleContext, result: JsonObject | undefined): DocumentedTimeout {
  const row = context.bundle.facts('results', 'results')?.rows[0]?.value;
  const wallClock: string[] = [];
  const idle: string[] = [];
  const unspecified: string[] = [];
  if (result) {
    if (isJsonObject(result['agent_timeout_info'])) wallClock.push(`${rolloutFiles.result} agent_timeout_info`);
    if (isJsonObject(result['idle_timeout_info'])) idle.push(`${rolloutFiles.result} idle_timeout_info`);
    const category = result['error_category'];
    if (category === 'timeout') wallClock.push(`${rolloutFiles.result} error_category "timeout"`);
    if (category === 'idle_timeout') idle.push(`${rolloutFiles.result} error_category "idle_timeout"`);
    const error = result['error'];
    if (typeof error === 'string') {
      if (wallClockMessage.test(error))
        wallClock.push(`${rolloutFiles.result} error (BenchFlow's wall-clock budget message)`);
      else if (idleMessage.test(error)) idle.push(`${rolloutFiles.result} error (BenchFlow's idle watchdog message)`);
      else if (timeoutMessage.test(error)) unspecified.push(`${rolloutFiles.result} error (a timeout message)`);
    }
  }
  if (row?.['stop_condition'] === 'agent_timeout')
    unspecified.push(`${rolloutFiles.results} stop_condition "agent_timeout"`);
  return { wallClock, idle, unspecified };
}

function timeoutWith(
  { wallClock, idle, unspecified }: DocumentedTimeout,
  marker: TimeoutFact | undefined,
  native: boolean,
): RolloutTimeout | undefined {
  const markerEvidence = marker
    ? [`the agent_timeout row (${rolloutFiles.acpTrajectory} line ${marker.ref.line + 1})`]
    : [];
  const evidence = [...markerEvidence, ...wallClock, ...idle, ...unspecified];
  if (evidence.length === 0) return undefined;
  const kind: TimeoutKind =
    markerEvidence.length > 0 || wallClock.length > 0 ? 'wall-clock' : idle.length > 0 ? 'idle' : 'unspecified';
  return { kind, native, evidence };
}

function infraFailure(result: JsonObject): boolean {
  return (
    infraErrors(result).length > 0 ||
    infraCategories.has(result['error_category']) ||
    infraDiagnostics.some((field) => isJsonObject(result[field]))
  );
}
