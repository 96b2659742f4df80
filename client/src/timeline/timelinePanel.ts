/**
 * One webview panel per rollout showing its timeline: it asks the language server for the picture, posts
 * it to media/timeline.js, opens the line of an element the user picks, asks again for a zoomed range
 * (until the view asks for the whole rollout again, or the axis changes under it), and draws again
 * (throttled) when the rollout's files change on disk or in the editor.
 */
import { randomBytes } from 'node:crypto';
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { ResponseError } from 'vscode-languageclient/node';
import { errorMessage } from '../../../shared/src/errors';
import { isInside } from '../../../shared/src/paths';
import { timelineRequest } from '../../../shared/src/protocol';
import type { TimelineHostMessage } from '../../../shared/src/timelinePicture';
import type { ServerController } from '../serverController';
import { Throttle } from '../throttle';
import { timelinePageHtml } from './timelineHtml';
import { isTimelineAxis, TimelineZoom } from './timelineZoom';

const viewType = 'rolloutEvidence.timeline';
/** A run still writing its files is redrawn at most this often. */
const refreshIntervalMs = 1000;

export class TimelinePanel implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private readonly throttle = new Throttle(() => this.load(), refreshIntervalMs);
  private readonly zoom = new TimelineZoom();
  private request: vscode.CancellationTokenSource | undefined;
  private disposed = false;

  static open(
    extensionUri: vscode.Uri,
    root: vscode.Uri,
    server: ServerController,
    onDispose: () => void,
  ): TimelinePanel {
    const media = vscode.Uri.joinPath(extensionUri, 'media');
    const panel = vscode.window.createWebviewPanel(
      viewType,
      `Timeline: ${basename(root.fsPath)}`,
      vscode.ViewColumn.Active,
      { enableScripts: true, localResourceRoots: [media] },
    );
    panel.iconPath = vscode.Uri.joinPath(media, 'rollouts.svg');
    const webview = panel.webview;
    webview.html = timelinePageHtml({
      cspSource: webview.cspSource,
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(media, 'timeline.js')).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(media, 'timeline.css')).toString(),
      nonce: randomBytes(18).toString('base64'),
    });
    return new TimelinePanel(panel, root, server, onDispose);
  }

  private constructor(
    readonly panel: vscode.WebviewPanel,
    private readonly root: vscode.Uri,
    private readonly server: ServerController,
    onDispose: () => void,
  ) {
    this.disposables.push(
      panel.onDidDispose(() => {
        this.dispose();
        onDispose();
      }),
      panel.webview.onDidReceiveMessage((message: unknown) => void this.onMessage(message)),
      vscode.workspace.onDidChangeTextDocument((event) => this.contains(event.document.uri) && this.refresh()),
    );
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(root, '**/*'));
    this.disposables.push(
      watcher,
      watcher.onDidChange(() => this.refresh()),
      watcher.onDidCreate(() => this.refresh()),
      watcher.onDidDelete(() => this.refresh()),
    );
  }

  reveal(): void {
    this.panel.reveal();
  }

  /** Draws again, soon: the rollout changed, or the server came back. */
  refresh(): void {
    this.throttle.schedule();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.throttle.dispose();
    this.request?.cancel();
    this.request?.dispose();
    for (const disposable of this.disposables) disposable.dispose();
    this.panel.dispose();
  }

  private async onMessage(message: unknown): Promise<void> {
    if (typeof message !== 'object' || message === null) return;
    const fields = message as Record<string, unknown>;
    if (fields['type'] === 'ready') {
      await this.load();
    } else if (
      fields['type'] === 'zoom' &&
      isFiniteNumber(fields['from']) &&
      isFiniteNumber(fields['to']) &&
      fields['from'] < fields['to'] &&
      isTimelineAxis(fields['axis'])
    ) {
      this.zoom.zoomTo({ from: fields['from'], to: fields['to'] }, fields['axis']);
      await this.load();
    } else if (fields['type'] === 'reset') {
      this.zoom.reset();
      await this.load();
    } else if (fields['type'] === 'jump' && typeof fields['file'] === 'string' && isFiniteNumber(fields['line'])) {
      await this.jump(fields['file'], Math.max(0, Math.floor(fields['line'])));
    }
  }

  private async load(): Promise<void> {
    const client = this.server.runningClient;
    if (!client) {
      await this.post({
        type: 'error',
        message:
          'The language server is not running, so the timeline cannot be drawn. Run "Rollout Evidence: Restart Server" and it will be drawn again.',
      });
      return;
    }
    this.request?.cancel();
    this.request?.dispose();
    const request = new vscode.CancellationTokenSource();
    this.request = request;
    try {
      const range = this.zoom.range;
      const picture = await client.sendRequest(
        timelineRequest,
        { root: this.root.fsPath, ...(range ? { range } : {}) },
        request.token,
      );
      if (request.token.isCancellationRequested) return;
      // A range picked on the other axis is dropped: ask again for the whole rollout (once: no range now).
      if (this.zoom.accepts(picture)) await this.post({ type: 'picture', picture });
      else await this.load();
    } catch (error) {
      if (request.token.isCancellationRequested || this.disposed) return;
      const reason = error instanceof ResponseError ? error.message : errorMessage(error);
      await this.post({ type: 'error', message: `The timeline could not be drawn: ${reason}` });
    }
  }

  /** Opens a file of this rollout at a line; the view names files, and only its own rollout's are opened. */
  private async jump(file: string, line: number): Promise<void> {
    const uri = vscode.Uri.file(file);
    if (!this.contains(uri)) return;
    const column = this.panel.viewColumn === vscode.ViewColumn.One ? vscode.ViewColumn.Beside : vscode.ViewColumn.One;
    try {
      const position = new vscode.Position(line, 0);
      await vscode.window.showTextDocument(uri, {
        viewColumn: column,
        selection: new vscode.Range(position, position),
        preview: true,
      });
    } catch (error) {
      void vscode.window.showErrorMessage(
        `Rollout Evidence: ${vscode.workspace.asRelativePath(uri)} could not be opened at line ${line + 1}: ${errorMessage(error)}`,
      );
    }
  }

  private contains(uri: vscode.Uri): boolean {
    return uri.scheme === 'file' && isInside(uri.fsPath, this.root.fsPath);
  }

  private async post(message: TimelineHostMessage): Promise<void> {
    if (!this.disposed) await this.panel.webview.postMessage(message);
  }
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}
