/**
 * The outline of an artifact: for JSONL, one entry per record, named for what it is, and one for each
 * broken line so that a malformed line never hides the records around it; for result.json and
 * config.json, the keys that decide whether a reward can be trusted. In the language server the check
 * has already named each record as it parsed it, so the outline parses nothing again.
 */
import { artifactKindInfo, type ArtifactKind } from '../../../../shared/src/layout';
import type { TextRange } from '../findings';
import { ambiguitiesIn, makeAmbiguousFieldsUnknown } from '../parse/ambiguity';
import { describeValue, isJsonObject } from '../parse/jsonKind';
import { parseTreeSafely, type SyntaxNode } from '../parse/jsonTree';
import type { KeptCheck } from '../check/artifactChecker';
import { isTerminated, layoutOf, lineCount, LineIndex, lineLength, lineText } from '../text/lineLayout';
import { nameRecord, withReading, type RecordCategory } from '../facts/recordNames';

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
  if (artifactKindInfo(kind).format === 'json') return outlineOfJson(text, kind);
  const layout = layoutOf(text);
  const entries: OutlineEntry[] = [];
  for (let line = 0; line < lineCount(layout); line++) {
    const entry = entryOf(lineText(layout, line), line, isTerminated(layout, line), kind, readingOf?.(line));
    if (entry) entries.push(entry);
  }
  return entries;
}

/**
 * The outline of a JSONL document the language server has checked, from the names its check gave each
 * record while parsing it: no line is parsed again, except a broken one, to say what is wrong with it.
 */
export function outlineOfCheckedLines(
  checked: KeptCheck,
  kind: ArtifactKind,
  readingOf?: ReadingOfLine,
): OutlineEntry[] {
  const { layout, lines } = checked;
  const entries: OutlineEntry[] = [];
  for (let line = 0; line < lineCount(layout); line++) {
    const outcome = lines.outcomes[line];
    if (!outcome?.record) continue;
    const reading = readingOf?.(line);
    const entry = outcome.name
      ? {
          name: withReading(outcome.name.name, reading),
          category: outcome.name.category,
          line,
          length: lineLength(layout, line),
        }
      : entryOf(lineText(layout, line), line, isTerminated(layout, line), kind, reading);
    if (entry) entries.push(entry);
  }
  return entries;
}

/** The entry of one line; none for a blank line. */
function entryOf(
  text: string,
  line: number,
  terminated: boolean,
  kind: ArtifactKind,
  reading: string | undefined,
): OutlineEntry | undefined {
  if (!/\S/.test(text)) return undefined;
  const length = text.length;
  let record: unknown;
  try {
    record = JSON.parse(text);
  } catch {
    const what = terminated ? 'not valid JSON' : 'not valid JSON yet (still being written?)';
    return { name: `line ${line + 1} · ${what}`, category: 'malformed', line, length };
  }
  if (!isJsonObject(record))
    return { name: `line ${line + 1} · ${describeValue(record)}, not an object`, category: 'malformed', line, length };
  // Named as the check names it: an ambiguous field is unknown here too.
  makeAmbiguousFieldsUnknown(record, ambiguitiesIn(text));
  const named = nameRecord(kind, record, reading);
  return { name: named.name, category: named.category, line, length };
}

/** The keys of each JSON artifact that bear on the verdict; other keys are left to the JSON outline. */
const keysThatMatter: Partial<Record<ArtifactKind, readonly string[]>> = {
  result: [
    'rewards',
    'reward',
    'status',
    'error',
    'error_category',
    'verifier_error',
    'agent_timeout_info',
    'idle_timeout_info',
    'partial_trajectory',
    'n_tool_calls',
    'trajectory_summary',
    'agent_result',
    'started_at',
    'finished_at',
  ],
  config: [
    'sandbox_user',
    'timeout_sec',
    'agent_idle_timeout_sec',
    'agent',
    'model',
    'task_path',
    'environment',
    'started_at',
  ],
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
    entries.push({
      name: `${key.value}: ${preview(value)}`,
      category: 'key',
      line: range.start.line,
      length: 0,
      span: { range, selectionRange: lines.rangeAt(key.offset, key.length), detail },
    });
  }
  return entries;
}

function preview(node: SyntaxNode | undefined): string {
  if (!node) return 'missing';
  if (node.type === 'object') {
    const names = (node.children ?? [])
      .map((child) => child.children?.[0]?.value)
      .filter((name): name is string => typeof name === 'string');
    const shown = names.slice(0, 3).map((name) => {
      const value = node.children?.find((child) => child.children?.[0]?.value === name)?.children?.[1];
      return value && value.type !== 'object' && value.type !== 'array'
        ? `${name} ${JSON.stringify(value.value)}`
        : name;
    });
    return names.length === 0 ? '{}' : `{ ${shown.join(', ')}${names.length > 3 ? ', …' : ''} }`;
  }
  if (node.type === 'array') return `${node.children?.length ?? 0} items`;
  return JSON.stringify(node.value) ?? describeValue(node.value);
}
