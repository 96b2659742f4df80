/**
 * Where on the picture's axis each record goes. With times, the axis is milliseconds from the rollout's
 * start (model/rolloutStart.ts; earlier when something is recorded before it): action records by their own timestamps, and trajectory rows (which BenchFlow writes without
 * times) spread in line order over the agent's execution window that result.json gives. Without them,
 * the axis is line order: the trajectory's rows first, then the action records, then the reward.
 */
import { rolloutFiles } from '../../../../shared/src/layout';
import type { TimelineAxis } from '../../../../shared/src/timelinePicture';
import type { RolloutBundle } from '../bundle/rollout';
import type { RolloutModel } from '../model/rolloutModel';
import { isJsonObject, type JsonObject } from '../parse/jsonKind';
import type { Step } from '../model/actions';
import { parseTimestamp } from '../parse/timestamps';

export interface Span {
  readonly start: number;
  readonly end: number;
}

export interface Placement {
  readonly axis: TimelineAxis;
  /** A trajectory row's stretch of the axis. */
  readonly trajectoryRow: (line: number) => Span;
  /** Each action step's stretch, by index in the action sequence. */
  readonly actionSteps: readonly Span[];
  /** Where the reward goes: the rollout's end. */
  readonly end: number;
  /** Trajectory rows were spread over a window rather than timed. */
  readonly trajectoryApproximate: boolean;
  readonly notices: readonly string[];
}

/** The trajectory's length in lines: its rows, or further when a kept row lies beyond (blank lines). */
export function trajectoryLines(bundle: RolloutBundle): number {
  const facts = bundle.facts('trajectory', 'acp-trajectory');
  if (!facts) return 0;
  let last = facts.rows;
  for (const list of [facts.toolCalls, facts.prompts, facts.lifecycles, facts.timeouts]) {
    const tail = list[list.length - 1];
    if (tail) last = Math.max(last, tail.ref.line + 1);
  }
  return last;
}

export function placeRecords({ bundle, actions: { steps }, start: rolloutStart }: RolloutModel): Placement {
  const rows = trajectoryLines(bundle);
  const result = bundle.facts('result', 'result')?.value;
  const actionTimes = steps.map((step) => actionSpanOf(step));
  // Loops, not Math.min(...spread): an action log may have 100,000 records.
  let timedActions = 0;
  let firstActionTime: number | undefined;
  let lastActionTime: number | undefined;
  for (const span of actionTimes) {
    if (!span) continue;
    timedActions++;
    if (firstActionTime === undefined || span.start < firstActionTime) firstActionTime = span.start;
    if (lastActionTime === undefined || span.end > lastActionTime) lastActionTime = span.end;
  }
  const window = rows > 0 ? agentWindow(result, firstActionTime) : undefined;

  const missing: string[] = [];
  if (steps.length > 0 && timedActions === 0) missing.push('the action records carry no started_at or finished_at');
  if (rows > 0 && !window)
    missing.push(`the trajectory's rows carry no times and ${rolloutFiles.result} gives no agent execution window`);
  if (missing.length > 0 || (timedActions === 0 && !window)) return orderPlacement(rows, steps.length, missing);

  const resultEnd = parseTimestamp(result?.['finished_at']);
  // Nothing is drawn before the origin: the rollout's start, unless the agent's window or a record begins earlier.
  const origin = Math.min(
    ...[rolloutStart?.time, window?.start, firstActionTime].filter((time): time is number => time !== undefined),
  );
  const actionSteps: Span[] = [];
  let untimed = 0;
  let previousEnd = window ? window.end : origin;
  for (let index = 0; index < steps.length; index++) {
    const span = actionTimes[index];
    if (span) {
      actionSteps.push({ start: span.start - origin, end: span.end - origin });
      previousEnd = span.end;
    } else {
      // Placed just after the record above it, as the rules read it: line order.
      untimed++;
      actionSteps.push({ start: previousEnd - origin, end: previousEnd - origin });
    }
  }
  const latest = Math.max(window ? window.end : origin, lastActionTime ?? origin, resultEnd ?? origin);
  const notices: string[] = [];
  if (rows > 0)
    notices.push(
      `Trajectory rows carry no times: prompts and tool calls are spread in line order over the agent's execution window from ${rolloutFiles.result}.`,
    );
  if (untimed > 0)
    notices.push(
      `${untimed} action record${untimed === 1 ? '' : 's'} carry no time and are placed after the record above.`,
    );
  const start = window ? window.start - origin : 0;
  const length = window ? window.end - window.start : 0;
  return {
    axis: 'time',
    trajectoryRow: (line) => ({ start: start + (length * line) / rows, end: start + (length * (line + 1)) / rows }),
    actionSteps,
    end: latest - origin,
    trajectoryApproximate: rows > 0,
    notices,
  };
}

function orderPlacement(rows: number, actions: number, missing: readonly string[]): Placement {
  const reason = missing.length > 0 ? missing.join(', and ') : 'the bundle has no timestamps';
  return {
    axis: 'order',
    trajectoryRow: (line) => ({ start: line, end: line + 1 }),
    actionSteps: Array.from({ length: actions }, (_, index) => ({ start: rows + index, end: rows + index + 1 })),
    end: rows + actions,
    trajectoryApproximate: false,
    notices: [
      `Line order, not time: ${reason}. The trajectory's rows come first, then the action records, then the reward.`,
    ],
  };
}

function actionSpanOf(step: Step): Span | undefined {
  const time = step.reading.time;
  if (!time) return undefined;
  const finished = parseTimestamp(step.action.record.finishedAt);
  return { start: time.value, end: finished !== undefined && finished >= time.value ? finished : time.value };
}

/** When the agent ran: result.json's timing (Harbor's `{started_at, finished_at}` or BenchFlow's seconds), else from its start to the first action. */
function agentWindow(result: JsonObject | undefined, firstActionTime: number | undefined): Span | undefined {
  if (!result) return undefined;
  const timing = isJsonObject(result['timing']) ? result['timing'] : undefined;
  for (const candidate of [timing?.['agent_execution'], result['agent_execution']]) {
    if (!isJsonObject(candidate)) continue;
    const start = parseTimestamp(candidate['started_at']);
    const end = parseTimestamp(candidate['finished_at']);
    if (start !== undefined && end !== undefined && end > start) return { start, end };
  }
  const start = parseTimestamp(result['started_at']) ?? (timing ? parseTimestamp(timing['started_at']) : undefined);
  if (start === undefined) return undefined;
  const seconds = timing?.['agent_execution'];
  if (typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0)
    return { start, end: start + seconds * 1000 };
  return firstActionTime !== undefined && firstActionTime > start ? { start, end: firstActionTime } : undefined;
}
