/**
 * The model of one rollout: what is read once per evaluation, before any rule judges it. The bundle (each
 * file's facts, cached per file version by its loader), the sandbox user, the action sequence, and the
 * trajectory's tool-call index, every reward the bundle states, and when the rollout started. The rules, inspect/ and picture/ read it; nothing here reports a finding.
 */
import type { RolloutBundle } from '../bundle/rollout';
import { readActionSequence, type ActionSequence } from './actions';
import type { ModelCaches } from './caches';
import { rolloutReward, statedRewards, type BundleRewards, type RecordedReward } from './reward';
import { rolloutStartOf, type RolloutStart } from './rolloutStart';
import { sandboxUserOf, type SandboxUserState } from './sandboxUser';
import { toolCallIndexOf, type ToolCallIndex } from './toolCalls';

export interface RolloutModel {
  readonly bundle: RolloutBundle;
  readonly sandboxUser: SandboxUserState;
  readonly actions: ActionSequence;
  /** The ACP trajectory's tool calls; undefined without a readable trajectory. */
  readonly toolCalls: ToolCallIndex | undefined;
  /** Every reward the bundle states, each with its place and its reading as a number. */
  readonly rewards: BundleRewards;
  /** The reward as a reader takes it: the first stated one that is a number (the variants the validator reads are in reward.ts). */
  readonly reward: RecordedReward | undefined;
  readonly start: RolloutStart | undefined;
}

export interface ModelOptions {
  /** Records authored by a quick fix or the scaffold count (a fixture bundle); the server and the CLI decide it. */
  readonly fixtureBundle: boolean;
}

export function readRolloutModel(bundle: RolloutBundle, options: ModelOptions, caches: ModelCaches): RolloutModel {
  const sandboxUser = sandboxUserOf(bundle);
  // A sandbox user that is not known is read as any user but root: every kill and observation of whoever it was counts.
  const actions = readActionSequence(
    { bundle, fixtureBundle: options.fixtureBundle, caches },
    sandboxUser.kind === 'user' ? sandboxUser.user : undefined,
  );
  const trajectory = bundle.facts('trajectory', 'acp-trajectory');
  const rewards = statedRewards(bundle);
  return {
    bundle,
    sandboxUser,
    actions,
    toolCalls: trajectory ? toolCallIndexOf(trajectory) : undefined,
    rewards,
    reward: rolloutReward(rewards),
    start: rolloutStartOf(bundle, actions),
  };
}
