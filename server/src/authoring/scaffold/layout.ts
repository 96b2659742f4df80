/**
 * A rollout's records as the files of BenchFlow's rollout folder: JSON pretty-printed, JSONL one compact
 * record per line, each file ending in a newline.
 */
import type { Json, RolloutParts } from './rolloutParts';

const json = (value: Json): string => `${JSON.stringify(value, null, 2)}\n`;
const jsonl = (records: readonly Json[]): string => records.map((record) => `${JSON.stringify(record)}\n`).join('');

/** Relative path (with `/`) → content, in the order a reader would open them. */
export function rolloutFiles(parts: RolloutParts): Map<string, string> {
  const files = new Map<string, string>([
    ['config.json', json(parts.config)],
    ['result.json', json(parts.result)],
    ['timing.json', json(parts.timing)],
    ['results.jsonl', jsonl(parts.results)],
    ['rewards.jsonl', jsonl(parts.rewards)],
    ['trajectory/acp_trajectory.jsonl', jsonl(parts.trajectory)],
  ]);
  if (parts.llmExchanges) files.set('trajectory/llm_trajectory.jsonl', jsonl(parts.llmExchanges));
  files.set('benchguard/preflight.json', json(parts.preflight));
  files.set('benchguard/action_records.jsonl', jsonl(parts.actions));
  files.set('verifier/reward.txt', `${parts.reward}\n`);
  if (parts.testStdout !== undefined) files.set('verifier/test-stdout.txt', parts.testStdout);
  return files;
}
