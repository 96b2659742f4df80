/**
 * "Rollout Evidence: New Fixture Bundle…": pick a scenario, a folder and a rollout name; the language
 * server makes the rollout's files, this writes them into a new folder (never over anything), opens the
 * file that shows the scenario's point, and the server checks it as it checks any rollout.
 *
 * It only writes files and runs nothing, so it is offered in Restricted Mode too.
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { ResponseError } from 'vscode-languageclient/node';
import { errorMessage } from '../../../shared/src/errors';
import { scaffoldFilesRequest, scaffoldScenariosRequest } from '../../../shared/src/protocol';
import {
  benchflowStyleRolloutName,
  rolloutNameProblem,
  type ScaffoldFiles,
  type ScenarioSummary,
} from '../../../shared/src/scaffold';
import { settingsSection } from '../../../shared/src/settings';
import type { ServerController } from '../serverController';
import { exists, writeScaffold } from './writeScaffold';

const title = 'New Fixture Bundle';
/** The task of a suggested rollout name; the scenarios' records speak of writing hello.txt. */
const suggestedTask = 'hello-world';

/**
 * What a keybinding (or a test) may pass instead of answering a prompt; each value is checked, and
 * whatever is absent is asked for.
 */
interface FixtureArguments {
  readonly scenario?: string;
  readonly folder?: vscode.Uri;
  readonly name?: string;
}

/** Returns the new rollout folder, or undefined when nothing was written. */
export async function newFixtureBundle(
  server: ServerController,
  output: vscode.LogOutputChannel,
  rawArguments?: unknown,
): Promise<vscode.Uri | undefined> {
  const given = readArguments(rawArguments);
  if (typeof given === 'string') {
    void vscode.window.showErrorMessage(`Rollout Evidence: ${title}: ${given}`);
    return undefined;
  }
  const client = server.runningClient;
  if (!client) {
    void vscode.window.showErrorMessage(
      'Rollout Evidence: fixture bundles are made by the language server, which is not running. Restart it (Rollout Evidence: Restart Server) and try again.',
    );
    return undefined;
  }
  let scenarios: readonly ScenarioSummary[];
  try {
    scenarios = await client.sendRequest(scaffoldScenariosRequest);
  } catch (error) {
    explainFailure('the scenarios could not be listed', error, output);
    return undefined;
  }
  const scenario =
    given.scenario !== undefined
      ? scenarios.find((candidate) => candidate.id === given.scenario)
      : await pickScenario(scenarios);
  if (!scenario) {
    if (given.scenario !== undefined)
      void vscode.window.showErrorMessage(
        `Rollout Evidence: ${title}: unknown scenario "${given.scenario}"; the scenarios are ${scenarios.map((s) => s.id).join(', ')}.`,
      );
    return undefined;
  }
  const folder = given.folder ?? (await pickFolder());
  if (!folder) return undefined;
  const name = given.name ?? (await askName(folder));
  if (name === undefined) return undefined;

  const root = vscode.Uri.joinPath(folder, name);
  let scaffold: ScaffoldFiles;
  try {
    scaffold = await client.sendRequest(scaffoldFilesRequest, { scenario: scenario.id, rolloutName: name });
  } catch (error) {
    explainFailure('the fixture could not be made', error, output);
    return undefined;
  }
  try {
    const written = writeScaffold(root, scaffold.files);
    if (written.kind !== 'written') {
      const what = written.kind === 'symlink' ? 'is a symbolic link' : 'already exists';
      void vscode.window.showWarningMessage(
        `Rollout Evidence: ${root.fsPath} ${what}, so nothing was written. Choose another name or folder.`,
      );
      return undefined;
    }
  } catch (error) {
    explainFailure(`the fixture was not fully written to ${root.fsPath}`, error, output);
    return undefined;
  }
  output.info(`Wrote the "${scenario.label}" fixture (${scaffold.files.length} files) to ${root.fsPath}.`);
  const focus = vscode.Uri.joinPath(root, ...scaffold.focusFile.split('/'));
  // The files are written either way: a file that cannot be shown is said, not thrown.
  await vscode.window
    .showTextDocument(focus, { preview: false })
    .then(undefined, (error: unknown) => output.warn(`Could not open ${focus.fsPath}: ${errorMessage(error)}`));
  void vscode.window.showInformationMessage(
    `Rollout Evidence: created ${vscode.workspace.asRelativePath(root)} (${scenario.label}). ${expectation(scenario)}.`,
  );
  warnOfSettingsOff(scenario, root);
  return root;
}

function readArguments(raw: unknown): FixtureArguments | string {
  if (raw === undefined) return {};
  if (typeof raw !== 'object' || raw === null) return 'its argument must be an object with scenario, folder and name';
  const { scenario, folder, name } = raw as Record<string, unknown>;
  if (scenario !== undefined && typeof scenario !== 'string') return 'scenario must be a scenario id';
  if (folder !== undefined && !(folder instanceof vscode.Uri)) return 'folder must be a folder URI';
  if (name !== undefined) {
    const problem = rolloutNameProblem(name);
    if (problem !== undefined) return problem;
  }
  return { scenario, folder, name: name as string | undefined };
}

function expectation(scenario: ScenarioSummary): string {
  const codes = scenario.codes.length > 0 ? `, with ${scenario.codes.join(', ')}` : ', with no findings';
  const settings = scenario.requiredSettings.map((setting) => `${settingsSection}.${setting}`).join(' and ');
  return `The rules judge it ${scenario.verdict}${codes}${settings ? ` (with ${settings} on)` : ''}`;
}

interface ScenarioItem extends vscode.QuickPickItem {
  readonly scenario: ScenarioSummary;
}

async function pickScenario(scenarios: readonly ScenarioSummary[]): Promise<ScenarioSummary | undefined> {
  const items: ScenarioItem[] = scenarios.map((scenario) => ({
    label: scenario.label,
    description: scenario.description,
    detail: expectation(scenario),
    scenario,
  }));
  const picked = await vscode.window.showQuickPick(items, {
    title: `${title} (1/3): scenario`,
    placeHolder: 'What should the rollout show?',
    matchOnDescription: true,
    matchOnDetail: true,
  });
  return picked?.scenario;
}

interface FolderItem extends vscode.QuickPickItem {
  readonly folder?: vscode.Uri;
}

async function pickFolder(): Promise<vscode.Uri | undefined> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (folders.length === 0) {
    const [chosen] =
      (await vscode.window.showOpenDialog({
        title: 'No folder is open: choose the folder to create the rollout folder in (a job folder, say)',
        openLabel: 'Create Rollout Here',
        canSelectFiles: false,
        canSelectFolders: true,
        canSelectMany: false,
      })) ?? [];
    return chosen;
  }
  const items: FolderItem[] = [
    ...folders.map((workspaceFolder) => ({
      label: `$(root-folder) ${workspaceFolder.name}`,
      description: workspaceFolder.uri.fsPath,
      folder: workspaceFolder.uri,
    })),
    { label: '$(folder-opened) Choose a folder…', description: 'a job folder, say' },
  ];
  const picked = await vscode.window.showQuickPick(items, {
    title: `${title} (2/3): where`,
    placeHolder: 'The folder to create the rollout folder in',
  });
  if (!picked) return undefined;
  if (picked.folder) return picked.folder;
  const [chosen] =
    (await vscode.window.showOpenDialog({
      title: 'Choose the folder to create the rollout folder in',
      openLabel: 'Create Rollout Here',
      defaultUri: folders[0]!.uri,
      canSelectFiles: false,
      canSelectFolders: true,
      canSelectMany: false,
    })) ?? [];
  return chosen;
}

async function askName(folder: vscode.Uri): Promise<string | undefined> {
  const suggestion = benchflowStyleRolloutName(suggestedTask, randomBytes(4).toString('hex'));
  return vscode.window.showInputBox({
    title: `${title} (3/3): rollout name`,
    prompt: `The new rollout folder in ${folder.fsPath}. BenchFlow names rollouts <task>__<8 hex>; the task part goes into the records.`,
    value: suggestion,
    valueSelection: [0, suggestedTask.length],
    // A folder that cannot be looked into is found out, and said, when the files are written.
    validateInput: async (value) =>
      rolloutNameProblem(value) ??
      ((await exists(vscode.Uri.joinPath(folder, value)).catch(() => false))
        ? `${value} already exists in ${folder.fsPath}`
        : undefined),
  });
}

/** A scenario judged as named only with a setting on says so, when the setting is off for its folder. */
function warnOfSettingsOff(scenario: ScenarioSummary, root: vscode.Uri): void {
  const configuration = vscode.workspace.getConfiguration(settingsSection, root);
  const off = scenario.requiredSettings.filter((setting) => configuration.get<boolean>(setting) !== true);
  if (off.length === 0) return;
  const names = off.map((setting) => `${settingsSection}.${setting}`);
  void vscode.window
    .showWarningMessage(
      `Rollout Evidence: "${scenario.label}" is judged ${scenario.verdict} only with ${names.join(' and ')} on; it is off here, so the rules judge it otherwise.`,
      'Open Settings',
    )
    .then((choice) => choice && vscode.commands.executeCommand('workbench.action.openSettings', names[0]));
}

function explainFailure(what: string, error: unknown, output: vscode.LogOutputChannel): void {
  // A refusal from the server is a message for the user as it stands.
  const reason = error instanceof ResponseError ? error.message : errorMessage(error);
  output.error(`${title}: ${what}: ${reason}`);
  void vscode.window
    .showErrorMessage(`Rollout Evidence: ${what}: ${reason}`, 'Show Output')
    .then((choice) => choice && output.show(true));
}
