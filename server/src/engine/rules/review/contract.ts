/** The codes that re-implement BenchFlow's experiment-review validator, one per check it makes (review/*.ts). */
import type { CodeContracts } from '../../codeContract';

export const reviewCodes = {
  'review-missing-artifact': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'An artifact the experiment-review validator requires is missing.',
    description:
      '`result.json`, `trajectory/acp_trajectory.jsonl`, `trajectory/llm_trajectory.jsonl` (unless exempt) or `results.jsonl` is missing.',
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
    description:
      'Every trajectory row is marked `phase: "verifier"`, or has a phase none of the known ones (`agent`, `verifier`, `harness`, in any case; the validator would count it as the agent\'s, but it may be a damaged `verifier`).',
  },
  'review-llm-trajectory': {
    severity: 'error',
    effect: 'incomplete',
    summary: 'The LLM trajectory fails the validator\u2019s exchange and usage checks.',
    description:
      'The LLM trajectory lacks request/response bodies, has fewer responses than requests, carries no positive usage, or a response that counts (after retries are set aside) has no usage.',
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
    summary: 'The results row names another task than result.json.',
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
    description:
      "result.json's top-level `n_tool_calls` (else its `tool_usage`), the count the validator reads, is 0; the message says which of the two it read and names the counts elsewhere that the validator does not read (`agent_result.n_tool_calls`, the ACP trajectory's `tool_call` rows).",
    readme:
      "result.json's top-level `n_tool_calls` (else its `tool_usage`), the count the validator reads, is 0; the message names a count elsewhere (`agent_result.n_tool_calls`) that the validator does not read.",
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
    description:
      'The results row, or one of its messages, carries a key that must never be exported (`gold_solution`, `reasoning_content`, …), or a damaged copy of one on the row.',
  },
  'review-training-ready': {
    severity: 'error',
    effect: 'untrusted',
    summary: 'The training_ready flag contradicts the rollout.',
    description:
      "`info.training_ready` contradicts how the rollout ended or what its row holds. A training-ready row needs positive input and output tokens, or a positive `total_tokens` (BenchFlow writes output 0 when a provider reports only a total, and the validator accepts it). A timeout's row is never held to what a success must claim: it must only not be training-ready, and say why.",
  },
  'review-messages': {
    severity: 'error',
    effect: 'incomplete',
    summary: "The results row's messages are not a valid conversation.",
    description: "The row's messages are not a valid conversation (roles, tool calls, tool definitions).",
  },
} as const satisfies CodeContracts;
