/**
 * The rules that stand on the action sequence, run under every reading of the records whose kind is
 * unknown or which break their schema, so that damaged evidence fails closed: a record with a flipped
 * letter in its event_type or phase, or a command that is no longer text, may be any kind, and the
 * rollout must not be judged better than under any of them. The rules run
 * on the sequence as written, then on each candidate sequence in a context of their own; what a
 * candidate finds and the written reading does not is added once, saying under which reading it holds.
 */
import type { BundleFinding } from '../findings';
import { RuleContext } from './context';
import { FindingUnion } from './findingUnion';
import { checkQuiescence, type QuiescenceResult } from './quiescence/quiescence';
import type { ActionSequence, ActionSequenceLists } from '../model/actions';
import type { SandboxUserState } from '../model/sandboxUser';
import { checkExecRecords } from './actions/actionRecords';
import { checkSeparateVerifier } from './verifier/verifier';

export interface ActionRulesResult {
  /** Quiescence as every reading concludes it: a proof only when each reading proves it by the same record. */
  readonly quiescence: QuiescenceResult;
  /** The separate-verifier findings that show a failed precondition (for untrusted-reward), under any reading. */
  readonly verifierFailures: readonly BundleFinding[];
}

export function checkUnderEveryReading(
  context: RuleContext,
  actions: ActionSequence,
  sandboxUser: SandboxUserState,
): ActionRulesResult {
  const written = runActionRules(context, actions, sandboxUser);
  if (actions.candidates.length === 0) return written;
  const union = new FindingUnion(context.findings);
  const quiescenceFailures = new Set(written.quiescence.failures);
  const verifierFailures = new Set(written.verifierFailures);
  let sameProof = true;
  for (const candidate of actions.candidates) {
    const scratch = new RuleContext(context.model, context.options);
    const result = runActionRules(scratch, candidate, sandboxUser);
    const kept = union.addAll(
      scratch.findings,
      `This holds when ${whichRecords(actions)} read as ${candidate.reading}.`,
    );
    for (const failure of result.quiescence.failures) quiescenceFailures.add(kept.get(failure)!);
    for (const failure of result.verifierFailures) verifierFailures.add(kept.get(failure)!);
    if (result.quiescence.proof?.action !== written.quiescence.proof?.action) sameProof = false;
  }
  const quiescence: QuiescenceResult = {
    applies: written.quiescence.applies,
    failures: [...quiescenceFailures],
    ...(sameProof && written.quiescence.proof ? { proof: written.quiescence.proof } : {}),
  };
  return { quiescence, verifierFailures: [...verifierFailures] };
}

function whichRecords({ uncertain }: ActionSequence): string {
  const unknown = uncertain.some((step) => step.reading.eventTypeUnknown || step.reading.phaseUnknown);
  const damaged = uncertain.some((step) => step.action.record.damaged);
  const what = [unknown ? 'of unknown kind' : '', damaged ? 'that break their schema' : '']
    .filter(Boolean)
    .join(' or ');
  return uncertain.length > 1
    ? `the action records ${what} are`
    : `the action record ${what.replace('break their', 'breaks its')} is`;
}

function runActionRules(
  context: RuleContext,
  actions: ActionSequenceLists,
  sandboxUser: SandboxUserState,
): ActionRulesResult {
  checkExecRecords(context, actions);
  const quiescence = checkQuiescence(context, actions, sandboxUser);
  return { quiescence, verifierFailures: checkSeparateVerifier(context, actions) };
}
