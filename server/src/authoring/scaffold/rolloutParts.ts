/**
 * The records of one healthy BenchFlow rollout, for a given task, rollout name and start time: a prompt,
 * one completed tool call, the provider exchanges behind it, the hardening that killed the sandbox
 * user's processes and proved them gone, and a separate verifier that was started, set up and graded.
 * The scenarios are variations of it.
 */

export type Json = { readonly [key: string]: unknown };

/** Who the rollout is: the names in its records, and when it started. */
export interface RolloutIdentity {
  readonly task: string;
  readonly rolloutName: string;
  readonly startedAt: Date;
}

/** A rollout's artifacts as records; a part left out is a file the rollout lacks. */
export interface RolloutParts {
  readonly config: Json;
  readonly result: Json;
  readonly timing: Json;
  readonly trajectory: readonly Json[];
  readonly llmExchanges?: readonly Json[];
  readonly results: readonly Json[];
  readonly rewards: readonly Json[];
  readonly preflight: Json;
  readonly actions: readonly Json[];
  readonly reward: number;
  /** The test script's output, when grading ran. */
  readonly testStdout?: string;
}

/** The moments of one rollout, in seconds after its start, as BenchFlow and BenchGuard write them. */
export class RolloutClock {
  constructor(private readonly start: Date) {}

  /** Python's `str(datetime)`, which BenchFlow writes into config.json and result.json. */
  benchflowTime(seconds: number): string {
    return `${this.at(seconds).toISOString().slice(0, 19).replace('T', ' ')}.000001`;
  }

  /** ISO 8601 in UTC to the second, as the action records are written. */
  isoTime(seconds: number): string {
    return `${this.at(seconds).toISOString().slice(0, 19)}Z`;
  }

  /** `started_at` and `finished_at` of an action that took one second. */
  action(seconds: number): { started_at: string; finished_at: string } {
    return { started_at: this.isoTime(seconds), finished_at: this.isoTime(seconds + 1) };
  }

  private at(seconds: number): Date {
    return new Date(this.start.getTime() + seconds * 1000);
  }
}

/** The seconds after the start at which things happen: the agent's minute, then hardening, then grading. */
export const moments = {
  kill: 50,
  observation: 51,
  verifierStart: 52,
  verifierSetup: 53,
  grading: 54,
  end: 60,
} as const;

/** The hardening and verifier actions every scenario draws on, named for what they are. */
export function standardActions(identity: RolloutIdentity): {
  kill: Json;
  quiescentObservation: Json;
  verifierStart: Json;
  verifierSetup: Json;
  grading: Json;
} {
  const clock = new RolloutClock(identity.startedAt);
  return {
    kill: {
      event_type: 'SandboxExec',
      action_id: 'a-0001',
      phase: 'Harden',
      service: 'main',
      status: 'ok',
      command_preview: 'pkill -u agent; sleep 1; pkill -9 -u agent || true',
      return_code: 0,
      ...clock.action(moments.kill),
    },
    quiescentObservation: {
      event_type: 'SandboxUserQuiescence',
      action_id: 'a-0002',
      phase: 'Harden',
      service: 'main',
      status: 'ok',
      sandbox_user: 'agent',
      uid: 1001,
      mode: 'harden',
      target: { kind: 'docker', name: `${identity.task}-main` },
      signals_sent: [{ signal: 'TERM', pid: 212, round: 1 }],
      survivors: [],
      return_code: 0,
      observed_at: clock.isoTime(moments.observation + 1),
      final: true,
      // No probe observed it: it counts only because the scaffold's marker makes the bundle a fixture.
      provenance: 'authored',
      ...clock.action(moments.observation),
    },
    verifierStart: {
      event_type: 'StartBenchGuardVerifierService',
      action_id: 'a-0003',
      phase: 'Verify',
      service: 'benchguard-verifier',
      status: 'ok',
      ...clock.action(moments.verifierStart),
    },
    verifierSetup: {
      event_type: 'SandboxExec',
      action_id: 'a-0004',
      phase: 'Verify',
      service: 'benchguard-verifier',
      status: 'ok',
      command_preview: 'mkdir -p /logs/verifier && chmod 777 /logs/verifier',
      return_code: 0,
      ...clock.action(moments.verifierSetup),
    },
    grading: {
      event_type: 'SandboxExec',
      action_id: 'a-0005',
      phase: 'Verify',
      service: 'benchguard-verifier',
      status: 'ok',
      command_preview: 'bash /tests/test.sh > /logs/verifier/test-stdout.txt 2>&1',
      return_code: 0,
      ...clock.action(moments.grading),
    },
  };
}

export const promptText = 'Create hello.txt containing Hello, world!';

export function healthyRollout(identity: RolloutIdentity): RolloutParts {
  const { task, rolloutName } = identity;
  const clock = new RolloutClock(identity.startedAt);
  const actions = standardActions(identity);
  return {
    config: {
      task_path: `tasks/${task}`,
      agent: 'claude-agent-acp',
      model: 'claude-x',
      environment: 'docker',
      acp_transport: 'stdio',
      sandbox_user: 'agent',
      sandbox_locked_paths: ['/oracle', '/solution', '/verifier', '/tests', '/testbed_verify'],
      sandbox_setup_timeout: 120,
      timeout_sec: 300,
      agent_idle_timeout_sec: 120,
      concurrency: 1,
      started_at: clock.benchflowTime(0),
      agent_env: {},
    },
    result: {
      task_name: task,
      rollout_name: rolloutName,
      rewards: { reward: 1.0 },
      agent: 'claude-agent-acp',
      agent_name: 'claude-agent-acp',
      model: 'claude-x',
      n_tool_calls: 1,
      n_prompts: 1,
      agent_result: {
        n_tool_calls: 1,
        n_input_tokens: 180,
        n_output_tokens: 40,
        total_tokens: 220,
        usage_source: 'provider_response',
      },
      trajectory_summary: {
        steps: 3,
        tool_call_steps: 1,
        tool_call_status_counts: { completed: 1 },
        partial_trajectory: false,
        trajectory_source: 'acp',
      },
      error: null,
      error_category: null,
      verifier_error: null,
      agent_timeout_info: null,
      idle_timeout_info: null,
      partial_trajectory: false,
      trajectory_source: 'acp',
      started_at: clock.benchflowTime(0),
      finished_at: clock.benchflowTime(moments.end),
      timing: { agent_execution: 40.0, verifier: 5.0, total: 60.0 },
    },
    timing: { environment_setup: 8.1, agent_setup: 4.0, agent_execution: 40.0, verifier: 5.0, total: 60.0 },
    trajectory: [
      { type: 'user_message', text: promptText },
      {
        type: 'tool_call',
        tool_call_id: 'call_01',
        kind: 'execute',
        title: "printf 'Hello, world!' > hello.txt",
        status: 'completed',
        content: [],
      },
      { type: 'agent_message', text: 'Done.' },
    ],
    llmExchanges: [
      {
        request: {
          path: '/v1/messages',
          body: { model: 'claude-x', messages: [{ role: 'user', content: promptText }] },
        },
        response: {
          status_code: 200,
          body: {
            stop_reason: 'tool_use',
            content: [{ type: 'tool_use', id: 'call_01', name: 'bash' }],
            usage: { input_tokens: 80, output_tokens: 20 },
          },
        },
      },
      {
        request: {
          path: '/v1/messages',
          body: {
            model: 'claude-x',
            messages: [
              { role: 'user', content: promptText },
              { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_01' }] },
            ],
          },
        },
        response: {
          status_code: 200,
          body: {
            stop_reason: 'end_turn',
            content: [{ type: 'text', text: 'Done.' }],
            usage: { input_tokens: 100, output_tokens: 20 },
          },
        },
      },
    ],
    results: [
      {
        example_id: 0,
        prompt: [{ role: 'user', content: promptText }],
        completion: [
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_01', type: 'function', function: { name: 'bash', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: 'call_01', content: '' },
          { role: 'assistant', content: 'Done.' },
        ],
        info: {
          task_id: task,
          task_name: task,
          rollout_name: rolloutName,
          source: 'benchflow',
          training_ready: true,
          training_ready_reason: null,
        },
        reward: 1.0,
        score: 1.0,
        error: null,
        timing: { total: 60.0 },
        is_completed: true,
        is_truncated: false,
        stop_condition: 'agent_completed',
        metrics: { n_tool_calls: 1, n_prompts: 1, reward: 1.0 },
        tool_defs: [{ name: 'bash', description: 'Run a command', parameters: { type: 'object' } }],
        token_usage: {
          input_tokens: 180,
          output_tokens: 40,
          final_input_tokens: 100,
          final_output_tokens: 20,
          total_tokens: 220,
        },
        total_tool_calls: 1.0,
        trajectory: [
          { prompt: [], completion: [], extras: { source: 'llm_trajectory', exchange_index: 0 } },
          { prompt: [], completion: [], extras: { source: 'llm_trajectory', exchange_index: 1 } },
        ],
      },
    ],
    rewards: [{ name: 'reward', value: 1.0, space: 'output', granularity: 'terminal' }],
    preflight: { report: { task_binding: { facts: { verifier_environment_mode: 'separate' } } } },
    actions: [
      actions.kill,
      actions.quiescentObservation,
      actions.verifierStart,
      actions.verifierSetup,
      actions.grading,
    ],
    reward: 1,
    testStdout: 'PASS hello.txt contains Hello, world!\n',
  };
}
