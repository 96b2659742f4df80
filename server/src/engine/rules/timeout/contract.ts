/** The codes of the countable-timeout rules (timeoutContract.ts). */
import type { CodeContracts } from '../../codeContract';

export const timeoutCodes = {
  'timeout-incomplete': {
    severity: 'error',
    effect: 'incomplete',
    summary:
      'A timed-out rollout lacks an item its evidence needs to be countable, or two of its items contradict each other.',
    description:
      'A timed-out rollout (one whose own evidence says it timed out: README, Timeouts) lacks an item it needs to be countable, or one of its claims contradicts the others; one finding per item, on the line that carries it (or should).',
    readme:
      'A timed-out rollout ([below](#timeouts)) lacks an item it needs to be countable, or one of its claims contradicts the others; one finding per item, on the line that carries it (or should).',
  },
  // Kept for a native ACP rollout's timeout: the code predates timeout-incomplete, and codes are a public contract.
  'native-timeout-incomplete': {
    severity: 'error',
    effect: 'incomplete',
    summary:
      'A native ACP timeout lacks an item its evidence needs to be countable, or two of its items contradict each other (timeout-incomplete, for a native ACP rollout).',
    description:
      "`timeout-incomplete` for a native ACP rollout's timeout (kept: the code predates the general one), with the native items of README’s Timeouts section.",
    readme:
      "`timeout-incomplete` for a native ACP rollout's timeout (kept: the code predates the general one), with the native items below.",
  },
} as const satisfies CodeContracts;
