/**
 * The folders the client declared as its workspace (initialize's `workspaceFolders`, else `rootUri`,
 * then `workspace/didChangeWorkspaceFolders`): the only places a request may ask the server to walk or
 * read. Without this, any client could have the server list and evaluate its own working directory, or
 * `/`, and read out what it found.
 */
import { isAbsolute, resolve } from 'node:path';
import {
  DidChangeWorkspaceFoldersNotification,
  type Connection,
  type InitializeParams,
  type WorkspaceFolder,
} from 'vscode-languageserver/node';
import { isInside } from '../../../shared/src/paths';
import { arrayOf, mapped, objectOf, ParamsError, string, withCheckedNotification, type Check } from './requestParams';
import { isFileUri, pathOfUri } from './uris';

const workspaceFolderEvent = objectOf({
  event: objectOf({ added: arrayOf(objectOf({ uri: string })), removed: arrayOf(objectOf({ uri: string })) }),
});

export class WorkspaceFolders {
  /** Absolute, resolved paths; only file URIs name folders on disk. */
  private readonly folders = new Set<string>();

  constructor(
    initialize: Pick<InitializeParams, 'workspaceFolders' | 'rootUri'>,
    /** Whether a folder is the rollout of a document the editor has open: one the client has shown the server. */
    private readonly isRolloutOfOpenDocument: (folder: string) => boolean,
  ) {
    // LSP: workspaceFolders, when the client sends it (even empty), supersedes rootUri. Both come from
    // the client as JSON: entries that are not what LSP says are no folders.
    const declared: unknown[] = Array.isArray(initialize.workspaceFolders)
      ? initialize.workspaceFolders
      : [{ uri: initialize.rootUri }];
    for (const folder of declared) {
      const uri =
        typeof folder === 'object' && folder !== null
          ? (folder as Partial<Record<keyof WorkspaceFolder, unknown>>).uri
          : undefined;
      if (typeof uri === 'string') this.add(uri);
    }
  }

  /**
   * Follows the client's changes; a malformed notification is logged and changes nothing. This handler
   * takes the place of vscode-languageserver's own for the notification, which only feeds an event.
   */
  listen(connection: Connection): void {
    const method = DidChangeWorkspaceFoldersNotification.method;
    connection.onNotification(
      DidChangeWorkspaceFoldersNotification.type,
      withCheckedNotification(workspaceFolderEvent, connection.console, method, ({ event }) => {
        for (const folder of event.removed) this.remove(folder.uri);
        for (const folder of event.added) this.add(folder.uri);
      }),
    );
  }

  /**
   * A params check for a folder the server may walk: an absolute path inside a workspace folder,
   * given back resolved (`..` taken out), so what is walked is what was checked.
   */
  readonly walkableFolder: Check<string> = mapped(string, (path, field) => {
    const resolved = this.resolvedAbsolute(path, field);
    if (!this.isInWorkspace(resolved))
      throw new ParamsError(field, `inside a workspace folder the client declared (${this.describeFolders()})`, path);
    return resolved;
  });

  /**
   * A params check for a rollout folder the server may read (the timeline's): inside a workspace
   * folder, or holding a document the editor has open (a file opened on its own, outside any folder).
   */
  readonly readableFolder: Check<string> = mapped(string, (path, field) => {
    const resolved = this.resolvedAbsolute(path, field);
    if (!this.mayRead(resolved))
      throw new ParamsError(
        field,
        `inside a workspace folder the client declared (${this.describeFolders()}), or the folder of an open document`,
        path,
      );
    return resolved;
  });

  /** Whether the server may read `path` (absolute and resolved) for a request. */
  mayRead(path: string): boolean {
    return this.isInWorkspace(path) || this.isRolloutOfOpenDocument(path);
  }

  /** The innermost workspace folder holding `path` (absolute and resolved), if any. */
  workspaceFolderOf(path: string): string | undefined {
    let found: string | undefined;
    for (const folder of this.folders)
      if (isInside(path, folder) && (!found || isInside(folder, found))) found = folder;
    return found;
  }

  private isInWorkspace(path: string): boolean {
    for (const folder of this.folders) if (isInside(path, folder)) return true;
    return false;
  }

  private resolvedAbsolute(path: string, field: string): string {
    if (path === '' || !isAbsolute(path)) throw new ParamsError(field, 'an absolute folder path', path);
    return resolve(path);
  }

  private add(uri: string): void {
    if (isFileUri(uri)) this.folders.add(resolve(pathOfUri(uri)));
  }

  private remove(uri: string): void {
    if (isFileUri(uri)) this.folders.delete(resolve(pathOfUri(uri)));
  }

  private describeFolders(): string {
    return this.folders.size === 0 ? 'it declared none' : [...this.folders].join(', ');
  }
}
