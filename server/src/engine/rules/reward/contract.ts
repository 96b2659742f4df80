/** The code of the reward rule (reward.ts). */
import type { CodeContracts } from '../../codeContract';

export const rewardCodes = {
  'untrusted-reward': {
    severity: 'error',
    effect: 'untrusted',
    summary: "A reward is present while the bundle's own evidence shows a failed or unchecked precondition.",
    description:
      "A reward (the first of `result.json` `rewards.reward`, the results row's `reward`/`score`, the terminal event of `rewards.jsonl`, `verifier/reward.txt`, `verifier/reward.json` `reward`) while the bundle shows survivors, an unobservable or stale or masked observation, a setup-only verifier, or grading before quiescence; related to each cause. Not raised when evidence is simply absent.",
  },
} as const satisfies CodeContracts;
