/**
 * Delivers the validator's diagnostics the way the client wants them: pulled (LSP 3.17
 * `textDocument/diagnostic`, the client decides when) or, for older clients, pushed. Both paths call
 * the same DocumentValidator, and both validate only the latest version: an edit after a pause at once,
 * an edit in a burst of typing once the burst pauses (documentStore.ts), so that a typing storm of a
 * thousand edits a second costs one validation, not one per edit.
 */
import {
  DocumentDiagnosticReportKind,
  ErrorCodes,
  ResponseError,
  type Connection,
  type DiagnosticServerCancellationData,
  type DocumentDiagnosticReport,
} from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { DocumentStore } from './documentStore';
import type { DocumentValidator } from './documentValidator';
import { cancelledError, runSafeAsync } from './runner';
import { errorDetail } from '../../../shared/src/errors';

export interface DiagnosticsDelivery {
  /** Something outside the documents changed (settings, files on disk): validate every open document again. */
  refresh(): void;
  /** These open documents may have new diagnostics (their rollout changed). */
  revalidate(uris: readonly string[]): void;
}

/** Refreshes coalesce: an edit that changes a rollout asks once, not once per document. */
const refreshDelayMs = 100;

export function registerPullDiagnostics(
  connection: Connection,
  store: DocumentStore,
  validator: DocumentValidator,
  clientCanRefresh: boolean,
): DiagnosticsDelivery {
  const emptyReport: DocumentDiagnosticReport = { kind: DocumentDiagnosticReportKind.Full, items: [] };
  const { documents } = store;
  connection.languages.diagnostics.on((params, token) => {
    // Checked here, since the parameters come from the client as they are.
    const uri = (params as { textDocument?: { uri?: unknown } } | null)?.textDocument?.uri;
    if (typeof uri !== 'string')
      return new ResponseError(
        ErrorCodes.InvalidParams,
        'textDocument/diagnostic needs params.textDocument.uri, a string.',
      );
    return runSafeAsync<DocumentDiagnosticReport, DiagnosticServerCancellationData>(
      async () => {
        const isCancelled = () => token.isCancellationRequested;
        // A pull asked for an older version is answered with the latest: each edit replaces the document,
        // and an edit that arrives while this one is validated starts it again on the new version.
        for (;;) {
          if (!(await store.whenQuiet(uri, isCancelled))) return cancelledError();
          const document = documents.get(uri);
          if (!document) return emptyReport;
          const validation = await validator.validate(document, () => isCancelled() || documents.get(uri) !== document);
          if (isCancelled()) return cancelledError();
          if (!validation) {
            if (documents.get(uri) !== document) continue;
            return cancelledError();
          }
          if (params.previousResultId === validation.resultId) {
            return { kind: DocumentDiagnosticReportKind.Unchanged, resultId: validation.resultId };
          }
          return {
            kind: DocumentDiagnosticReportKind.Full,
            resultId: validation.resultId,
            items: validation.diagnostics,
          };
        }
      },
      // Stale problems must not stay on screen when validation itself failed.
      emptyReport,
      `Validating ${uri}`,
      token,
      connection.console,
    );
  });
  let pending: NodeJS.Timeout | undefined;
  const refresh = () => {
    if (!clientCanRefresh || pending) return;
    pending = setTimeout(() => {
      pending = undefined;
      void connection.languages.diagnostics.refresh();
    }, refreshDelayMs);
  };
  // A pull client asks for each document itself; a refresh makes it ask again for all of them.
  return {
    refresh,
    revalidate(uris) {
      if (uris.length > 0) refresh();
    },
  };
}

/** How long a burst of edits must pause before its diagnostics are pushed. */
const pushDelayMs = 300;

export function registerPushDiagnostics(
  connection: Connection,
  store: DocumentStore,
  validator: DocumentValidator,
): DiagnosticsDelivery {
  const { documents } = store;
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
            if (validation && !isStale())
              void connection.sendDiagnostics({ uri: document.uri, version, diagnostics: validation.diagnostics });
          },
          (error: unknown) => connection.console.error(`Validating ${document.uri} failed: ${errorDetail(error)}`),
        );
      }, delayMs),
    );
  };

  // Opening fires a content change too: an opened document is validated at once, as is an edit that
  // starts a burst; an edit in a burst resets the wait.
  documents.onDidChangeContent((event) => {
    schedule(event.document, store.inBurst(event.document.uri) ? pushDelayMs : 0);
  });
  documents.onDidClose((event) => {
    clearTimeout(pending.get(event.document.uri));
    pending.delete(event.document.uri);
    void connection.sendDiagnostics({ uri: event.document.uri, diagnostics: [] });
  });
  return {
    refresh() {
      for (const document of documents.all()) schedule(document, refreshDelayMs);
    },
    revalidate(uris) {
      for (const uri of uris) {
        const document = documents.get(uri);
        if (document) schedule(document, refreshDelayMs);
      }
    },
  };
}
