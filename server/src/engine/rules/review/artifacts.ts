/**
 * Validator parity: the artifacts a rollout must have, and a trajectory with agent-side events.
 */
import { rolloutFiles } from '../../../../../shared/src/layout';
import type { RuleContext } from '../context';
import { exemptFromLlmTrajectory, isOracle } from './mode';

export function checkRequiredArtifacts(context: RuleContext): void {
  const bundle = context.bundle;
  const missing = (name: string, why = "BenchFlow's experiment-review validator requires it") =>
    context.report('review-missing-artifact', context.rolloutPlace(), `${name} is missing: ${why}.`);

  if (!bundle.file('result')) missing(rolloutFiles.result);

  const trajectory = bundle.file('trajectory');
  if (!trajectory) missing(rolloutFiles.acpTrajectory);
  const facts = bundle.facts('trajectory', 'acp-trajectory');
  if (trajectory && facts) {
    const top = context.atStart(trajectory.path);
    if (facts.rows === 0)
      context.report(
        'review-empty-trajectory',
        top,
        `${rolloutFiles.acpTrajectory} holds no rows (no line is a JSON object), so the validator finds no event.`,
      );
    else if (facts.untypedRows > 0)
      context.report(
        'review-empty-trajectory',
        top,
        `${facts.untypedRows} of the ${facts.rows} rows of ${rolloutFiles.acpTrajectory} ${facts.untypedRows === 1 ? 'has' : 'have'} no non-empty string "type".`,
      );
    else if (facts.agentSideRows === 0)
      context.report(
        'review-no-agent-events',
        top,
        `All ${facts.rows} rows of ${rolloutFiles.acpTrajectory} were read for their "phase": each is "verifier", or a phase none of the known ones (which may be a damaged "verifier"), so there is no agent-side event.`,
      );
  }

  if (!bundle.file('llm') && !exemptFromLlmTrajectory(context)) {
    missing(
      rolloutFiles.llmTrajectory,
      isOracle(context)
        ? 'an oracle rollout is exempt only with --allow-oracle-without-llm'
        : 'the validator requires the provider exchanges (a native ACP rollout is exempt only with --allow-native-subscription-without-llm)',
    );
  }

  const results = bundle.file('results');
  if (!results) missing(rolloutFiles.results);
  const rows = bundle.facts('results', 'results');
  if (results && rows && rows.count !== 1) {
    const second = rows.rows[1];
    context.report(
      'review-results-rows',
      second ? context.inRecord(results.path, second.ref) : context.atStart(results.path),
      `${rolloutFiles.results} holds ${rows.count} rows (every record line counted, broken ones too); a rollout's holds exactly one.`,
    );
  }
}
