/**
 * A reward is only as good as its preconditions: when the bundle's own hardening or verifier evidence
 * shows one failed or went unchecked, the reward is flagged where it is recorded. A reward with simply
 * no evidence around it is left to the rules that ask for that evidence.
 */
import { rangeOnLine, type BundleFinding } from '../../findings';
import { isJsonObject, type JsonObject } from '../../parse/jsonKind';
import type { Place, RuleContext } from '../context';

export function checkRewardPreconditions(context: RuleContext, failures: readonly BundleFinding[]): void {
  if (failures.length === 0) return;
  const reward = rewardPlace(context);
  if (!reward) return;
  const causes = [...new Set(failures.map((failure) => failure.code))].join(', ');
  context.report('untrusted-reward', reward.place, `This reward (${reward.value}) cannot be trusted: the bundle's own evidence shows ${causes}.`, {
    related: failures.map((failure) => ({ file: failure.file, range: failure.range, message: `${failure.code}: ${failure.message}` })),
  });
}

/** Where the rollout's reward is recorded, looked for in this order; the timeline draws it there too. */
export function rewardPlace(context: RuleContext): { place: Place; value: string } | undefined {
  const result = context.bundle.facts('result', 'result');
  const value = result?.value;
  if (value) {
    const rewards = value['rewards'];
    if (isJsonObject(rewards) && typeof rewards['reward'] === 'number') return { place: context.inDocument(context.bundle.pathOf('result'), result, ['rewards', 'reward']), value: String(rewards['reward']) };
    if (typeof value['reward'] === 'number') return { place: context.inDocument(context.bundle.pathOf('result'), result, ['reward']), value: String(value['reward']) };
  }
  const row = context.bundle.facts('results', 'results')?.rows[0];
  for (const key of ['reward', 'score']) {
    if (row && typeof row.value[key] === 'number') return { place: context.inRecord(context.bundle.pathOf('results'), row.ref, [key]), value: String(row.value[key]) };
  }
  const event = context.bundle.facts('rewards', 'rewards')?.terminal;
  if (event) return { place: context.inRecord(context.bundle.pathOf('rewards'), event.ref, ['value']), value: String(event.value) };
  const text = context.bundle.verifierReward.text;
  if (text && /^\s*-?\d+(\.\d+)?\s*$/.test(text.text)) return { place: { file: text.path, range: rangeOnLine(0, 0, text.text.trimEnd().length) }, value: text.text.trim() };
  const json = context.bundle.verifierReward.json;
  const rewards = json ? parsedObject(json.text) : undefined;
  if (json && typeof rewards?.['reward'] === 'number') return { place: context.inJsonText(json.path, json.text, ['reward']), value: String(rewards['reward']) };
  return undefined;
}

/** verifier/reward.json, when it is a JSON object; a cut-off or broken file names no reward. */
function parsedObject(text: string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
