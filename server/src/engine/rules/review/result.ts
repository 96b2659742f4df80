/**
 * Validator parity on result.json: token usage, timing, tool calls, a reward, and no infrastructure
 * failure passed off as an agent outcome.
 */
import { describeValue, isJsonObject, type JsonObject } from '../../parse/jsonKind';
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
    context.report('review-no-tokens', tokens ? context.inDocument(file, facts, tokens.path) : top, tokens ? `result.json's token total is ${tokens.total} (${tokens.label}, the first total the validator reads); it needs a positive one.` : 'result.json has no token total the validator can read: no integer total_tokens, or input and output counts, in agent_result, token_usage or the top level.');
  }
  if (!hasTiming(result)) context.report('review-no-timing', top, 'result.json has no usable timing: it needs started_at with finished_at or timing.total, or timing.started_at with timing.ended_at or timing.duration_seconds.');
  const tools = toolCallCount(result);
  if (tools.count <= 0) context.report('review-no-tool-calls', context.inDocument(file, facts, tools.path, 'key'), `${tools.found}, so the validator counts no tool call${elsewhereCount(result)}.`);
  const reward = rewardPlace(result);
  if (reward.value === null || reward.value === undefined) {
    const key = 'rewards' in result || !('reward' in result) ? 'rewards' : 'reward';
    const found = isJsonObject(result['rewards']) ? `rewards.reward is ${reward.value === null ? 'null' : 'absent'}` : `rewards is ${describePresent(result['rewards'])} and reward is ${describePresent(result['reward'])}`;
    context.report('review-no-reward', context.inDocument(file, facts, [key], 'key'), `result.json holds no reward: ${found}.`);
  }
  for (const { field, marker } of infraErrors(result)) {
    context.report('review-infra-error', context.inDocument(file, facts, [field]), `${field} mentions "${marker}": an infrastructure or provider failure, not an agent outcome, so the reward says nothing about the agent.`);
  }
}

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
    if (isInteger(total)) return { total, path: [...path, totalKey], label: `${prefix}${totalKey}` };
    const inputKey = place['n_input_tokens'] !== null && place['n_input_tokens'] !== undefined ? 'n_input_tokens' : 'input_tokens';
    const outputKey = place['n_output_tokens'] !== null && place['n_output_tokens'] !== undefined ? 'n_output_tokens' : 'output_tokens';
    for (const [input, output] of [
      [inputKey, outputKey],
      ['prompt_tokens', 'completion_tokens'],
    ] as const) {
      const a = place[input];
      const b = place[output];
      if (isInteger(a) && isInteger(b)) return { total: a + b, path: [...path, input], label: `${prefix}${input} + ${output}` };
    }
  }
  return undefined;
}

function pythonTruthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  return !isJsonObject(value) || Object.keys(value).length > 0;
}

export function hasTiming(result: JsonObject): boolean {
  const timing = isJsonObject(result['timing']) ? result['timing'] : undefined;
  const present = (value: unknown) => value !== undefined && value !== null && value !== '';
  return (present(result['started_at']) && (present(result['finished_at']) || present(timing?.['total']))) || (present(timing?.['started_at']) && (present(timing?.['ended_at']) || present(timing?.['duration_seconds'])));
}

/** The validator's tool_usage_count: an integer n_tool_calls, else the integers of tool_usage; with where it looked and what it found. */
function toolCallCount(result: JsonObject): { count: number; path: string[]; found: string } {
  const count = result['n_tool_calls'];
  if (isInteger(count)) return { count, path: ['n_tool_calls'], found: `result.json n_tool_calls is ${count}` };
  const usage = result['tool_usage'];
  if (isJsonObject(usage)) {
    const sum = Object.values(usage).reduce<number>((total, value) => total + (isInteger(value) ? value : 0), 0);
    return { count: sum, path: ['tool_usage'], found: `result.json tool_usage counts ${sum} tool call${sum === 1 ? '' : 's'}` };
  }
  return { count: 0, path: [], found: `result.json has no integer n_tool_calls (found ${describePresent(count)}) and no tool_usage object` };
}

/** A count elsewhere in result.json that the validator does not read, named so the finding does not say the agent did nothing. */
function elsewhereCount(result: JsonObject): string {
  const agentResult = result['agent_result'];
  const count = isJsonObject(agentResult) ? agentResult['n_tool_calls'] : undefined;
  return typeof count === 'number' && count > 0 ? ` (agent_result.n_tool_calls says ${count}, but the validator reads only the top-level count)` : '';
}

function isInteger(value: unknown): value is number {
  return Number.isInteger(value);
}

/** The validator's reward_present reads rewards.reward when rewards is an object, else the top-level reward; any value but null counts. */
function rewardPlace(result: JsonObject): { path: string[]; value: unknown } {
  const rewards = result['rewards'];
  return isJsonObject(rewards) ? { path: ['rewards', 'reward'], value: rewards['reward'] } : { path: ['reward'], value: result['reward'] };
}

/** A value as a message names it, saying "absent" for a key the file does not have. */
function describePresent(value: unknown): string {
  return value === undefined ? 'absent' : describeValue(value);
}
