/** The codes of the reward rules: its preconditions (reward.ts) and the agreement of its statements (consistency.ts). */
import type { CodeContracts } from '../../codeContract';

export const rewardCodes = {
  'untrusted-reward': {
    severity: 'error',
    effect: 'untrusted',
    summary: "A reward is present while the bundle's own evidence shows a failed or unchecked precondition.",
    description:
      "A reward (the first of `result.json` `rewards.reward`, the results row's `reward`/`score`, the terminal event of `rewards.jsonl`, `verifier/reward.txt`, `verifier/reward.json` `reward`) while the bundle shows survivors, an unobservable or stale or masked observation, a setup-only verifier, or grading before quiescence; related to each cause. Not raised when evidence is simply absent.",
  },
  'reward-mismatch': {
    severity: 'error',
    effect: 'untrusted',
    summary: "The bundle states different rewards, which BenchFlow's writers cannot produce.",
    description:
      "The bundle's statements of its reward disagree, compared as BenchFlow compares them (`verifier/reward.txt` read as Python's `float()` reads it, so `1`, `1.0` and `1.0` with a newline agree; equal within `math.isclose`'s 1e-9). The statements: `result.json` `rewards.reward` (and a top-level `reward`), the results row's `reward` and `score`, the scalar event of `rewards.jsonl`, `verifier/reward.txt`, `verifier/reward.json` `reward`. BenchFlow copies the verifier's one reward into all of them, so when result.json states a reward, or is absent or unreadable, all must agree; when it states none (its rewards is null), the results row must carry BenchFlow's default 0 and `rewards.jsonl` no scalar event, and the verifier's files are not compared (BenchFlow refused or dropped them); a `rewards` that cannot be read may have been null, and a finding only that reading makes says so. One finding per rollout, on the first statement involved, related to each.",
  },
  'reward-unreadable': {
    severity: 'information',
    effect: 'incomplete',
    summary: 'A statement of the reward is there but cannot be read as a number, so its agreement cannot be shown.',
    description:
      "A statement of the reward cannot be read as a number: `verifier/reward.txt` empty, not a number Python's `float()` reads, not UTF-8, over 1 MiB, or not readable (permission denied); `verifier/reward.json` not JSON, not an object, or its `reward` not a number; result.json's `rewards` or `reward`, the results row's `reward` or `score`, or `rewards.jsonl`'s scalar `value` there, not null, and not a number. Whether it agrees with the others is unknown, so the rollout is not trusted; it shows no disagreement either, so it is not untrusted. Its value takes no part in `reward-mismatch`. A reward file that is no regular file or leads outside the rollout has its own finding (`artifact-not-regular-file`, `artifact-outside-bundle`).",
  },
} as const satisfies CodeContracts;
