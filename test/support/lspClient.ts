/**
 * A minimal LSP client for protocol tests: it starts the built server as its own process over stdio and
 * speaks JSON-RPC to it, as any editor would. Nothing of the server is imported.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import {
  createProtocolConnection,
  DidChangeConfigurationNotification,
  DidChangeTextDocumentNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  DocumentDiagnosticRequest,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  PublishDiagnosticsNotification,
  ShowMessageNotification,
  ShowMessageRequest,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  type ClientCapabilities,
  type DocumentDiagnosticReport,
  type InitializeResult,
  type ProtocolConnection,
  type PublishDiagnosticsParams,
  type ShowMessageParams,
} from 'vscode-languageserver-protocol/node';
import { CancellationTokenSource, ConfigurationRequest, DiagnosticRefreshRequest } from 'vscode-languageserver-protocol/node';
import { validationReportNotification, type ValidationReport } from '../../shared/src/protocol';
import { builtServer } from './repo';

export interface StartOptions {
  /** Advertise pull diagnostics (LSP 3.17); without, the server must push. */
  readonly pull: boolean;
  readonly initializationOptions?: unknown;
  /** What the client answers to `workspace/configuration` for the `rolloutEvidence` section. */
  readonly settings?: unknown;
}

export class LspTestClient {
  readonly published = new Map<string, PublishDiagnosticsParams>();
  readonly messages: ShowMessageParams[] = [];
  readonly logs: string[] = [];
  readonly reports: ValidationReport[] = [];
  refreshRequests = 0;
  settings: unknown;
  stderr = '';
  private publishWaiters: (() => void)[] = [];

  private constructor(
    readonly process: ChildProcessWithoutNullStreams,
    readonly connection: ProtocolConnection,
    options: StartOptions,
  ) {
    this.settings = options.settings;
    process.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    connection.onRequest(ConfigurationRequest.type, (params) => params.items.map(() => this.settings ?? null));
    connection.onRequest(DiagnosticRefreshRequest.type, () => {
      this.refreshRequests++;
    });
    connection.onNotification(ShowMessageNotification.type, (params) => {
      this.messages.push(params);
    });
    connection.onRequest(ShowMessageRequest.type, (params) => {
      this.messages.push(params);
      return null;
    });
    connection.onNotification(PublishDiagnosticsNotification.type, (params) => {
      this.published.set(params.uri, params);
      const waiters = this.publishWaiters;
      this.publishWaiters = [];
      for (const wake of waiters) wake();
    });
    connection.onNotification('window/logMessage', (params: { message: string }) => {
      this.logs.push(params.message);
    });
    connection.onNotification(validationReportNotification, (report) => {
      this.reports.push(report);
    });
  }

  static async start(options: StartOptions): Promise<{ client: LspTestClient; initialize: InitializeResult }> {
    const child = spawn(process.execPath, [builtServer, '--stdio'], { stdio: 'pipe' });
    const connection = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
    const client = new LspTestClient(child, connection, options);
    connection.listen();
    const capabilities: ClientCapabilities = {
      workspace: { configuration: true, ...(options.pull ? { diagnostics: { refreshSupport: true } } : {}) },
      textDocument: {
        synchronization: { dynamicRegistration: false },
        ...(options.pull ? { diagnostic: { dynamicRegistration: false, relatedDocumentSupport: false } } : { publishDiagnostics: { relatedInformation: true } }),
      },
    };
    const initialize = await connection.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      rootUri: null,
      capabilities,
      initializationOptions: options.initializationOptions,
    });
    await connection.sendNotification(InitializedNotification.type, {});
    return { client, initialize };
  }

  async open(uri: string, text: string, languageId = 'jsonl', version = 1): Promise<void> {
    await this.connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId, version, text } });
  }

  async replace(uri: string, text: string, version: number): Promise<void> {
    await this.connection.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version }, contentChanges: [{ text }] });
  }

  async close(uri: string): Promise<void> {
    await this.connection.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri } });
  }

  async changeSettings(settings: unknown): Promise<void> {
    this.settings = settings;
    await this.connection.sendNotification(DidChangeConfigurationNotification.type, { settings: null });
  }

  pull(uri: string, previousResultId?: string, token?: CancellationTokenSource): Promise<DocumentDiagnosticReport> {
    return this.connection.sendRequest(
      DocumentDiagnosticRequest.type,
      { textDocument: { uri }, ...(previousResultId ? { previousResultId } : {}) },
      token?.token,
    );
  }

  /** Resolves with the next published diagnostics for `uri` that satisfy `accept`. */
  async nextPublished(uri: string, accept: (params: PublishDiagnosticsParams) => boolean): Promise<PublishDiagnosticsParams> {
    for (;;) {
      const current = this.published.get(uri);
      if (current && accept(current)) return current;
      await new Promise<void>((resolve) => this.publishWaiters.push(resolve));
    }
  }

  async stop(): Promise<number | null> {
    const exited = new Promise<number | null>((resolve) => this.process.once('exit', (code) => resolve(code)));
    try {
      await this.connection.sendRequest(ShutdownRequest.type);
      await this.connection.sendNotification(ExitNotification.type);
    } catch {
      this.process.kill('SIGKILL');
    }
    const code = await exited;
    this.connection.dispose();
    return code;
  }
}
