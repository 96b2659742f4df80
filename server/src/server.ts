/**
 * The Rollout Evidence language server. It speaks LSP over IPC (started by the VS Code extension) or
 * stdio (`node server.js --stdio`, for Neovim, Helix, Zed and others); the evidence engine it wraps is
 * shared with the CLI.
 */
import { Console } from 'node:console';
import { pipeline } from 'node:stream';
import {
  createConnection,
  DidChangeWatchedFilesNotification,
  TextDocumentSyncKind,
  type Connection,
  type InitializeParams,
  type InitializeResult,
} from 'vscode-languageserver/node';
import { errorDetail } from '../../shared/src/errors';
import {
  shownDocumentsNotification,
  validationReportNotification,
  type InitializationOptions,
} from '../../shared/src/protocol';
import { rolloutRootOf } from './engine/bundle/discover';
import { shippedReference } from './reference';
import { ArtifactChecker } from './engine/check/artifactChecker';
import { registerPullDiagnostics, registerPushDiagnostics, type DiagnosticsDelivery } from './lsp/diagnosticsDelivery';
import { createDocumentStore } from './lsp/documentStore';
import { registerExperimentSummaryRequest } from './lsp/experimentSummaryRequest';
import { DocumentValidator } from './lsp/documentValidator';
import { registerLanguageFeatures, type LanguageFeatures } from './lsp/features/languageFeatures';
import { MessageFramingGuard } from './lsp/messageFraming';
import { registerProbeRequests } from './lsp/probeRequests';
import { registerProcessUsageRequest } from './lsp/processUsageRequest';
import { PushedDiagnostics } from './lsp/pushedDiagnostics';
import { registerRolloutsRequests } from './lsp/rolloutsRequests';
import {
  hasOpenDocumentIn,
  openDocumentAt,
  openDocumentsInRollout,
  openDocumentsOfRollout,
  rolloutsWithOpenDocuments,
} from './lsp/rolloutDocuments';
import { RolloutEvaluator } from './lsp/rolloutEvaluator';
import { registerScaffoldRequests } from './lsp/scaffoldRequests';
import { SettingsCache } from './lsp/settingsCache';
import { registerTimelineRequests } from './lsp/timelineRequests';
import { diagnosticConverter } from './lsp/toDiagnostic';
import { pathOfUri, rolloutRootOfUri } from './lsp/uris';
import { didChangeWatchedFilesParams, shownDocumentsParams, withCheckedNotification } from './lsp/requestParams';
import { WorkspaceFolders } from './lsp/workspaceFolders';
import { registerWorkspaceProblemsRequest } from './lsp/workspaceProblemsRequest';
import { version } from './version';

const transports = ['--stdio', '--node-ipc', '--socket=', '--pipe='];
const transport = process.argv
  .slice(2)
  .find((argument) => transports.some((candidate) => argument.startsWith(candidate)));
if (transport === undefined) {
  process.stderr.write(
    'rollout-evidence language server: pass --stdio (or --node-ipc, --socket=PORT, --pipe=NAME) to choose how to talk LSP.\n',
  );
  process.exit(2);
}

const connection = transport === '--stdio' ? stdioConnection() : createConnection();

/**
 * Over stdio the client's bytes pass the framing guard (lsp/messageFraming.ts) before the reader: a
 * header the reader could not recover from ends the server, with the reason on stderr, instead of
 * leaving a connection that never reads a message again. Console output goes to stderr, as
 * createConnection() keeps it off stdout (where it would corrupt the messages) for `--stdio`.
 */
function stdioConnection(): Connection {
  globalThis.console = new Console({ stdout: process.stderr, stderr: process.stderr });
  const input = new MessageFramingGuard((problem) => {
    process.stderr.write(
      `rollout-evidence language server: the client's messages cannot be read: ${problem}; ending the connection.\n`,
    );
    process.exit(1);
  });
  // An error reading stdin closes the guard, and with it the connection.
  pipeline(process.stdin, input, () => {});
  return createConnection(input, process.stdout);
}

const store = createDocumentStore(connection, connection.console);
const documents = store.documents;
// Compiling the schemas is the slow part of start-up; do it before the first document arrives.
const checker = new ArtifactChecker();
// Rollouts with a document open are kept; of the others (listed by the Rollouts view, drawn as a
// timeline), only the most recently used.
const evaluator = new RolloutEvaluator(checker, (root) => hasOpenDocumentIn(documents, root));
let delivery: DiagnosticsDelivery | undefined;
let pushed: PushedDiagnostics | undefined;
let features: LanguageFeatures | undefined;

connection.onInitialize((params: InitializeParams): InitializeResult => {
  const capabilities = params.capabilities;
  const options = (params.initializationOptions ?? {}) as InitializationOptions & { settings?: unknown };
  const usePull = capabilities.textDocument?.diagnostic !== undefined;
  const settings = new SettingsCache(
    connection.workspace,
    capabilities.workspace?.configuration === true,
    options.settings,
    (problem) => {
      void connection.window.showWarningMessage(`Rollout Evidence: ${problem.setting}: ${problem.message}`);
    },
  );
  const validator = new DocumentValidator(evaluator, settings, diagnosticConverter(shippedReference()), {
    openDocument: (path) => openDocumentAt(documents, path),
    onValidated: (report) => void connection.sendNotification(validationReportNotification, report),
    onRolloutChanged: (rollout, by) => {
      // Its files that no editor holds: the reasons for its verdict reach the Problems panel there too.
      void pushed?.update(rollout);
      // A rollout listed by the view or drawn as a timeline, with no document open, changes no editor.
      const open = openDocumentsOfRollout(documents, rollout.bundle);
      if (open.length === 0) return;
      delivery?.revalidate(open.filter((uri) => uri !== by));
      features?.rolloutChanged();
    },
    logError: (message) => connection.console.error(message),
  });
  const workspace = new WorkspaceFolders(params, (root) => openDocumentsInRollout(documents, root).length > 0);
  workspace.listen(connection);
  const pushedDiagnostics = new PushedDiagnostics(connection, documents, validator);
  pushed = pushedDiagnostics;

  delivery = usePull
    ? registerPullDiagnostics(
        connection,
        store,
        validator,
        capabilities.workspace?.diagnostics?.refreshSupport === true,
      )
    : registerPushDiagnostics(connection, store, validator);
  documents.onDidClose((event) => {
    validator.forget(event.document.uri);
    const root = rolloutRootOfUri(event.document.uri);
    if (!root) return;
    const stillOpen = openDocumentsInRollout(documents, root);
    // The rollout now reads that file from disk again, which may change the others' diagnostics, and
    // the closed file's own are pushed from now on.
    if (stillOpen.length > 0) {
      delivery?.revalidate(stillOpen);
      void pushedDiagnostics.filesChanged([root]);
    } else {
      evaluator.forgetRollout(root);
      // Problems pushed because a document of the rollout was open would otherwise stay, and go stale.
      void pushedDiagnostics.rolloutClosed(root);
    }
  });
  connection.onDidChangeConfiguration(() => {
    validator.settingsChanged();
    delivery?.refresh();
    features?.rolloutChanged();
    void pushedDiagnostics.filesChanged([
      ...pushedDiagnostics.requestedRollouts,
      ...rolloutsWithOpenDocuments(documents),
    ]);
  });
  // A run still writing its bundle, or a file changed outside the editor: its rollout's rules change.
  connection.onDidChangeWatchedFiles(
    withCheckedNotification(
      didChangeWatchedFilesParams,
      connection.console,
      DidChangeWatchedFilesNotification.method,
      (params) => {
        // Only rollouts with an open document, or whose problems the user asked to see, have diagnostics to
        // change; the Rollouts view watches for itself.
        const roots = new Set(params.changes.flatMap((change) => rolloutRootOf(pathOfUri(change.uri)) ?? []));
        void pushedDiagnostics.filesChanged(roots);
        const touched = documents.all().length > 0 && [...roots].some((root) => hasOpenDocumentIn(documents, root));
        if (!touched) return;
        delivery?.refresh();
        features?.rolloutChanged();
      },
    ),
  );
  registerProbeRequests(connection, {
    workspaceTrusted: typeof options.workspaceTrusted === 'boolean' ? options.workspaceTrusted : undefined,
    settings,
    workspace,
    sandboxUserOf: async (root, isCancelled) =>
      (await validator.evaluateRollout(root, isCancelled))?.evaluation.model.sandboxUser,
  });
  registerProcessUsageRequest(connection);
  features = registerLanguageFeatures(connection, documents, validator, settings, capabilities);
  registerScaffoldRequests(connection);
  connection.onNotification(
    shownDocumentsNotification,
    withCheckedNotification(
      shownDocumentsParams,
      connection.console,
      shownDocumentsNotification.method,
      (params) => void pushedDiagnostics.shownDocumentsChanged(params.uris),
    ),
  );
  registerRolloutsRequests(connection, validator, pushedDiagnostics, workspace);
  registerWorkspaceProblemsRequest(connection, pushedDiagnostics, workspace);
  registerTimelineRequests(connection, validator, workspace);
  registerExperimentSummaryRequest(connection, validator, workspace);

  return {
    serverInfo: { name: 'rollout-evidence', version },
    capabilities: {
      textDocumentSync: TextDocumentSyncKind.Incremental,
      // Requests may walk only the workspace's folders, so the server follows them as they change.
      workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
      ...features.capabilities,
      ...(usePull
        ? {
            diagnosticProvider: {
              identifier: 'rollout-evidence',
              interFileDependencies: true,
              workspaceDiagnostics: false,
            },
          }
        : {}),
    },
  };
});

// A bug in one request must not take down the server the user's editor depends on.
process.on('uncaughtException', (error) => connection.console.error(`Uncaught exception: ${errorDetail(error)}`));
process.on('unhandledRejection', (reason) => connection.console.error(`Unhandled rejection: ${errorDetail(reason)}`));

connection.listen();
