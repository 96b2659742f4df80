/**
 * A record named for what it is, as a person scanning a thousand-line artifact would call it:
 * `tool_call call_02 execute "sleep 9999" · in_progress`, `agent_timeout 300s · 1 pending`,
 * `SandboxExec Verify benchguard-verifier · rc 0 · setup-only`. The outline and hovers use the names.
 * The check names each record as it parses it (check/jsonlCheck.ts), so naming lives here, below the
 * check, and the outline (inspect/outline.ts) reads the names the check kept: each layer is crossed once.
 */
import type { ArtifactKind } from '../../../../shared/src/layout';
import { describeValue, isJsonObject, shownPrefix, type JsonObject } from '../parse/jsonKind';
import { detachedCopy } from '../text/detachedCopy';
import { actionEventTypeOf } from './actionKinds';

/** What a record is, coarsely: editors show each category with its own symbol icon. */
export type RecordCategory =
  | 'prompt'
  | 'message'
  | 'tool-call'
  | 'timeout'
  | 'lifecycle'
  | 'exec'
  | 'observation'
  | 'service'
  | 'exchange'
  | 'row'
  | 'reward'
  | 'record'
  | 'malformed';

export interface RecordName {
  readonly name: string;
  readonly category: RecordCategory;
}

/**
 * Characters of text kept in a name before the cut: enough to recognise a command or a prompt. More than
 * a message shows, since the outline stays in the editor of the person who has the bundle open.
 */
const maxQuoted = 47;

/**
 * `reading`: what the rules read in the record beyond its own fields (for an action record: kill
 * attempt, setup-only, grading, the observation's outcome), appended as the last part of its name.
 */
export function nameRecord(kind: ArtifactKind, record: JsonObject, reading?: string): RecordName {
  const named = baseName(kind, record);
  return reading ? { ...named, name: withReading(named.name, reading) } : named;
}

/**
 * `nameRecord`, for a name kept as long as its document is open (the language server's check keeps one
 * per line): one flat string. A name is joined from a few pieces, and V8 keeps such a join as a chain of
 * them, several objects a line that every collection of a large document walks again.
 */
export function keptRecordName(kind: ArtifactKind, record: JsonObject): RecordName {
  const named = baseName(kind, record);
  return { name: detachedCopy(named.name), category: named.category };
}

/** A record's name with what the rules read in it as its last part. */
export function withReading(name: string, reading: string | undefined): string {
  return reading ? `${name} · ${reading}` : name;
}

function baseName(kind: ArtifactKind, record: JsonObject): RecordName {
  switch (kind) {
    case 'acp-trajectory':
      return trajectoryRow(record);
    case 'action-records':
      return actionRecord(record);
    case 'llm-trajectory':
      return llmExchange(record);
    case 'results':
      return {
        name: labelled(
          word(
            word('results row', text(record['example_id'])),
            isJsonObject(record['info']) ? text(record['info']['task_name']) : undefined,
          ),
          'reward',
          record['reward'],
        ),
        category: 'row',
      };
    case 'rewards':
      return {
        name: labelled(word(text(record['name']) || 'reward', text(record['granularity'])), 'value', record['value']),
        category: 'reward',
      };
    default:
      return { name: 'record', category: 'record' };
  }
}

function trajectoryRow(record: JsonObject): RecordName {
  const type = text(record['type']) || 'row without a type';
  switch (type) {
    case 'user_message':
      return { name: word(type, quoted(record['text'])), category: 'prompt' };
    case 'agent_message':
    case 'agent_thought':
      return { name: word(type, quoted(record['text'])), category: 'message' };
    case 'tool_call':
      return {
        name: `${word(word(word(type, text(record['tool_call_id'])), text(record['kind'])), quoted(record['title']))}${suffix(record['status'])}`,
        category: 'tool-call',
      };
    case 'agent_timeout': {
      const pending = Array.isArray(record['pending_tool_call_ids'])
        ? record['pending_tool_call_ids'].length
        : undefined;
      const budget = typeof record['timeout_sec'] === 'number' ? `${record['timeout_sec']}s` : undefined;
      return {
        name: `${word(type, budget)}${pending === undefined ? '' : ` · ${pending} pending`}`,
        category: 'timeout',
      };
    }
    case 'tool_call_lifecycle':
      return {
        name: `${word(word(type, text(record['tool_call_id'])), text(record['lifecycle']))}${record['effects'] === undefined ? '' : ` · effects ${text(record['effects']) ?? describeValue(record['effects'])}`}`,
        category: 'lifecycle',
      };
    default:
      return { name: word(type, quoted(record['title'] ?? record['text'])), category: 'record' };
  }
}

function actionRecord(record: JsonObject): RecordName {
  const type = text(record['event_type']) || 'record without an event_type';
  const where = word(word(type, text(record['phase'])), text(record['service']));
  const returnCode = record['return_code'];
  const outcome =
    returnCode === undefined || returnCode === null
      ? suffix(record['status'])
      : ` · rc ${text(returnCode) ?? describeValue(returnCode)}`;
  // The kind as the rules read it (in any case); the name shows it as written.
  switch (actionEventTypeOf(record['event_type'])) {
    case 'SandboxExec':
      return { name: `${where}${outcome}`, category: 'exec' };
    case 'SandboxUserQuiescence':
      return {
        name: `${word(word(type, text(record['sandbox_user'])), text(record['mode']))}${outcome}`,
        category: 'observation',
      };
    case 'StartBenchGuardVerifierService':
      return { name: `${where}${suffix(record['status'])}`, category: 'service' };
    default:
      return { name: `${where}${outcome}`, category: 'record' };
  }
}

function llmExchange(record: JsonObject): RecordName {
  const request = isJsonObject(record['request']) ? record['request'] : undefined;
  const response = isJsonObject(record['response']) ? record['response'] : undefined;
  const body = response && isJsonObject(response['body']) ? response['body'] : undefined;
  const stop = body ? (text(body['stop_reason']) ?? text(body['status'])) : undefined;
  return {
    name: word(
      word(
        word('exchange', request ? text(request['path']) : undefined),
        response ? text(response['status_code']) : 'no response',
      ),
      stop,
    ),
    category: 'exchange',
  };
}

/** `name`, then `part` after a space when there is one. Runs for every record of 100,000-line files: no arrays. */
function word(name: string, part: string | undefined): string {
  return part === undefined || part === '' ? name : `${name} ${part}`;
}

function labelled(name: string, label: string, value: unknown): string {
  return value === undefined ? name : `${name} · ${label} ${text(value) ?? describeValue(value)}`;
}

function suffix(status: unknown): string {
  const value = text(status);
  return value === undefined ? '' : ` · ${value}`;
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return shownPrefix(value, maxQuoted);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

function quoted(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const shown = shownPrefix(value, maxQuoted);
  // Quoted as JSON, so a newline shows as \n and the name stays on one line; JSON.stringify only when
  // something needs escaping, since it costs a microsecond a call on 100,000-line files.
  return needsEscape.test(shown) ? JSON.stringify(shown) : `"${shown}"`;
}

const needsEscape = /["\\\u0000-\u001f\u2028\u2029]/;
