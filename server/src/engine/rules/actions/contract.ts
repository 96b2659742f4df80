/**
 * The codes of the checks that read benchguard/action_records.jsonl record by record (actionRecords.ts
 * beside this file, over the action sequence that engine/model/actions.ts reads). `command-too-complex` is also raised by the quiescence rules, for the masking
 * commands beyond the ones they list.
 *
 * Two lists, because the two sit apart in the public order of the codes (codes.ts).
 */
import type { CodeContracts } from '../../codeContract';

/** What an exec says about itself: an outcome, and a command the shell analysis can read. */
export const execCodes = {
  'exec-outcome-missing': {
    severity: 'warning',
    effect: 'incomplete',
    summary: 'A hardening or verifier exec has a transport status but no return code.',
    description: 'A hardening or verifier exec with a transport status but no `return_code`.',
  },
  'command-unparsable': {
    severity: 'warning',
    effect: 'incomplete',
    summary: 'A hardening or verifier command is not shell this analyser can read, so what it proves is unknown.',
    description:
      'A `command_preview` that is not shell `dash` would read (an unbalanced quote, say), or an observing command whose exit status cannot be followed (`eval`, `trap`, `.`, `exec`, a loop or function call beyond what the analysis unrolls, or a computed `break` or `set` argument), so what it proves is unknown.',
  },
  'command-too-complex': {
    severity: 'warning',
    effect: 'incomplete',
    summary:
      "A command is beyond the shell analyser's bounds (nesting, number of commands, findings), so what it proves is unknown.",
    description:
      "A `command_preview` beyond the shell analyser's bounds: nested more than 200 levels deep (subshells, groups, `if`/loops/`case`, `$( )`, backquotes, `${…}`, function bodies and calls), more than 1,000 commands, function calls and nested scripts that expand to more words than the text warrants, or more paths than the run in three worlds follows (a fixed budget of work per world). One finding on the command, so what it proves is unknown. A command with more than 32 masking or conflating commands has those 32 reported and this one finding for the rest. Real BenchFlow commands nest at most 9 levels and hold at most 54 commands.",
  },
} as const satisfies CodeContracts;

/** What the records are: actions of a known kind, in time order. */
export const actionRecordCodes = {
  'action-kind-unknown': {
    severity: 'error',
    effect: 'incomplete',
    summary:
      'An action record has an event_type or phase the rules do not know, so the proof around it cannot be followed.',
    description:
      'An action record whose `event_type` (or none) or `phase` (compared case-insensitively) the rules do not know: the proof around it is unprovable, not silently without it. The timeline rules also read it as each known kind, and a finding only such a reading makes says so.',
  },
  'timeline-order': {
    severity: 'warning',
    effect: 'incomplete',
    summary: 'Action record timestamps run backwards against line order.',
    description:
      'Action record timestamps (`started_at`, else `finished_at`) run backwards against line order; line order is used.',
  },
} as const satisfies CodeContracts;
