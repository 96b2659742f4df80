/** Helpers for tests that run inside the extension host. Waits are on events, each with a deadline. */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

export const extensionId = 'rollout-evidence.rollout-evidence';
export const faultyRollout = 'jobs/2026-08-22__10-00-00/regex-log__bab1cbf6';

export function workspaceFile(relativePath: string): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'the tests run in a workspace holding the example bundles');
  return vscode.Uri.joinPath(folder.uri, relativePath);
}

/**
 * Opens a document in its own tab (not a preview tab that the next one replaces): the language client
 * pulls diagnostics for documents shown in tabs.
 */
export async function openInEditor(uri: vscode.Uri): Promise<vscode.TextDocument> {
  const document = await vscode.workspace.openTextDocument(uri);
  await vscode.window.showTextDocument(document, { preview: false });
  return document;
}

/**
 * Resolves with `probe()` once it returns something, checking now and after each `event`; rejects with
 * `what` and the last state seen when the deadline passes.
 */
export function waitFor<T>(
  what: string,
  probe: () => T | undefined,
  event: vscode.Event<unknown>,
  timeoutMs = 30_000,
  describe?: () => string,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const now = probe();
    if (now !== undefined) {
      resolve(now);
      return;
    }
    const timer = setTimeout(() => {
      subscription.dispose();
      reject(
        new Error(
          `timed out after ${timeoutMs / 1000} s waiting for ${what}${describe ? `; last seen: ${describe()}` : ''}`,
        ),
      );
    }, timeoutMs);
    const subscription = event(() => {
      const value = probe();
      if (value === undefined) return;
      clearTimeout(timer);
      subscription.dispose();
      resolve(value);
    });
  });
}

/** A diagnostic's code; VS Code wraps it with its link when the server gives one. */
export function codeOf(diagnostic: vscode.Diagnostic): string {
  return String(typeof diagnostic.code === 'object' ? diagnostic.code.value : diagnostic.code);
}

export function summarize(diagnostics: readonly vscode.Diagnostic[]): string[] {
  return diagnostics.map(
    (d) => `${codeOf(d)}@${d.range.start.line}:${d.range.start.character}-${d.range.end.line}:${d.range.end.character}`,
  );
}

export function ours(uri: vscode.Uri): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'rollout-evidence');
}

/** Waits until the diagnostics of `uri` satisfy `accept`, and returns them. */
export function waitForDiagnostics(
  uri: vscode.Uri,
  what: string,
  accept: (diagnostics: vscode.Diagnostic[]) => boolean,
  timeoutMs = 30_000,
): Promise<vscode.Diagnostic[]> {
  return waitFor(
    what,
    () => {
      const diagnostics = vscode.languages.getDiagnostics(uri);
      return accept(diagnostics) ? diagnostics : undefined;
    },
    vscode.languages.onDidChangeDiagnostics,
    timeoutMs,
    () =>
      JSON.stringify(
        vscode.languages.getDiagnostics(uri).map((d) => [d.source, d.code, d.range.start.line, d.message]),
      ),
  );
}

/** Activation has no event of its own: poll the flag, with a deadline. */
export async function waitForActivation(extension: vscode.Extension<unknown>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!extension.isActive) {
    if (Date.now() > deadline) throw new Error(`${extension.id} did not activate within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
