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
  /** One sentence, used as the SARIF rule description. */
  readonly summary: string;
}

export const diagnosticCodes = {
  // A file on its own.
  'jsonl-syntax': { severity: 'error', effect: 'incomplete', summary: 'A JSONL line is not valid JSON.' },
  'jsonl-partial-line': {
    severity: 'information',
    effect: 'incomplete',
    summary: 'The last line has no newline and is not valid JSON yet: a run may still be writing the file.',
  },
  'json-syntax': { severity: 'error', effect: 'incomplete', summary: 'A JSON artifact is not valid JSON.' },
  'record-not-object': { severity: 'error', effect: 'incomplete', summary: 'A record (a JSONL line or a JSON artifact) is valid JSON but not an object.' },
  schema: { severity: 'error', effect: 'incomplete', summary: "A record does not match its artifact's JSON Schema." },
  'artifact-empty': {
    severity: 'warning',
    effect: 'incomplete',
    summary: 'An artifact file holds no records (an error for a JSON artifact, which must hold an object).',
  },
  'not-utf8': { severity: 'error', effect: 'incomplete', summary: 'A file contains bytes that are not valid UTF-8.' },
  'record-too-large': { severity: 'error', effect: 'incomplete', summary: 'A single record is larger than the engine will parse.' },
  'artifact-outside-bundle': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'An artifact path resolves, through a symbolic link, outside its rollout folder, so it is not read.',
  },
  'internal-error': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'The checker failed on this rollout or document; its verdict is incomplete, and every other rollout is still checked in full.',
  },
  'problems-limited': {
    severity: 'information',
    effect: 'none',
    summary: 'More problems were found in the file than the configured maximum; the rest are counted, not listed.',
  },

  // Tools and timeouts.
  'tool-pending': {
    severity: 'warning',
    effect: 'incomplete',
    summary: 'A tool call is still pending or in progress, with no framework lifecycle evidence backed by proven quiescence.',
  },
  'timeout-pending-mismatch': {
    severity: 'error',
    effect: 'untrusted',
    summary: "The timeout's list of pending tool calls disagrees with the tool call rows.",
  },
  'terminal-claim-contradicted': {
    severity: 'error',
    effect: 'untrusted',
    summary: 'The bundle claims a complete trajectory while tool calls remain unresolved.',
  },
  'timeout-marker-missing': {
    severity: 'warning',
    effect: 'incomplete',
    summary: 'result.json reports a wall-clock agent timeout but the trajectory has no agent_timeout row.',
  },
  'status-counts-mismatch': {
    severity: 'warning',
    effect: 'untrusted',
    summary: "result.json's tool call status counts disagree with the trajectory's rows.",
  },
  'lifecycle-without-quiescence': {
    severity: 'error',
    effect: 'untrusted',
    summary: 'A framework lifecycle annotation ends a tool call without a positive quiescence observation behind it.',
  },
  'lifecycle-overclaims': {
    severity: 'error',
    effect: 'untrusted',
    summary: 'A framework lifecycle annotation claims known effects or an adapter-reported outcome.',
  },
  'tool-id-duplicate': {
    severity: 'warning',
    effect: 'incomplete',
    summary: 'Two tool call rows share an id, so which holds the latest state is ambiguous.',
  },
  'tool-terminalizable': {
    severity: 'information',
    effect: 'none',
    summary: 'A pending tool call could be ended by the framework with unknown effects: quiescence is proven.',
  },

  // Separate verifier.
  'verifier-evidence-missing': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'A separate verifier is declared but no successful verifier service start is recorded.',
  },
  'verifier-setup-only': {
    severity: 'error',
    effect: 'untrusted',
    summary: 'A separate verifier is declared but every exec in the verifier service only prepares or cleans.',
  },
  'verifier-grading-unproven': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'The grading attempt has no terminal outcome, ran before the verifier service started, or ran in another service.',
  },
  'verifier-declaration-unreadable': {
    severity: 'error',
    effect: 'incomplete',
    summary: "A present preflight.json's verifier declaration cannot be read, so whether the verifier is separate is unknown.",
  },
  'exec-outcome-missing': { severity: 'warning', effect: 'incomplete', summary: 'A hardening or verifier exec has a transport status but no return code.' },
  'command-unparsable': {
    severity: 'warning',
    effect: 'incomplete',
    summary: 'A hardening or verifier command is not shell this analyser can read, so what it proves is unknown.',
  },
  'command-too-complex': {
    severity: 'warning',
    effect: 'incomplete',
    summary: "A command is beyond the shell analyser's bounds (nesting, number of commands, findings), so what it proves is unknown.",
  },

  // Sandbox-user quiescence.
  'quiescence-unproven': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'No positive observation of the sandbox user after the last kill attempt and before the first grading attempt.',
  },
  'quiescence-survivors': { severity: 'error', effect: 'untrusted', summary: 'An observation reports surviving sandbox-user processes.' },
  'quiescence-unobservable': { severity: 'error', effect: 'incomplete', summary: "The sandbox user's processes could not be observed." },
  'quiescence-stale': { severity: 'error', effect: 'incomplete', summary: 'The last positive observation precedes the last kill attempt.' },
  'verifier-before-quiescence': {
    severity: 'error',
    effect: 'untrusted',
    summary: 'A grading attempt ran before the final positive quiescence observation.',
  },
  'masked-exit-status': {
    severity: 'error',
    effect: 'incomplete',
    summary: "An observation command's exit status comes from a command that cannot report the observation.",
  },
  'observation-conflates-failure': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'An observing command can end with the recorded status both when it found no process and when the observer itself failed.',
  },

  // Rewards and the record of actions.
  'untrusted-reward': {
    severity: 'error',
    effect: 'untrusted',
    summary: "A reward is present while the bundle's own evidence shows a failed or unchecked precondition.",
  },
  'action-kind-unknown': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'An action record has an event_type or phase the rules do not know, so the proof around it cannot be followed.',
  },
  'evidence-authored': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'An observation or lifecycle annotation says it was authored (by a quick fix or the fixture scaffold), not recorded by a probe or the harness, in a bundle that is not a fixture; or its provenance is none the rules know. It proves nothing.',
  },
  'timeline-order': { severity: 'warning', effect: 'incomplete', summary: 'Action record timestamps run backwards against line order.' },
  'timeout-incomplete': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'A timed-out rollout lacks an item its evidence needs to be countable, or two of its items contradict each other.',
  },
  // Kept for a native ACP rollout's timeout: the code predates timeout-incomplete, and codes are a public contract.
  'native-timeout-incomplete': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'A native ACP timeout lacks an item its evidence needs to be countable, or two of its items contradict each other (timeout-incomplete, for a native ACP rollout).',
  },

  // Parity with BenchFlow's experiment-review validator.
  'review-missing-artifact': { severity: 'error', effect: 'incomplete', summary: 'An artifact the experiment-review validator requires is missing.' },
  'review-empty-trajectory': { severity: 'error', effect: 'incomplete', summary: 'The ACP trajectory is empty, or has rows without a type.' },
  'review-no-agent-events': { severity: 'error', effect: 'incomplete', summary: 'The ACP trajectory has no agent-side event.' },
  'review-llm-trajectory': { severity: 'error', effect: 'incomplete', summary: 'The LLM trajectory fails the validator\u2019s exchange and usage checks.' },
  'review-results-rows': { severity: 'error', effect: 'incomplete', summary: 'results.jsonl does not hold exactly one row.' },
  'review-task-mismatch': { severity: 'error', effect: 'untrusted', summary: "The results row names another task than result.json." },
  'review-no-tokens': { severity: 'error', effect: 'incomplete', summary: 'result.json shows no positive token total.' },
  'review-no-timing': { severity: 'error', effect: 'incomplete', summary: 'result.json has no usable timing.' },
  'review-no-tool-calls': { severity: 'error', effect: 'incomplete', summary: 'result.json shows no tool calls.' },
  'review-no-reward': { severity: 'error', effect: 'incomplete', summary: 'result.json holds no reward.' },
  'review-infra-error': { severity: 'error', effect: 'untrusted', summary: 'An error names an infrastructure or provider failure.' },
  'review-banned-key': { severity: 'error', effect: 'untrusted', summary: 'The results row carries a key that must never be exported.' },
  'review-training-ready': { severity: 'error', effect: 'untrusted', summary: 'The training_ready flag contradicts the rollout.' },
  'review-messages': { severity: 'error', effect: 'incomplete', summary: "The results row's messages are not a valid conversation." },
} as const satisfies Record<string, CodeInfo>;

export type DiagnosticCode = keyof typeof diagnosticCodes;

export const allDiagnosticCodes = Object.keys(diagnosticCodes) as DiagnosticCode[];

export function isDiagnosticCode(value: unknown): value is DiagnosticCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(diagnosticCodes, value);
}

export function codeInfo(code: DiagnosticCode): CodeInfo {
  return diagnosticCodes[code];
}
