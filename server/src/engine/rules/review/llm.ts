/**
 * Validator parity on trajectory/llm_trajectory.jsonl: request and response bodies, usage, and the
 * retry-aware selection of the responses that count.
 */
import { rolloutFiles } from '../../../../../shared/src/layout';
import type { LlmExchangeFact, LlmFacts } from '../../facts/facts';
import type { RuleContext } from '../context';
import { exemptFromLlmTrajectory } from './mode';

export function checkLlmTrajectory(context: RuleContext): void {
  if (exemptFromLlmTrajectory(context)) return;
  const facts = context.bundle.facts('llm', 'llm-trajectory');
  if (!facts) return;
  const file = context.bundle.pathOf('llm');
  const top = context.atStart(file);
  const at = (exchange: LlmExchangeFact) => context.inRecord(file, exchange.ref);
  const { exchanges } = facts;

  const requests = exchanges.filter((exchange) => exchange.hasRequestBody).length;
  const responses = exchanges.filter((exchange) => exchange.hasResponseBody).length;
  for (const exchange of exchanges) {
    if (!exchange.hasRequestBody)
      context.report('review-llm-trajectory', at(exchange), 'This exchange has no request body object.');
    if (exchange.hasResponse && !exchange.hasResponseBody)
      context.report('review-llm-trajectory', at(exchange), 'This exchange has a response without a body object.');
  }
  const read = `${rolloutFiles.llmTrajectory}: of its ${exchanges.length} exchange${exchanges.length === 1 ? '' : 's'} (rows), ${requests} ${requests === 1 ? 'has' : 'have'} a request body object and ${responses} a response body object`;
  if (requests === 0 || responses === 0)
    context.report('review-llm-trajectory', top, `${read}; it needs at least one of each.`);
  if (responses < requests) context.report('review-llm-trajectory', top, `${read}: fewer responses than requests.`);
  if (!exchanges.some((exchange) => exchange.positiveUsage))
    context.report(
      'review-llm-trajectory',
      top,
      `None of the ${exchanges.length} exchanges of ${rolloutFiles.llmTrajectory} has a response with positive token usage.`,
    );
  for (const index of selectedExchanges(facts)) {
    const exchange = exchanges[index]!;
    if (!exchange.positiveUsage)
      context.report(
        'review-llm-trajectory',
        at(exchange),
        'This successful response is one that counts (after retries are set aside), but it carries no token usage.',
      );
  }
}

// Facts are never changed once built; the rules run again after every edit of any file of the rollout,
// and two of them ask for the selection.
const selections = new WeakMap<LlmFacts, readonly number[]>();

/**
 * The successful responses that count, as the validator selects them: completed responses grouped by
 * request body, and per group the latest whose tool calls a later request answers, else the latest
 * "safe" one (no tool calls, only `finish` calls, or no request after it).
 */
export function selectedExchanges(facts: LlmFacts): readonly number[] {
  let selected = selections.get(facts);
  if (!selected) {
    selected = selectExchanges(facts);
    selections.set(facts, selected);
  }
  return selected;
}

function selectExchanges(facts: LlmFacts): number[] {
  const { exchanges } = facts;
  const lastReference = new Map<string, number>();
  exchanges.forEach((exchange, index) => {
    for (const id of exchange.requestToolCallIds) lastReference.set(id, index);
  });
  const groups = new Map<string, number[]>();
  exchanges.forEach((exchange, index) => {
    if (!exchange.completed) return;
    const group = groups.get(exchange.requestKey);
    if (group) group.push(index);
    else groups.set(exchange.requestKey, [index]);
  });
  const selected: number[] = [];
  for (const indices of groups.values()) {
    const answered = indices.filter((index) =>
      exchanges[index]!.responseToolCallIds.some((id) => (lastReference.get(id) ?? -1) > index),
    );
    const safe = indices.filter((index) => {
      const exchange = exchanges[index]!;
      return exchange.responseToolCallIds.length === 0 || exchange.onlyFinishCalls || index === exchanges.length - 1;
    });
    const choice = answered.at(-1) ?? safe.at(-1);
    if (choice !== undefined) selected.push(choice);
  }
  return selected.sort((a, b) => a - b);
}
