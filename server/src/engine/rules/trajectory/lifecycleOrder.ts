/**
 * A framework lifecycle annotation in the trajectory's order. BenchFlow's ACP trajectory is chronological
 * (`ACPSession.events`, written by `trajectories/_capture.py`): each event is appended when it happens,
 * and a tool call keeps the place where it was first seen, with its latest status. The `agent_timeout`
 * marker is appended when the prompt budget runs out (`acp/runtime.py` `_agent_prompt_timeout_error`),
 * before `Rollout.verify()` hardens the sandbox; the quiescence observation a `tool_call_lifecycle` row
 * rests on is made by that hardening, and the row can be written only after it. So the row comes after
 * the timeout marker, and after the row of the call it ends, or it was written before the observation
 * it cites existed.
 *
 * The trajectory's line order is the order: BenchFlow writes no time on ACP rows (nor does this project's
 * `tool_call_lifecycle` proposal), so the observation's own time in the action records has nothing in
 * the trajectory to be compared with. The prototype form of BenchFlow PR #1051 changes the call's own row
 * in place, at its first sighting, so its place says nothing of when the framework wrote it.
 */
import type { LifecycleFact, TimeoutFact, ToolCallFact } from '../../facts/facts';
import type { RuleContext } from '../context';

/** Whether the annotation comes after the timeout marker and the call it ends; reports it when it does not. */
export function checkLifecycleOrder(
  context: RuleContext,
  file: string,
  lifecycle: LifecycleFact,
  timeout: TimeoutFact | undefined,
  callRows: readonly ToolCallFact[] | undefined,
): boolean {
  const line = lifecycle.ref.line;
  const earlier = [
    timeout && timeout.ref.line > line
      ? {
          ref: timeout.ref,
          what: 'the agent_timeout marker',
          why: 'the marker when the budget runs out, before hardening observes the sandbox',
        }
      : undefined,
    callRows?.[0] && callRows[0].ref.line > line
      ? {
          ref: callRows[0].ref,
          what: 'the tool call it ends',
          why: 'a call where it is first seen, before anything can end it',
        }
      : undefined,
  ].filter((each) => each !== undefined);
  if (earlier.length === 0) return true;
  context.report(
    'lifecycle-out-of-order',
    context.inRecord(file, lifecycle.ref),
    `This framework lifecycle annotation comes before ${earlier.map(({ what, ref }) => `${what} (line ${ref.line + 1})`).join(' and ')}: BenchFlow writes the trajectory in the order things happen, ${earlier.map(({ why }) => why).join(', and ')}. So it was recorded before the quiescence observation it rests on was made, and it ends no call.`,
    { related: earlier.map(({ ref, what }) => context.related(context.inRecord(file, ref), what)) },
  );
  return false;
}
