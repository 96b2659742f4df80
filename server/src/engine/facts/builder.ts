/**
 * Gathers the row facts of one JSONL artifact, in line order, into its ArtifactFacts; keeps a record's
 * text only where a rule may need to point inside it.
 */
import type { ArtifactKind } from '../../../../shared/src/layout';
import type {
  ActionFact,
  ArtifactFacts,
  LifecycleFact,
  LlmExchangeFact,
  PromptFact,
  ResultsRowFact,
  RewardsFacts,
  TimeoutFact,
  ToolCallFact,
} from './facts';
import type { RowKind } from './facts';
import type { RowFact } from './rows';
import { isAdapterTerminal } from './toolCallStatus';

type TrajectoryRow = Extract<RowFact, { kind: 'trajectory-row' }>;

/**
 * The facts one line became, with the line they were placed on. Handed back for a line an edit did not
 * touch (nor move), it yields the very same objects, so the rules can keep what they worked out for them.
 */
export interface Placed {
  readonly line: number;
  readonly toolCall?: ToolCallFact;
  readonly timeout?: TimeoutFact;
  readonly lifecycle?: LifecycleFact;
  readonly prompt?: PromptFact;
  readonly action?: ActionFact;
}
/** Results rows beyond this are counted, not kept: a rollout has one, and the rules only need a few. */
const keptResultsRows = 5;

export class FactsBuilder {
  private rows = 0;
  private agentSideRows = 0;
  private untypedRows = 0;
  private readonly toolCalls: ToolCallFact[] = [];
  /** From the last row that surely is a timeout marker on (TrajectoryFacts `timeouts`). */
  private readonly timeouts: TimeoutFact[] = [];
  private readonly lifecycles: LifecycleFact[] = [];
  private readonly prompts: PromptFact[] = [];
  private readonly actions: ActionFact[] = [];
  private readonly exchanges: LlmExchangeFact[] = [];
  private readonly resultsRows: ResultsRowFact[] = [];
  private terminalReward: RewardsFacts['terminal'];

  /**
   * `keepText`: what a fact keeps of a line's text. A line read from a file is a string of its own; a
   * line of a document in memory is a view into the whole text, which would keep every version of the
   * document alive, so its caller passes `detachedCopy` and only the few lines a fact keeps are copied.
   */
  constructor(
    private readonly kind: ArtifactKind,
    private readonly keepText: (text: string) => string = asItIs,
  ) {}

  /**
   * Whether `add` reads the line's text: not when it hands back what the line became before, nor for a
   * trajectory row with nothing to keep, so that an unchanged line need not be cut out of the document.
   */
  readsText(fact: RowFact, line: number, before: Placed | undefined): boolean {
    if (before?.line === line) return false;
    return fact.kind !== 'trajectory-row' || keepsTrajectoryRow(fact);
  }

  // The trajectory and action paths are written without spreads or closures: they run for every record
  // of 50 MB trajectories and 100,000-line action logs.

  /** `before`: what this same line became in the previous check, reused when it is still on this line. */
  add(fact: RowFact, line: number, text: string, before?: Placed): Placed | undefined {
    switch (fact.kind) {
      case 'trajectory-row': {
        this.rows++;
        if (fact.agentSide) this.agentSideRows++;
        if (!fact.typed) this.untypedRows++;
        if (!keepsTrajectoryRow(fact)) return undefined;
        const placed =
          before?.line === line
            ? before
            : placeTrajectoryRow(fact, line, keepsRowText(fact) ? this.keepText(text) : text);
        if (placed.toolCall) this.toolCalls.push(placed.toolCall);
        if (placed.timeout) {
          // A row that surely is a marker comes after every earlier one: none of those can be the last.
          if (placed.timeout.kinds === undefined) this.timeouts.length = 0;
          this.timeouts.push(placed.timeout);
        }
        if (placed.lifecycle) this.lifecycles.push(placed.lifecycle);
        if (placed.prompt) this.prompts.push(placed.prompt);
        return placed;
      }
      case 'action': {
        const placed =
          before?.line === line
            ? before
            : { line, action: { ref: { line, length: text.length, text: this.keepText(text) }, record: fact.action } };
        this.actions.push(placed.action!);
        return placed;
      }
      case 'llm-exchange':
        this.exchanges.push({ ...fact.exchange, ref: { line, length: text.length } });
        return undefined;
      case 'results-row':
        this.rows++;
        if (this.resultsRows.length < keptResultsRows)
          this.resultsRows.push({ ref: { line, length: text.length, text: this.keepText(text) }, value: fact.value });
        return undefined;
      case 'reward':
        if (!this.terminalReward && fact.terminal)
          this.terminalReward = { ref: { line, length: text.length, text: this.keepText(text) }, value: fact.value };
        return undefined;
    }
  }

  /** A line that holds no usable record still counts as a row of the file. */
  addBrokenRow(): void {
    this.rows++;
  }

  build(): ArtifactFacts | undefined {
    switch (this.kind) {
      case 'acp-trajectory':
        return {
          kind: 'acp-trajectory',
          rows: this.rows,
          agentSideRows: this.agentSideRows,
          untypedRows: this.untypedRows,
          toolCalls: this.toolCalls,
          timeouts: this.timeouts,
          lifecycles: this.lifecycles,
          prompts: this.prompts,
        };
      case 'action-records':
        return { kind: 'action-records', actions: this.actions };
      case 'llm-trajectory':
        return { kind: 'llm-trajectory', exchanges: this.exchanges };
      case 'results':
        return { kind: 'results', rows: this.resultsRows, count: this.rows };
      case 'rewards':
        return { kind: 'rewards', ...(this.terminalReward ? { terminal: this.terminalReward } : {}) };
      default:
        return undefined;
    }
  }
}

/** A row the rules read (a tool call, a timeout marker, a lifecycle annotation, or one that may be any of them), or a prompt, which views show. */
function keepsTrajectoryRow(fact: TrajectoryRow): boolean {
  return (
    fact.toolCall !== undefined ||
    fact.timeout !== undefined ||
    fact.lifecycle !== undefined ||
    fact.prompt !== undefined
  );
}

const asItIs = (text: string): string => text;

/** Whether a placed trajectory row keeps its line's text (placeTrajectoryRow, placeToolCall). */
function keepsRowText(fact: TrajectoryRow): boolean {
  return (
    fact.timeout !== undefined ||
    fact.lifecycle !== undefined ||
    fact.kinds !== undefined ||
    (fact.toolCall !== undefined && !isAdapterTerminal(fact.toolCall))
  );
}

function placeTrajectoryRow(fact: TrajectoryRow, line: number, text: string): Placed {
  const { prompt, kinds } = fact;
  // No spread and no intermediate object: this runs for every tool call of 50 MB trajectories.
  return {
    line,
    toolCall: fact.toolCall ? placeToolCall(fact.toolCall, kinds, line, text) : undefined,
    timeout: fact.timeout ? placeTimeout(fact.timeout, kinds, line, text) : undefined,
    lifecycle: fact.lifecycle ? placeLifecycle(fact.lifecycle, kinds, line, text) : undefined,
    prompt: prompt ? { preview: prompt.preview, ref: { line, length: text.length } } : undefined,
  };
}

// Each fact is made with `kinds` only when its row has them: a fact of a row taken at its word spends
// no slot on it.

/**
 * A tool call keeps its text only when a rule may point inside it: unresolved, ended by the framework, or
 * on a row whose type cannot be taken at its word.
 */
function placeToolCall(
  call: NonNullable<TrajectoryRow['toolCall']>,
  kinds: readonly RowKind[] | undefined,
  line: number,
  text: string,
): ToolCallFact {
  const { id, status, terminalSource, effects, title } = call;
  if (kinds) return { id, status, terminalSource, effects, title, kinds, ref: { line, length: text.length, text } };
  const ref = isAdapterTerminal(call) ? { line, length: text.length } : { line, length: text.length, text };
  return { id, status, terminalSource, effects, title, ref };
}

function placeTimeout(
  { pendingIds, complete }: NonNullable<TrajectoryRow['timeout']>,
  kinds: readonly RowKind[] | undefined,
  line: number,
  text: string,
): TimeoutFact {
  const ref = { line, length: text.length, text };
  return kinds ? { pendingIds, complete, kinds, ref } : { pendingIds, complete, ref };
}

function placeLifecycle(
  lifecycle: NonNullable<TrajectoryRow['lifecycle']>,
  kinds: readonly RowKind[] | undefined,
  line: number,
  text: string,
): LifecycleFact {
  const { toolCallId, effects, source, quiescenceRef, status, provenance } = lifecycle;
  const ref = { line, length: text.length, text };
  return kinds
    ? { toolCallId, lifecycle: lifecycle.lifecycle, effects, source, quiescenceRef, status, provenance, kinds, ref }
    : { toolCallId, lifecycle: lifecycle.lifecycle, effects, source, quiescenceRef, status, provenance, ref };
}
