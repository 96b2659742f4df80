/**
 * Validator parity on the results row: no leaked keys, the right task, a training_ready flag that
 * matches how the rollout ended, and a well-formed conversation.
 */
import { rolloutFiles } from '../../../../../shared/src/layout';
import type { ResultsRowFact } from '../../facts/facts';
import { arrayOrEmpty, describeValue, isJsonObject, valueAt, type JsonObject } from '../../parse/jsonKind';
import { rowHasRewardOrScore } from '../../model/reward';
import { keyForFinding, unreadableText } from '../../schema/knownKeys';
import type { Place, RuleContext } from '../context';
import { selectedExchanges } from './llm';
import type { RowReadings } from '../../model/rowReadings';
import type { RolloutTimeout, TimeoutReading } from '../timeout/timeout';
import { nativeSubscriptionMode, terminalErrorReadings } from './mode';

const bannedKeys = [
  'gold',
  'gold_solution',
  'verify_source',
  'tools_py',
  'initial_db',
  'db_json',
  'target_constants',
  'private_reasoning',
  'reasoning_content',
  'thinking_blocks',
];
const bannedMessageKeys = [
  'reasoning_content',
  'thinking_blocks',
  'private_reasoning',
  'provider_specific_fields',
  'function_call',
];
const roles = new Set(['system', 'user', 'assistant', 'tool']);

export interface ResultsRowOptions {
  /**
   * Whether the rollout timed out, in each reading of its trajectory's last agent_timeout row, as written
   * first: where it did, its row is judged as a timeout, never by the success-only checks; where it did
   * not, by the checks of a row that did not. A rollout that may have timed out is judged both ways.
   */
  readonly timeouts: readonly TimeoutReading[];
}

/**
 * Every row that can be read is judged. The validator reads a file of exactly one row, and fails one of
 * more (review-results-rows), but each readable row may be the rollout's: a second row, or a line after
 * it that never ends, must not take away what the first row shows against the reward.
 */
export function checkResultsRow(context: RuleContext, options: ResultsRowOptions): void {
  for (const row of context.bundle.facts('results', 'results')?.rows ?? []) checkRow(context, row, options);
}

function checkRow(context: RuleContext, row: ResultsRowFact, options: ResultsRowOptions): void {
  const file = context.bundle.pathOf('results');
  const value = row.value;
  const at = (path: readonly (string | number)[], part: 'value' | 'key' = 'value') =>
    context.inRecord(file, row.ref, path, part);
  const result = context.bundle.facts('result', 'result')?.value;

  for (const name of bannedKeys) {
    const key = keyForFinding('results', [], value, name);
    if (Object.prototype.hasOwnProperty.call(value, key))
      context.report(
        'review-banned-key',
        at([key], 'key'),
        `The results row carries "${key}"${key === name ? '' : `, shaped like "${name}"`}, which must never be exported with a rollout.`,
      );
  }
  // A finding against the reward: a damaged info key (`infU`) still carries the row's claims.
  const infoName = keyForFinding('results', [], value, 'info');
  const info = value[infoName];
  if (!isJsonObject(info)) {
    context.report(
      'review-results-rows',
      info === undefined ? at([]) : at([infoName]),
      `The results row needs an "info" object; ${info === undefined ? 'it has no info' : `its info is ${describeValue(info)}`}.`,
    );
    // As a training_ready that is no boolean below: a training claim that cannot be read is never taken as a harmless one.
    if (info !== undefined)
      context.report(
        'review-training-ready',
        at([infoName]),
        `info.training_ready must be true or false; it cannot be read from an info that is ${describeValue(info)}.`,
      );
    return;
  }
  // A mismatch is a finding against the reward, so a damaged task key still names its task.
  const infoKey = (name: string) => keyForFinding('results', ['info'], info, name);
  const rowTaskPath = info[infoKey('task_id')]
    ? [infoName, infoKey('task_id')]
    : info[infoKey('task_name')]
      ? [infoName, infoKey('task_name')]
      : [keyForFinding('results', [], value, 'task_name')];
  // A task named by a value no writer gives (a number, a list) may name any task: it is never read as the same one.
  const unreadableTask = ['task_id', 'task_name']
    .map((name) => ({ name, key: infoKey(name) }))
    .find(({ name, key }) => unreadableText(info[key], key, name))?.key;
  const rowTask = valueAt(value, rowTaskPath);
  const resultTaskKey = result ? keyForFinding('result', [], result, 'task_name') : 'task_name';
  const resultTask = result?.[resultTaskKey];
  // A task result.json names with a value no writer gives (0, or null under a damaged key) cannot be read as the same task either.
  const resultTaskUnreadable = unreadableText(resultTask, resultTaskKey, 'task_name');
  if (
    (resultTask || resultTaskUnreadable) &&
    (unreadableTask || resultTaskUnreadable || (rowTask && rowTask !== resultTask))
  ) {
    const resultPlace = context.inDocument(context.bundle.pathOf('result'), context.bundle.facts('result', 'result'), [
      resultTaskKey,
    ]);
    const row = unreadableTask
      ? `names its task with ${describeValue(info[unreadableTask])} (info.${unreadableTask}), which cannot be read as the same task`
      : `is for task ${describeValue(rowTask)}`;
    context.report(
      'review-task-mismatch',
      at(unreadableTask ? [infoName, unreadableTask] : rowTaskPath),
      `The results row ${row}, but ${rolloutFiles.result} is for ${describeValue(resultTask)}${resultTaskUnreadable ? ', which cannot be read as a task' : ''}.`,
      {
        related: [context.related(resultPlace, `${rolloutFiles.result}'s task`)],
      },
    );
  }
  const trainingReady = info['training_ready'];
  if (typeof trainingReady !== 'boolean') {
    context.report(
      'review-training-ready',
      at([infoName, 'training_ready']),
      'info.training_ready must be true or false.',
    );
    return;
  }
  // What both ways find at one place in the same words is found once.
  const flagged = new Set<string>();
  const flagUnder =
    (rows: RowReadings): Flag =>
    (message, path = [infoName, 'training_ready']) => {
      const key = `${path.join('\u0000')}\u0000${message}`;
      if (flagged.has(key)) return;
      flagged.add(key);
      context.report('review-training-ready', at(path), message, { holdsWhen: rows.note });
    };
  const nativeMode = nativeSubscriptionMode(context);
  const timedOut = options.timeouts.find((reading) => reading.timeout !== undefined);
  const notTimedOut = options.timeouts.find((reading) => reading.timeout === undefined);
  if (timedOut?.timeout) checkTimeoutRow(value, info, timedOut.timeout, nativeMode, flagUnder(timedOut.rows));
  if (notTimedOut) {
    if (nativeMode) checkNativeSubscriptionRow(value, info, flagUnder(notTimedOut.rows));
    else checkTrainingReadiness(context, value, info, result, flagUnder(notTimedOut.rows));
  }
  // The validator reads no conversation in native-subscription mode: a native row has none to read.
  if (!nativeMode) checkMessages(context, file, row, value);
}

type Flag = (message: string, path?: readonly (string | number)[]) => void;

/** The validator's rules for a row that is not a timeout: training_ready must match how the rollout ended and what the row holds. */
function checkTrainingReadiness(
  context: RuleContext,
  value: JsonObject,
  info: JsonObject,
  result: JsonObject | undefined,
  flag: Flag,
): void {
  const trainingReady = info['training_ready'] === true;
  const endings = terminalErrorReadings(result);
  const unread =
    endings.length > 1 ? ` (${rolloutFiles.result}'s error fields cannot all be read, so it may have)` : '';
  if (endings.includes(true) && trainingReady)
    flag(
      `The rollout ended with an error or a partial trajectory${unread}, but the row is marked training_ready=true.`,
    );
  if (endings.includes(false) && !trainingReady)
    flag(
      `A healthy rollout${endings.length > 1 ? ` (${rolloutFiles.result}'s error fields cannot all be read, so it may be one)` : ''} is marked training_ready=false.`,
    );
  if (!trainingReady) {
    checkNotTrainingReady(value, info, false, flag);
    return;
  }
  if (value['error'] !== null && value['error'] !== undefined)
    flag('A training-ready row must have error null.', ['error']);
  if (info['training_ready_reason'] !== null && info['training_ready_reason'] !== undefined)
    flag('A training-ready row must have training_ready_reason null.', ['info', 'training_ready_reason']);
  if (value['is_completed'] !== true) flag('A training-ready row must have is_completed true.', ['is_completed']);
  if (value['is_truncated'] === true) flag('A training-ready row must not be truncated.', ['is_truncated']);
  if (
    value['stop_condition'] !== null &&
    value['stop_condition'] !== undefined &&
    value['stop_condition'] !== 'agent_completed'
  )
    flag(`A training-ready row must stop on agent_completed, not ${describeValue(value['stop_condition'])}.`, [
      'stop_condition',
    ]);
  checkTrainingData(context, value, result, flag);
}

/**
 * A timed-out row: never training-ready, and otherwise held to what the validator asks of every row that
 * is not (a reason, and an error payload outside native-subscription mode), never to what it asks of a
 * success (is_completed, stop_condition agent_completed), which a timeout cannot honestly claim.
 */
function checkTimeoutRow(
  value: JsonObject,
  info: JsonObject,
  timeout: RolloutTimeout,
  nativeMode: boolean,
  flag: Flag,
): void {
  if (info['training_ready'] === true) {
    flag(
      `The rollout timed out (${timeout.evidence[0]}), and a timeout is never training-ready, but the row is marked training_ready=true.`,
    );
    return;
  }
  checkNotTrainingReady(value, info, nativeMode, flag);
}

/** A row that is not training-ready says why, and carries its error (the validator waives the error in native-subscription mode). */
function checkNotTrainingReady(value: JsonObject, info: JsonObject, nativeMode: boolean, flag: Flag): void {
  if (typeof info['training_ready_reason'] !== 'string' || info['training_ready_reason'] === '')
    flag('A row that is not training-ready must say why (training_ready_reason).', ['info', 'training_ready_reason']);
  if (!nativeMode && (value['error'] === null || value['error'] === undefined))
    flag('A row that is not training-ready must carry its error.', ['error']);
}

/** The success-only native-subscription branch of PR #1049, as the validator has it. */
function checkNativeSubscriptionRow(value: JsonObject, info: JsonObject, flag: Flag): void {
  if (info['training_ready'] !== false) flag('A native-subscription row must be training_ready=false.');
  if (info['training_ready_reason'] !== 'missing_healthy_structured_llm_trajectory')
    flag('A native-subscription row must give training_ready_reason "missing_healthy_structured_llm_trajectory".', [
      'info',
      'training_ready_reason',
    ]);
  if (value['error'] !== null && value['error'] !== undefined)
    flag('A native-subscription row must have error null.', ['error']);
  if (value['is_completed'] !== true) flag('A native-subscription row must have is_completed true.', ['is_completed']);
  if (value['is_truncated'] !== false)
    flag('A native-subscription row must have is_truncated false.', ['is_truncated']);
  if (value['stop_condition'] !== 'agent_completed')
    flag('A native-subscription row must stop on agent_completed.', ['stop_condition']);
  if (value['completion'] !== null || !(Array.isArray(value['trajectory']) && value['trajectory'].length === 0))
    flag('A native-subscription row must not synthesize training data (completion null, trajectory []).', [
      'completion',
    ]);
  if (!positiveTokenComponents(value['token_usage']))
    flag(
      'A native-subscription row needs positive input and output tokens (the validator does not accept a total alone here).',
      ['token_usage'],
    );
  if (!rowHasRewardOrScore(value)) flag('A native-subscription row needs a reward or score.', ['reward']);
}

/** The extra checks of a training-ready row: its training data must match the LLM trajectory. */
function checkTrainingData(context: RuleContext, value: JsonObject, result: JsonObject | undefined, flag: Flag): void {
  for (const key of ['prompt', 'completion', 'trajectory']) {
    if (arrayOrEmpty(value[key]).length === 0) flag(`A training-ready row needs a non-empty "${key}" list.`, [key]);
  }
  const steps = arrayOrEmpty(value['trajectory']);
  const llm = context.bundle.facts('llm', 'llm-trajectory');
  if (llm && steps.length > 0) {
    const selected = selectedExchanges(llm);
    if (steps.length !== selected.length)
      flag(
        `The row has ${steps.length} training steps, but the LLM trajectory has ${selected.length} successful responses that count.`,
        ['trajectory'],
      );
    const indices = new Set<unknown>();
    steps.forEach((step, index) => {
      const extras = isJsonObject(step) ? step['extras'] : undefined;
      if (
        !isJsonObject(step) ||
        !Array.isArray(step['prompt']) ||
        !Array.isArray(step['completion']) ||
        !isJsonObject(extras) ||
        extras['source'] !== 'llm_trajectory'
      ) {
        flag('Each training step needs list prompt and completion and extras.source "llm_trajectory".', [
          'trajectory',
          index,
        ]);
      } else {
        if (step['is_truncated'] === true) flag('A training step must not be truncated.', ['trajectory', index]);
        indices.add(extras['exchange_index']);
      }
    });
    const expected: ReadonlySet<unknown> = new Set(selected);
    if (indices.size !== expected.size || [...indices].some((index) => !expected.has(index)))
      flag('The steps\u2019 exchange_index values are not the successful exchanges of the LLM trajectory.', [
        'trajectory',
      ]);
  }
  if (!trainingTokenUsage(value['token_usage']))
    flag('A training-ready row needs positive input and output tokens, or a positive total_tokens.', ['token_usage']);
  const metrics = value['metrics'];
  const resultToolCalls = result?.['n_tool_calls'];
  const resultTools = typeof resultToolCalls === 'number' && resultToolCalls > 0;
  if (
    resultTools &&
    !(isJsonObject(metrics) && typeof metrics['n_tool_calls'] === 'number' && metrics['n_tool_calls'] > 0)
  )
    flag('A training-ready row needs metrics.n_tool_calls when the rollout used tools.', ['metrics']);
  if (!rowHasRewardOrScore(value)) flag('A training-ready row needs a reward or score.', ['reward']);
}

function checkMessages(context: RuleContext, file: string, row: ResultsRowFact, value: JsonObject): void {
  const useMessages = Array.isArray(value['messages']);
  const messages = useMessages
    ? arrayOrEmpty(value['messages'])
    : [...arrayOrEmpty(value['prompt']), ...arrayOrEmpty(value['completion'])];
  const base = useMessages ? 'messages' : 'prompt';
  const at = (index?: number, key?: string): Place => {
    if (index === undefined) return context.inRecord(file, row.ref, [base]);
    const promptLength = arrayOrEmpty(value['prompt']).length;
    const path = useMessages
      ? ['messages', index]
      : index < promptLength
        ? ['prompt', index]
        : ['completion', index - promptLength];
    return context.inRecord(file, row.ref, key ? [...path, key] : path, key ? 'key' : 'value');
  };
  const report = (place: Place, message: string) => context.report('review-messages', place, message);
  if (messages.length === 0) {
    report(at(), 'The row has no messages (messages, or prompt and completion).');
    return;
  }
  let assistants = 0;
  let callsTools = false;
  messages.forEach((message, index) => {
    if (!isJsonObject(message)) {
      report(at(index), 'Each message must be an object.');
      return;
    }
    const role = message['role'];
    if (typeof role !== 'string' || !roles.has(role))
      report(
        at(index),
        role === undefined
          ? 'This message has no role; it needs one of system, user, assistant, tool.'
          : `Role ${describeValue(role)} is not one of system, user, assistant, tool.`,
      );
    if (role === 'system' && index !== 0) report(at(index), 'A system message may only come first.');
    if (role === 'assistant') assistants++;
    if (message['content'] === undefined && message['tool_calls'] === undefined)
      report(at(index), 'Each message needs content or tool_calls.');
    if (message['tool_calls'] !== undefined && message['tool_calls'] !== null) {
      if (role !== 'assistant') report(at(index, 'tool_calls'), 'Only assistant messages may carry tool_calls.');
      callsTools = true;
    }
    if (role === 'tool' && !message['tool_call_id'])
      report(at(index), 'A tool message needs the tool_call_id it answers.');
    for (const key of bannedMessageKeys) {
      if (Object.prototype.hasOwnProperty.call(message, key))
        context.report(
          'review-banned-key',
          at(index, key),
          `A message carries "${key}", which must never be exported.`,
        );
    }
  });
  if (assistants === 0) report(at(), 'The conversation has no assistant message.');
  if (callsTools && !toolDefinitionsPresent(value['tool_defs'] ?? value['tools']))
    report(
      context.inRecord(file, row.ref, ['tool_defs'], 'key'),
      'Messages call tools, but tool_defs (or tools) is not a non-empty list of objects.',
    );
}

function toolDefinitionsPresent(definitions: unknown): boolean {
  let list = definitions;
  if (typeof list === 'string') {
    try {
      list = JSON.parse(list);
    } catch {
      return false;
    }
  }
  return Array.isArray(list) && list.length > 0 && list.every(isJsonObject);
}

function positiveCount(usage: JsonObject, ...keys: string[]): boolean {
  return keys.some((key) => {
    const count = usage[key];
    return typeof count === 'number' && count > 0;
  });
}

/** Positive input and output tokens, final or not: what the validator asks of a native-subscription row. */
export function positiveTokenComponents(usage: unknown): boolean {
  return (
    isJsonObject(usage) &&
    positiveCount(usage, 'final_input_tokens', 'input_tokens') &&
    positiveCount(usage, 'final_output_tokens', 'output_tokens')
  );
}

/**
 * What the validator asks of a training-ready row: positive input (or total) and positive output (or
 * total). BenchFlow writes output 0 and input = total when a provider reports only a total
 * (`_token_usage_from_agent_result`), and the validator's own test accepts that row.
 */
function trainingTokenUsage(usage: unknown): boolean {
  if (!isJsonObject(usage)) return false;
  const total = positiveCount(usage, 'total_tokens');
  return (
    (total || positiveCount(usage, 'final_input_tokens', 'input_tokens')) &&
    (total || positiveCount(usage, 'final_output_tokens', 'output_tokens'))
  );
}
