/**
 * The diagnostic codes. They are a public contract (CLI JSON, SARIF rule ids, README), so a code is
 * never renamed or reused; a test checks README's code table against these entries, severity and effect
 * included.
 *
 * `effect` is what a finding does to its rollout's verdict: `untrusted` when the bundle's own evidence
 * shows a failed or unchecked precondition of its reward, `incomplete` when evidence is missing,
 * malformed or not yet final.
 */
import type { Severity } from './findings';

export type Effect = 'untrusted' | 'incomplete' | 'none';

export interface CodeInfo {
  readonly severity: Severity;
  readonly effect: Effect;
  /** One sentence: the SARIF rule's short description. */
  readonly summary: string;
  /**
   * What raises the finding and where it is placed, in full: the SARIF rule's full description and help.
   * Code spans in backquotes are the only markup (the plain text drops the backquotes).
   */
  readonly description: string;
}

export const diagnosticCodes = {
  // A file on its own.
  'jsonl-syntax': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'A JSONL line is not valid JSON.',
    description: 'A JSONL line is not valid JSON. The range is the first error on the line (a trailing comma is marked on the comma). The other lines are still checked.',
  },
  'jsonl-partial-line': {
    severity: 'information',
    effect: 'incomplete',
    summary: 'The last line has no newline and is not valid JSON yet: a run may still be writing the file.',
    description: 'The last line has no newline and is not valid JSON yet: a run may still be writing the file.',
  },
  'json-syntax': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'A JSON artifact is not valid JSON.',
    description: 'A JSON artifact is not valid JSON.',
  },
  'record-not-object': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'A record (a JSONL line or a JSON artifact) is valid JSON but not an object.',
    description: 'A JSONL line, or a JSON artifact, is valid JSON but not an object.',
  },
  schema: {
    severity: 'error',
    effect: 'incomplete',
    summary: "A record does not match its artifact's JSON Schema.",
    description: "A record breaks its artifact's schema, or carries a damaged key or ACP row type. The range is the offending key or value; the message names the field, what was expected and what was found. A missing required property is marked on the record's `type`/`event_type`, or on the key of the object that lacks it.",
  },
  'artifact-empty': {
    severity: 'warning',
    effect: 'incomplete',
    summary: 'An artifact file holds no records (an error for a JSON artifact, which must hold an object).',
    description: 'A JSONL artifact holds no records. An empty JSON artifact is an error: it must hold an object.',
  },
  'not-utf8': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'A file contains bytes that are not valid UTF-8.',
    description: 'A file contains bytes that are not UTF-8, marked at the first bad byte of the line (the CLI reads bytes, so it sees this exactly).',
  },
  'record-too-large': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'A single record is larger than the engine will parse.',
    description: 'A line (or a JSON artifact) over 64 MiB, reported by size and not parsed.',
  },
  'artifact-outside-bundle': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'An artifact path resolves, through a symbolic link, outside its rollout folder, so it is not read.',
    description: 'An artifact path that resolves, through a symbolic link, outside its rollout folder: it is not read and nothing of it is quoted.',
  },
  'internal-error': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'The checker failed on this rollout or document; its verdict is incomplete, and every other rollout is still checked in full.',
    description: 'The checker failed on this rollout (CLI) or document (server); that rollout is `incomplete`, every other one is reported in full.',
  },
  'problems-limited': {
    severity: 'information',
    effect: 'none',
    summary: 'More problems were found in the file than the configured maximum; the rest are counted, not listed.',
    description: 'More problems than `rolloutEvidence.maxNumberOfProblems` (`--max-problems`) were found in a file; says how many were left out.',
  },

  // Tools and timeouts.
  'tool-pending': {
    severity: 'warning',
    effect: 'incomplete',
    summary: 'A tool call is still pending or in progress, with no framework lifecycle evidence backed by proven quiescence.',
    description: 'A `tool_call` row is still `pending`/`in_progress`, with no framework lifecycle annotation backed by proven quiescence.',
  },
  'timeout-pending-mismatch': {
    severity: 'error',
    effect: 'untrusted',
    summary: "The timeout's list of pending tool calls disagrees with the tool call rows.",
    description: '`agent_timeout.pending_tool_call_ids` (or result.json `agent_timeout_info.pending_tool_call_ids`) lists an id that is terminal or absent, or leaves out a pending row.',
  },
  'terminal-claim-contradicted': {
    severity: 'error',
    effect: 'untrusted',
    summary: 'The bundle claims a complete trajectory while tool calls remain unresolved.',
    description: '`terminal_trajectory_complete: true`, `partial_trajectory: false` or `is_truncated: false` while tool calls are unresolved.',
  },
  'timeout-marker-missing': {
    severity: 'warning',
    effect: 'incomplete',
    summary: 'result.json reports a wall-clock agent timeout but the trajectory has no agent_timeout row.',
    description: 'result.json reports a wall-clock agent timeout but the trajectory has no `agent_timeout` row. For an idle timeout (which never writes one) it is information only.',
  },
  'status-counts-mismatch': {
    severity: 'warning',
    effect: 'untrusted',
    summary: "result.json's tool call status counts disagree with the trajectory's rows.",
    description: 'result.json `trajectory_summary.tool_call_status_counts` disagrees with the rows.',
  },
  'lifecycle-without-quiescence': {
    severity: 'error',
    effect: 'untrusted',
    summary: 'A framework lifecycle annotation ends a tool call without a positive quiescence observation behind it.',
    description: 'A framework lifecycle annotation (or the prototype form) with no positive quiescence observation behind it, or a `quiescence_ref` that names another record.',
  },
  'lifecycle-overclaims': {
    severity: 'error',
    effect: 'untrusted',
    summary: 'A framework lifecycle annotation claims known effects or an adapter-reported outcome.',
    description: 'A framework annotation that claims known effects, an adapter outcome, another source, or a call the trajectory never started or the adapter already ended.',
  },
  'tool-id-duplicate': {
    severity: 'warning',
    effect: 'incomplete',
    summary: 'Two tool call rows share an id, so which holds the latest state is ambiguous.',
    description: "Two `tool_call` rows share an id, so which holds the call's latest state is ambiguous.",
  },
  'tool-terminalizable': {
    severity: 'information',
    effect: 'none',
    summary: 'A pending tool call could be ended by the framework with unknown effects: quiescence is proven.',
    description: 'A pending tool, quiescence proven, no annotation yet: the framework could record that it ended, with unknown effects.',
  },

  // Separate verifier.
  'verifier-evidence-missing': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'A separate verifier is declared but no successful verifier service start is recorded.',
    description: 'A separate verifier is declared but `action_records.jsonl` is missing or has no successful `StartBenchGuardVerifierService`. On the declaration. A preflight that says `verifier_environment_mode_declared: false` declares nothing.',
  },
  'verifier-setup-only': {
    severity: 'error',
    effect: 'untrusted',
    summary: 'A separate verifier is declared but every exec in the verifier service only prepares or cleans.',
    description: 'A separate verifier is declared and every exec in the verifier service is setup-only; related: each setup exec. On the declaration.',
  },
  'verifier-grading-unproven': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'The grading attempt has no terminal outcome, ran before the verifier service started, or ran in another service.',
    description: 'A grading attempt with no terminal outcome, before the verifier service started, or in another service; or a started verifier service in which nothing ran.',
  },
  'verifier-declaration-unreadable': {
    severity: 'error',
    effect: 'incomplete',
    summary: "A present preflight.json's verifier declaration cannot be read, so whether the verifier is separate is unknown.",
    description: 'A present `benchguard/preflight.json` whose verifier declaration cannot be read: broken JSON or not an object, a key shaped like `verifier_environment_mode` (or a key on its path) that is not it, a non-object on its path, or a mode outside `separate` and `shared`. The separate-verifier rules then treat the mode as unknown, not shared: they run as if it were separate.',
  },
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
    description: 'A `command_preview` that is not shell `dash` would read (an unbalanced quote, say), or an observing command whose exit status cannot be followed (`eval`, `trap`, `.`, `exec`, a loop or function call beyond what the analysis unrolls, or a computed `break` or `set` argument), so what it proves is unknown.',
  },
  'command-too-complex': {
    severity: 'warning',
    effect: 'incomplete',
    summary: "A command is beyond the shell analyser's bounds (nesting, number of commands, findings), so what it proves is unknown.",
    description: "A `command_preview` beyond the shell analyser's bounds: nested more than 200 levels deep (subshells, groups, `if`/loops/`case`, `$( )`, backquotes, `${…}`, function bodies and calls), more than 1,000 commands, function calls and nested scripts that expand to more words than the text warrants, or more paths than the run in three worlds follows (a fixed budget of work per world). One finding on the command, so what it proves is unknown. A command with more than 32 masking or conflating commands has those 32 reported and this one finding for the rest. Real BenchFlow commands nest at most 9 levels and hold at most 54 commands.",
  },

  // Sandbox-user quiescence.
  'quiescence-unproven': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'No positive observation of the sandbox user after the last kill attempt and before the first grading attempt.',
    description: 'A sandbox user is set, and no positive observation was made after the last kill attempt and before the first grading attempt. Also a warning when config.json is missing, so whether a sandbox user applies is unknown.',
  },
  'quiescence-survivors': {
    severity: 'error',
    effect: 'untrusted',
    summary: 'An observation reports surviving sandbox-user processes.',
    description: 'An observation reports survivors (`return_code` 1, or a non-empty `survivors` list), naming the pids, and no later positive observation supersedes it.',
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
    description: 'The last positive observation precedes the last kill attempt (across records, or inside one command).',
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
    description: 'An observing command whose exit status comes from a command that cannot report it; on the exact characters of that command inside `command_preview`. A pure kill command is not flagged: its status is not evidence.',
  },
  'observation-conflates-failure': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'An observing command can end with the recorded status both when it found no process and when the observer itself failed.',
    description: "An observing command can end with its recorded status both when the observation found none of the sandbox user's processes and when the observer itself failed (`! pgrep -u agent`, `pgrep … && exit 1 || exit 0`, `if pgrep …; then exit 1; fi`: pgrep exits 1 for \"none\" but 2 or 3 when it cannot look), so that status is not proof; on the exact characters of the command that supplies it.",
  },

  // Rewards and the record of actions.
  'untrusted-reward': {
    severity: 'error',
    effect: 'untrusted',
    summary: "A reward is present while the bundle's own evidence shows a failed or unchecked precondition.",
    description: "A reward (the first of `result.json` `rewards.reward`, the results row's `reward`/`score`, the terminal event of `rewards.jsonl`, `verifier/reward.txt`, `verifier/reward.json` `reward`) while the bundle shows survivors, an unobservable or stale or masked observation, a setup-only verifier, or grading before quiescence; related to each cause. Not raised when evidence is simply absent.",
  },
  'action-kind-unknown': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'An action record has an event_type or phase the rules do not know, so the proof around it cannot be followed.',
    description: 'An action record whose `event_type` (or none) or `phase` (compared case-insensitively) the rules do not know: the proof around it is unprovable, not silently without it. The timeline rules also read it as each known kind, and a finding only such a reading makes says so.',
  },
  'timeline-order': {
    severity: 'warning',
    effect: 'incomplete',
    summary: 'Action record timestamps run backwards against line order.',
    description: 'Action record timestamps (`started_at`, else `finished_at`) run backwards against line order; line order is used.',
  },
  'evidence-authored': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'An observation or lifecycle annotation says it was authored (by a quick fix or the fixture scaffold), not recorded by a probe or the harness, in a bundle that is not a fixture; or its provenance is none the rules know. It proves nothing.',
    description: 'A `SandboxUserQuiescence` observation, an observing `SandboxExec` or a `tool_call_lifecycle` row whose `provenance` is `authored` (written by a quick fix or the fixture scaffold) in a bundle that is not a fixture, or whose `provenance` is none the rules know: it proves nothing, and the rules read the rollout without it.',
  },
  'timeout-incomplete': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'A timed-out rollout lacks an item its evidence needs to be countable, or two of its items contradict each other.',
    description: 'A timed-out rollout (one whose own evidence says it timed out: README, Timeouts) lacks an item it needs to be countable, or one of its claims contradicts the others; one finding per item, on the line that carries it (or should).',
  },
  // Kept for a native ACP rollout's timeout: the code predates timeout-incomplete, and codes are a public contract.
  'native-timeout-incomplete': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'A native ACP timeout lacks an item its evidence needs to be countable, or two of its items contradict each other (timeout-incomplete, for a native ACP rollout).',
    description: "`timeout-incomplete` for a native ACP rollout's timeout (kept: the code predates the general one), with the native items of README’s Timeouts section.",
  },

  // Parity with BenchFlow's experiment-review validator.
  'review-missing-artifact': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'An artifact the experiment-review validator requires is missing.',
    description: '`result.json`, `trajectory/acp_trajectory.jsonl`, `trajectory/llm_trajectory.jsonl` (unless exempt) or `results.jsonl` is missing.',
  },
  'review-empty-trajectory': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'The ACP trajectory is empty, or has rows without a type.',
    description: 'The ACP trajectory has no rows, or rows without a non-empty string `type`.',
  },
  'review-no-agent-events': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'The ACP trajectory has no agent-side event.',
    description: "Every trajectory row is marked `phase: \"verifier\"`, or has a phase none of the known ones (`agent`, `verifier`, `harness`, in any case; the validator would count it as the agent's, but it may be a damaged `verifier`).",
  },
  'review-llm-trajectory': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'The LLM trajectory fails the validator\u2019s exchange and usage checks.',
    description: 'The LLM trajectory lacks request/response bodies, has fewer responses than requests, carries no positive usage, or a response that counts (after retries are set aside) has no usage.',
  },
  'review-results-rows': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'results.jsonl does not hold exactly one row.',
    description: '`results.jsonl` does not hold exactly one row, or the row has no `info` object.',
  },
  'review-task-mismatch': {
    severity: 'error',
    effect: 'untrusted',
    summary: "The results row names another task than result.json.",
    description: 'The results row names another task than result.json.',
  },
  'review-no-tokens': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'result.json shows no positive token total.',
    description: 'result.json shows no positive token total.',
  },
  'review-no-timing': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'result.json has no usable timing.',
    description: 'result.json has no usable timing.',
  },
  'review-no-tool-calls': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'result.json shows no tool calls.',
    description: "result.json's top-level `n_tool_calls` (else its `tool_usage`), the count the validator reads, is 0; the message says which of the two it read and names the counts elsewhere that the validator does not read (`agent_result.n_tool_calls`, the ACP trajectory's `tool_call` rows).",
  },
  'review-no-reward': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'result.json holds no reward.',
    description: 'result.json holds no reward.',
  },
  'review-infra-error': {
    severity: 'error',
    effect: 'untrusted',
    summary: 'An error names an infrastructure or provider failure.',
    description: 'An error field names an infrastructure or provider failure (docker, transport, credential, …).',
  },
  'review-banned-key': {
    severity: 'error',
    effect: 'untrusted',
    summary: 'The results row carries a key that must never be exported.',
    description: 'The results row, or one of its messages, carries a key that must never be exported (`gold_solution`, `reasoning_content`, …), or a damaged copy of one on the row.',
  },
  'review-training-ready': {
    severity: 'error',
    effect: 'untrusted',
    summary: 'The training_ready flag contradicts the rollout.',
    description: "`info.training_ready` contradicts how the rollout ended or what its row holds. A training-ready row needs positive input and output tokens, or a positive `total_tokens` (BenchFlow writes output 0 when a provider reports only a total, and the validator accepts it). A timeout's row is never held to what a success must claim: it must only not be training-ready, and say why.",
  },
  'review-messages': {
    severity: 'error',
    effect: 'incomplete',
    summary: "The results row's messages are not a valid conversation.",
    description: "The row's messages are not a valid conversation (roles, tool calls, tool definitions).",
  },
} as const satisfies Record<string, CodeInfo>;

export type DiagnosticCode = keyof typeof diagnosticCodes;

export const allDiagnosticCodes = Object.keys(diagnosticCodes) as DiagnosticCode[];

export function isDiagnosticCode(value: unknown): value is DiagnosticCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(diagnosticCodes, value);
}

export function codeInfo(code: DiagnosticCode): CodeInfo {
  return diagnosticCodes[code];
}
