/**
 * Which line of rewards.jsonl states the rollout's scalar reward. BenchFlow's writer
 * (`_utils/reward_events.py` `build_rewards_jsonl_events`) writes one event per rubric item, with
 * `type: "process"` and the item's own granularity (`"step"` unless the item says otherwise), then the
 * scalar reward, with `type: "terminal"` and granularity `"terminal"` (unless the rewards map overrides
 * it). The example rollouts write no `type`. So the scalar is a terminal-granularity event whose type, if
 * it has one, is `terminal`: a rubric item that calls itself terminal is still an item, not the reward.
 */
import type { JsonObject } from '../parse/jsonKind';

export function isScalarRewardEvent(record: JsonObject): boolean {
  const type = record['type'];
  return record['granularity'] === 'terminal' && (type === undefined || type === 'terminal');
}
