/**
 * "Record as evidence": appends the observation as one new line to the action records the user picks;
 * existing lines are never rewritten. The line is written on disk, on an opened descriptor that refuses
 * a symbolic link or anything but a regular file (`shared/src/recordAppend.ts`, which the CLI's
 * `probe --record` uses too); an editor showing the file reloads it. One with unsaved edits is refused
 * instead, so that neither the record nor what the user wrote is lost when they save.
 */
import * as vscode from 'vscode';
import { anywhere, rolloutFiles, skippedFolders } from '../../../shared/src/layout';
import { appendRecordToFile } from '../../../shared/src/recordAppend';

/** The action records to offer: the active rollout's first, then the others in the workspace. */
export async function pickRecordFile(defaultPath: string | null): Promise<vscode.Uri | undefined> {
  const found = await vscode.workspace.findFiles(
    anywhere(rolloutFiles.actionRecords),
    `**/{${[...skippedFolders].join(',')}}/**`,
    200,
  );
  const defaultUri = defaultPath === null ? undefined : vscode.Uri.file(defaultPath);
  const candidates = [
    ...(defaultUri ? [defaultUri] : []),
    ...found.filter((uri) => uri.toString() !== defaultUri?.toString()),
  ];
  const other = { label: '$(folder-opened) Another file…', uri: undefined };
  const items = [
    ...candidates.map((uri, index) => ({
      label: vscode.workspace.asRelativePath(uri),
      description: index === 0 && defaultUri ? 'the active rollout' : undefined,
      uri,
    })),
    other,
  ];
  const picked = await vscode.window.showQuickPick(items, {
    title: 'Record the observation as evidence',
    placeHolder: 'Append one SandboxUserQuiescence line to…',
  });
  if (!picked) return undefined;
  if (picked.uri) return picked.uri;
  return vscode.window.showSaveDialog({
    defaultUri,
    filters: { 'JSON Lines': ['jsonl'] },
    saveLabel: 'Append Here',
    title: 'Append the observation to (the file is never rewritten)',
  });
}

/** Appends `line` to the file on disk. Returns the new line's number. */
export async function appendRecordLine(uri: vscode.Uri, line: string): Promise<number> {
  if (uri.scheme !== 'file') throw new Error(`${uri.toString()} is not a file on this machine's disk`);
  const open = vscode.workspace.textDocuments.find((document) => document.uri.toString() === uri.toString());
  if (open?.isDirty) throw new Error(`${uri.fsPath} has unsaved changes; save or revert them, then record again`);
  return appendRecordToFile(uri.fsPath, line);
}
