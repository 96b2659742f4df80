/**
 * Reads a rollout bundle's model, runs every rule over it and gives it its verdict. Rules that depend on
 * each other run in order: the action records first, then quiescence and the verifier (whose failures make a reward
 * untrusted; they read the three-valued action sequence, model/actions.ts), then tools and timeouts (which need to know whether quiescence is proven), then the
 * timeout contract and validator parity. Whether the rollout timed out is decided once, up front, in
 * each way the trajectory's last agent_timeout row may be read. The rules run once: damaged evidence
 * (an action record or a trajectory row read in every way it may have been written, model/actions.ts and
 * model/rowReadings.ts) only adds findings.
 */
import type { RolloutBundle } from '../bundle/rollout';
import { notReadFinding } from '../check/report';
import type { ToolCallFact } from '../facts/facts';
import type { BundleFinding } from '../findings';
import { isJsonObject } from '../parse/jsonKind';
import { verdictOf, type Verdict } from '../verdict';
import { ModelCaches } from '../model/caches';
import { readRolloutModel, type RolloutModel } from '../model/rolloutModel';
import { checkActionKinds, checkActionOrder, checkActionProvenance, checkExecRecords } from './actions/actionRecords';
import { RuleContext, type RuleOptions } from './context';
import { checkQuiescence, type QuiescenceResult } from './quiescence/quiescence';
import { checkRequiredArtifacts } from './review/artifacts';
import { checkLlmTrajectory } from './review/llm';
import { checkResult } from './review/result';
import { checkResultsRow } from './review/resultsRow';
import { checkRewardConsistency } from './reward/consistency';
import { checkRewardPreconditions } from './reward/reward';
import { checkTrajectory } from './trajectory/trajectory';
import { checkSeparateVerifier } from './verifier/verifier';
import { timeoutReadingsOf, type RolloutTimeout } from './timeout/timeout';
import { checkTimeoutContract } from './timeout/timeoutContract';

export interface RolloutEvaluation {
  /** What the rules found, across the bundle's files. */
  readonly findings: readonly BundleFinding[];
  readonly verdict: Verdict;
  /** May the results row be used for training: a trusted rollout whose row says so. */
  readonly trainingReady: boolean;
  /** What the rules read (the rollout as written), for views of the rollout. */
  readonly model: RolloutModel;
  /** What the quiescence rules concluded: its proof, when there is one. */
  readonly quiescence: QuiescenceResult;
  /** Tool calls left unresolved as the trajectory is written; undefined without a trajectory. */
  readonly unresolvedTools: readonly ToolCallFact[] | undefined;
  /** Whether the rollout timed out as its trajectory is written (countable or not); undefined when it did not. */
  readonly timeout: RolloutTimeout | undefined;
}

export function evaluateRollout(
  bundle: RolloutBundle,
  options: RuleOptions,
  caches = new ModelCaches(),
): RolloutEvaluation {
  const model = readRolloutModel(bundle, options, caches);
  const context = new RuleContext(model, options);
  checkActionOrder(context, model.actions);
  checkActionKinds(context, model.actions);
  checkActionProvenance(context, model.actions);
  checkExecRecords(context, model.actions);
  const quiescence = checkQuiescence(context, model.actions, model.sandboxUser);
  const verifierFailures = checkSeparateVerifier(context, model.actions);
  const timeouts = timeoutReadingsOf(context);
  const trajectory = checkTrajectory(context, quiescence, timeouts);
  const acceptedTimeout = checkTimeoutContract(context, timeouts, trajectory);
  checkRequiredArtifacts(context);
  checkLlmTrajectory(context);
  checkResultsRow(context, { timeouts });
  checkResult(context);
  checkRewardPreconditions(context, [...quiescence.failures, ...verifierFailures]);
  checkRewardConsistency(context);
  // A reward file that leads outside the rollout, or is no regular file, was not read; the artifacts'
  // own reports say the same of them.
  for (const { path, why } of bundle.verifierReward.notRead ?? []) {
    const { code, message } = notReadFinding(why);
    context.report(code, context.atStart(path), message);
  }

  const fileFindings = bundle.files.flatMap((file) => file.report?.findings ?? []);
  const incompleteEvidence = bundle.files.some((file) => file.ioError !== undefined || (file.report?.omitted ?? 0) > 0);
  const verdict = verdictOf([...fileFindings, ...context.findings], { incompleteEvidence, acceptedTimeout });
  const row = bundle.facts('results', 'results')?.rows[0]?.value;
  const info = row?.['info'];
  const trainingReady = verdict === 'trusted' && isJsonObject(info) && info['training_ready'] === true;
  return {
    findings: context.findings,
    verdict,
    trainingReady,
    model,
    quiescence,
    unresolvedTools: trajectory.unresolved?.written,
    timeout: timeouts[0].timeout,
  };
}
