/**
 * Completion and quick fixes for writing fixture bundles, over the authoring helpers of
 * server/src/authoring.
 */
import {
  CodeActionKind,
  CodeActionRequest,
  CompletionItemKind,
  CompletionRequest,
  InsertTextFormat,
  MarkupKind,
  type CodeAction,
  type CompletionItem,
  type Connection,
  type Diagnostic,
} from 'vscode-languageserver/node';
import { artifactKindInfo } from '../../../../shared/src/layout';
import { completeRecord, type CompletionProposal } from '../../authoring/completion';
import { quickFixesFor } from '../../authoring/quickFixes';
import { isDiagnosticCode } from '../../engine/codes';
import { schemaGuideFor } from '../../engine/inspect/schemaGuide';
import { codeActionParams, textDocumentPositionParams } from '../requestParams';
import { diagnosticSource } from '../toDiagnostic';
import { featureRequest } from './featureRequest';
import { uriOfPath, type ArtifactDocuments } from './artifactDocuments';

const completionKinds: Record<CompletionProposal['kind'], CompletionItemKind> = {
  property: CompletionItemKind.Property,
  value: CompletionItemKind.Value,
  record: CompletionItemKind.Snippet,
};

export function registerAuthoring(connection: Connection, artifacts: ArtifactDocuments): void {
  connection.onRequest(
    CompletionRequest.type,
    featureRequest(
      connection.console,
      'Completion',
      textDocumentPositionParams,
      async (params, token): Promise<CompletionItem[] | null> => {
        const artifact = await artifacts.get(params.textDocument.uri, token);
        // JSON artifacts get completion from VS Code's JSON support, with our schemas.
        if (!artifact || artifactKindInfo(artifact.kind).format !== 'jsonl') return null;
        const { line, character } = params.position;
        const text = artifact.document
          .getText({ start: { line, character: 0 }, end: { line: line + 1, character: 0 } })
          .replace(/\r?\n$/, '');
        const proposals = completeRecord(
          artifact.kind,
          schemaGuideFor(artifact.kind),
          text,
          Math.min(character, text.length),
        );
        return proposals.map((proposal) => ({
          label: proposal.label,
          kind: completionKinds[proposal.kind],
          insertTextFormat: InsertTextFormat.Snippet,
          textEdit: {
            range: {
              start: { line, character: proposal.replace.start },
              end: { line, character: proposal.replace.end },
            },
            newText: proposal.snippet,
          },
          // What the client filters the typed word against: the replaced text starts with a quote.
          filterText: proposal.kind === 'property' ? JSON.stringify(proposal.label) : proposal.label,
          sortText: proposal.sortText,
          ...(proposal.detail ? { detail: proposal.detail } : {}),
          ...(proposal.documentation
            ? { documentation: { kind: MarkupKind.Markdown, value: proposal.documentation } }
            : {}),
        }));
      },
    ),
  );

  connection.onRequest(
    CodeActionRequest.type,
    featureRequest(
      connection.console,
      'Quick fixes',
      codeActionParams,
      async (params, token): Promise<CodeAction[] | null> => {
        const ours = params.context.diagnostics.flatMap((diagnostic) =>
          diagnostic.source === diagnosticSource && isDiagnosticCode(diagnostic.code)
            ? [{ code: diagnostic.code, line: diagnostic.range.start.line, diagnostic }]
            : [],
        );
        if (ours.length === 0) return null;
        const artifact = await artifacts.get(params.textDocument.uri, token);
        if (!artifact?.rollout) return null;
        const texts = new Map(artifacts.sourcesOf(artifact).map((source) => [source.path, source.text]));
        const fixes = quickFixesFor(
          artifact.rollout.bundle,
          artifact.rollout.evaluation,
          artifact.rollout.fixtureBundle,
          artifact.path,
          ours,
          (path) => texts.get(path),
        );
        if (token.isCancellationRequested) return null;
        return fixes.map((fix) => {
          const answered: Diagnostic[] = ours
            .filter((found) => fix.answers.has(found.code))
            .map((found) => found.diagnostic);
          // The open document's own URI, as the client spelled it, so the edit lands in that very document.
          const uri = fix.file === artifact.path ? params.textDocument.uri : uriOfPath(fix.file);
          return {
            title: fix.title,
            kind: CodeActionKind.QuickFix,
            diagnostics: answered,
            edit: { changes: { [uri]: [...fix.edits] } },
          };
        });
      },
    ),
  );
}
