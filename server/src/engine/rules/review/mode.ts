/**
 * The experiment-review validator's exemptions: oracle rollouts, and native-subscription rollouts whose
 * usage came from the ACP peer rather than a provider proxy.
 */
import { isJsonObject, type JsonObject } from '../../parse/jsonKind';
import { claimsNothing, keyForFinding, unreadableText } from '../../schema/knownKeys';
import { validatorTakesForOracle } from '../../model/agent';
import type { RuleContext } from '../context';

export function isOracle(context: RuleContext): boolean {
  return validatorTakesForOracle(
    context.bundle.facts('result', 'result')?.value,
    context.bundle.facts('config', 'config')?.value,
  );
}

/** Usage came from the ACP peer and there is no provider trajectory (absent, not merely broken). */
export function isNativeAcp(context: RuleContext): boolean {
  const agentResult = context.bundle.facts('result', 'result')?.value?.['agent_result'];
  return isJsonObject(agentResult) && agentResult['usage_source'] === 'agent_native_acp' && !context.bundle.file('llm');
}

/** The validator's exemptions from the LLM trajectory: an oracle or a native-subscription rollout, with its flag. */
export function exemptFromLlmTrajectory(context: RuleContext): boolean {
  return (isOracle(context) && context.options.allowOracleWithoutLlm) || nativeSubscriptionMode(context);
}

/** The validator's native-subscription mode: its flag, and a native ACP rollout. */
export function nativeSubscriptionMode(context: RuleContext): boolean {
  return context.options.allowNativeSubscriptionWithoutLlm && isNativeAcp(context);
}

const infraMarkers = [
  'missing required',
  'api key',
  'credential',
  'provider',
  'sandbox',
  'docker',
  'daytona',
  'no space left',
  'transport',
  'pipe closed',
  'connection',
];
const errorFields = ['error', 'verifier_error', 'error_category', 'verifier_error_category'] as const;

/**
 * The error fields of result.json that name an infrastructure failure, with the marker found; and those
 * that cannot be read (a value no writer gives an error field: no string or null; or null under a
 * damaged key), with no marker, since such an error may have named one.
 */
export function infraErrors(result: JsonObject | undefined): { field: string; marker: string | undefined }[] {
  if (!result) return [];
  return errorFields.flatMap((name): { field: string; marker: string | undefined }[] => {
    // A finding against the reward: a damaged error key still carries its error.
    const field = keyForFinding('result', [], result, name);
    const value = result[field];
    if (claimsNothing(value, field, name)) return [];
    const text = searchableText(value).toLowerCase();
    const marker = infraMarkers.find((candidate) => text.includes(candidate));
    if (marker) return [{ field, marker }];
    return unreadableText(value, field, name) ? [{ field, marker: undefined }] : [];
  });
}

function searchableText(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value);
  } catch {
    // Nested deeper than JSON.stringify can go: no marker can be read from it.
    return '';
  }
}

/** error or verifier_error set, or a partial trajectory: the rollout did not end cleanly. */
function hasTerminalError(result: JsonObject | undefined): boolean {
  if (!result) return false;
  return Boolean(result['error']) || Boolean(result['verifier_error']) || result['partial_trajectory'] === true;
}

/**
 * Whether the rollout ended with an error or a partial trajectory, as the validator reads it; both ways
 * when one of the fields that say so has a type no writer gives it (an error that is no string, a
 * partial_trajectory that is no boolean): a damaged claim is read as each thing it may have been.
 */
export function terminalErrorReadings(result: JsonObject | undefined): readonly boolean[] {
  const asWritten = hasTerminalError(result);
  const partial = result?.['partial_trajectory'];
  const damaged =
    unreadableText(result?.['error']) ||
    unreadableText(result?.['verifier_error']) ||
    (partial !== undefined && partial !== null && typeof partial !== 'boolean');
  return damaged ? [asWritten, !asWritten] : [asWritten];
}
