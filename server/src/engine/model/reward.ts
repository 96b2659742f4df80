/**
 * The rollout's reward: one reader, with named variants where validator parity needs another reading of
 * the same fields. Each variant says why it differs:
 * - `rolloutReward`: the reward as recorded anywhere in the bundle, a number, looked for in a fixed order
 *   (result.json, the results row, rewards.jsonl, the verifier's own files). `untrusted-reward` flags it
 *   there and the timeline picture draws it there, so both show the one reward a reader would take.
 * - `validatorResultReward`: the validator's `reward_present`, which reads only result.json
 *   (`rewards.reward` when rewards is an object, else the top-level `reward`) and counts any value but
 *   null; `review-no-reward` must say exactly what the validator says, even of a reward of "n/a".
 * - `rowHasRewardOrScore`: the validator's test of a results row, `reward` or `score` not null (any type),
 *   which the training-ready and timeout checks of the row repeat.
 */
import type { RolloutBundle } from '../bundle/rollout';
import type { RecordRef } from '../facts/facts';
import { rangeOnLine, type TextRange } from '../findings';
import { ambiguitiesIn, makeAmbiguousFieldsUnknown } from '../parse/ambiguity';
import { isJsonObject, type JsonObject } from '../parse/jsonKind';
import { locate, parseTreeSafely, type JsonPath } from '../parse/jsonTree';
import { LineIndex } from '../text/lineLayout';

/** Where a reward is recorded: a JSON document (result.json, verifier/reward.json), a JSONL record, or reward.txt. */
export type RewardSource =
  | { readonly in: 'document'; readonly file: string; readonly text: string; readonly path: JsonPath }
  | { readonly in: 'record'; readonly file: string; readonly ref: RecordRef; readonly path: JsonPath }
  | { readonly in: 'text'; readonly file: string; readonly text: string };

export interface RecordedReward {
  /** The reward as written, for messages and labels. */
  readonly value: string;
  readonly source: RewardSource;
}

/** The rollout's reward, wherever it is recorded, looked for in this order. */
export function rolloutReward(bundle: RolloutBundle): RecordedReward | undefined {
  const result = bundle.facts('result', 'result');
  const value = result?.value;
  if (result && value) {
    const at = (path: JsonPath): RewardSource => ({
      in: 'document',
      file: bundle.pathOf('result'),
      text: result.text,
      path,
    });
    const rewards = value['rewards'];
    if (isJsonObject(rewards) && typeof rewards['reward'] === 'number')
      return { value: String(rewards['reward']), source: at(['rewards', 'reward']) };
    if (typeof value['reward'] === 'number') return { value: String(value['reward']), source: at(['reward']) };
  }
  const row = bundle.facts('results', 'results')?.rows[0];
  for (const key of ['reward', 'score']) {
    if (row && typeof row.value[key] === 'number')
      return {
        value: String(row.value[key]),
        source: { in: 'record', file: bundle.pathOf('results'), ref: row.ref, path: [key] },
      };
  }
  const event = bundle.facts('rewards', 'rewards')?.terminal;
  if (event)
    return {
      value: String(event.value),
      source: { in: 'record', file: bundle.pathOf('rewards'), ref: event.ref, path: ['value'] },
    };
  const text = bundle.verifierReward.text;
  if (text && /^\s*-?\d+(\.\d+)?\s*$/.test(text.text))
    return { value: text.text.trim(), source: { in: 'text', file: text.path, text: text.text } };
  const json = bundle.verifierReward.json;
  const rewards = json ? parsedObject(json.text) : undefined;
  if (json && typeof rewards?.['reward'] === 'number')
    return {
      value: String(rewards['reward']),
      source: { in: 'document', file: json.path, text: json.text, path: ['reward'] },
    };
  return undefined;
}

/**
 * Where the reward stands in its file. Worked out only when asked (a finding, a picture): the results row
 * that records it may be megabytes of conversation.
 */
export function rewardPlace({ source }: RecordedReward): { readonly file: string; readonly range: TextRange } {
  switch (source.in) {
    case 'document': {
      const { offset, length } = locate(source.text, parseTreeSafely(source.text), source.path);
      return { file: source.file, range: new LineIndex(source.text).rangeAt(offset, length) };
    }
    case 'record': {
      const { ref } = source;
      if (ref.text === undefined) return { file: source.file, range: rangeOnLine(ref.line, 0, ref.length) };
      const { offset, length } = locate(ref.text, parseTreeSafely(ref.text), source.path);
      return { file: source.file, range: rangeOnLine(ref.line, offset, offset + length) };
    }
    case 'text':
      return { file: source.file, range: rangeOnLine(0, 0, source.text.trimEnd().length) };
  }
}

/** The validator's reward_present reads rewards.reward when rewards is an object, else the top-level reward; any value but null counts. */
export function validatorResultReward(result: JsonObject): { path: string[]; value: unknown } {
  const rewards = result['rewards'];
  return isJsonObject(rewards)
    ? { path: ['rewards', 'reward'], value: rewards['reward'] }
    : { path: ['reward'], value: result['reward'] };
}

/** The validator's test of a results row: a reward or a score that is not null, of any type. */
export function rowHasRewardOrScore(row: JsonObject): boolean {
  return row['reward'] != null || row['score'] != null;
}

/**
 * verifier/reward.json, when it is a JSON object; a cut-off or broken file names no reward, and an
 * ambiguous one (a reward written twice, 1e-400) names none there.
 */
function parsedObject(text: string): JsonObject | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isJsonObject(value)) return undefined;
  makeAmbiguousFieldsUnknown(value, ambiguitiesIn(text));
  return value;
}
