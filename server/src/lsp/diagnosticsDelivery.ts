/**
 * Delivers the validator's diagnostics the way the client wants them: pulled (LSP 3.17
 * `textDocument/diagnostic`, the client decides when) or, for older clients, pushed after a short
 * pause in typing. Both paths call the same DocumentValidator.
 */
import {
  DocumentDiagnosticReportKind,
  type Connection,
  type DiagnosticServerCancellationData,
  type DocumentDiagnosticReport,
  type TextDocuments,
} from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { DocumentValidator } from './documentValidator';
import { cancelledError, runSafeAsync } from './runner';
import { errorDetail } from '../../../shared/src/errors';

export interface DiagnosticsDelivery {
  /** Something outside the documents changed (settings): every open document must be validated again. */
  refresh(): void;
}

export function registerPullDiagnostics(
  connection: Connection,
  documents: TextDocuments<TextDocument>,
  validator: DocumentValidator,
  clientCanRefresh: boolean,
): DiagnosticsDelivery {
  const emptyReport: DocumentDiagnosticReport = { kind: DocumentDiagnosticReportKind.Full, items: [] };
  connection.languages.diagnostics.on((params, token) =>
    runSafeAsync<DocumentDiagnosticReport, DiagnosticServerCancellationData>(
      async () => {
        const document = documents.get(params.textDocument.uri);
        if (!document) return emptyReport;
        const validation = await validator.validate(document, () => token.isCancellationRequested);
        if (!validation) return cancelledError();
        if (params.previousResultId === validation.resultId) {
          return { kind: DocumentDiagnosticReportKind.Unchanged, resultId: validation.resultId };
        }
        return { kind: DocumentDiagnosticReportKind.Full, resultId: validation.resultId, items: validation.diagnostics };
      },
      // Stale problems must not stay on screen when validation itself failed.
      emptyReport,
      `Validating ${params.textDocument.uri}`,
      token,
      connection.console,
    ),
  );
  return {
    refresh() {
      if (clientCanRefresh) void connection.languages.diagnostics.refresh();
    },
  };
}

const pushDelayMs = 300;

export function registerPushDiagnostics(
  connection: Connection,
  documents: TextDocuments<TextDocument>,
  validator: DocumentValidator,
): DiagnosticsDelivery {
  const pending = new Map<string, NodeJS.Timeout>();

  const schedule = (document: TextDocument, delayMs: number): void => {
    clearTimeout(pending.get(document.uri));
    pending.set(
      document.uri,
      setTimeout(() => {
        pending.delete(document.uri);
        const version = document.version;
        const isStale = () => documents.get(document.uri)?.version !== version;
        validator.validate(document, isStale).then(
          (validation) => {
            if (validation && !isStale()) void connection.sendDiagnostics({ uri: document.uri, version, diagnostics: validation.diagnostics });
          },
          (error: unknown) => connection.console.error(`Validating ${document.uri} failed: ${errorDetail(error)}`),
        );
      }, delayMs),
    );
  };

  // Opening fires a content change too: validate an opened document at once, an edited one after a pause.
  const opened = new Set<string>();
  documents.onDidChangeContent((event) => {
    const uri = event.document.uri;
    schedule(event.document, opened.has(uri) ? pushDelayMs : 0);
    opened.add(uri);
  });
  documents.onDidClose((event) => {
    opened.delete(event.document.uri);
    clearTimeout(pending.get(event.document.uri));
    pending.delete(event.document.uri);
    void connection.sendDiagnostics({ uri: event.document.uri, diagnostics: [] });
  });
  return {
    refresh() {
      for (const document of documents.all()) schedule(document, 0);
    },
  };
}
