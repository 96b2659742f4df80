/**
 * Owns the language client: starts it, restarts it on request or when the document selector must
 * change, and reports every state change to the status item.
 */
import * as vscode from 'vscode';
import {
  LanguageClient,
  RevealOutputChannelOn,
  State,
  TransportKind,
  type LanguageClientOptions,
  type ServerOptions,
} from 'vscode-languageclient/node';
import {
  probeTranscriptNotification,
  validationReportNotification,
  workspaceTrustGrantedNotification,
  type InitializationOptions,
  type ProbeTranscriptParams,
} from '../../shared/src/protocol';
import { sanitizeSettings, settingsSection, type RolloutEvidenceSettings } from '../../shared/src/settings';
import { documentSelector, watchedFilesPattern, type ArtifactDocumentSelector } from './documentSelector';
import type { ServerState, ServerStatus } from './serverStatus';
import { reportShownDocuments } from './shownDocuments';
import { errorMessage } from '../../shared/src/errors';

export class ServerController implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private watcher: vscode.FileSystemWatcher | undefined;
  private shownDocuments: vscode.Disposable | undefined;
  private readonly probeTranscriptEmitter = new vscode.EventEmitter<ProbeTranscriptParams>();
  /** Transcript entries of running probes, whichever client carried them. */
  readonly onProbeTranscript = this.probeTranscriptEmitter.event;
  private readonly stateEmitter = new vscode.EventEmitter<ServerState>();
  /** The server's state, whichever client runs it: after "Restart Server", the new client's. */
  readonly onDidChangeState = this.stateEmitter.event;
  /**
   * The server runs the probe only in a trusted workspace, as the client tells it at start; trust
   * granted later is sent as a notification rather than by a restart, which would drop every document's
   * state. VS Code never takes trust back from a running window.
   */
  private readonly trustListener = vscode.workspace.onDidGrantWorkspaceTrust(() => {
    void this.client
      ?.sendNotification(workspaceTrustGrantedNotification)
      .catch((error: unknown) =>
        this.output.warn(`Telling the server that the workspace is trusted: ${errorMessage(error)}`),
      );
  });

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly output: vscode.LogOutputChannel,
    private readonly status: ServerStatus,
  ) {}

  async start(): Promise<void> {
    const settings = readSettings();
    const selector = documentSelector(settings);
    this.status.selector = selector;
    const client = this.createClient(settings, selector);
    this.client = client;
    this.setState('starting');
    client.onDidChangeState(({ newState }) => {
      if (this.client !== client) return;
      if (newState === State.Running) this.setState('running');
      else if (newState === State.Starting) this.setState('starting');
      else
        this.setState(
          'stopped',
          'The language server is not running. Click to restart it; the output shows why it stopped.',
        );
    });
    client.onNotification(validationReportNotification, (report) => this.status.recordValidation(report));
    client.onNotification(probeTranscriptNotification, (params) => this.probeTranscriptEmitter.fire(params));
    try {
      await client.start();
      if (this.client === client) this.shownDocuments = reportShownDocuments(client, this.output);
    } catch (error) {
      const reason = errorMessage(error);
      this.output.error(`The language server could not start: ${reason}`);
      this.setState('stopped', `The language server could not start: ${reason}`);
      throw error;
    }
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.watcher?.dispose();
    this.watcher = undefined;
    this.shownDocuments?.dispose();
    this.shownDocuments = undefined;
    // dispose() stops a running server first.
    await client
      ?.dispose()
      .catch((error: unknown) => this.output.warn(`Stopping the language server: ${String(error)}`));
  }

  /** The client, when its server is running and can take requests. */
  get runningClient(): LanguageClient | undefined {
    return this.client?.state === State.Running ? this.client : undefined;
  }

  private setState(state: ServerState, failure?: string): void {
    this.status.setState(state, failure);
    this.stateEmitter.fire(state);
  }

  dispose(): void {
    this.trustListener.dispose();
    this.probeTranscriptEmitter.dispose();
    this.stateEmitter.dispose();
    void this.stop();
  }

  private createClient(settings: RolloutEvidenceSettings, selector: ArtifactDocumentSelector): LanguageClient {
    const module = this.context.asAbsolutePath('dist/server.js');
    const serverOptions: ServerOptions = {
      run: { module, transport: TransportKind.ipc },
      debug: { module, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6011'] } },
    };
    const initializationOptions: InitializationOptions = { workspaceTrusted: vscode.workspace.isTrusted };
    this.watcher = vscode.workspace.createFileSystemWatcher(watchedFilesPattern(settings));
    const clientOptions: LanguageClientOptions = {
      documentSelector: selector,
      outputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      initializationOptions,
      synchronize: { configurationSection: settingsSection, fileEvents: this.watcher },
      diagnosticPullOptions: { onChange: true, onSave: true },
      progressOnInitialization: true,
    };
    return new LanguageClient('rolloutEvidence', 'Rollout Evidence', serverOptions, clientOptions);
  }
}

function readSettings(): RolloutEvidenceSettings {
  return sanitizeSettings(vscode.workspace.getConfiguration(settingsSection)).settings;
}
