/**
 * A reward is only as good as its preconditions: when the bundle's own hardening or verifier evidence
 * shows one failed or went unchecked, the reward is flagged where it is recorded (the model's
 * `rolloutReward`, which the timeline picture draws too). A reward with simply no evidence around it is
 * left to the rules that ask for that evidence.
 */
import type { BundleFinding } from '../../findings';
import { rewardPlace } from '../../model/reward';
import type { RuleContext } from '../context';

export function checkRewardPreconditions(context: RuleContext, failures: readonly BundleFinding[]): void {
  if (failures.length === 0) return;
  const reward = context.model.reward;
  if (!reward) return;
  const causes = [...new Set(failures.map((failure) => failure.code))].join(', ');
  context.report(
    'untrusted-reward',
    rewardPlace(reward),
    `This reward (${reward.value}) cannot be trusted: the bundle's own evidence shows ${causes}.`,
    {
      related: failures.map((failure) => ({
        file: failure.file,
        range: failure.range,
        message: `${failure.code}: ${failure.message}`,
      })),
    },
  );
}
