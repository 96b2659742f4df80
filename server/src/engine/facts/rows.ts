/**
 * What one JSONL record contributes to the evidence. A pure function of the record, so the language
 * server can reuse it for every line an edit did not touch.
 */
import { createHash } from 'node:crypto';
import { ambiguousValue } from '../../../../shared/src/jsonObject';
import type { ArtifactKind } from '../../../../shared/src/layout';
import { arrayOrEmpty, isJsonObject, type JsonObject } from '../parse/jsonKind';
import { keyForFinding, SchemaKnowledge, shapedLike } from '../schema/knownKeys';
import { detachedCopy } from '../text/detachedCopy';
import {
  ruleRowTypes,
  type ActionRecord,
  type LifecycleFact,
  type LlmExchangeFact,
  type PromptFact,
  type RecordDamage,
  type RowKind,
  type TimeoutFact,
  type ToolCallFact,
} from './facts';
import { isScalarRewardEvent } from './rewardEvent';

/**
 * The phases of the agent's side, from the schema. The validator counts every row not marked verifier
 * as the agent's; a row whose phase is none the schema knows is counted as neither side here, since it
 * may be a damaged "verifier" (fail closed: it cannot stand in for the agent event the validator needs).
 */
const agentSidePhases: ReadonlySet<string> = new Set(
  SchemaKnowledge.of('acp-trajectory')
    .knownValuesOfKey('phase')
    .flatMap((phase) => (typeof phase === 'string' && phase.toLowerCase() !== 'verifier' ? [phase.toLowerCase()] : [])),
);

type WithoutRef<T> = Omit<T, 'ref'>;
/** A row's fact before it is placed: its kinds are the row's. */
type RowPart<T> = Omit<T, 'ref' | 'kinds'>;

export type RowFact =
  | {
      readonly kind: 'trajectory-row';
      readonly typed: boolean;
      readonly agentSide: boolean;
      /** When its type cannot be taken at its word: the kinds the row may be, the written first (`rowKindsOf`). */
      readonly kinds: readonly RowKind[] | undefined;
      /** What the row gives when read as each kind it may be. */
      readonly toolCall?: RowPart<ToolCallFact>;
      readonly timeout?: RowPart<TimeoutFact>;
      readonly lifecycle?: RowPart<LifecycleFact>;
      /** A prompt as written, for views. */
      readonly prompt?: WithoutRef<PromptFact>;
    }
  | { readonly kind: 'action'; readonly action: ActionRecord }
  | { readonly kind: 'llm-exchange'; readonly exchange: WithoutRef<LlmExchangeFact> }
  | { readonly kind: 'results-row'; readonly value: JsonObject }
  | { readonly kind: 'reward'; readonly terminal: boolean; readonly value: unknown };

/** `damage`: the record carries a schema or damaged-key finding or an ambiguous value, so the kind it says it is may not be the one it was. */
export function summarizeRow(kind: ArtifactKind, record: JsonObject, damage?: RecordDamage): RowFact | undefined {
  switch (kind) {
    case 'acp-trajectory':
      return trajectoryRow(record, damage !== undefined);
    case 'action-records':
      return { kind: 'action', action: actionRecord(record, damage) };
    case 'llm-trajectory':
      return { kind: 'llm-exchange', exchange: llmExchange(record) };
    case 'results':
      return { kind: 'results-row', value: record };
    case 'rewards':
      return { kind: 'reward', terminal: isScalarRewardEvent(record), value: record['value'] };
    default:
      return undefined;
  }
}

const trajectoryKnowledge = SchemaKnowledge.of('acp-trajectory');
const knownRowKeys = trajectoryKnowledge.knownKeys(trajectoryKnowledge.rootNodes());
const knownRowTypes: readonly string[] = trajectoryKnowledge
  .knownValuesOfKey('type')
  .filter((type): type is string => typeof type === 'string');

/** A row type as the rules read it: a damaged copy of a known type (`agentptimeout`) is that type. */
function rowTypeOf(type: unknown): unknown {
  if (typeof type !== 'string' || knownRowTypes.includes(type)) return type;
  return knownRowTypes.find((known) => shapedLike(type, known)) ?? type;
}

function trajectoryRow(record: JsonObject, damaged: boolean): RowFact {
  const field = fieldReader('acp-trajectory', knownRowKeys, record);
  const type = rowTypeOf(field('type'));
  const phase = field('phase');
  const kinds = rowKindsOf(field, type, damaged);
  // No conditional spreads: this runs for every row of 50 MB trajectories.
  return {
    kind: 'trajectory-row',
    typed: typeof type === 'string' && type !== '',
    agentSide: phase === undefined || (typeof phase === 'string' && agentSidePhases.has(phase.toLowerCase())),
    kinds,
    toolCall: (kinds ? kinds.includes('tool_call') : type === 'tool_call') ? toolCallParts(field) : undefined,
    timeout: (kinds ? kinds.includes('agent_timeout') : type === 'agent_timeout') ? timeoutParts(field) : undefined,
    lifecycle: (kinds ? kinds.includes('tool_call_lifecycle') : type === 'tool_call_lifecycle')
      ? lifecycleParts(field)
      : undefined,
    prompt: type === 'user_message' ? { preview: previewOf(field('text')) } : undefined,
  };
}

type FieldOf = (name: string) => unknown;

function toolCallParts(field: FieldOf): RowPart<ToolCallFact> {
  return {
    id: field('tool_call_id'),
    status: field('status'),
    terminalSource: field('terminal_source'),
    effects: field('effects'),
    title: previewOf(field('title')),
  };
}

function timeoutParts(field: FieldOf): RowPart<TimeoutFact> {
  return { pendingIds: field('pending_tool_call_ids'), complete: field('terminal_trajectory_complete') };
}

function lifecycleParts(field: FieldOf): RowPart<LifecycleFact> {
  return {
    toolCallId: field('tool_call_id'),
    lifecycle: field('lifecycle'),
    effects: field('effects'),
    source: field('source'),
    quiescenceRef: field('quiescence_ref'),
    status: field('status'),
    provenance: field('provenance'),
  };
}

const everyRowKind: readonly RowKind[] = ['other', ...ruleRowTypes];

/** What a row of each type the rules read must carry, and may carry (its schema branch). */
const keysOfRuleRowType = new Map(ruleRowTypes.map((type) => [type, trajectoryKnowledge.keysWhen('type', type)]));

/**
 * The kinds a row whose type cannot be taken at its word may be, the one it is written as first;
 * undefined for a row taken at its word, which is only what it says. Such a row may be others too: a damaged row (one that breaks its schema) whose type is one the rules read but
 * which lacks a key that type requires (a `user_message` turned `agent_timeout`) may be a row the rules
 * pass over; any damaged row, and a row of a type no schema knows (`nnt_timeout`, or `[]`), may be each
 * type the rules read whose required keys it carries beyond those its own type names. So a tool call
 * with an unknown status stays a tool call, and a newer BenchFlow's type that carries no such key
 * (`agent_plan`) is only what it says.
 */
function rowKindsOf(field: FieldOf, type: unknown, damaged: boolean): readonly RowKind[] | undefined {
  if (!damaged && typeof type === 'string' && knownRowTypes.includes(type)) return undefined;
  // A type written twice with different values (parse/ambiguity.ts) may have been either: any kind at all.
  if (type === ambiguousValue) return everyRowKind;
  const written = ruleRowTypes.find((known) => known === type);
  const ownKeys = written ? keysOfRuleRowType.get(written)! : undefined;
  const kinds: RowKind[] = [written ?? 'other'];
  if (damaged && ownKeys && [...ownKeys.required].some((key) => field(key) === undefined)) kinds.push('other');
  for (const candidate of ruleRowTypes) {
    if (candidate === written) continue;
    const carriesItsKeys = [...keysOfRuleRowType.get(candidate)!.required].some(
      (key) => !ownKeys?.named.has(key) && field(key) !== undefined,
    );
    if (carriesItsKeys) kinds.push(candidate);
  }
  return kinds.length > 1 ? kinds : undefined;
}

/** Views show a line of text at most; a prompt may be megabytes that the facts must not keep. */
const previewLength = 120;

function previewOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  if (value.length <= previewLength) return value;
  // A copy of its own: V8 keeps a plain slice as a view that holds the whole text alive.
  return `${detachedCopy(value.slice(0, previewLength))}…`;
}

const actionKnowledge = SchemaKnowledge.of('action-records');
const knownActionKeys = actionKnowledge.knownKeys(actionKnowledge.rootNodes());

/**
 * How a trajectory row's or an action record's fields are read: as named, or, where the record lacks a
 * key but carries an unknown one shaped like it (`pMase`), from that damaged copy (and a damaged row
 * type as the type it resembles). Unlike elsewhere, proofs read the copy too: such a record carries a
 * schema finding (damagedKeys.ts), so the rollout is never trusted, and reading the copy as its key
 * gives back every finding the record had before the damage, where reading it as absent would drop a
 * grading attempt, a kill or a timeout marker out of the evidence unseen.
 */
function fieldReader(
  kind: 'action-records' | 'acp-trajectory',
  known: ReadonlySet<string> | undefined,
  record: JsonObject,
): FieldOf {
  // The fast path, for nearly every record of large files: no key the schema does not know.
  if (!known || hasOnlyKeysIn(record, known)) return (name) => record[name];
  return (name) => record[keyForFinding(kind, [], record, name)];
}

/** Whether every key of `record` is in `known`; walked without making the array of keys. */
function hasOnlyKeysIn(record: JsonObject, known: ReadonlySet<string>): boolean {
  for (const key in record) if (Object.prototype.hasOwnProperty.call(record, key) && !known.has(key)) return false;
  return true;
}

function actionRecord(record: JsonObject, damage: RecordDamage | undefined): ActionRecord {
  const field = fieldReader('action-records', knownActionKeys, record);
  const eventType = field('event_type');
  const returnCode = field('return_code');
  return {
    eventType,
    phase: field('phase'),
    service: field('service'),
    status: field('status'),
    returnCode,
    hasReturnCode: returnCode !== undefined && returnCode !== null,
    actionId: field('action_id'),
    startedAt: field('started_at'),
    finishedAt: field('finished_at'),
    command: field('command_preview'),
    damage,
    provenance: field('provenance'),
    // No conditional spread: this runs for every record of 100,000-line action logs. Any record but a
    // SandboxExec as BenchFlow spells it, and any damaged record, may be read as an observation: the rules
    // compare event types case-insensitively, and read one they do not know, or a damaged record's, as each
    // kind they know (model/actions.ts).
    quiescence:
      eventType !== 'SandboxExec' || damage !== undefined
        ? {
            sandboxUser: field('sandbox_user'),
            uid: field('uid'),
            mode: field('mode'),
            survivors: field('survivors'),
            setuidProcesses: field('setuid_processes'),
            final: field('final'),
          }
        : undefined,
  };
}

// ---------------------------------------------------------------------------------------------------
// LLM exchanges, read the way BenchFlow's experiment-review validator reads them.

const usageKeys = [
  'input_tokens',
  'output_tokens',
  'prompt_tokens',
  'completion_tokens',
  'total_tokens',
  'inputTokens',
  'outputTokens',
  'promptTokens',
  'completionTokens',
  'totalTokens',
  'promptTokenCount',
  'candidatesTokenCount',
  'totalTokenCount',
];

function llmExchange(record: JsonObject): WithoutRef<LlmExchangeFact> {
  const request = record['request'];
  const response = record['response'];
  const requestBody = isJsonObject(request) ? request['body'] : undefined;
  const responseBody = isJsonObject(response) ? response['body'] : undefined;
  const body = isJsonObject(responseBody) ? responseBody : undefined;
  const calls = body ? toolCallsOf(body) : [];
  return {
    hasRequestBody: isJsonObject(requestBody),
    hasResponse: isJsonObject(response),
    hasResponseBody: body !== undefined,
    requestKey: canonicalHash(requestBody),
    completed:
      isJsonObject(response) &&
      response['status_code'] === 200 &&
      body !== undefined &&
      (body['status'] == null || body['status'] === 'completed') &&
      !body['incomplete_details'],
    positiveUsage: body !== undefined && hasPositiveUsage(body),
    responseToolCallIds: calls.map((call) => call.id).filter((id): id is string => typeof id === 'string'),
    onlyFinishCalls: calls.length > 0 && calls.every((call) => call.name === 'finish'),
    requestToolCallIds: referencedToolCallIds(requestBody),
  };
}

function hasPositiveUsage(body: JsonObject): boolean {
  const candidates = [
    body,
    body['usage'],
    body['usageMetadata'],
    isJsonObject(body['response']) ? body['response']['usage'] : undefined,
  ];
  return candidates.some(
    (candidate) =>
      isJsonObject(candidate) &&
      usageKeys.some((key) => typeof candidate[key] === 'number' && (candidate[key] as number) > 0),
  );
}

/** Tool calls in the OpenAI chat, Responses, message and Anthropic shapes. */
function toolCallsOf(body: JsonObject): { id: unknown; name: unknown }[] {
  const calls: { id: unknown; name: unknown }[] = [];
  const fromChatCalls = (toolCalls: unknown) => {
    if (!Array.isArray(toolCalls)) return;
    for (const call of toolCalls)
      if (isJsonObject(call))
        calls.push({ id: call['id'], name: isJsonObject(call['function']) ? call['function']['name'] : call['name'] });
  };
  for (const choice of arrayOrEmpty(body['choices']))
    if (isJsonObject(choice) && isJsonObject(choice['message'])) fromChatCalls(choice['message']['tool_calls']);
  if (isJsonObject(body['message'])) fromChatCalls(body['message']['tool_calls']);
  for (const item of arrayOrEmpty(body['output'])) {
    if (isJsonObject(item) && (item['type'] === 'function_call' || item['type'] === 'tool_call'))
      calls.push({ id: item['call_id'] ?? item['id'], name: item['name'] });
  }
  for (const block of arrayOrEmpty(body['content']))
    if (isJsonObject(block) && block['type'] === 'tool_use') calls.push({ id: block['id'], name: block['name'] });
  return calls;
}

const referenceKeys = new Set(['tool_call_id', 'call_id', 'tool_use_id']);

/** Ids of earlier tool calls that a request answers or repeats, found anywhere in its body. */
function referencedToolCallIds(body: unknown): string[] {
  const found = new Set<string>();
  const visit = (value: unknown, depth: number, key: string | undefined): void => {
    if (depth > 12) return;
    if (Array.isArray(value)) {
      for (const item of value) {
        if (key === 'tool_calls' && isJsonObject(item) && typeof item['id'] === 'string') found.add(item['id']);
        visit(item, depth + 1, undefined);
      }
    } else if (isJsonObject(value)) {
      for (const [name, child] of Object.entries(value)) {
        if (referenceKeys.has(name) && typeof child === 'string') found.add(child);
        if (name === 'type' && child === 'tool_use' && typeof value['id'] === 'string') found.add(value['id']);
        visit(child, depth + 1, name);
      }
    }
  };
  visit(body, 0, undefined);
  return [...found];
}

const hashBatchChars = 64 * 1024;

/**
 * A hash of the value as JSON with object keys sorted, so that two equal bodies give one key. Walked
 * with a stack of its own, and hashed as it goes: a body may nest deeper than the call stack allows,
 * and need not be copied. The text goes to the hash in pieces of about `hashBatchChars`: the hash is of the
 * same text, but one update per bracket and key cost more than hashing the bytes.
 */
function canonicalHash(value: unknown): string {
  const hash = createHash('sha1');
  let batch = '';
  const write = (text: string): void => {
    batch += text;
    if (batch.length >= hashBatchChars) {
      hash.update(batch);
      batch = '';
    }
  };
  const pending: ({ readonly text: string } | { readonly value: unknown })[] = [{ value }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if ('text' in next) {
      write(next.text);
      continue;
    }
    const item = next.value;
    if (Array.isArray(item)) {
      write('[');
      pending.push({ text: ']' });
      for (let index = item.length - 1; index >= 0; index--) {
        pending.push({ value: item[index] });
        if (index > 0) pending.push({ text: ',' });
      }
    } else if (isJsonObject(item)) {
      write('{');
      pending.push({ text: '}' });
      const keys = Object.keys(item).sort();
      for (let index = keys.length - 1; index >= 0; index--) {
        pending.push({ value: item[keys[index]!] });
        pending.push({ text: `${index > 0 ? ',' : ''}${JSON.stringify(keys[index])}:` });
      }
    } else {
      write(JSON.stringify(item) ?? 'undefined');
    }
  }
  hash.update(batch);
  return hash.digest('base64');
}
