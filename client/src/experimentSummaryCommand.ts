/**
 * "Rollout Evidence: Show Experiment Summary": the summary a reviewer reads before the list (verdict
 * counts, countable rate, timeouts, top causes, per task and per agent), of one job (the Rollouts view's
 * job node, or a folder given as argument) or of the whole workspace folder. The server makes it with
 * the CLI's own summary, so it reads exactly as `rollout-evidence check --format summary` does; it is
 * shown as a read-only Markdown document in VS Code's Markdown preview, whose content security policy
 * is as strict as the timeline's.
 */
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { errorMessage } from '../../shared/src/errors';
import { rolloutFiles, rolloutFolders } from '../../shared/src/layout';
import { experimentSummaryRequest } from '../../shared/src/protocol';
import { commandIds } from './commandIds';
import type { ServerController } from './serverController';

/** The read-only documents' scheme: their text lives in the provider, so nothing asks to save them. */
export const experimentSummaryScheme = 'rollout-evidence-summary';

export function registerExperimentSummaryCommand(server: ServerController): vscode.Disposable {
  const documents = new SummaryDocuments();
  return vscode.Disposable.from(
    documents,
    vscode.workspace.registerTextDocumentContentProvider(experimentSummaryScheme, documents),
    vscode.commands.registerCommand(commandIds.showExperimentSummary, (target?: unknown) =>
      showExperimentSummary(server, documents, target),
    ),
  );
}

/** Resolves to the summary document's URI (for the tests), or undefined when there is nothing to show. */
async function showExperimentSummary(
  server: ServerController,
  documents: SummaryDocuments,
  target: unknown,
): Promise<vscode.Uri | undefined> {
  const folder = folderOf(target) ?? (await chooseWorkspaceFolder());
  if (!folder) return undefined;
  if (!server.runningClient) {
    const choice = await vscode.window.showErrorMessage(
      'Rollout Evidence: the experiment summary is made by the language server, which is not running.',
      'Restart Server',
    );
    if (choice === 'Restart Server') await vscode.commands.executeCommand(commandIds.restartServer);
  }
  const client = server.runningClient;
  if (!client) return undefined;
  let cancelled = false;
  try {
    const result = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: `Rollout Evidence: summarising the rollouts of ${basename(folder)}`,
        cancellable: true,
      },
      (_progress, token) => {
        token.onCancellationRequested(() => (cancelled = true));
        return client.sendRequest(experimentSummaryRequest, { folder }, token);
      },
    );
    if (result.ioErrors.length > 0)
      void vscode.window.showWarningMessage(`Rollout Evidence: not searched: ${result.ioErrors.join('; ')}`);
    // The CLI refuses such a run too (nothing to check): an empty summary would read as a summary.
    if (result.rollouts === 0) {
      void vscode.window.showInformationMessage(
        `Rollout Evidence: no rollouts in ${vscode.workspace.asRelativePath(folder)} to summarise (a rollout is a folder holding ${rolloutFiles.result}, ${rolloutFolders.trajectory}/ or ${rolloutFolders.benchguard}/).`,
      );
      return undefined;
    }
    const uri = documents.set(folder, result.markdown);
    await showPreview(uri);
    return uri;
  } catch (error) {
    if (cancelled) return undefined;
    void vscode.window.showErrorMessage(
      `Rollout Evidence: the experiment summary could not be made (${errorMessage(error)}).`,
    );
    return undefined;
  }
}

/**
 * The folder a command was given: a job node of the Rollouts view, a folder's Uri, or its path (for
 * scripts and tests); undefined for anything else, and for no argument.
 */
function folderOf(target: unknown): string | undefined {
  if (target instanceof vscode.Uri) return target.scheme === 'file' ? target.fsPath : undefined;
  if (typeof target === 'string' && target !== '') return target;
  if (typeof target === 'object' && target !== null && 'job' in target) {
    const job: unknown = target.job;
    if (typeof job === 'object' && job !== null && 'folder' in job && typeof job.folder === 'string') return job.folder;
  }
  return undefined;
}

/** With no argument: the workspace folder, or the one the user picks when there are several. */
async function chooseWorkspaceFolder(): Promise<string | undefined> {
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((folder) => folder.uri.scheme === 'file');
  const only = folders.length === 1 ? folders[0] : undefined;
  if (only) return only.uri.fsPath;
  if (folders.length === 0) {
    void vscode.window.showInformationMessage(
      'Rollout Evidence: open a folder that holds rollouts (or pick a job in the Rollouts view) to summarise them.',
    );
    return undefined;
  }
  const picked = await vscode.window.showWorkspaceFolderPick({
    placeHolder: 'Summarise the rollouts of this workspace folder',
  });
  return picked?.uri.scheme === 'file' ? picked.uri.fsPath : undefined;
}

async function showPreview(uri: vscode.Uri): Promise<void> {
  try {
    await vscode.commands.executeCommand('markdown.showPreview', uri);
  } catch {
    // Without VS Code's Markdown extension (disabled, or another editor), the Markdown itself reads well.
    await vscode.window.showTextDocument(uri, { preview: true });
  }
}

/** The summaries' text by document URI, one document per folder, replaced when summarised again. */
class SummaryDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  set(folder: string, markdown: string): vscode.Uri {
    const uri = vscode.Uri.from({
      scheme: experimentSummaryScheme,
      path: `/${basename(folder)} experiment summary.md`,
      query: new URLSearchParams({ folder }).toString(),
    });
    const known = this.texts.has(uri.toString());
    this.texts.set(uri.toString(), markdown);
    if (known) this.changed.fire(uri);
    return uri;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? 'This summary is no longer available: run Show Experiment Summary again.';
  }

  dispose(): void {
    this.changed.dispose();
  }
}
