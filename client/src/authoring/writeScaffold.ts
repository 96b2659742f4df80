/**
 * Writes a scaffold's files into a new rollout folder through VS Code's file system, so the folder may
 * be anywhere the workspace reaches (a remote or a dev container too). It never overwrites anything.
 */
import * as vscode from 'vscode';
import type { ScaffoldFile } from '../../../shared/src/scaffold';

export type WriteOutcome = { readonly kind: 'written' } | { readonly kind: 'exists' };

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
export async function writeScaffold(root: vscode.Uri, files: readonly ScaffoldFile[]): Promise<WriteOutcome> {
  if (await exists(root)) return { kind: 'exists' };
  const encoder = new TextEncoder();
  for (const file of files) {
    const uri = vscode.Uri.joinPath(root, ...file.path.split('/'));
    // Something may appear between the check and the write; what is there already is kept all the same.
    if (await exists(uri)) throw new Error(`${uri.fsPath} appeared while the scaffold was being written; it was left as it was`);
    await vscode.workspace.fs.createDirectory(vscode.Uri.joinPath(uri, '..'));
    await vscode.workspace.fs.writeFile(uri, encoder.encode(file.content));
  }
  return { kind: 'written' };
}
