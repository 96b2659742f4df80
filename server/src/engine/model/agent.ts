/**
 * Which agent ran a rollout: the one home of that fact, read from result.json and config.json as BenchFlow
 * writes them. Two readings, on purpose: the agent as BenchFlow names it (for the experiment summary's rows),
 * and whether BenchFlow's experiment-review validator takes the rollout for an oracle run, which reads more
 * fields and reads them its own way (validate_run_artifacts.py `is_oracle_result`); parity with the
 * validator needs the second, and nothing else may read the agent otherwise.
 */
import { nonBlankText, type JsonObject } from '../parse/jsonKind';

/**
 * BenchFlow writes `agent` (what ran, e.g. "claude-agent-acp") and `agent_name` (its display name) into
 * result.json (rollout/_results.py), and `agent` into config.json: the first it gives names the agent.
 */
export function agentNameOf(result: JsonObject | undefined, config: JsonObject | undefined): string | null {
  return nonBlankText(result?.['agent']) ?? nonBlankText(result?.['agent_name']) ?? nonBlankText(config?.['agent']);
}

/**
 * The validator's oracle test: result.json `agent` or `agent_name`, or config.json `agent` or `harness`,
 * that reads "oracle" once stripped of surrounding whitespace, in any case (`" Oracle"` counts).
 */
export function validatorTakesForOracle(result: JsonObject | undefined, config: JsonObject | undefined): boolean {
  const values = [result?.['agent'], result?.['agent_name'], config?.['agent'], config?.['harness']];
  return values.some((value) => typeof value === 'string' && value.trim().toLowerCase() === 'oracle');
}
