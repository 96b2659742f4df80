/**
 * The rollout's reward: every statement of it the bundle makes, read once, with named variants where
 * validator parity needs another reading of the same fields. Each variant says why it differs:
 * - `statedRewards`: every reward the bundle states, each with its file, its exact place and its reading
 *   (a number, or why it cannot be read as one), in a fixed order: result.json (`rewards.reward`, then the
 *   validator fixtures' top-level `reward`), the results row (`reward`, `score`), the scalar event of
 *   rewards.jsonl, verifier/reward.txt, verifier/reward.json `reward`. `reward-mismatch` compares them.
 * - `rolloutReward`: the first of them that is a finite number, the one reward a reader would take.
 *   `untrusted-reward` flags it there and the timeline picture draws it there.
 * - `validatorResultReward`: the validator's `reward_present`, which reads only result.json
 *   (`rewards.reward` when rewards is an object, else the top-level `reward`) and counts any value but
 *   null; `review-no-reward` must say exactly what the validator says, even of a reward of "n/a".
 * - `rowHasRewardOrScore`: the validator's test of a results row, `reward` or `score` not null (any type),
 *   which the training-ready and timeout checks of the row repeat.
 *
 * A null states no reward, as the validator reads it. A key damaged into a near spelling (`rewadr`) is read
 * as the key it resembles (schema/knownKeys.ts `keyForFinding`): a finding against the reward must not be
 * lost to the damage.
 */
import { basename } from 'node:path';
import { rolloutFiles, verifierRewardFiles } from '../../../../shared/src/layout';
import type { RolloutBundle, VerifierFile } from '../bundle/rollout';
import type { RecordRef } from '../facts/facts';
import { rangeOnLine, type TextRange } from '../findings';
import { ambiguitiesIn, makeAmbiguousFieldsUnknown } from '../parse/ambiguity';
import { describeValue, isJsonObject, type JsonObject } from '../parse/jsonKind';
import { locate, parseTreeSafely, type JsonPath } from '../parse/jsonTree';
import { claimsNothing, keyForFinding } from '../schema/knownKeys';
import { LineIndex } from '../text/lineLayout';
import { rewardFromText } from './rewardNumber';

/** Where a reward is stated: a JSON document, a JSONL record, a span of reward.txt, or a whole file that could not be read. */
export type RewardSource =
  | { readonly in: 'document'; readonly file: string; readonly text: string; readonly path: JsonPath }
  | { readonly in: 'record'; readonly file: string; readonly ref: RecordRef; readonly path: JsonPath }
  | { readonly in: 'text'; readonly file: string; readonly text: string; readonly start: number; readonly end: number }
  | { readonly in: 'file'; readonly file: string };

/** Who states a reward, which says what BenchFlow's writers make it equal to (rules/reward/consistency.ts). */
export type RewardStatedBy = 'result' | 'results-row' | 'rewards-event' | 'verifier';

export interface NumberReading {
  readonly kind: 'number';
  readonly value: number;
  /** The number for labels: as reward.txt writes it, as JavaScript writes it from JSON (`writtenReward` reads the JSON text). */
  readonly written: string;
}

export type RewardReading =
  | NumberReading
  | {
      readonly kind: 'unreadable';
      /** Why it cannot be read as a number, completing "The reward … ". */
      readonly why: string;
    };

export interface StatedReward {
  /** The statement in words: its file and field ("result.json rewards.reward"). */
  readonly label: string;
  readonly statedBy: RewardStatedBy;
  readonly source: RewardSource;
  readonly reading: RewardReading;
}

export interface BundleRewards {
  /** Every reward the bundle states, in the order `rolloutReward` takes the first of. */
  readonly stated: readonly StatedReward[];
  /**
   * result.json was read and states no reward (its rewards is null), surely, or maybe: its `rewards`, or a
   * top-level `reward` beside no rewards object, is there but cannot be read, and may have been null.
   * Where it says so.
   */
  readonly resultStatesNone?: { readonly source: RewardSource; readonly surely: boolean };
}

export interface RecordedReward {
  /** The reward as written, for messages and labels. */
  readonly value: string;
  readonly source: RewardSource;
}

/** Every reward the bundle states. */
export function statedRewards(bundle: RolloutBundle): BundleRewards {
  const { statements, none: resultStatesNone } = resultStatements(bundle);
  const stated = [...statements];

  // Every readable row states a reward: a second row (which the validator already fails) may be the rollout's.
  for (const row of bundle.facts('results', 'results')?.rows ?? []) {
    const file = bundle.pathOf('results');
    for (const name of ['reward', 'score']) {
      const key = keyForFinding('results', [], row.value, name);
      const reading = jsonReading(row.value[key], key, name);
      if (reading)
        stated.push({
          label: `${rolloutFiles.results} ${name} (line ${row.ref.line + 1})`,
          statedBy: 'results-row',
          source: { in: 'record', file, ref: row.ref, path: [key] },
          reading,
        });
    }
  }

  const event = bundle.facts('rewards', 'rewards')?.terminal;
  const eventReading = event && jsonReading(event.value);
  if (event && eventReading)
    stated.push({
      label: `${rolloutFiles.rewards} terminal event (line ${event.ref.line + 1})`,
      statedBy: 'rewards-event',
      source: { in: 'record', file: bundle.pathOf('rewards'), ref: event.ref, path: ['value'] },
      reading: eventReading,
    });

  const { text, json, failed = [] } = bundle.verifierReward;
  if (text) stated.push(rewardTextStatement(text));
  if (json) {
    const statement = rewardJsonStatement(json);
    if (statement) stated.push(statement);
  }
  for (const { path, error } of failed)
    stated.push({
      label: basename(path) === verifierRewardFiles.json ? rolloutFiles.rewardJson : rolloutFiles.rewardText,
      statedBy: 'verifier',
      source: { in: 'file', file: path },
      reading: { kind: 'unreadable', why: `is there but cannot be read (${error})` },
    });
  return { stated, ...(resultStatesNone ? { resultStatesNone } : {}) };
}

/** What result.json states of the reward, and whether it states none. */
function resultStatements(bundle: RolloutBundle): {
  readonly statements: readonly StatedReward[];
  readonly none?: BundleRewards['resultStatesNone'];
} {
  const result = bundle.facts('result', 'result');
  const value = result?.value;
  if (!result || !value) return { statements: [] };
  const file = bundle.pathOf('result');
  const at = (path: JsonPath): RewardSource => ({ in: 'document', file, text: result.text, path });
  const statements: StatedReward[] = [];
  const rewardsKey = keyForFinding('result', [], value, 'rewards');
  const rewards = value[rewardsKey];
  // BenchFlow's rewards map always holds its reward, so one that cannot be read still states one.
  let surelyStates = false;
  if (isJsonObject(rewards)) {
    const key = keyForFinding('result', [rewardsKey], rewards, 'reward');
    const reading = jsonReading(rewards[key], key, 'reward');
    if (reading) {
      surelyStates = true;
      const label = `${rolloutFiles.result} rewards.reward`;
      statements.push({ label, statedBy: 'result', source: at([rewardsKey, key]), reading });
    }
  } else if (!claimsNothing(rewards, rewardsKey, 'rewards')) {
    const why = `is ${describeValue(rewards)}, not an object holding a reward`;
    const label = `${rolloutFiles.result} rewards`;
    statements.push({ label, statedBy: 'result', source: at([rewardsKey]), reading: { kind: 'unreadable', why } });
  }
  const topKey = keyForFinding('result', [], value, 'reward');
  const top = jsonReading(value[topKey], topKey, 'reward');
  if (top)
    statements.push({ label: `${rolloutFiles.result} reward`, statedBy: 'result', source: at([topKey]), reading: top });

  if (statements.length === 0)
    return {
      statements,
      none: { source: rewardsKey in value ? at([rewardsKey]) : { in: 'file', file }, surely: true },
    };
  // Only what cannot be read, outside a rewards map: it may have been null.
  if (!surelyStates && statements.every((statement) => statement.reading.kind === 'unreadable'))
    return { statements, none: { source: statements[0]!.source, surely: false } };
  return { statements };
}

/** The rollout's reward as a reader takes it: the first stated reward that is a finite number. */
export function rolloutReward({ stated }: BundleRewards): RecordedReward | undefined {
  for (const { reading, source } of stated)
    if (reading.kind === 'number' && Number.isFinite(reading.value)) return { value: reading.written, source };
  return undefined;
}

/**
 * A JSON value where a reward goes, read under `key` for `name` (keyForFinding): absence and null state
 * none, but null under a damaged copy of the key is what is left of a reward; anything but a number
 * cannot be read as one.
 */
function jsonReading(value: unknown, key = '', name = key): RewardReading | undefined {
  if (claimsNothing(value, key, name)) return undefined;
  if (typeof value === 'number') return { kind: 'number', value, written: String(value) };
  return { kind: 'unreadable', why: `is ${describeValue(value)}, not a number` };
}

/** verifier/reward.txt, read as BenchFlow's verifier reads it (model/rewardNumber.ts). */
function rewardTextStatement(file: VerifierFile): StatedReward {
  const label = rolloutFiles.rewardText;
  const whole: RewardSource = { in: 'file', file: file.path };
  if (file.unreadable !== undefined)
    return { label, statedBy: 'verifier', source: whole, reading: { kind: 'unreadable', why: file.unreadable } };
  const number = rewardFromText(file.text);
  if (!number) {
    const written = file.text.trim();
    return {
      label,
      statedBy: 'verifier',
      source:
        written === ''
          ? whole
          : {
              in: 'text',
              file: file.path,
              text: file.text,
              start: file.text.indexOf(written),
              end: file.text.indexOf(written) + written.length,
            },
      reading: {
        kind: 'unreadable',
        why:
          written === ''
            ? 'is empty'
            : `is ${describeValue(written)}, which Python's float() does not read as a number`,
      },
    };
  }
  return {
    label,
    statedBy: 'verifier',
    source: { in: 'text', file: file.path, text: file.text, start: number.start, end: number.end },
    reading: { kind: 'number', value: number.value, written: file.text.slice(number.start, number.end) },
  };
}

/** verifier/reward.json's `reward`, when the file states one: BenchFlow's verifier requires a JSON object. */
function rewardJsonStatement(file: VerifierFile): StatedReward | undefined {
  const label = rolloutFiles.rewardJson;
  const whole: RewardSource = { in: 'file', file: file.path };
  if (file.unreadable !== undefined)
    return { label, statedBy: 'verifier', source: whole, reading: { kind: 'unreadable', why: file.unreadable } };
  const parsed = parsedJson(file.text);
  if (!parsed.ok)
    return { label, statedBy: 'verifier', source: whole, reading: { kind: 'unreadable', why: 'is not valid JSON' } };
  if (!isJsonObject(parsed.value))
    return {
      label,
      statedBy: 'verifier',
      source: whole,
      reading: { kind: 'unreadable', why: `is ${describeValue(parsed.value)}, not an object holding a reward` },
    };
  const reading = jsonReading(parsed.value['reward']);
  return (
    reading && {
      label: `${label} reward`,
      statedBy: 'verifier',
      source: { in: 'document', file: file.path, text: file.text, path: ['reward'] },
      reading,
    }
  );
}

/** reward.json as JSON, with a field written ambiguously (a reward written twice, 1e-400) unknown, never its last value. */
function parsedJson(text: string): { ok: true; value: unknown } | { ok: false } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false };
  }
  if (isJsonObject(value)) makeAmbiguousFieldsUnknown(value, ambiguitiesIn(text));
  return { ok: true, value };
}

/**
 * Where a reward stands in its file. Worked out only when asked (a finding, a picture): the results row
 * that states it may be megabytes of conversation.
 */
export function rewardPlace({ source }: { readonly source: RewardSource }): {
  readonly file: string;
  readonly range: TextRange;
} {
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
      return { file: source.file, range: new LineIndex(source.text).rangeAt(source.start, source.end - source.start) };
    case 'file':
      return { file: source.file, range: rangeOnLine(0, 0, 0) };
  }
}

/** A stated number as its file writes it (`1.0` where JSON reads 1), for messages: worked out only when asked, as `rewardPlace`. */
export function writtenReward({
  source,
  reading,
}: {
  readonly source: RewardSource;
  readonly reading: NumberReading;
}): string {
  const json = source.in === 'document' ? source.text : source.in === 'record' ? source.ref.text : undefined;
  if (json === undefined || (source.in !== 'document' && source.in !== 'record')) return reading.written;
  const { offset, length } = locate(json, parseTreeSafely(json), source.path);
  const literal = json.slice(offset, offset + length);
  // The literal only where the path led to the number itself, never to an ancestor it fell back to.
  return Number(literal) === reading.value ? literal : reading.written;
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
