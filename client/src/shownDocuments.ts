/**
 * Tells the server which documents VS Code shows in tabs, now and whenever the tabs change. The language
 * client pulls diagnostics only for those and drops a document's when its tab closes, though VS Code may
 * keep the document synchronised for minutes (three, for one an extension opened): the server pushes the
 * diagnostics of every other file of a shown rollout, and needs the same list to leave none out or twice.
 */
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { errorMessage } from '../../shared/src/errors';
import { shownDocumentsNotification } from '../../shared/src/protocol';

function shownUris(): string[] {
  const uris = new Set<string>();
  for (const group of vscode.window.tabGroups.all) {
    for (const tab of group.tabs) {
      if (tab.input instanceof vscode.TabInputText) uris.add(tab.input.uri.toString());
      else if (tab.input instanceof vscode.TabInputTextDiff) {
        uris.add(tab.input.original.toString());
        uris.add(tab.input.modified.toString());
      }
    }
  }
  return [...uris];
}

/** Sends the shown documents to the client's server now and on every change of the tabs, until disposed. */
export function reportShownDocuments(client: LanguageClient, output: vscode.LogOutputChannel): vscode.Disposable {
  const send = () => {
    void client
      .sendNotification(shownDocumentsNotification, { uris: shownUris() })
      .catch((error: unknown) => output.warn(`Telling the server which documents are shown: ${errorMessage(error)}`));
  };
  send();
  return vscode.window.tabGroups.onDidChangeTabs(send);
}
