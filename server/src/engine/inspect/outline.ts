/**
 * The outline of an artifact: for JSONL, one entry per record, named for what it is, and one for each
 * broken line so that a malformed line never hides the records around it; for result.json and
 * config.json, the keys that decide whether a reward can be trusted. Costs one JSON.parse per line and
 * none of the schema work, so it stays below the price of a full check.
 */
import { artifactKindInfo, type ArtifactKind } from '../../../../shared/src/artifactKinds';
import type { TextRange } from '../findings';
import { describeValue, isJsonObject } from '../parse/jsonKind';
import { parseTreeSafely, type SyntaxNode } from '../parse/jsonTree';
import { linesOfText } from '../text/sourceLines';
import { LineIndex } from '../text/lineIndex';
import { nameRecord, type RecordCategory } from './recordNames';

export interface OutlineEntry {
  readonly name: string;
  readonly detail: string;
  readonly category: RecordCategory | 'key';
  readonly range: TextRange;
  readonly selectionRange: TextRange;
}

/** What the rules read in a record, by 0-based line (see recordNames). */
export type ReadingOfLine = (line: number) => string | undefined;

export function outlineOf(text: string, kind: ArtifactKind, readingOf?: ReadingOfLine): OutlineEntry[] {
  return artifactKindInfo(kind).format === 'jsonl' ? outlineOfJsonl(text, kind, readingOf) : outlineOfJson(text, kind);
}

function outlineOfJsonl(text: string, kind: ArtifactKind, readingOf: ReadingOfLine | undefined): OutlineEntry[] {
  const entries: OutlineEntry[] = [];
  for (const line of linesOfText(text)) {
    if (!/\S/.test(line.text)) continue;
    const range = { start: { line: line.number, character: 0 }, end: { line: line.number, character: line.text.length } };
    const detail = `line ${line.number + 1}`;
    let record: unknown;
    try {
      record = JSON.parse(line.text);
    } catch {
      const name = line.terminated ? 'not valid JSON' : 'not valid JSON yet (still being written?)';
      entries.push({ name: `${detail} · ${name}`, detail, category: 'malformed', range, selectionRange: range });
      continue;
    }
    if (!isJsonObject(record)) {
      entries.push({ name: `${detail} · ${describeValue(record)}, not an object`, detail, category: 'malformed', range, selectionRange: range });
      continue;
    }
    const named = nameRecord(kind, record, readingOf?.(line.number));
    entries.push({ name: named.name, detail, category: named.category, range, selectionRange: range });
  }
  return entries;
}

/** The keys of each JSON artifact that bear on the verdict; other keys are left to the JSON outline. */
const keysThatMatter: Partial<Record<ArtifactKind, readonly string[]>> = {
  result: ['rewards', 'reward', 'status', 'error', 'error_category', 'verifier_error', 'agent_timeout_info', 'idle_timeout_info', 'partial_trajectory', 'n_tool_calls', 'trajectory_summary', 'agent_result', 'started_at', 'finished_at'],
  config: ['sandbox_user', 'timeout_sec', 'agent_idle_timeout_sec', 'agent', 'model', 'task_path', 'environment', 'started_at'],
  preflight: ['report'],
  timing: ['total'],
};

function outlineOfJson(text: string, kind: ArtifactKind): OutlineEntry[] {
  const tree = parseTreeSafely(text);
  if (tree?.type !== 'object') return [];
  const keys = new Set(keysThatMatter[kind] ?? []);
  const lines = new LineIndex(text);
  const entries: OutlineEntry[] = [];
  for (const property of tree.children ?? []) {
    const [key, value] = property.children ?? [];
    if (typeof key?.value !== 'string' || !keys.has(key.value)) continue;
    entries.push({
      name: `${key.value}: ${preview(value)}`,
      detail: kind === 'result' || kind === 'config' ? `${kind}.json` : kind,
      category: 'key',
      range: lines.rangeAt(property.offset, property.length),
      selectionRange: lines.rangeAt(key.offset, key.length),
    });
  }
  return entries;
}

function preview(node: SyntaxNode | undefined): string {
  if (!node) return 'missing';
  if (node.type === 'object') {
    const names = (node.children ?? []).map((child) => child.children?.[0]?.value).filter((name): name is string => typeof name === 'string');
    const shown = names.slice(0, 3).map((name) => {
      const value = node.children?.find((child) => child.children?.[0]?.value === name)?.children?.[1];
      return value && value.type !== 'object' && value.type !== 'array' ? `${name} ${JSON.stringify(value.value)}` : name;
    });
    return names.length === 0 ? '{}' : `{ ${shown.join(', ')}${names.length > 3 ? ', …' : ''} }`;
  }
  if (node.type === 'array') return `${node.children?.length ?? 0} items`;
  return JSON.stringify(node.value) ?? describeValue(node.value);
}
