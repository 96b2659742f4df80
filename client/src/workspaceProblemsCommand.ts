/**
 * "Show Problems of All Rollouts": the server pushes the problems of every rollout of the workspace, up
 * to `rolloutEvidence.workspaceProblems.maxRollouts`, into the Problems panel, so that the reason for a
 * verdict is never behind a file nobody opened. Past the bound, a notice says how many were left out.
 */
import * as vscode from 'vscode';
import { errorMessage } from '../../shared/src/errors';
import { workspaceProblemsRequest, type WorkspaceProblemsResult } from '../../shared/src/protocol';
import {
  defaultWorkspaceProblemsMaxRollouts,
  settingsSection,
  workspaceProblemsMaxRolloutsSetting,
} from '../../shared/src/settings';
import type { ServerController } from './serverController';

/** Resolves to what the server showed (for the tests), or undefined when it could not be asked. */
export async function showWorkspaceProblems(
  server: ServerController,
  output: vscode.LogOutputChannel,
): Promise<WorkspaceProblemsResult | undefined> {
  const folders = (vscode.workspace.workspaceFolders ?? [])
    .filter((folder) => folder.uri.scheme === 'file')
    .map((folder) => folder.uri.fsPath);
  if (folders.length === 0) {
    void vscode.window.showInformationMessage(
      'Rollout Evidence: open a folder that holds rollouts to see their problems.',
    );
    return undefined;
  }
  const client = server.runningClient;
  if (!client) {
    void vscode.window.showErrorMessage(
      'Rollout Evidence: the language server is not running, so the rollouts cannot be evaluated.',
    );
    return undefined;
  }
  try {
    const result = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: 'Rollout Evidence: evaluating every rollout',
        cancellable: true,
      },
      (_progress, token) =>
        client.sendRequest(workspaceProblemsRequest, { folders, maxRollouts: maxRolloutsSetting() }, token),
    );
    for (const line of result.ioErrors) output.warn(line);
    if (result.notice) {
      output.warn(result.notice);
      void vscode.window.showWarningMessage(`Rollout Evidence: ${result.notice}`, 'Open Setting').then((choice) => {
        if (choice)
          void vscode.commands.executeCommand(
            'workbench.action.openSettings',
            `${settingsSection}.${workspaceProblemsMaxRolloutsSetting}`,
          );
      });
    } else {
      void vscode.window.setStatusBarMessage(
        `Rollout Evidence: the problems of ${result.shown} rollout${result.shown === 1 ? '' : 's'} are in the Problems panel`,
        5000,
      );
    }
    return result;
  } catch (error) {
    output.error(`Showing the problems of every rollout failed: ${errorMessage(error)}`);
    void vscode.window.showErrorMessage(
      `Rollout Evidence: the problems of the rollouts could not be shown (${errorMessage(error)}).`,
    );
    return undefined;
  }
}

/** The bound, as a whole number of at least 1; a malformed value is reported and the default used. */
function maxRolloutsSetting(): number {
  const value = vscode.workspace.getConfiguration(settingsSection).get<unknown>(workspaceProblemsMaxRolloutsSetting);
  if (typeof value === 'number' && Number.isInteger(value) && value >= 1) return value;
  if (value !== undefined && value !== null) {
    void vscode.window.showWarningMessage(
      `Rollout Evidence: ${settingsSection}.${workspaceProblemsMaxRolloutsSetting}: expected a whole number of at least 1, found ${JSON.stringify(value)}; using ${defaultWorkspaceProblemsMaxRollouts}`,
    );
  }
  return defaultWorkspaceProblemsMaxRollouts;
}
