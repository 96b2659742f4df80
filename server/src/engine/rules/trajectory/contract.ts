/** The codes of the tool-call and timeout rules (trajectory.ts, lifecycleOrder.ts). */
import type { CodeContracts } from '../../codeContract';

export const trajectoryCodes = {
  'tool-pending': {
    severity: 'warning',
    effect: 'incomplete',
    summary:
      'A tool call is still pending or in progress, with no framework lifecycle evidence backed by proven quiescence.',
    description:
      'A `tool_call` row is still `pending`/`in_progress`, with no framework lifecycle annotation backed by proven quiescence.',
  },
  'timeout-pending-mismatch': {
    severity: 'error',
    effect: 'untrusted',
    summary: "The timeout's list of pending tool calls disagrees with the tool call rows.",
    description:
      '`agent_timeout.pending_tool_call_ids` (or result.json `agent_timeout_info.pending_tool_call_ids`) lists an id that is terminal or absent, or leaves out a pending row.',
  },
  'terminal-claim-contradicted': {
    severity: 'error',
    effect: 'untrusted',
    summary: 'The bundle claims a complete trajectory while tool calls remain unresolved.',
    description:
      '`terminal_trajectory_complete: true`, `partial_trajectory: false` or `is_truncated: false` while tool calls are unresolved.',
  },
  'timeout-marker-missing': {
    severity: 'warning',
    effect: 'incomplete',
    summary: 'result.json reports a wall-clock agent timeout but the trajectory has no agent_timeout row.',
    description:
      'result.json reports a wall-clock agent timeout but the trajectory has no `agent_timeout` row. For an idle timeout (which never writes one) it is information only.',
  },
  'status-counts-mismatch': {
    severity: 'warning',
    effect: 'untrusted',
    summary: "result.json's tool call status counts disagree with the trajectory's rows.",
    description:
      'result.json `trajectory_summary.tool_call_status_counts` disagrees with the rows, or cannot be read: it is no object (null included), or a `trajectory_summary` lacks it, which BenchFlow always writes with the summary.',
  },
  'lifecycle-without-quiescence': {
    severity: 'error',
    effect: 'untrusted',
    summary: 'A framework lifecycle annotation ends a tool call without a positive quiescence observation behind it.',
    description:
      'A framework lifecycle annotation (or the prototype form) with no positive quiescence observation behind it, or a `quiescence_ref` that names another record.',
  },
  'lifecycle-overclaims': {
    severity: 'error',
    effect: 'untrusted',
    summary: 'A framework lifecycle annotation claims known effects or an adapter-reported outcome.',
    description:
      'A framework annotation that claims known effects, an adapter outcome, another source, or a call the trajectory never started or the adapter already ended.',
  },
  'lifecycle-out-of-order': {
    severity: 'error',
    effect: 'untrusted',
    summary:
      'A framework lifecycle annotation comes before the timeout marker or the call it ends, so it predates the observation it rests on.',
    description:
      "A `tool_call_lifecycle` row that comes before the trajectory's `agent_timeout` marker, or before the row of the call it ends. BenchFlow writes the trajectory in the order things happen and the marker when the budget runs out, before hardening observes the sandbox; an annotation may be written only after that observation, so one placed earlier was recorded before the observation it cites. It ends no call. Line order is the order: BenchFlow writes no time on ACP rows. The prototype form (a tool row changed in place) is not ordered.",
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
    description:
      'A pending tool, quiescence proven, no annotation yet: the framework could record that it ended, with unknown effects.',
  },
} as const satisfies CodeContracts;
