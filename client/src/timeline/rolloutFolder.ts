/**
 * The rollout folder a command was given: the folder itself, or the folder of a file (or subfolder)
 * inside it. A rollout folder holds result.json, trajectory/ or benchguard/, as the server's discovery
 * has it; like the server, this looks at most two levels up.
 */
import * as vscode from 'vscode';

export async function rolloutFolderOf(uri: vscode.Uri): Promise<vscode.Uri | undefined> {
  if (uri.scheme !== 'file') return undefined;
  let folder = (await isFolder(uri)) ? uri : vscode.Uri.joinPath(uri, '..');
  for (let level = 0; level < 2; level++) {
    if (await isRolloutFolder(folder)) return folder;
    folder = vscode.Uri.joinPath(folder, '..');
  }
  return undefined;
}

async function isFolder(uri: vscode.Uri): Promise<boolean> {
  try {
    return ((await vscode.workspace.fs.stat(uri)).type & vscode.FileType.Directory) !== 0;
  } catch {
    return false;
  }
}

async function isRolloutFolder(folder: vscode.Uri): Promise<boolean> {
  let entries: [string, vscode.FileType][];
  try {
    entries = await vscode.workspace.fs.readDirectory(folder);
  } catch {
    return false;
  }
  return entries.some(([name, type]) => (name === 'result.json' && (type & vscode.FileType.Directory) === 0) || ((name === 'trajectory' || name === 'benchguard') && (type & vscode.FileType.Directory) !== 0));
}
