/**
 * Validator parity on result.json: token usage, timing, tool calls, a reward, and no infrastructure
 * failure passed off as an agent outcome.
 */
import { rolloutFiles } from '../../../../../shared/src/layout';
import { describeValue, isJsonObject, type JsonObject } from '../../parse/jsonKind';
import { validatorResultReward } from '../../model/reward';
import type { RuleContext } from '../context';
import { infraErrors } from './mode';

export function checkResult(context: RuleContext): void {
  const facts = context.bundle.facts('result', 'result');
  const result = facts?.value;
  if (!facts || !result) return;
  const file = context.bundle.pathOf('result');
  const top = context.inDocument(file, facts);

  const tokens = tokenTotal(result);
  if (!tokens || tokens.total <= 0) {
    context.report(
      'review-no-tokens',
      tokens ? context.inDocument(file, facts, tokens.path) : top,
      tokens
        ? `${rolloutFiles.result}'s token total is ${tokens.label} = ${tokens.total}, the first total the validator finds (it reads agent_result, then token_usage, then the top level: total_tokens, else input + output, else prompt + completion); it needs a positive one.`
        : `${rolloutFiles.result} has no token total the validator can read: it looked in ${tokenPlaces} for an integer total_tokens, or integer input and output (or prompt and completion) counts, and found none.`,
    );
  }
  if (!hasTiming(result))
    context.report(
      'review-no-timing',
      top,
      `${rolloutFiles.result} has no usable timing: it needs started_at with finished_at or timing.total, or timing.started_at with timing.ended_at or timing.duration_seconds; of those it holds ${timingFieldsPresent(result)}.`,
    );
  const tools = toolCallCount(result);
  if (tools.count <= 0)
    context.report(
      'review-no-tool-calls',
      context.inDocument(file, facts, tools.path, 'key'),
      `${tools.found}, so the validator counts 0 tool calls${unreadCounts(context, result)}.`,
    );
  const reward = validatorResultReward(result);
  if (reward.value === null || reward.value === undefined) {
    const key = 'rewards' in result || !('reward' in result) ? 'rewards' : 'reward';
    const found = isJsonObject(result['rewards'])
      ? `rewards.reward is ${reward.value === null ? 'null' : 'absent'}`
      : `rewards is ${describePresent(result['rewards'])} and reward is ${describePresent(result['reward'])}`;
    context.report(
      'review-no-reward',
      context.inDocument(file, facts, [key], 'key'),
      `${rolloutFiles.result} holds no reward: ${found}.`,
    );
  }
  for (const { field, marker } of infraErrors(result)) {
    const what = marker
      ? `mentions "${marker}": an infrastructure or provider failure`
      : `is ${describeValue(result[field])}, which cannot be read, so it may name an infrastructure or provider failure`;
    context.report(
      'review-infra-error',
      context.inDocument(file, facts, [field]),
      `${field} ${what}, not an agent outcome, so the reward says nothing about the agent.`,
    );
  }
}

const tokenPlaces = 'agent_result, token_usage and the top level';

/**
 * The validator's numeric_token_total, where it found it: per place (agent_result, token_usage, the top
 * level), an integer total_tokens (n_total_tokens when total_tokens is falsy, as Python's `or` reads
 * it), else integer input and output counts, else integer prompt and completion counts.
 */
function tokenTotal(result: JsonObject): { total: number; path: string[]; label: string } | undefined {
  const places: [JsonObject, string[]][] = [];
  for (const key of ['agent_result', 'token_usage']) {
    const place = result[key];
    if (isJsonObject(place)) places.push([place, [key]]);
  }
  places.push([result, []]);
  for (const [place, path] of places) {
    const totalKey = pythonTruthy(place['total_tokens']) ? 'total_tokens' : 'n_total_tokens';
    const total = place[totalKey];
    const prefix = path.length > 0 ? `${path[0]}.` : '';
    if (isInteger(total)) return { total, path: [...path, totalKey], label: `${prefix}${totalKey} (${total})` };
    const inputKey =
      place['n_input_tokens'] !== null && place['n_input_tokens'] !== undefined ? 'n_input_tokens' : 'input_tokens';
    const outputKey =
      place['n_output_tokens'] !== null && place['n_output_tokens'] !== undefined ? 'n_output_tokens' : 'output_tokens';
    for (const [input, output] of [
      [inputKey, outputKey],
      ['prompt_tokens', 'completion_tokens'],
    ] as const) {
      const a = place[input];
      const b = place[output];
      if (isInteger(a) && isInteger(b))
        return { total: a + b, path: [...path, input], label: `${prefix}${input} (${a}) + ${prefix}${output} (${b})` };
    }
  }
  return undefined;
}

function pythonTruthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  return !isJsonObject(value) || Object.keys(value).length > 0;
}

/** A timing field the validator accepts: any value but absent, null or the empty string. */
function isPresentTiming(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '';
}

export function hasTiming(result: JsonObject): boolean {
  const timing = isJsonObject(result['timing']) ? result['timing'] : undefined;
  const present = isPresentTiming;
  return (
    (present(result['started_at']) && (present(result['finished_at']) || present(timing?.['total']))) ||
    (present(timing?.['started_at']) && (present(timing?.['ended_at']) || present(timing?.['duration_seconds'])))
  );
}

/** The validator's tool_usage_count: an integer n_tool_calls, else the integers of tool_usage; with where it looked and what it found. */
function toolCallCount(result: JsonObject): { count: number; path: string[]; found: string } {
  const count = result['n_tool_calls'];
  if (isInteger(count))
    return {
      count,
      path: ['n_tool_calls'],
      found: `${rolloutFiles.result}'s top-level n_tool_calls, the count the validator reads first, is ${count}`,
    };
  const usage = result['tool_usage'];
  if (isJsonObject(usage)) {
    const counts = Object.values(usage).filter(isInteger);
    const sum = counts.reduce((total, value) => total + value, 0);
    const entries = Object.keys(usage).length;
    return {
      count: sum,
      path: ['tool_usage'],
      found: `${rolloutFiles.result} has no integer top-level n_tool_calls (found ${describePresent(count)}), so the validator summed the integer values of tool_usage: ${counts.length} of its ${entries} entr${entries === 1 ? 'y' : 'ies'}, totalling ${sum}`,
    };
  }
  return {
    count: 0,
    path: [],
    found: `${rolloutFiles.result} has no integer top-level n_tool_calls (found ${describePresent(count)}) and no tool_usage object, the only two places the validator reads`,
  };
}

/**
 * Counts the validator does not read (agent_result.n_tool_calls, the ACP trajectory's tool_call rows),
 * named so that the finding does not say the agent made no tool call when the bundle shows it did.
 */
function unreadCounts(context: RuleContext, result: JsonObject): string {
  const agentResult = result['agent_result'];
  const agentCount = isJsonObject(agentResult) ? agentResult['n_tool_calls'] : undefined;
  const rows = context.model.toolCalls?.written ?? 0;
  const unread = [
    ...(typeof agentCount === 'number' && agentCount > 0
      ? [`agent_result.n_tool_calls, which says ${agentCount}`]
      : []),
    ...(rows > 0 ? [`the ${rows} tool_call row${rows === 1 ? '' : 's'} of ${rolloutFiles.acpTrajectory}`] : []),
  ];
  return unread.length > 0 ? ` (it does not read ${unread.join(', nor ')})` : '';
}

/** Which of the timing fields the validator reads result.json holds, for a message that says what was there. */
function timingFieldsPresent(result: JsonObject): string {
  const timing = isJsonObject(result['timing']) ? result['timing'] : undefined;
  const fields: [string, unknown][] = [
    ['started_at', result['started_at']],
    ['finished_at', result['finished_at']],
    ['timing.total', timing?.['total']],
    ['timing.started_at', timing?.['started_at']],
    ['timing.ended_at', timing?.['ended_at']],
    ['timing.duration_seconds', timing?.['duration_seconds']],
  ];
  const present = fields.filter(([, value]) => isPresentTiming(value)).map(([name]) => name);
  return present.length > 0 ? `only ${present.join(', ')}` : 'none (absent, null or empty)';
}

function isInteger(value: unknown): value is number {
  return Number.isInteger(value);
}

/** A value as a message names it, saying "absent" for a key the file does not have. */
function describePresent(value: unknown): string {
  return value === undefined ? 'absent' : describeValue(value);
}
