/** The codes of the sandbox-user quiescence rules (quiescence.ts). */
import type { CodeContracts } from '../../codeContract';

export const quiescenceCodes = {
  'quiescence-unproven': {
    severity: 'error',
    severityNote: 'warning when the bundle has no hardening records at all',
    effect: 'incomplete',
    summary:
      'No positive observation of the sandbox user after the last kill attempt and before the first grading attempt.',
    description:
      'A sandbox user is set, and no positive observation was made after the last kill attempt and before the first grading attempt. Also a warning when config.json is missing, so whether a sandbox user applies is unknown.',
  },
  'quiescence-survivors': {
    severity: 'error',
    effect: 'untrusted',
    summary: 'An observation reports surviving sandbox-user processes.',
    description:
      'An observation reports survivors (`return_code` 1, or a non-empty `survivors` list), naming the pids, and no later positive observation supersedes it.',
  },
  'quiescence-unobservable': {
    severity: 'error',
    effect: 'incomplete',
    summary: "The sandbox user's processes could not be observed.",
    description: 'The observation could not be made (`return_code` 2, an exec transport error or timeout).',
  },
  'quiescence-stale': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'The last positive observation precedes the last kill attempt.',
    description:
      'The last positive observation precedes the last kill attempt (across records, or inside one command).',
  },
  'verifier-before-quiescence': {
    severity: 'error',
    effect: 'untrusted',
    summary: 'A grading attempt ran before the final positive quiescence observation.',
    description: 'A grading attempt precedes the only positive observation made after the last kill.',
  },
  'masked-exit-status': {
    severity: 'error',
    effect: 'incomplete',
    summary: "An observation command's exit status comes from a command that cannot report the observation.",
    description:
      'An observing command whose exit status comes from a command that cannot report it; on the exact characters of that command inside `command_preview`. A pure kill command is not flagged: its status is not evidence.',
  },
  'observation-conflates-failure': {
    severity: 'error',
    effect: 'incomplete',
    summary:
      'An observing command can end with the recorded status both when it found no process and when the observer itself failed.',
    description:
      'An observing command can end with its recorded status both when the observation found none of the sandbox user\'s processes and when the observer itself failed (`! pgrep -u agent`, `pgrep … && exit 1 || exit 0`, `if pgrep …; then exit 1; fi`: pgrep exits 1 for "none" but 2 or 3 when it cannot look), so that status is not proof; on the exact characters of the command that supplies it.',
  },
} as const satisfies CodeContracts;
