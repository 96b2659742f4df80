/**
 * The evidence a rule needs from each artifact, kept compact: a 50 MB trajectory becomes the tool calls,
 * timeout markers and lifecycle rows it holds, with the text only of rows a finding may point inside. Values are kept as found (`unknown`)
 * because the schema check has already reported wrong types; rules read them defensively.
 */
import type { JsonObject } from '../parse/jsonKind';

/** The row types the rules read; they pass over every other (messages, thoughts, a newer BenchFlow's types). */
export const ruleRowTypes = ['tool_call', 'agent_timeout', 'tool_call_lifecycle'] as const;
/** What the rules tell a trajectory row apart as: each type they read, or a row they pass over. */
export type RowKind = (typeof ruleRowTypes)[number] | 'other';

/** Where a record is, with its text when a rule may need to point inside it. */
export interface RecordRef {
  /** 0-based line. */
  readonly line: number;
  readonly length: number;
  readonly text?: string;
}

/**
 * A fact a trajectory row gives when read as one kind of row. A row whose type cannot be taken at its
 * word (facts/rows.ts `rowKindsOf`) may be several kinds, and gives the fact of each: whether it is that
 * kind is then only maybe (model/rowReadings.ts), and the rules read it so.
 */
export interface TrajectoryRowFact {
  readonly ref: RecordRef;
  /**
   * Every kind the row may be, the one it is written as first, when its type cannot be taken at its word.
   * Absent for a row taken at its word, which surely is the kind of its fact: nearly every row, so the
   * facts of a 50 MB trajectory spend nothing on it.
   */
  readonly kinds?: readonly RowKind[];
}

export interface ToolCallFact extends TrajectoryRowFact {
  readonly id: unknown;
  readonly status: unknown;
  /** Prototype lifecycle vocabulary of BenchFlow PR #1051, when present on the row. */
  readonly terminalSource: unknown;
  readonly effects: unknown;
  /** The start of its `title`, for views; undefined when the row has no string title. */
  readonly title: string | undefined;
}

/** A `user_message` row: a prompt the agent was given. */
export interface PromptFact {
  readonly ref: RecordRef;
  /** The start of its `text`, for views. */
  readonly preview: string | undefined;
}

export interface TimeoutFact extends TrajectoryRowFact {
  readonly pendingIds: unknown;
  readonly complete: unknown;
}

export interface LifecycleFact extends TrajectoryRowFact {
  readonly toolCallId: unknown;
  readonly lifecycle: unknown;
  readonly effects: unknown;
  readonly source: unknown;
  readonly quiescenceRef: unknown;
  readonly status: unknown;
  /** Who wrote the annotation (rules/provenance/provenance.ts); absent for the framework's own. */
  readonly provenance: unknown;
}

export interface TrajectoryFacts {
  readonly kind: 'acp-trajectory';
  readonly rows: number;
  /** Rows not marked `phase: "verifier"`. */
  readonly agentSideRows: number;
  /**
   * Rows without a non-empty string `type`. Every other reading of a row gives it a type, so these are
   * the rows that may be untyped.
   */
  readonly untypedRows: number;
  /** Every row that may be a tool call, in line order. */
  readonly toolCalls: readonly ToolCallFact[];
  /**
   * The rows that may be the last agent_timeout row (BenchFlow writes one, at the end; the rules judge the
   * last): the last row that surely is one, and every later row that may be one, in line order.
   */
  readonly timeouts: readonly TimeoutFact[];
  /** Every row that may be a lifecycle annotation, in line order. */
  readonly lifecycles: readonly LifecycleFact[];
  /** The user_message rows, as written: views show them; the rules pass over them. */
  readonly prompts: readonly PromptFact[];
}

export interface QuiescenceFact {
  readonly sandboxUser: unknown;
  readonly uid: unknown;
  readonly mode: unknown;
  readonly survivors: unknown;
  /** Written by earlier builds of the probe: processes holding the user's uid as their real uid only. They are the user's too. */
  readonly setuidProcesses: unknown;
  readonly final: unknown;
}

/** How a record is damaged, in the words a finding says it with. */
export type RecordDamage = 'breaks its schema' | 'is ambiguous' | 'breaks its schema and is ambiguous';

/** The damage of a record with schema findings (`schema`) and ambiguous fields (`ambiguous`), or undefined. */
export function recordDamage(schema: boolean, ambiguous: boolean): RecordDamage | undefined {
  if (schema) return ambiguous ? 'breaks its schema and is ambiguous' : 'breaks its schema';
  return ambiguous ? 'is ambiguous' : undefined;
}

/** What one action record says, independent of where it is (so it can be reused across edits). */
export interface ActionRecord {
  readonly eventType: unknown;
  readonly phase: unknown;
  readonly service: unknown;
  readonly status: unknown;
  readonly returnCode: unknown;
  readonly hasReturnCode: boolean;
  readonly actionId: unknown;
  readonly startedAt: unknown;
  readonly finishedAt: unknown;
  readonly command: unknown;
  /**
   * How the record is damaged, in the words a finding says it with (it breaks its schema, which a damaged
   * key does too, or holds an ambiguous value); undefined when it is sound. A damaged record is also read
   * as each kind it may have been.
   */
  readonly damage: RecordDamage | undefined;
  /** Who wrote the record (rules/provenance/provenance.ts): the probe, authored by hand or a tool, or absent. */
  readonly provenance: unknown;
  readonly quiescence?: QuiescenceFact;
}

export interface ActionFact {
  readonly ref: RecordRef;
  readonly record: ActionRecord;
}

export interface ActionFacts {
  readonly kind: 'action-records';
  readonly actions: readonly ActionFact[];
}

export interface LlmExchangeFact {
  readonly ref: RecordRef;
  readonly hasRequestBody: boolean;
  readonly hasResponse: boolean;
  readonly hasResponseBody: boolean;
  /** A digest of the canonical request body, to group retries of one request. */
  readonly requestKey: string;
  /** status 200, body status absent or "completed", no incomplete_details. */
  readonly completed: boolean;
  readonly positiveUsage: boolean;
  readonly responseToolCallIds: readonly string[];
  /** The response calls tools, and every call is a `finish` call. */
  readonly onlyFinishCalls: boolean;
  /** Tool call ids the request body refers to (answers to earlier calls). */
  readonly requestToolCallIds: readonly string[];
}

export interface LlmFacts {
  readonly kind: 'llm-trajectory';
  readonly exchanges: readonly LlmExchangeFact[];
}

export interface ResultsRowFact {
  readonly ref: RecordRef;
  readonly value: JsonObject;
}

export interface ResultsFacts {
  readonly kind: 'results';
  /** The first rows, with their values. */
  readonly rows: readonly ResultsRowFact[];
  /** Every row of the file, broken ones included. */
  readonly count: number;
}

export interface RewardsFacts {
  readonly kind: 'rewards';
  /** The first event that states the scalar reward (facts/rewardEvent.ts), whatever its value: model/reward.ts reads it. */
  readonly terminal?: { readonly ref: RecordRef; readonly value: unknown };
}

/** A JSON artifact: its value (when it parsed as an object) and its text, to point inside it. */
export interface DocumentFacts {
  readonly kind: 'result' | 'config' | 'preflight' | 'timing';
  readonly value?: JsonObject;
  readonly text: string;
}

export type ArtifactFacts = TrajectoryFacts | ActionFacts | LlmFacts | ResultsFacts | RewardsFacts | DocumentFacts;
