/**
 * Tool call ids and action ids across the files of a rollout: where an id sits under the cursor, every
 * place it occurs, and which occurrence defines it (the trajectory's tool_call row; the action record
 * with that action_id). Occurrences are found by searching each file for the id's JSON text and then
 * confirming, on the few lines that contain it, that the string sits where an id belongs.
 */
import { artifactKindInfo, type ArtifactKind } from '../../../../shared/src/layout';
import type { TextRange } from '../findings';
import { findNodeAtOffset, type Node as SyntaxNode } from 'jsonc-parser';
import { parseTreeSafely } from '../parse/jsonTree';
import { lineContentEnd, LineIndex } from '../text/lineLayout';

export type IdRole = 'tool' | 'action';

export interface IdAt {
  readonly id: string;
  readonly role: IdRole;
  /** The string's range, quotes included. */
  readonly range: TextRange;
}

export interface IdOccurrence {
  readonly file: string;
  readonly range: TextRange;
  /** The property that holds the id: `tool_call_id`, `pending_tool_call_ids`, `quiescence_ref`, … */
  readonly key: string;
  readonly definition: boolean;
}

export interface SourceFile {
  readonly path: string;
  readonly kind: ArtifactKind;
  readonly text: string;
}

const toolKeys = new Set(['tool_call_id', 'tool_use_id', 'toolCallId', 'call_id', 'pending_tool_call_ids']);
const actionKeys = new Set(['action_id', 'quiescence_ref']);
/** `id` names a tool call only inside these: an OpenAI tool_calls entry, an Anthropic tool_use block. */
const toolCallTypes = new Set(['tool_use', 'function', 'function_call', 'tool_call']);

/** The id at `character` of a JSONL record (or of a JSON artifact's text when `text` is the whole file). */
export function idAt(text: string, offset: number, lines: LineIndex): IdAt | undefined {
  const tree = parseTreeSafely(text);
  if (!tree) return undefined;
  const node = findNodeAtOffset(tree, offset, true);
  if (!node || node.type !== 'string' || isPropertyKey(node)) return undefined;
  const role = roleOf(node);
  return role && typeof node.value === 'string'
    ? { id: node.value, role: role.role, range: lines.rangeAt(node.offset, node.length) }
    : undefined;
}

/** Every place `id` occurs with `role` in `files`, in file order then text order. */
export function idOccurrences(files: readonly SourceFile[], id: string, role: IdRole): IdOccurrence[] {
  const needle = JSON.stringify(id);
  const occurrences: IdOccurrence[] = [];
  for (const file of files) {
    let index = file.text.indexOf(needle);
    if (index === -1) continue;
    const lines = new LineIndex(file.text);
    const jsonl = artifactKindInfo(file.kind).format === 'jsonl';
    const trees = new Map<number, { tree: SyntaxNode | undefined; start: number }>();
    for (; index !== -1; index = file.text.indexOf(needle, index + needle.length)) {
      const position = lines.positionAt(index);
      const start = jsonl ? index - position.character : 0;
      let parsed = trees.get(start);
      if (!parsed) {
        const end = jsonl ? lineContentEnd(lines.layout, position.line) : file.text.length;
        parsed = { tree: parseTreeSafely(file.text.slice(start, end)), start };
        trees.set(start, parsed);
      }
      if (!parsed.tree) continue;
      const node = findNodeAtOffset(parsed.tree, index - start + 1, false);
      if (!node || node.type !== 'string' || node.value !== id || isPropertyKey(node)) continue;
      const found = roleOf(node);
      if (found?.role !== role) continue;
      occurrences.push({
        file: file.path,
        range: lines.rangeAt(index, needle.length),
        key: found.key,
        definition: isDefinition(file.kind, node, found.key),
      });
    }
  }
  return occurrences;
}

function isPropertyKey(node: SyntaxNode): boolean {
  return node.parent?.type === 'property' && node.parent.children?.[0] === node;
}

/** The key holding a string value, looking through an array (`pending_tool_call_ids: ["call_02"]`). */
function keyOf(node: SyntaxNode): string | undefined {
  const holder = node.parent?.type === 'array' ? node.parent : node;
  const property = holder.parent;
  const key = property?.type === 'property' ? property.children?.[0]?.value : undefined;
  return typeof key === 'string' ? key : undefined;
}

function roleOf(node: SyntaxNode): { role: IdRole; key: string } | undefined {
  const key = keyOf(node);
  if (key === undefined) return undefined;
  if (toolKeys.has(key)) return { role: 'tool', key };
  if (actionKeys.has(key)) return { role: 'action', key };
  if (key === 'id' && node.parent?.type === 'property' && isToolCallObject(node.parent.parent))
    return { role: 'tool', key };
  return undefined;
}

function isToolCallObject(object: SyntaxNode | undefined): boolean {
  if (object?.type !== 'object') return false;
  const type = propertyValue(object, 'type');
  if (typeof type === 'string' && toolCallTypes.has(type)) return true;
  const holder = object.parent?.type === 'array' ? object.parent.parent : undefined;
  return holder?.type === 'property' && holder.children?.[0]?.value === 'tool_calls';
}

function propertyValue(object: SyntaxNode, name: string): unknown {
  return object.children?.find((property) => property.children?.[0]?.value === name)?.children?.[1]?.value;
}

function isDefinition(kind: ArtifactKind, node: SyntaxNode, key: string): boolean {
  const record = node.parent?.parent;
  if (kind === 'acp-trajectory' && key === 'tool_call_id')
    return record !== undefined && propertyValue(record, 'type') === 'tool_call';
  return kind === 'action-records' && key === 'action_id';
}
