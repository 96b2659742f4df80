/** The codes of the separate-verifier rules (verifier.ts). */
import type { CodeContracts } from '../../codeContract';

export const verifierCodes = {
  'verifier-evidence-missing': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'A separate verifier is declared but no successful verifier service start is recorded.',
    description:
      'A separate verifier is declared but `action_records.jsonl` is missing or has no successful `StartBenchGuardVerifierService`. On the declaration. A preflight that says `verifier_environment_mode_declared: false` declares nothing.',
  },
  'verifier-setup-only': {
    severity: 'error',
    effect: 'untrusted',
    summary: 'A separate verifier is declared but every exec in the verifier service only prepares or cleans.',
    description:
      'A separate verifier is declared and every exec in the verifier service is setup-only; related: each setup exec. On the declaration.',
  },
  'verifier-grading-unproven': {
    severity: 'error',
    effect: 'incomplete',
    summary:
      'The grading attempt has no terminal outcome, ran before the verifier service started, or ran in another service.',
    description:
      'A grading attempt with no terminal outcome, before the verifier service started, or in another service; or a started verifier service in which nothing ran.',
  },
  'verifier-declaration-unreadable': {
    severity: 'error',
    effect: 'incomplete',
    summary:
      "A present preflight.json's verifier declaration cannot be read, so whether the verifier is separate is unknown.",
    description:
      'A present `benchguard/preflight.json` whose verifier declaration cannot be read: broken JSON or not an object, a key shaped like `verifier_environment_mode` (or a key on its path) that is not it, a non-object on its path, or a mode outside `separate` and `shared`. The separate-verifier rules then treat the mode as unknown, not shared: they run as if it were separate.',
  },
} as const satisfies CodeContracts;
