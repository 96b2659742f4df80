/**
 * "Rollout Evidence: Show Rollout Timeline": opens (or brings forward) the timeline of the rollout the
 * command was given (its folder, or any file in it: a Uri from the Rollouts view, a URI string from the
 * server's code lens), else of the active editor's file. Open panels are drawn again when the server is
 * running again after it was not, and when the rolloutEvidence settings change.
 */
import * as vscode from 'vscode';
import { rolloutFiles, rolloutFolders } from '../../../shared/src/layout';
import { commandIds } from '../commandIds';
import { settingsSection } from '../../../shared/src/settings';
import type { ServerController } from '../serverController';
import { rolloutFolderOf } from './rolloutFolder';
import { TimelinePanel } from './timelinePanel';

export function registerTimelineCommand(context: vscode.ExtensionContext, server: ServerController): vscode.Disposable {
  const panels = new Map<string, TimelinePanel>();
  const refreshAll = () => panels.forEach((panel) => panel.refresh());
  const command = vscode.commands.registerCommand(commandIds.showTimeline, async (target?: unknown) => {
    const given = uriOf(target) ?? vscode.window.activeTextEditor?.document.uri;
    if (!given) {
      void vscode.window.showInformationMessage(
        'Rollout Evidence: open a file of a rollout (or pick a rollout in the Rollouts view) to show its timeline.',
      );
      return;
    }
    const root = await rolloutFolderOf(given);
    if (!root) {
      void vscode.window.showInformationMessage(
        `Rollout Evidence: ${vscode.workspace.asRelativePath(given)} is not in a rollout folder (one holding ${rolloutFiles.result}, ${rolloutFolders.trajectory}/ or ${rolloutFolders.benchguard}/), so there is no timeline to show.`,
      );
      return;
    }
    if (!server.runningClient) {
      const choice = await vscode.window.showErrorMessage(
        'Rollout Evidence: the timeline is drawn by the language server, which is not running.',
        'Restart Server',
      );
      if (choice === 'Restart Server') await vscode.commands.executeCommand(commandIds.restartServer);
      if (!server.runningClient) return;
    }
    const key = root.fsPath;
    const open = panels.get(key);
    if (open) {
      open.reveal();
      open.refresh();
      return;
    }
    panels.set(
      key,
      TimelinePanel.open(context.extensionUri, root, server, () => panels.delete(key)),
    );
  });
  // The settings change what the server finds and how it judges it.
  const settings = vscode.workspace.onDidChangeConfiguration(
    (event) => event.affectsConfiguration(settingsSection) && refreshAll(),
  );
  // The panels' error text promises a redraw once the server is back.
  const serverBack = server.onDidChangeState((state) => state === 'running' && refreshAll());
  return vscode.Disposable.from(command, settings, serverBack, {
    dispose: () => [...panels.values()].forEach((panel) => panel.dispose()),
  });
}

function uriOf(target: unknown): vscode.Uri | undefined {
  if (target instanceof vscode.Uri) return target;
  if (typeof target !== 'string' || target === '') return undefined;
  // A scheme has two letters at least, so a Windows drive letter (C:) is read as a path.
  return /^[a-z][a-z0-9+.-]+:/i.test(target) ? vscode.Uri.parse(target) : vscode.Uri.file(target);
}
