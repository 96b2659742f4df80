/**
 * "Record as evidence": appends the observation as one new line to the action records the user picks.
 * It goes through the editor, so an open, edited copy of the file gets the line too and nothing the
 * user wrote is lost; existing lines are never rewritten.
 */
import * as vscode from 'vscode';
import { textToAppend } from '../../../shared/src/probe';

/** The action records to offer: the active rollout's first, then the others in the workspace. */
export async function pickRecordFile(defaultPath: string | null): Promise<vscode.Uri | undefined> {
  const found = await vscode.workspace.findFiles('**/benchguard/action_records.jsonl', '**/node_modules/**', 200);
  const defaultUri = defaultPath === null ? undefined : vscode.Uri.file(defaultPath);
  const candidates = [...(defaultUri ? [defaultUri] : []), ...found.filter((uri) => uri.toString() !== defaultUri?.toString())];
  const other = { label: '$(folder-opened) Another file…', uri: undefined };
  const items = [
    ...candidates.map((uri, index) => ({ label: vscode.workspace.asRelativePath(uri), description: index === 0 && defaultUri ? 'the active rollout' : undefined, uri })),
    other,
  ];
  const picked = await vscode.window.showQuickPick(items, { title: 'Record the observation as evidence', placeHolder: 'Append one SandboxUserQuiescence line to…' });
  if (!picked) return undefined;
  if (picked.uri) return picked.uri;
  return vscode.window.showSaveDialog({ defaultUri, filters: { 'JSON Lines': ['jsonl'] }, saveLabel: 'Append Here', title: 'Append the observation to (the file is never rewritten)' });
}

/** Appends `line` and saves, unless the user had unsaved edits: those stay theirs to save. Returns the new line's number. */
export async function appendRecordLine(uri: vscode.Uri, line: string): Promise<number> {
  const edit = new vscode.WorkspaceEdit();
  edit.createFile(uri, { ignoreIfExists: true });
  if (!(await vscode.workspace.applyEdit(edit))) throw new Error(`could not create ${uri.fsPath}`);
  const document = await vscode.workspace.openTextDocument(uri);
  const wasDirty = document.isDirty;
  const end = document.lineAt(document.lineCount - 1).range.end;
  const text = document.getText();
  const append = new vscode.WorkspaceEdit();
  append.insert(uri, end, textToAppend(text.slice(-1), line));
  if (!(await vscode.workspace.applyEdit(append))) throw new Error(`could not append to ${uri.fsPath}`);
  if (!wasDirty && !(await document.save())) throw new Error(`could not save ${uri.fsPath}`);
  // The record sits on the line before the final newline.
  return document.lineCount - 1;
}
