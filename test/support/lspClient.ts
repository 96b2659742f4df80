/**
 * A minimal LSP client for protocol tests: it starts the built server as its own process over stdio and
 * speaks JSON-RPC to it, as any editor would. Nothing of the server is imported.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  createProtocolConnection,
  DidChangeConfigurationNotification,
  DidChangeTextDocumentNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  DocumentDiagnosticReportKind,
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
  type FullDocumentDiagnosticReport,
  type InitializeResult,
  type Message,
  type MessageReader,
  type RequestMessage,
  type ResponseMessage,
  type ProtocolConnection,
  type PublishDiagnosticsParams,
  type Range,
  type ShowMessageParams,
} from 'vscode-languageserver-protocol/node';
import {
  CancellationTokenSource,
  ConfigurationRequest,
  DiagnosticRefreshRequest,
} from 'vscode-languageserver-protocol/node';
import type { ProcessUsage } from '../../shared/src/processUsage';
import { processUsageRequest, validationReportNotification, type ValidationReport } from '../../shared/src/protocol';
import { builtServer } from './repo';

export interface StartOptions {
  /** Advertise pull diagnostics (LSP 3.17); without, the server must push. */
  readonly pull: boolean;
  readonly initializationOptions?: unknown;
  /** What the client answers to `workspace/configuration` for the `rolloutEvidence` section. */
  readonly settings?: unknown;
  /** Options for the server's node process, before the script (`--max-old-space-size=400`, `--expose-gc`). */
  readonly nodeArguments?: readonly string[];
  /** Folders declared as the workspace at initialization (`workspaceFolders`); none when absent. */
  readonly workspaceFolders?: readonly string[];
}

/** The answer to a request sent as raw JSON-RPC: exactly one of the two. */
export interface RawResponse {
  readonly result?: unknown;
  readonly error?: { readonly code: number; readonly message: string };
}

export class LspTestClient {
  readonly published = new Map<string, PublishDiagnosticsParams>();
  readonly messages: ShowMessageParams[] = [];
  readonly reports: ValidationReport[] = [];
  refreshRequests = 0;
  settings: unknown;
  /** What the server said on its own, kept for the message of a wait that times out. */
  private readonly serverLog: string[] = [];
  private serverStderr = '';
  /** The probes of pending until() calls, run again after everything the server sends. */
  private readonly probes = new Set<() => void>();
  private rawRequests = 0;
  private readonly rawAnswers = new Map<string, (response: RawResponse) => void>();

  private constructor(
    readonly process: ChildProcessWithoutNullStreams,
    readonly connection: ProtocolConnection,
    private readonly writer: StreamMessageWriter,
    options: StartOptions,
  ) {
    this.settings = options.settings;
    process.stderr.on('data', (chunk: Buffer) => {
      this.serverStderr += chunk.toString();
    });
    connection.onRequest(ConfigurationRequest.type, (params) => {
      this.wake();
      return params.items.map(() => this.settings ?? null);
    });
    connection.onRequest(DiagnosticRefreshRequest.type, () => {
      this.refreshRequests++;
      this.wake();
    });
    connection.onNotification(ShowMessageNotification.type, (params) => {
      this.messages.push(params);
      this.wake();
    });
    connection.onRequest(ShowMessageRequest.type, (params) => {
      this.messages.push(params);
      this.wake();
      return null;
    });
    connection.onNotification(PublishDiagnosticsNotification.type, (params) => {
      this.published.set(params.uri, params);
      this.wake();
    });
    connection.onNotification('window/logMessage', (params: { message: string }) => {
      this.serverLog.push(params.message);
      this.wake();
    });
    connection.onNotification(validationReportNotification, (report) => {
      this.reports.push(report);
      this.wake();
    });
  }

  static async start(options: StartOptions): Promise<{ client: LspTestClient; initialize: InitializeResult }> {
    const child = spawn(process.execPath, [...(options.nodeArguments ?? []), builtServer, '--stdio'], {
      stdio: 'pipe',
    });
    const reader = new StreamMessageReader(child.stdout);
    const writer = new StreamMessageWriter(child.stdin);
    // The answers to raw requests are taken out before the connection, which knows nothing of their ids.
    let client: LspTestClient | undefined;
    const filtered: MessageReader = {
      onError: reader.onError,
      onClose: reader.onClose,
      onPartialMessage: reader.onPartialMessage,
      listen: (callback) => reader.listen((message) => client?.takeRawAnswer(message) || callback(message)),
      dispose: () => reader.dispose(),
    };
    const connection = createProtocolConnection(filtered, writer);
    client = new LspTestClient(child, connection, writer, options);
    connection.listen();
    const capabilities: ClientCapabilities = {
      workspace: {
        configuration: true,
        workspaceFolders: true,
        ...(options.pull ? { diagnostics: { refreshSupport: true } } : {}),
      },
      textDocument: {
        synchronization: { dynamicRegistration: false },
        ...(options.pull
          ? { diagnostic: { dynamicRegistration: false, relatedDocumentSupport: false } }
          : { publishDiagnostics: { relatedInformation: true } }),
      },
    };
    const initialize = await connection.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      rootUri: null,
      workspaceFolders:
        options.workspaceFolders?.map((folder) => ({ uri: pathToFileURL(folder).href, name: basename(folder) })) ??
        null,
      capabilities,
      initializationOptions: options.initializationOptions,
    });
    await connection.sendNotification(InitializedNotification.type, {});
    return { client, initialize };
  }

  /**
   * Sends a request exactly as given, `params` included (the connection would wrap a null or a number in
   * an array), as a careless or hostile client might; `params` undefined sends none.
   */
  sendRaw(method: string, params: unknown): Promise<RawResponse> {
    const id = `raw-${++this.rawRequests}`;
    return new Promise((resolve, reject) => {
      this.rawAnswers.set(id, resolve);
      const message = { jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) } as RequestMessage;
      this.writer.write(message).catch(reject);
    });
  }

  private takeRawAnswer(message: Message): boolean {
    const { id } = message as Partial<ResponseMessage>;
    const answer = typeof id === 'string' ? this.rawAnswers.get(id) : undefined;
    if (!answer || typeof id !== 'string') return false;
    this.rawAnswers.delete(id);
    answer(message as RawResponse);
    return true;
  }

  async open(uri: string, text: string, languageId = 'jsonl', version = 1): Promise<void> {
    await this.connection.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId, version, text },
    });
  }

  async replace(uri: string, text: string, version: number): Promise<void> {
    await this.connection.sendNotification(DidChangeTextDocumentNotification.type, {
      textDocument: { uri, version },
      contentChanges: [{ text }],
    });
  }

  /** Incremental changes, applied by the server in order. */
  async edit(uri: string, version: number, contentChanges: readonly { range: Range; text: string }[]): Promise<void> {
    await this.connection.sendNotification(DidChangeTextDocumentNotification.type, {
      textDocument: { uri, version },
      contentChanges: [...contentChanges],
    });
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

  /** A pull whose answer must be a full report, not Unchanged: the test fails otherwise. */
  async pullFull(uri: string, previousResultId?: string): Promise<FullDocumentDiagnosticReport> {
    const report = await this.pull(uri, previousResultId);
    assert.equal(report.kind, DocumentDiagnosticReportKind.Full);
    return report as FullDocumentDiagnosticReport;
  }

  /**
   * Resolves with `probe()` once it returns something other than undefined or false, checking now and
   * after each message from the server; rejects, naming `what`, when `timeoutMs` pass first.
   */
  until<T>(probe: () => T | undefined | false, what: string, timeoutMs = 10_000): Promise<T> {
    return new Promise((resolve, reject) => {
      const settle = (outcome: () => void) => {
        clearTimeout(timer);
        this.probes.delete(check);
        outcome();
      };
      const check = () => {
        try {
          const value = probe();
          if (value !== undefined && value !== false) settle(() => resolve(value));
        } catch (error) {
          // A probe that throws fails this wait, not the server message handler that woke it.
          settle(() => reject(error));
        }
      };
      const timer = setTimeout(() => settle(() => reject(new Error(this.timeoutMessage(what, timeoutMs)))), timeoutMs);
      this.probes.add(check);
      check();
    });
  }

  /** Resolves with the published diagnostics for `uri` once they satisfy `accept`. */
  nextPublished(
    uri: string,
    accept: (params: PublishDiagnosticsParams) => boolean,
    timeoutMs?: number,
  ): Promise<PublishDiagnosticsParams> {
    return this.until(
      () => {
        const current = this.published.get(uri);
        return current && accept(current) ? current : undefined;
      },
      `published diagnostics for ${uri} that the test accepts`,
      timeoutMs,
    );
  }

  /** What the server has logged (window/logMessage) so far. */
  get serverMessages(): readonly string[] {
    return this.serverLog;
  }

  private wake(): void {
    for (const check of [...this.probes]) check();
  }

  private timeoutMessage(what: string, timeoutMs: number): string {
    const log = this.serverLog.length > 0 ? `\nserver log:\n${this.serverLog.join('\n')}` : '';
    const stderr = this.serverStderr ? `\nserver stderr:\n${this.serverStderr}` : '';
    return `timed out after ${timeoutMs / 1000} s waiting for ${what}${log}${stderr}`;
  }

  /** What the server logged (window/logMessage), in order. */
  get log(): readonly string[] {
    return this.serverLog;
  }

  /** The server process's heap, RSS and CPU time, after a full collection when it runs under --expose-gc. */
  processUsage(): Promise<ProcessUsage> {
    return this.connection.sendRequest(processUsageRequest);
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
