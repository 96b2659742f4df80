/**
 * A rollout's records as the files of BenchFlow's rollout folder: JSON pretty-printed, JSONL one compact
 * record per line, each file ending in a newline.
 */
import { rolloutFiles as layoutFiles } from '../../../../shared/src/layout';
import type { Json, RolloutParts } from './rolloutParts';

const json = (value: Json): string => `${JSON.stringify(value, null, 2)}\n`;
const jsonl = (records: readonly Json[]): string => records.map((record) => `${JSON.stringify(record)}\n`).join('');

/** Relative path (with `/`) → content, in the order a reader would open them. */
export function rolloutFiles(parts: RolloutParts): Map<string, string> {
  const files = new Map<string, string>([
    [layoutFiles.config, json(parts.config)],
    [layoutFiles.result, json(parts.result)],
    [layoutFiles.timing, json(parts.timing)],
    [layoutFiles.results, jsonl(parts.results)],
    [layoutFiles.rewards, jsonl(parts.rewards)],
    [layoutFiles.acpTrajectory, jsonl(parts.trajectory)],
  ]);
  if (parts.llmExchanges) files.set(layoutFiles.llmTrajectory, jsonl(parts.llmExchanges));
  files.set(layoutFiles.preflight, json(parts.preflight));
  files.set(layoutFiles.actionRecords, jsonl(parts.actions));
  files.set(layoutFiles.rewardText, `${parts.reward}\n`);
  if (parts.testStdout !== undefined) files.set(layoutFiles.testStdout, parts.testStdout);
  return files;
}
