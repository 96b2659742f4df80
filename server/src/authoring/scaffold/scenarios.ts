/**
 * The scaffold scenarios: each a variation of the healthy rollout that shows one thing the rules judge,
 * with the verdict and codes they give it (test/unit/scaffold.test.ts holds them to it).
 */
import { rolloutFiles } from '../../../../shared/src/layout';
import type { ScenarioSummary } from '../../../../shared/src/scaffold';
import {
  healthyRollout,
  RolloutClock,
  moments,
  standardActions,
  type Json,
  type RolloutIdentity,
  type RolloutParts,
} from './rolloutParts';

export interface Scenario extends ScenarioSummary {
  readonly build: (identity: RolloutIdentity) => RolloutParts;
}

const timeoutMessage = 'Agent prompt exceeded wall-clock budget 300s';

/** The same reward in every place a rollout records one. */
function withReward(parts: RolloutParts, reward: number): RolloutParts {
  const [row, ...rest] = parts.results;
  return {
    ...parts,
    result: { ...parts.result, rewards: { reward } },
    results: row ? [{ ...row, reward, score: reward, metrics: { ...(row['metrics'] as Json), reward } }, ...rest] : [],
    rewards: parts.rewards.map((event) => ({ ...event, value: reward })),
    reward,
  };
}

function rowInfo(parts: RolloutParts): Json {
  return parts.results[0]?.['info'] as Json;
}

/**
 * The agent ran out of its wall-clock budget with `sleep 9999` still running: the timeout marker lists
 * it honestly, the grade that followed failed, and the hardening proved the sandbox user quiescent.
 */
function timedOut(identity: RolloutIdentity): RolloutParts {
  const healthy = withReward(healthyRollout(identity), 0);
  const grading = { ...standardActions(identity).grading, return_code: 1 };
  const timeoutInfo = {
    reason: 'wall_clock_timeout',
    timeout_sec: 300.0,
    n_tool_calls: 2,
    pending_tool_call_ids: ['call_02'],
    terminal_event_recorded: true,
    terminal_trajectory_complete: false,
  };
  return {
    ...healthy,
    result: {
      ...healthy.result,
      n_tool_calls: 2,
      trajectory_summary: {
        steps: 4,
        tool_call_steps: 2,
        tool_call_status_counts: { completed: 1, in_progress: 1 },
        partial_trajectory: true,
        trajectory_source: 'partial_acp',
      },
      error: timeoutMessage,
      error_category: 'timeout',
      agent_timeout_info: timeoutInfo,
      partial_trajectory: true,
      trajectory_source: 'partial_acp',
    },
    trajectory: [
      ...healthy.trajectory.slice(0, 2),
      {
        type: 'tool_call',
        tool_call_id: 'call_02',
        kind: 'execute',
        title: 'sleep 9999',
        status: 'in_progress',
        content: [],
      },
      {
        type: 'agent_timeout',
        reason: 'wall_clock_timeout',
        timeout_sec: 300.0,
        pending_tool_call_ids: ['call_02'],
        terminal_trajectory_complete: false,
      },
    ],
    results: healthy.results.map((row) => ({
      ...row,
      info: { ...rowInfo(healthy), training_ready: false, training_ready_reason: 'partial_trajectory' },
      error: { error: 'partial_trajectory', error_chain_str: timeoutMessage, error_chain_repr: null },
      is_completed: false,
      is_truncated: true,
      stop_condition: 'partial_trajectory',
    })),
    actions: [...healthy.actions.slice(0, -1), grading],
    testStdout: 'FAIL hello.txt does not contain Hello, world!\n',
  };
}

/**
 * A native ACP agent (usage reported by the ACP peer, no provider trajectory) timed out; the peer
 * cancelled its running tool, so the trajectory is terminal and the timeout is countable.
 */
function nativeTimeout(identity: RolloutIdentity): RolloutParts {
  const timed = timedOut(identity);
  const { llmExchanges: _providerExchanges, ...withoutProviderTrajectory } = timed;
  return {
    ...withoutProviderTrajectory,
    result: {
      ...timed.result,
      n_tool_calls: 1,
      agent_result: {
        n_tool_calls: 1,
        n_input_tokens: 900,
        n_output_tokens: 120,
        total_tokens: 1020,
        usage_source: 'agent_native_acp',
      },
      trajectory_summary: {
        steps: 4,
        tool_call_steps: 2,
        tool_call_status_counts: { completed: 1, cancelled: 1 },
        partial_trajectory: false,
        trajectory_source: 'acp',
      },
      agent_timeout_info: {
        ...(timed.result['agent_timeout_info'] as Json),
        pending_tool_call_ids: [],
        terminal_trajectory_complete: true,
      },
      partial_trajectory: false,
      trajectory_source: 'acp',
    },
    trajectory: [
      ...timed.trajectory.slice(0, 2),
      { ...timed.trajectory[2], status: 'cancelled' },
      { ...timed.trajectory[3], pending_tool_call_ids: [], terminal_trajectory_complete: true },
    ],
    results: timed.results.map((row) => ({
      ...row,
      completion: null,
      trajectory: [],
      info: { ...rowInfo(timed), training_ready: false, training_ready_reason: 'agent_error' },
      error: { error: 'agent_error', error_chain_str: timeoutMessage, error_chain_repr: null },
      is_truncated: false,
      stop_condition: 'agent_error',
      token_usage: {
        input_tokens: 900,
        output_tokens: 120,
        final_input_tokens: 900,
        final_output_tokens: 120,
        total_tokens: 1020,
      },
    })),
  };
}

function withActions(
  identity: RolloutIdentity,
  choose: (actions: ReturnType<typeof standardActions>) => readonly Json[],
  change: Partial<RolloutParts> = {},
): RolloutParts {
  return { ...healthyRollout(identity), actions: choose(standardActions(identity)), ...change };
}

export const scenarios: readonly Scenario[] = [
  {
    id: 'healthy',
    label: 'Healthy rollout',
    description:
      'Killed, observed quiescent, then graded by a separate verifier: every precondition of the reward is proven.',
    verdict: 'trusted',
    codes: [],
    requiredSettings: [],
    focusFile: rolloutFiles.acpTrajectory,
    build: healthyRollout,
  },
  {
    id: 'tool-pending-after-timeout',
    label: 'Pending tool after timeout',
    description:
      'A wall-clock timeout left `sleep 9999` in_progress, so the timeout is not countable yet; quiescence is proven, so the framework could end it.',
    verdict: 'incomplete',
    codes: ['tool-pending', 'tool-terminalizable', 'timeout-incomplete'],
    requiredSettings: [],
    focusFile: rolloutFiles.acpTrajectory,
    build: timedOut,
  },
  {
    id: 'setup-only-verifier',
    label: 'Setup-only verifier',
    description: 'A separate verifier is declared, but its service only ran mkdir and chmod, and the reward stands.',
    verdict: 'untrusted',
    codes: ['verifier-setup-only', 'untrusted-reward'],
    requiredSettings: [],
    focusFile: rolloutFiles.preflight,
    build: (identity) =>
      withActions(identity, (a) => [a.kill, a.quiescentObservation, a.verifierStart, a.verifierSetup], {
        testStdout: undefined,
      }),
  },
  {
    id: 'masked-quiescence-probe',
    label: 'Masked quiescence probe',
    description:
      "BenchFlow's hardening from #1078: its check observes before the last kill and takes its status from `sleep 1`.",
    verdict: 'untrusted',
    codes: ['quiescence-unproven', 'masked-exit-status', 'untrusted-reward'],
    requiredSettings: [],
    focusFile: rolloutFiles.actionRecords,
    build: (identity) =>
      withActions(identity, (a) => [
        { ...a.kill, command_preview: 'pkill -u agent 2>/dev/null; sleep 1; pkill -9 -u agent 2>/dev/null || true' },
        {
          ...a.kill,
          action_id: 'a-0002',
          command_preview: '! pgrep -u agent > /dev/null 2>&1 || (sleep 1 && pkill -9 -u agent; sleep 1)',
          ...new RolloutClock(identity.startedAt).action(moments.observation),
        },
        a.verifierStart,
        a.verifierSetup,
        a.grading,
      ]),
  },
  {
    id: 'survivors-with-reward',
    label: 'Survivors with reward',
    description:
      'The final observation found a sandbox-user python3 still running, and the rollout still carries its reward.',
    verdict: 'untrusted',
    codes: ['quiescence-survivors', 'untrusted-reward'],
    requiredSettings: [],
    focusFile: rolloutFiles.actionRecords,
    build: (identity) =>
      withActions(identity, (a) => [
        a.kill,
        {
          ...a.quiescentObservation,
          survivors: [{ pid: 1234, state: 'S', ruid: 1001, euid: 1001, name: 'python3' }],
          return_code: 1,
        },
        a.verifierStart,
        a.verifierSetup,
        a.grading,
      ]),
  },
  {
    id: 'native-timeout-complete',
    label: 'Complete native timeout',
    description:
      'A native ACP agent timed out with every tool resolved and usage, timing and reward recorded: countable, never training-ready.',
    verdict: 'trusted-timeout',
    codes: [],
    requiredSettings: ['allowNativeSubscriptionWithoutLlm'],
    focusFile: rolloutFiles.acpTrajectory,
    build: nativeTimeout,
  },
];
