/**
 * Writes a scaffold's files into a new rollout folder for the extension: on disk (the extension does not
 * run in virtual workspaces), by the same exclusive, link-refusing writer as the CLI.
 */
import * as vscode from 'vscode';
import type { ScaffoldFile } from '../../../shared/src/scaffold';
import { writeScaffoldFiles, type ScaffoldWriteOutcome } from '../../../shared/src/scaffoldWrite';

export async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch (error) {
    if (error instanceof vscode.FileSystemError && error.code === 'FileNotFound') return false;
    throw error;
  }
}

/** Writes every file below `root`, which must not exist yet; when it does, nothing is written. */
export function writeScaffold(root: vscode.Uri, files: readonly ScaffoldFile[]): ScaffoldWriteOutcome {
  if (root.scheme !== 'file') throw new Error(`${root.toString()} is not a folder on this machine's disk`);
  return writeScaffoldFiles(root.fsPath, files);
}
