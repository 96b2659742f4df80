/**
 * Every statement of the reward must be the one BenchFlow's writers put there. They write one reward into
 * every place (`task/verifier_core.py`, `rollout/_results.py`, `trajectories/results.py`,
 * `_utils/reward_events.py`):
 * - the verifier reads reward.json and reward.txt and refuses both when they differ (math.isclose);
 * - result.json `rewards` is the verifier's reward map, or null when there is none (a verifier error, or a
 *   reward dropped for a provider failure: then the verifier's files may still say what it found);
 * - the results row's `reward` and `score` are result.json's reward, or the default 0.0 when it has none;
 * - rewards.jsonl's scalar event is result.json's reward, and is not written when it has none.
 * So when result.json states a reward, or is absent or cannot be read (then it may have stated any, and a
 * test that hurts trust fires on "maybe"), every statement must agree; when it states none, the row must say 0 and rewards.jsonl must have no scalar event, while
 * the verifier's files may say anything (BenchFlow refused or dropped what they say). Numbers are compared
 * as BenchFlow compares them (model/rewardNumber.ts).
 *
 * A statement that cannot be read as a number is `reward-unreadable`, incomplete, and takes no part in the
 * comparison. The model's fail-closed rule is that a test that helps trust needs "surely" and one that
 * hurts trust fires on "maybe". Agreement helps trust: a rollout is trusted only when its statements
 * surely agree, which an unreadable one cannot show, so the rollout is not trusted. Disagreement hurts
 * trust and fires on any reading of the evidence under which two statements differ (the readable ones
 * here, and each reading of a damaged key); but a value that cannot be read as a number gives no reading
 * at all, and saying "untrusted" would claim a disagreement the bundle does not show. That is how a file
 * that cannot be read at all is judged everywhere (mode 000, a FIFO: incomplete, with unknown facts), and
 * what the fuzz property allows when the record that showed an untrust can no longer be read. Whether
 * result.json states a reward at all does have readings: a `rewards` that is neither an object nor null
 * (or a top-level `reward` beside none) may have been null, so the comparison runs as if it stated a
 * reward and, when that finds nothing, as if it stated none, and the finding says which reading it holds
 * under.
 */
import { rolloutFiles } from '../../../../../shared/src/layout';
import { rewardPlace, writtenReward, type NumberReading, type StatedReward } from '../../model/reward';
import { rewardsAgree } from '../../model/rewardNumber';
import type { RelatedEvidence } from '../../findings';
import type { RuleContext } from '../context';

type ReadStatement = StatedReward & { readonly reading: NumberReading };

export function checkRewardConsistency(context: RuleContext): void {
  const { stated, resultStatesNone } = context.model.rewards;
  for (const statement of stated) {
    if (statement.reading.kind !== 'unreadable') continue;
    context.report(
      'reward-unreadable',
      rewardPlace(statement),
      `${statement.label} ${statement.reading.why}, so whether it agrees with the rollout's other statements of its reward is unknown.`,
    );
  }
  const read = stated.filter((statement): statement is ReadStatement => statement.reading.kind === 'number');
  // A result.json statement that cannot be read may have been null: the test that hurts trust fires when
  // either reading of it breaks what BenchFlow writes.
  const none = resultStatesNone;
  const asStated = none?.surely ? undefined : differing(read);
  const asNone = none && !asStated ? defaultsBroken(read) : undefined;
  const conflict = asStated ?? asNone;
  if (!conflict) return;

  // Each number as its file writes it (1.0, where JSON reads 1): worked out only now, since the results
  // row that states one may be megabytes of conversation.
  const written = new Map(conflict.statements.map((statement) => [statement, writtenReward(statement)]));
  const related: RelatedEvidence[] = conflict.statements.map((statement) =>
    context.related(rewardPlace(statement), `${statement.label} states ${written.get(statement)}`),
  );
  if (asNone && none)
    related.push(
      context.related(
        rewardPlace(none),
        none.surely ? `${rolloutFiles.result} states no reward` : `${rolloutFiles.result} may state no reward`,
      ),
    );
  context.report(
    'reward-mismatch',
    rewardPlace(conflict.statements[0]!),
    conflict.message((statement) => written.get(statement)!),
    {
      related,
      holdsWhen:
        asNone && !none?.surely ? `${rolloutFiles.result}'s reward, which cannot be read, was null` : undefined,
    },
  );
}

/** Statements that cannot all be BenchFlow's, in the bundle's order, and what is wrong with them in words. */
interface Conflict {
  readonly statements: readonly ReadStatement[];
  readonly message: (written: (statement: ReadStatement) => string) => string;
}

/** All the statements, when they do not all agree: grouped by the value each group agrees on. */
function differing(statements: readonly ReadStatement[]): Conflict | undefined {
  const groups: ReadStatement[][] = [];
  for (const statement of statements) {
    const group = groups.find((each) => rewardsAgree(each[0]!.reading.value, statement.reading.value));
    if (group) group.push(statement);
    else groups.push([statement]);
  }
  if (groups.length < 2) return undefined;
  return {
    statements,
    message: (written) => {
      const [first, ...others] = groups.map(
        (group) => `as ${written(group[0]!)} in ${listed(group.map((statement) => statement.label))}`,
      );
      return `The reward is stated ${first}, but ${listed(others)}. BenchFlow's writers copy one reward into all of these places, so they are not all its output, and which reward the rollout earned is unknown.`;
    },
  };
}

/**
 * result.json states no reward: the results row then carries BenchFlow's default 0 and rewards.jsonl no
 * scalar event. The verifier's files are not compared: result.json has none when BenchFlow's verifier
 * refused them (a reward.txt and reward.json that differ are one reason) or the reward was dropped.
 */
function defaultsBroken(statements: readonly ReadStatement[]): Conflict | undefined {
  const broken = statements.filter(
    ({ statedBy, reading }) =>
      statedBy === 'rewards-event' || (statedBy === 'results-row' && !rewardsAgree(reading.value, 0)),
  );
  if (broken.length === 0) return undefined;
  return {
    statements: broken,
    message: (written) =>
      `${rolloutFiles.result} states no reward, so BenchFlow writes the default 0 in the results row and no scalar event to ${rolloutFiles.rewards}, but ${listed(broken.map((statement) => `${statement.label} states ${written(statement)}`))}: these are not its output, and which reward the rollout earned is unknown.`,
  };
}

function listed(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}
