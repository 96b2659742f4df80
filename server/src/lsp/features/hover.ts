/**
 * Hover on a record, a key or a value: what the record is (as the outline names it, with what the rules
 * read in it), what the field means and which values it takes (from our schemas), and for a tool call
 * id or an action id, everywhere else in the rollout it appears.
 */
import { relative } from 'node:path';
import { findNodeAtOffset, getLocation } from 'jsonc-parser';
import { HoverRequest, MarkupKind, type Connection, type Hover } from 'vscode-languageserver/node';
import { artifactKindInfo } from '../../../../shared/src/layout';
import { actionReadingLabels } from '../../engine/inspect/actionReadings';
import { idAt, idOccurrences, type IdAt, type IdOccurrence } from '../../engine/inspect/ids';
import { nameRecord } from '../../engine/facts/recordNames';
import { schemaGuideFor, type PropertyGuide, type SchemaGuide } from '../../engine/inspect/schemaGuide';
import { isJsonObject } from '../../engine/parse/jsonKind';
import { parseTreeSafely } from '../../engine/parse/jsonTree';
import { textDocumentPositionParams } from '../requestParams';
import { uriOfPath, type ArtifactDocument, type ArtifactDocuments } from './artifactDocuments';
import { featureRequest } from './featureRequest';
import { inDocument, recordAt, type RecordText } from './recordAt';

/** Occurrences listed in an id's hover; the rest are counted. */
const maxListedOccurrences = 8;

export function registerHover(connection: Connection, artifacts: ArtifactDocuments): void {
  connection.onRequest(
    HoverRequest.type,
    featureRequest(
      connection.console,
      'Hover',
      textDocumentPositionParams,
      async (params, token): Promise<Hover | null> => {
        const artifact = await artifacts.get(params.textDocument.uri, token);
        if (!artifact) return null;
        const record = recordAt(artifact.document, artifact.kind, params.position);
        if (record.text.trim() === '') return null;
        const id = idAt(record.text, record.offset, record.lines);
        if (id) {
          const occurrences = idOccurrences(artifacts.sourcesOf(artifact), id.id, id.role);
          return token.isCancellationRequested
            ? null
            : {
                contents: { kind: MarkupKind.Markdown, value: idHover(id, occurrences, artifact) },
                range: inDocument(record, id.range),
              };
        }
        return fieldHover(artifact, record, schemaGuideFor(artifact.kind));
      },
    ),
  );
}

function idHover(id: IdAt, occurrences: readonly IdOccurrence[], artifact: ArtifactDocument): string {
  const root = artifact.rollout?.bundle.root;
  const what = id.role === 'tool' ? 'Tool call id' : 'Action id';
  const lines = occurrences.slice(0, maxListedOccurrences).map((occurrence) => {
    const name = root ? relative(root, occurrence.file) : relative(artifact.path, occurrence.file) || 'this file';
    const line = occurrence.range.start.line + 1;
    return `- [${escape(`${name}:${line}`)}](${linkTarget(occurrence.file, line)}) ${codeSpan(occurrence.key)}${occurrence.definition ? ' (definition)' : ''}`;
  });
  const more =
    occurrences.length > maxListedOccurrences
      ? [`- … and ${occurrences.length - maxListedOccurrences} more (Find All References lists them)`]
      : [];
  const where = root ? 'in this rollout' : 'in this file';
  return [
    `**${what}** ${codeSpan(id.id)} · ${occurrences.length} ${occurrences.length === 1 ? 'occurrence' : 'occurrences'} ${where}`,
    '',
    ...lines,
    ...more,
  ].join('\n');
}

function fieldHover(artifact: ArtifactDocument, record: RecordText, guide: SchemaGuide): Hover | null {
  let value: unknown;
  try {
    value = JSON.parse(record.text);
  } catch {
    return null;
  }
  const location = getLocation(record.text, record.offset);
  const path = location.path.filter((segment) => segment !== '');
  const sections: string[] = [];
  const jsonl = artifactKindInfo(artifact.kind).format === 'jsonl';
  if (jsonl && isJsonObject(value)) {
    const reading =
      artifact.kind === 'action-records' && artifact.rollout
        ? actionReadingLabels(artifact.rollout.evaluation.model.actions).get(record.firstLine)
        : undefined;
    sections.push(`**${escape(nameRecord(artifact.kind, value, reading).name)}**`);
  }
  const described = guide.describe(value, path);
  if (described && path.length > 0) sections.push(propertySection(path, described));
  else if (described?.description && path.length === 0) sections.push(described.description);
  if (sections.length === 0) return null;
  const tree = parseTreeSafely(record.text);
  const node = tree ? findNodeAtOffset(tree, record.offset, true) : undefined;
  return {
    contents: { kind: MarkupKind.Markdown, value: sections.join('\n\n') },
    ...(node && path.length > 0 ? { range: inDocument(record, record.lines.rangeAt(node.offset, node.length)) } : {}),
  };
}

function propertySection(path: readonly (string | number)[], guide: PropertyGuide): string {
  const name = path
    .map((segment) => (typeof segment === 'number' ? `[${segment}]` : segment))
    .join('.')
    .replace(/\.\[/g, '[');
  const parts = [
    `${codeSpan(name)}${guide.required ? ' (required)' : ''}${guide.types.length > 0 ? ` · ${guide.types.join(' | ')}` : ''}`,
  ];
  if (guide.description) parts.push(guide.description);
  if (guide.values.length > 0)
    parts.push(
      `${guide.closed ? 'One of' : 'For example'}: ${guide.values.map((value) => codeSpan(JSON.stringify(value))).join(', ')}`,
    );
  return parts.join('\n\n');
}

/**
 * Bundle text as a Markdown code span, which shows it literally: a fence longer than any run of
 * backticks inside, so an id cannot close the span and add links or images of its own.
 */
function codeSpan(text: string): string {
  const longestRun = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longestRun + 1);
  return longestRun > 0 ? `${fence} ${text} ${fence}` : `${fence}${text}${fence}`;
}

/** A file URI as a Markdown link target: parentheses would end the target early. */
function linkTarget(path: string, line: number): string {
  return `${uriOfPath(path).replace(/[()]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`)}#L${line}`;
}

function escape(text: string): string {
  return text.replace(/[\\`*_[\]<>]/g, (character) => `\\${character}`);
}
