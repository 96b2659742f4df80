/**
 * The Rollout Evidence extension: a thin client that starts the language server and offers its commands
 * and status. Everything that judges evidence lives in the server's engine.
 */
import * as vscode from 'vscode';
import { settingsSection } from '../../shared/src/settings';
import { commandIds } from './commandIds';
import { ServerController } from './serverController';
import { probeQuiescence } from './probe/probeCommand';
import { newFixtureBundle } from './authoring/newFixtureBundle';
import { ServerStatus } from './serverStatus';
import { registerTimelineCommand } from './timeline/timelineCommand';
import { registerExperimentSummaryCommand } from './experimentSummaryCommand';
import { registerRolloutsView, type RolloutsViewForTests } from './views/rolloutsView';
import { showWorkspaceProblems } from './workspaceProblemsCommand';
import { errorMessage } from '../../shared/src/errors';

let controller: ServerController | undefined;

/** `rolloutsView` is for the real-editor tests, which read the view's tree as VS Code does. */
export async function activate(
  context: vscode.ExtensionContext,
): Promise<{ readonly rolloutsView: RolloutsViewForTests }> {
  const output = vscode.window.createOutputChannel('Rollout Evidence', { log: true });
  const status = new ServerStatus();
  controller = new ServerController(context, output, status);
  const server = controller;
  context.subscriptions.push(output, status, server);
  const rollouts = registerRolloutsView(context, server);

  context.subscriptions.push(
    vscode.commands.registerCommand(commandIds.showOutput, () => output.show(true)),
    vscode.commands.registerCommand(commandIds.probeQuiescence, () => probeQuiescence(server, output)),
    vscode.commands.registerCommand(commandIds.newFixtureBundle, (args?: unknown) =>
      newFixtureBundle(server, output, args),
    ),
    registerTimelineCommand(context, server),
    registerExperimentSummaryCommand(server),
    vscode.commands.registerCommand(commandIds.showWorkspaceProblems, () => showWorkspaceProblems(server, output)),
    vscode.commands.registerCommand(commandIds.restartServer, async () => {
      output.info('Restarting the language server on request.');
      try {
        await server.restart();
        void vscode.window.setStatusBarMessage('Rollout Evidence: language server restarted', 3000);
      } catch (error) {
        // Not awaited: the command is done; the message waits for the user on its own.
        void explainStartFailure(error, output);
      }
    }),
    // The document selector is fixed when a client starts, so new artifact patterns need a new client.
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (!event.affectsConfiguration(`${settingsSection}.artifacts`)) return;
      output.info('rolloutEvidence.artifacts changed: restarting the language server with the new patterns.');
      await server.restart().catch((error: unknown) => void explainStartFailure(error, output));
    }),
  );

  try {
    await server.start();
  } catch (error) {
    // Not awaited: activation must not wait for the user to dismiss a message.
    void explainStartFailure(error, output);
  }
  rollouts.refresh();
  return { rolloutsView: rollouts };
}

export async function deactivate(): Promise<void> {
  await controller?.stop();
  controller = undefined;
}

async function explainStartFailure(error: unknown, output: vscode.LogOutputChannel): Promise<void> {
  const reason = errorMessage(error);
  const choice = await vscode.window.showErrorMessage(
    `Rollout Evidence: the language server could not start (${reason}).`,
    'Show Output',
  );
  if (choice === 'Show Output') output.show(true);
}
