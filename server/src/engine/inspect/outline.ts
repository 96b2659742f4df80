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
import { byteOrderMarkLength } from '../text/lineLayout';
import { LineIndex } from '../text/lineIndex';
import { nameRecord, type RecordCategory } from './recordNames';

/**
 * Kept flat, without range objects: a 100,000-line trajectory has 100,000 entries, and the server keeps
 * the outline of each open document.
 */
export interface OutlineEntry {
  readonly name: string;
  readonly category: RecordCategory | 'key';
  /** The 0-based line the entry starts on; a JSONL record is this whole line, `length` characters. */
  readonly line: number;
  readonly length: number;
  /** A JSON artifact's key spans lines: where exactly, and the file it is in. */
  readonly span?: { readonly range: TextRange; readonly selectionRange: TextRange; readonly detail: string };
}

/** What the rules read in a record, by 0-based line (see recordNames). */
export type ReadingOfLine = (line: number) => string | undefined;

export function outlineOf(text: string, kind: ArtifactKind, readingOf?: ReadingOfLine): OutlineEntry[] {
  return artifactKindInfo(kind).format === 'jsonl' ? outlineOfJsonl(text, kind, readingOf) : outlineOfJson(text, kind);
}

function outlineOfJsonl(text: string, kind: ArtifactKind, readingOf: ReadingOfLine | undefined): OutlineEntry[] {
  const entries: OutlineEntry[] = [];
  // One pass over the text without a line object per line: this runs on 100,000-line files.
  let start = byteOrderMarkLength(text);
  for (let number = 0; start <= text.length; number++) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline;
    const lineText = text.charCodeAt(end - 1) === 13 && end > start ? text.slice(start, end - 1) : text.slice(start, end);
    start = end + 1;
    if (newline === -1 && lineText === '') break;
    if (!/\S/.test(lineText)) continue;
    const length = lineText.length;
    let record: unknown;
    try {
      record = JSON.parse(lineText);
    } catch {
      const what = newline !== -1 ? 'not valid JSON' : 'not valid JSON yet (still being written?)';
      entries.push({ name: `line ${number + 1} · ${what}`, category: 'malformed', line: number, length });
      continue;
    }
    if (!isJsonObject(record)) {
      entries.push({ name: `line ${number + 1} · ${describeValue(record)}, not an object`, category: 'malformed', line: number, length });
      continue;
    }
    const named = nameRecord(kind, record, readingOf?.(number));
    entries.push({ name: named.name, category: named.category, line: number, length });
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
    const range = lines.rangeAt(property.offset, property.length);
    const detail = kind === 'result' || kind === 'config' ? `${kind}.json` : kind;
    entries.push({ name: `${key.value}: ${preview(value)}`, category: 'key', line: range.start.line, length: 0, span: { range, selectionRange: lines.rangeAt(key.offset, key.length), detail } });
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
