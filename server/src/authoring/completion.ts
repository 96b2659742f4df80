/**
 * Completion while writing a JSONL record by hand: property names and values from our schemas, for the
 * record kind its `type` (or `event_type`) already names, and on an empty line one snippet per record
 * kind with its required properties. Works on the half-typed line: jsonc-parser reads what is there.
 */
import { getLocation, parse, type Node as SyntaxNode } from 'jsonc-parser';
import type { ArtifactKind } from '../../../shared/src/layout';
import type { PropertyGuide, SchemaGuide } from '../engine/inspect/schemaGuide';
import { isJsonObject, valueAt } from '../engine/parse/jsonKind';

export interface CompletionProposal {
  readonly label: string;
  readonly kind: 'property' | 'value' | 'record';
  /** Snippet syntax (tab stops, choices). */
  readonly snippet: string;
  /** Characters of the line the proposal replaces. */
  readonly replace: { readonly start: number; readonly end: number };
  readonly detail?: string;
  readonly documentation?: string;
  /** Sorts required properties first. */
  readonly sortText: string;
}

export function completeRecord(
  kind: ArtifactKind,
  guide: SchemaGuide,
  line: string,
  character: number,
): CompletionProposal[] {
  if (line.trim() === '') return recordSnippets(kind, guide, character, line.length);
  const location = getLocation(line, character);
  const record: unknown = parse(line);
  const at = location.previousNode;
  const replace = replacedRange(at, character, line);
  if (location.isAtPropertyKey) {
    const parentPath = location.path.slice(0, -1);
    const typed =
      typeof location.path[location.path.length - 1] === 'string' ? location.path[location.path.length - 1] : undefined;
    const parent = valueAt(record, parentPath);
    const present = new Set(isJsonObject(parent) ? Object.keys(parent) : []);
    if (typeof typed === 'string') present.delete(typed);
    return guide
      .properties(record, parentPath)
      .filter((property) => !present.has(property.name))
      .map((property, index) => ({
        label: property.name,
        kind: 'property',
        snippet: `${JSON.stringify(property.name)}: ${valueSnippet(property, 1)}`,
        replace,
        ...(property.description ? { documentation: property.description } : {}),
        detail: `${property.required ? 'required' : 'optional'}${property.types.length > 0 ? ` · ${property.types.join(' | ')}` : ''}`,
        sortText: `${property.required ? 0 : 1}${String(index).padStart(4, '0')}`,
      }));
  }
  const described = guide.describe(record, location.path);
  if (!described) return [];
  return described.values.map((value, index) => ({
    label: JSON.stringify(value),
    kind: 'value',
    snippet: escapeSnippet(JSON.stringify(value)),
    replace,
    detail: described.closed ? `one of the values of ${described.name}` : `an example value of ${described.name}`,
    ...(described.description ? { documentation: described.description } : {}),
    sortText: String(index).padStart(4, '0'),
  }));
}

/** On an empty line: a whole record of each kind, its required properties as tab stops. */
function recordSnippets(kind: ArtifactKind, guide: SchemaGuide, start: number, end: number): CompletionProposal[] {
  const shapes = guide.shapes();
  const replace = { start: 0, end: Math.max(start, end) };
  if (shapes.length === 0) {
    const required = guide.properties({}, []).filter((property) => property.required);
    const body = required
      .map((property, index) => `${JSON.stringify(property.name)}: ${valueSnippet(property, index + 1)}`)
      .join(', ');
    return [
      {
        label: `${kind} record`,
        kind: 'record',
        snippet: `{${body}}`,
        replace,
        detail: 'a record with its required properties',
        sortText: '0',
      },
    ];
  }
  return shapes.map((shape, index) => {
    const properties = shape.required.map(
      (property, position) => `${JSON.stringify(property.name)}: ${valueSnippet(property, position + 1)}`,
    );
    const body = [
      `${JSON.stringify(shape.discriminator)}: ${escapeSnippet(JSON.stringify(shape.value))}`,
      ...properties,
    ].join(', ');
    return {
      label: shape.value,
      kind: 'record',
      snippet: `{${body}}`,
      replace,
      detail: `a ${shape.value} record with its required properties`,
      ...(shape.description ? { documentation: shape.description } : {}),
      sortText: String(index).padStart(4, '0'),
    };
  });
}

function valueSnippet(property: PropertyGuide, stop: number): string {
  const strings = property.values.filter((value): value is string => typeof value === 'string');
  if (property.closed && property.values.length > 0 && property.values.every((value) => typeof value === 'string')) {
    return `"\${${stop}|${strings.map(escapeChoice).join(',')}|}"`;
  }
  const type = property.types[0] ?? (strings.length > 0 ? 'string' : undefined);
  switch (type) {
    case 'string':
      return `"\${${stop}${strings[0] !== undefined ? `:${escapeSnippet(strings[0])}` : ''}}"`;
    case 'integer':
    case 'number':
      return `\${${stop}:0}`;
    case 'boolean':
      return `\${${stop}|false,true|}`;
    case 'array':
      return `[\$${stop}]`;
    case 'object':
      return `{\$${stop}}`;
    default:
      return `\${${stop}:null}`;
  }
}

/** The token the cursor is in (a half-typed key or value), or an empty range at the cursor. */
function replacedRange(node: SyntaxNode | undefined, character: number, line: string): { start: number; end: number } {
  if (
    node &&
    node.type !== 'object' &&
    node.type !== 'array' &&
    node.offset <= character &&
    character <= node.offset + node.length
  ) {
    return { start: node.offset, end: node.offset + node.length };
  }
  // A string still open at the cursor is no node yet: replace from its opening quote.
  const open = openStringStart(line.slice(0, character));
  return open === -1 ? { start: character, end: character } : { start: open, end: character };
}

/** Where the string the text ends inside starts, or -1 when the text does not end inside a string. */
function openStringStart(text: string): number {
  let start = -1;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (start !== -1 && code === 92) index++;
    else if (code === 34) start = start === -1 ? index : -1;
  }
  return start;
}

function escapeSnippet(text: string): string {
  return text.replace(/[$}\\]/g, (character) => `\\${character}`);
}

function escapeChoice(text: string): string {
  return text.replace(/[$}\\,|]/g, (character) => `\\${character}`);
}
