/**
 * The rollout folder a command was given: the folder itself, or the folder of a file (or subfolder)
 * inside it. A rollout folder is told by the layout's own test, as the server's discovery tells it; like
 * the server, this looks no further up than the layout goes down.
 */
import * as vscode from 'vscode';
import { marksRolloutFolder, rolloutLayoutDepth } from '../../../shared/src/layout';

export async function rolloutFolderOf(uri: vscode.Uri): Promise<vscode.Uri | undefined> {
  if (uri.scheme !== 'file') return undefined;
  let folder = (await isFolder(uri)) ? uri : vscode.Uri.joinPath(uri, '..');
  for (let level = 0; level <= rolloutLayoutDepth; level++) {
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
  return entries.some(([name, type]) => marksRolloutFolder(name, isRealFolder(type)));
}

/**
 * VS Code types a link to a folder as both a link and a folder; the server's discovery never takes a
 * link for a folder (it does not follow linked folders), and this agrees with it.
 */
function isRealFolder(type: vscode.FileType): boolean {
  return (type & vscode.FileType.Directory) !== 0 && (type & vscode.FileType.SymbolicLink) === 0;
}
