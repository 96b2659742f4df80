/**
 * Document symbols (the outline and breadcrumbs) and folding ranges of the artifacts, both from one
 * outline per document version, which is kept: VS Code asks for both after every edit.
 */
import {
  DocumentSymbolRequest,
  FoldingRangeKind,
  FoldingRangeRequest,
  SymbolKind,
  type Connection,
  type DocumentSymbol,
  type FoldingRange,
} from 'vscode-languageserver/node';
import { actionReadingLabels } from '../../engine/inspect/actionReadings';
import { outlineOf, outlineOfCheckedLines, type OutlineEntry } from '../../engine/inspect/outline';
import { RecentlyUsedCache } from '../../engine/recentlyUsedCache';
import { settingsSection } from '../../../../shared/src/settings';
import { textDocumentParams } from '../requestParams';
import type { ArtifactDocument, ArtifactDocuments } from './artifactDocuments';
import { featureRequest } from './featureRequest';

const symbolKinds: Record<OutlineEntry['category'], SymbolKind> = {
  prompt: SymbolKind.Module,
  message: SymbolKind.String,
  'tool-call': SymbolKind.Function,
  timeout: SymbolKind.Event,
  lifecycle: SymbolKind.EnumMember,
  exec: SymbolKind.Method,
  observation: SymbolKind.Boolean,
  service: SymbolKind.Class,
  exchange: SymbolKind.Object,
  row: SymbolKind.Struct,
  reward: SymbolKind.Number,
  record: SymbolKind.Object,
  malformed: SymbolKind.Null,
  key: SymbolKind.Key,
};

/** Runs of this many records of one kind fold into one region. */
const minimumRun = 3;

export class OutlineProvider {
  /** By URI, for the document's version and kind (and the rollout's state for action records); forgotten on closing. */
  private readonly kept = new RecentlyUsedCache<OutlineEntry[], string>({ maxEntries: Infinity });

  constructor(private readonly artifacts: ArtifactDocuments) {}

  register(connection: Connection): void {
    connection.onRequest(
      DocumentSymbolRequest.type,
      featureRequest(connection.console, 'The outline', textDocumentParams, async (params, token) => {
        const artifact = await this.artifacts.get(params.textDocument.uri, token);
        if (!artifact) return null;
        const entries = this.outline(artifact);
        const { maxItemsComputed } = await this.artifacts.settings.get(params.textDocument.uri);
        return token.isCancellationRequested ? null : limitedSymbols(entries, maxItemsComputed);
      }),
    );
    connection.onRequest(
      FoldingRangeRequest.type,
      featureRequest(connection.console, 'Folding', textDocumentParams, async (params, token) => {
        const artifact = await this.artifacts.get(params.textDocument.uri, token);
        if (!artifact) return null;
        const ranges = foldingRanges(this.outline(artifact));
        const { maxItemsComputed } = await this.artifacts.settings.get(params.textDocument.uri);
        return token.isCancellationRequested ? null : ranges.slice(0, maxItemsComputed);
      }),
    );
    this.artifacts.documents.onDidClose((event) => this.kept.delete(event.document.uri));
  }

  outline(artifact: ArtifactDocument): OutlineEntry[] {
    const { document, kind, rollout } = artifact;
    // Only the action records' names carry what the rules read in them: other outlines need no rollout state.
    const key = `${document.version}\u0000${kind}\u0000${kind === 'action-records' ? (rollout?.key ?? '') : ''}`;
    const kept = this.kept.get(document.uri, key);
    if (kept) return kept;
    const labels =
      kind === 'action-records' && rollout ? actionReadingLabels(rollout.evaluation.model.actions) : undefined;
    const readingOf = labels ? (line: number) => labels.get(line) : undefined;
    // The check of this very version named its records already; a JSON artifact has no checked lines.
    const checked = this.artifacts.checkedLinesOf(document, kind);
    const entries = checked
      ? outlineOfCheckedLines(checked, kind, readingOf)
      : outlineOf(document.getText(), kind, readingOf);
    this.kept.set(document.uri, key, entries);
    return entries;
  }
}

/**
 * The first `limit` entries as symbols and, when there were more, one last symbol at the first left out
 * that says how many and which setting to raise: VS Code's JSON support limits its outline so too, and
 * the outline of a 300,000-record file is otherwise a message of tens of megabytes.
 */
function limitedSymbols(entries: readonly OutlineEntry[], limit: number): DocumentSymbol[] {
  const symbols = entries.slice(0, limit).map(toSymbol);
  const firstLeftOut = entries[limit];
  if (firstLeftOut) {
    const { range, selectionRange } = toSymbol(firstLeftOut);
    symbols.push({
      name: `… ${(entries.length - limit).toLocaleString('en')} more not listed`,
      detail: `${settingsSection}.maxItemsComputed is ${limit.toLocaleString('en')}`,
      kind: SymbolKind.Null,
      range,
      selectionRange,
    });
  }
  return symbols;
}

export function toSymbol(entry: OutlineEntry): DocumentSymbol {
  if (entry.span)
    return {
      name: entry.name,
      detail: entry.span.detail,
      kind: symbolKinds[entry.category],
      range: entry.span.range,
      selectionRange: entry.span.selectionRange,
    };
  const range = { start: { line: entry.line, character: 0 }, end: { line: entry.line, character: entry.length } };
  return { name: entry.name, kind: symbolKinds[entry.category], range, selectionRange: range };
}

/**
 * A JSONL record is one line, so what folds are groups of records: each prompt's turn (the prompt and
 * everything up to the next prompt), and runs of records of one kind (a hundred agent_message rows).
 */
function foldingRanges(entries: readonly OutlineEntry[]): FoldingRange[] {
  const ranges: FoldingRange[] = [];
  const prompts = entries.filter((entry) => entry.category === 'prompt');
  const lastLine = entries[entries.length - 1]?.line ?? 0;
  prompts.forEach((prompt, index) => {
    const next = prompts[index + 1];
    const end = next ? next.line - 1 : lastLine;
    if (end > prompt.line)
      ranges.push({
        startLine: prompt.line,
        endLine: end,
        kind: FoldingRangeKind.Region,
        collapsedText: `${prompt.name} …`,
      });
  });
  let runStart = 0;
  for (let index = 1; index <= entries.length; index++) {
    const previous = entries[index - 1]!;
    const current = entries[index];
    if (
      current &&
      current.category === previous.category &&
      current.category !== 'prompt' &&
      current.category !== 'key'
    )
      continue;
    const run = entries.slice(runStart, index);
    if (run.length >= minimumRun) {
      ranges.push({
        startLine: run[0]!.line,
        endLine: previous.line,
        kind: FoldingRangeKind.Region,
        collapsedText: `${run.length} ${previous.category} records`,
      });
    }
    runStart = index;
  }
  return ranges;
}
