/**
 * Validator parity on result.json: token usage, timing, tool calls, a reward, and no infrastructure
 * failure passed off as an agent outcome.
 */
import { isJsonObject, type JsonObject } from '../../parse/jsonKind';
import type { RuleContext } from '../context';
import { infraErrors } from './mode';

export function checkResult(context: RuleContext): void {
  const facts = context.bundle.facts('result', 'result');
  const result = facts?.value;
  if (!facts || !result) return;
  const file = context.bundle.pathOf('result');
  const top = context.inDocument(file, facts);

  if (tokenTotal(result) <= 0) context.report('review-no-tokens', top, 'result.json shows no positive token total (agent_result, token_usage or the top level).');
  if (!hasTiming(result)) context.report('review-no-timing', top, 'result.json has no usable timing: it needs started_at with finished_at or timing.total, or timing.started_at with timing.ended_at or timing.duration_seconds.');
  if (toolCallCount(result) <= 0) context.report('review-no-tool-calls', context.inDocument(file, facts, ['n_tool_calls'], 'key'), 'result.json shows no tool calls: the agent did nothing the verifier could grade.');
  if (rewardOf(result) === undefined) {
    const key = 'rewards' in result || !('reward' in result) ? 'rewards' : 'reward';
    context.report('review-no-reward', context.inDocument(file, facts, [key], 'key'), 'result.json holds no reward.');
  }
  for (const { field, marker } of infraErrors(result)) {
    context.report('review-infra-error', context.inDocument(file, facts, [field]), `${field} mentions "${marker}": an infrastructure or provider failure, not an agent outcome, so the reward says nothing about the agent.`);
  }
}

/** The validator's numeric_token_total: the first usable total, in its order of places and keys. */
function tokenTotal(result: JsonObject): number {
  for (const place of [result['agent_result'], result['token_usage'], result]) {
    if (!isJsonObject(place)) continue;
    const number = (key: string) => {
      const found = place[key];
      return typeof found === 'number' ? found : undefined;
    };
    const total = number('total_tokens') ?? number('n_total_tokens');
    if (total !== undefined) return total;
    for (const [input, output] of [
      ['n_input_tokens', 'n_output_tokens'],
      ['input_tokens', 'output_tokens'],
      ['prompt_tokens', 'completion_tokens'],
    ] as const) {
      const a = number(input);
      const b = number(output);
      if (a !== undefined || b !== undefined) return (a ?? 0) + (b ?? 0);
    }
  }
  return 0;
}

export function hasTiming(result: JsonObject): boolean {
  const timing = isJsonObject(result['timing']) ? result['timing'] : undefined;
  const present = (value: unknown) => value !== undefined && value !== null && value !== '';
  return (present(result['started_at']) && (present(result['finished_at']) || present(timing?.['total']))) || (present(timing?.['started_at']) && (present(timing?.['ended_at']) || present(timing?.['duration_seconds'])));
}

function toolCallCount(result: JsonObject): number {
  const count = result['n_tool_calls'];
  if (isInteger(count)) return count;
  const usage = result['tool_usage'];
  if (!isJsonObject(usage)) return 0;
  return Object.values(usage).reduce<number>((sum, value) => sum + (isInteger(value) ? value : 0), 0);
}

function isInteger(value: unknown): value is number {
  return Number.isInteger(value);
}

/** rewards.reward when rewards is an object, else the top-level reward. */
function rewardOf(result: JsonObject): number | undefined {
  const rewards = result['rewards'];
  const reward = isJsonObject(rewards) ? rewards['reward'] : result['reward'];
  return typeof reward === 'number' ? reward : undefined;
}
