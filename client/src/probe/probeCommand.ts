/**
 * "Rollout Evidence: Probe Sandbox-User Quiescence…": pick a target, a user and a mode, run the probe in
 * the language server, follow its transcript, say plainly what it found, and record it on request.
 */
import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import { ResponseError } from 'vscode-languageclient/node';
import { errorMessage } from '../../../shared/src/errors';
import {
  describeTarget,
  describeTranscriptEntry,
  isSandboxUserName,
  sandboxUserProblem,
  summarizeOutcome,
  type ContainerListing,
  type ProbeMode,
  type ProbeTarget,
} from '../../../shared/src/probe';
import {
  probeContextRequest,
  probeTargetsRequest,
  runProbeRequest,
  type ProbeContext,
  type RunProbeResult,
} from '../../../shared/src/protocol';
import type { ServerController } from '../serverController';
import { readProbeSettings } from './probeSettings';
import { appendRecordLine, pickRecordFile } from './recordObservation';

const title = 'Probe Sandbox-User Quiescence';

export async function probeQuiescence(server: ServerController, output: vscode.LogOutputChannel): Promise<void> {
  // The probe runs commands as root in a container or on this machine: never on a workspace's say-so.
  if (!vscode.workspace.isTrusted) {
    const choice = await vscode.window.showWarningMessage(
      'Rollout Evidence: probing runs commands as root in a container or on this machine, so it is off in Restricted Mode. Trust this workspace to use it.',
      'Manage Workspace Trust',
    );
    if (choice) await vscode.commands.executeCommand('workbench.trust.manage');
    return;
  }
  const client = server.runningClient;
  if (!client) {
    const choice = await vscode.window.showErrorMessage(
      'Rollout Evidence: the probe runs in the language server, which is not running.',
      'Restart Server',
      'Show Output',
    );
    if (choice === 'Restart Server')
      await server.restart().catch((error: unknown) => output.error(`Restart failed: ${errorMessage(error)}`));
    if (choice === 'Show Output') output.show(true);
    return;
  }
  const { settings, problems } = readProbeSettings();
  for (const problem of problems) void vscode.window.showWarningMessage(`Rollout Evidence: ${problem}`);
  let context: ProbeContext;
  let listing: ContainerListing;
  try {
    context = await client.sendRequest(probeContextRequest, {
      uri: vscode.window.activeTextEditor?.document.uri.toString(),
    });
    listing = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: 'Listing running containers' },
      () => client.sendRequest(probeTargetsRequest, { dockerAccess: settings.docker }),
    );
  } catch (error) {
    explainFailure('the probe could not start', error, output);
    return;
  }
  const target = await pickTarget(listing);
  if (!target) return;
  const user = await pickUser(context, settings.sandboxUser);
  if (user === undefined) return;
  const mode = await pickMode();
  if (!mode) return;
  if (mode === 'harden' && !(await confirmHarden(target, user))) return;

  const transcriptId = randomUUID();
  output.info(`Probing sandbox user "${user}" in ${describeTarget(target)} (${mode}):`);
  const following = server.onProbeTranscript((params) => {
    if (params.transcriptId === transcriptId) output.info(describeTranscriptEntry(params.entry));
  });
  let result: RunProbeResult;
  try {
    result = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: `Rollout Evidence: probing "${user}" in ${describeTarget(target)}`,
        cancellable: true,
      },
      (_progress, token) =>
        client.sendRequest(
          runProbeRequest,
          {
            transcriptId,
            request: {
              target,
              user,
              mode,
              timeoutSeconds: settings.timeoutSeconds,
              graceSeconds: settings.graceSeconds,
              dockerAccess: settings.docker,
            },
          },
          token,
        ),
    );
  } catch (error) {
    explainFailure('the probe did not run', error, output);
    return;
  } finally {
    following.dispose();
  }
  await reportOutcome(result, context, output);
}

function explainFailure(what: string, error: unknown, output: vscode.LogOutputChannel): void {
  // A refusal from the server is a message for the user as it stands.
  const reason = error instanceof ResponseError ? error.message : errorMessage(error);
  output.error(`${what}: ${reason}`);
  void vscode.window
    .showErrorMessage(`Rollout Evidence: ${what}: ${reason}`, 'Show Output')
    .then((choice) => choice && output.show(true));
}

async function reportOutcome(
  result: RunProbeResult,
  context: ProbeContext,
  output: vscode.LogOutputChannel,
): Promise<void> {
  const { outcome } = result;
  const summary = summarizeOutcome(outcome);
  output.info(summary);
  const show =
    outcome.returnCode === 0
      ? vscode.window.showInformationMessage
      : outcome.returnCode === 1
        ? vscode.window.showWarningMessage
        : vscode.window.showErrorMessage;
  const choice = await show(`Rollout Evidence: ${summary}`, 'Record as Evidence', 'Show Details');
  if (choice === 'Show Details') output.show(true);
  if (choice !== 'Record as Evidence') return;
  const file = await pickRecordFile(context.actionRecords);
  if (!file) return;
  try {
    const line = await appendRecordLine(file, result.recordLine);
    output.info(`Recorded the observation in ${file.fsPath}, line ${line}.`);
    const open = await vscode.window.showInformationMessage(
      `Rollout Evidence: recorded the observation in ${vscode.workspace.asRelativePath(file)}, line ${line}.`,
      'Open',
    );
    if (open) await vscode.window.showTextDocument(file, { selection: new vscode.Range(line - 1, 0, line - 1, 0) });
  } catch (error) {
    void vscode.window.showErrorMessage(`Rollout Evidence: the observation was not recorded: ${errorMessage(error)}`);
  }
}

interface TargetItem extends vscode.QuickPickItem {
  readonly target?: ProbeTarget;
}

async function pickTarget(listing: ContainerListing): Promise<ProbeTarget | undefined> {
  const items: TargetItem[] = listing.containers.map((container) => ({
    label: `$(${container.engine === 'docker' ? 'vm' : 'package'}) ${container.name}`,
    description: container.image,
    detail: `${container.engine} · ${container.status} · ${container.id.slice(0, 12)}`,
    target: { kind: container.engine, name: container.name },
  }));
  items.push({ label: '', kind: vscode.QuickPickItemKind.Separator });
  items.push({
    label: '$(device-desktop) Local machine',
    description: 'here, or the dev container this window runs in',
    target: { kind: 'local' },
  });
  // Engines that could not be asked are listed with what was looked for, so an empty list explains itself.
  for (const missing of listing.unavailable)
    items.push({ label: `$(warning) ${missing.engine}: ${missing.reason}`, description: 'unavailable' });
  const picked = await vscode.window.showQuickPick(items, {
    title: `${title} (1/3): target`,
    placeHolder:
      listing.containers.length > 0
        ? 'Pick a running container, or the local machine'
        : 'No running container was found: pick the local machine, or start a container',
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (picked && !picked.target) {
    void vscode.window.showWarningMessage(`Rollout Evidence: ${picked.label.replace(/^\$\(warning\) /, '')}`);
    return undefined;
  }
  return picked?.target;
}

async function pickUser(context: ProbeContext, fallback: string): Promise<string | undefined> {
  const fromConfig = isSandboxUserName(context.sandboxUser) ? context.sandboxUser : undefined;
  const source =
    fromConfig !== undefined
      ? "from the active rollout's config, the user the rules judge"
      : context.sandboxUser === null
        ? "the active rollout's config says sandbox_user is null (its agent ran as root); this is the setting's user"
        : 'from the setting rolloutEvidence.probe.sandboxUser';
  return vscode.window.showInputBox({
    title: `${title} (2/3): sandbox user`,
    prompt: `The user whose processes to observe: a name or a numeric uid (${source}).`,
    value: fromConfig ?? fallback,
    validateInput: (value) => sandboxUserProblem(value),
  });
}

async function pickMode(): Promise<ProbeMode | undefined> {
  const modes: (vscode.QuickPickItem & { mode: ProbeMode })[] = [
    {
      label: 'observe',
      description: 'look only',
      detail: 'One checked observation of the user’s processes; no signal is sent.',
      mode: 'observe',
    },
    {
      label: 'harden',
      description: 'end them, then look',
      detail: 'TERM, a grace period, KILL, in rounds; then the final observation. Kills processes.',
      mode: 'harden',
    },
  ];
  return (await vscode.window.showQuickPick(modes, { title: `${title} (3/3): mode` }))?.mode;
}

async function confirmHarden(target: ProbeTarget, user: string): Promise<boolean> {
  const kill = 'Kill and Observe';
  const choice = await vscode.window.showWarningMessage(
    `Kill every process of sandbox user "${user}" in ${describeTarget(target)}?`,
    {
      modal: true,
      detail:
        'The probe sends TERM, waits, then KILL to each of the user’s processes, in rounds, and then checks that none is left.',
    },
    kill,
  );
  return choice === kill;
}
