/**
 * A rollout's records as the files of BenchFlow's rollout folder: JSON pretty-printed, JSONL one compact
 * record per line, each file ending in a newline.
 */
import { rolloutFiles } from '../../../../shared/src/layout';
import type { Json, RolloutParts } from './rolloutParts';

const json = (value: Json): string => `${JSON.stringify(value, null, 2)}\n`;
const jsonl = (records: readonly Json[]): string => records.map((record) => `${JSON.stringify(record)}\n`).join('');

/** Relative path (with `/`) → content, in the order a reader would open them. */
export function rolloutFileTexts(parts: RolloutParts): Map<string, string> {
  const files = new Map<string, string>([
    [rolloutFiles.config, json(parts.config)],
    [rolloutFiles.result, json(parts.result)],
    [rolloutFiles.timing, json(parts.timing)],
    [rolloutFiles.results, jsonl(parts.results)],
    [rolloutFiles.rewards, jsonl(parts.rewards)],
    [rolloutFiles.acpTrajectory, jsonl(parts.trajectory)],
  ]);
  if (parts.llmExchanges) files.set(rolloutFiles.llmTrajectory, jsonl(parts.llmExchanges));
  files.set(rolloutFiles.preflight, json(parts.preflight));
  files.set(rolloutFiles.actionRecords, jsonl(parts.actions));
  files.set(rolloutFiles.rewardText, `${parts.reward}\n`);
  if (parts.testStdout !== undefined) files.set(rolloutFiles.testStdout, parts.testStdout);
  return files;
}
