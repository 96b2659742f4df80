/**
 * When the rollout started: the config's started_at (BenchFlow writes it as the run starts), else
 * result.json's, else the first timestamped action record in line order. The elapsed-time hints count from
 * it; the timeline picture's axis starts there, or earlier when something is recorded before it.
 */
import { relative } from 'node:path';
import type { RolloutBundle } from '../bundle/rollout';
import { parseTimestamp } from '../parse/timestamps';
import type { ActionSequenceLists } from './actions';

export interface RolloutStart {
  /** Milliseconds since the epoch. */
  readonly time: number;
  /** Where it was read, in words: `config.json started_at`. */
  readonly source: string;
}

export function rolloutStartOf(bundle: RolloutBundle, actions: ActionSequenceLists): RolloutStart | undefined {
  for (const role of ['config', 'result'] as const) {
    const time = parseTimestamp(bundle.facts(role, role)?.value?.['started_at']);
    if (time !== undefined) return { time, source: `${relative(bundle.root, bundle.pathOf(role))} started_at` };
  }
  const first = actions.timed[0]?.reading.time;
  return first ? { time: first.value, source: 'the first timestamped action record' } : undefined;
}
