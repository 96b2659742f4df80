/**
 * The Rollout Evidence language server. It speaks LSP over IPC (started by the VS Code extension) or
 * stdio (`node server.js --stdio`, for Neovim, Helix, Zed and others); the evidence engine it wraps is
 * shared with the CLI.
 */
import {
  createConnection,
  TextDocuments,
  TextDocumentSyncKind,
  type InitializeParams,
  type InitializeResult,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { validationReportNotification, type InitializationOptions } from '../../shared/src/protocol';
import { ArtifactChecker } from './engine/check/artifactChecker';
import { registerPullDiagnostics, registerPushDiagnostics, type DiagnosticsDelivery } from './lsp/diagnosticsDelivery';
import { DocumentValidator } from './lsp/documentValidator';
import { SettingsCache } from './lsp/settingsCache';
import { version } from './version';
import { errorDetail } from '../../shared/src/errors';

const transports = ['--stdio', '--node-ipc', '--socket=', '--pipe='];
if (!process.argv.slice(2).some((argument) => transports.some((transport) => argument.startsWith(transport)))) {
  process.stderr.write('rollout-evidence language server: pass --stdio (or --node-ipc, --socket=PORT, --pipe=NAME) to choose how to talk LSP.\n');
  process.exit(2);
}

const connection = createConnection();
const documents = new TextDocuments(TextDocument);
// Compiling the schemas is the slow part of start-up; do it before the first document arrives.
const checker = new ArtifactChecker();
let delivery: DiagnosticsDelivery | undefined;

connection.onInitialize((params: InitializeParams): InitializeResult => {
  const capabilities = params.capabilities;
  const options = (params.initializationOptions ?? {}) as InitializationOptions & { settings?: unknown };
  const usePull = capabilities.textDocument?.diagnostic !== undefined;
  const settings = new SettingsCache(connection, capabilities.workspace?.configuration === true, options.settings, (problem) => {
    void connection.window.showWarningMessage(`Rollout Evidence: ${problem.setting}: ${problem.message}`);
  });
  const validator = new DocumentValidator(checker, settings, options.jsonDocumentsValidatedByClient === true, (report) => {
    void connection.sendNotification(validationReportNotification, report);
  });

  delivery = usePull
    ? registerPullDiagnostics(connection, documents, validator, capabilities.workspace?.diagnostics?.refreshSupport === true)
    : registerPushDiagnostics(connection, documents, validator);
  documents.onDidClose((event) => validator.forget(event.document.uri));
  connection.onDidChangeConfiguration(() => {
    validator.settingsChanged();
    delivery?.refresh();
  });

  return {
    serverInfo: { name: 'rollout-evidence', version },
    capabilities: {
      textDocumentSync: TextDocumentSyncKind.Incremental,
      ...(usePull ? { diagnosticProvider: { identifier: 'rollout-evidence', interFileDependencies: false, workspaceDiagnostics: false } } : {}),
    },
  };
});

// A bug in one request must not take down the server the user's editor depends on.
process.on('uncaughtException', (error) => connection.console.error(`Uncaught exception: ${errorDetail(error)}`));
process.on('unhandledRejection', (reason) => connection.console.error(`Unhandled rejection: ${errorDetail(reason)}`));

documents.listen(connection);
connection.listen();
