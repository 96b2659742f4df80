/**
 * The evidence a rule needs from each artifact, kept compact: a 50 MB trajectory becomes the tool calls,
 * timeout markers and lifecycle rows it holds, with the text only of rows a finding may point inside. Values are kept as found (`unknown`)
 * because the schema check has already reported wrong types; rules read them defensively.
 */
import type { JsonObject } from '../parse/jsonKind';
import type { RowReadingKind } from './rows';

/** Where a record is, with its text when a rule may need to point inside it. */
export interface RecordRef {
  /** 0-based line. */
  readonly line: number;
  readonly length: number;
  readonly text?: string;
}

export interface ToolCallFact {
  readonly ref: RecordRef;
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

export interface TimeoutFact {
  readonly ref: RecordRef;
  readonly pendingIds: unknown;
  readonly complete: unknown;
}

export interface LifecycleFact {
  readonly ref: RecordRef;
  readonly toolCallId: unknown;
  readonly lifecycle: unknown;
  readonly effects: unknown;
  readonly source: unknown;
  readonly quiescenceRef: unknown;
  readonly status: unknown;
  /** Who wrote the annotation (rules/provenance/provenance.ts); absent for the framework's own. */
  readonly provenance: unknown;
}

/**
 * A trajectory row whose type cannot be taken at its word (facts/rows.ts `uncertainReadings`): the other
 * kinds it may be, each with the facts it then gives. The rules judge the rollout under each as well.
 */
export interface UncertainRowFact {
  readonly ref: RecordRef;
  /** Whether the row as written counts as typed (`TrajectoryFacts.untypedRows`). */
  readonly typed: boolean;
  readonly readings: readonly PlacedRowReading[];
}

export interface PlacedRowReading {
  readonly as: RowReadingKind;
  readonly toolCall?: ToolCallFact;
  readonly timeout?: TimeoutFact;
  readonly lifecycle?: LifecycleFact;
}

export interface TrajectoryFacts {
  readonly kind: 'acp-trajectory';
  readonly rows: number;
  /** Rows not marked `phase: "verifier"`. */
  readonly agentSideRows: number;
  /** Rows without a non-empty string `type`. */
  readonly untypedRows: number;
  readonly toolCalls: readonly ToolCallFact[];
  /** The last agent_timeout row: BenchFlow writes one, at the end; the rules judge the last. */
  readonly lastTimeout?: TimeoutFact;
  readonly lifecycles: readonly LifecycleFact[];
  readonly prompts: readonly PromptFact[];
  readonly uncertainRows: readonly UncertainRowFact[];
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
  /** It breaks its schema, carries a damaged key, or holds an ambiguous value: the rules also read it as each kind it may have been. */
  readonly damaged: boolean;
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
  /** The first terminal reward event (the scalar reward), when its value is a number. */
  readonly terminal?: { readonly ref: RecordRef; readonly value: number };
}

/** A JSON artifact: its value (when it parsed as an object) and its text, to point inside it. */
export interface DocumentFacts {
  readonly kind: 'result' | 'config' | 'preflight' | 'timing';
  readonly value?: JsonObject;
  readonly text: string;
}

export type ArtifactFacts = TrajectoryFacts | ActionFacts | LlmFacts | ResultsFacts | RewardsFacts | DocumentFacts;
