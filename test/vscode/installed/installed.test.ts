/**
 * Smoke check of the extension installed from the packaged .vsix (not the repository): a file missing
 * from the package makes one of these fail.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { codeOf, extensionId, faultyRollout, openInEditor, ours, waitForActivation, waitForDiagnostics, workspaceFile } from '../editorSupport';

suite('Rollout Evidence installed from its .vsix', () => {
  test('is the installed copy, and activates', async () => {
    const extension = vscode.extensions.getExtension(extensionId);
    assert.ok(extension, `${extensionId} is installed`);
    const extensionsDir = process.env['ROLLOUT_EVIDENCE_EXTENSIONS_DIR'];
    assert.ok(extensionsDir && extension.extensionPath.startsWith(extensionsDir), `${extension.extensionPath} lies in the extensions folder ${extensionsDir}`);
    await waitForActivation(extension);
  });

  test('its language server reports a JSONL fault', async () => {
    const trajectory = workspaceFile(`${faultyRollout}/trajectory/acp_trajectory.jsonl`);
    await openInEditor(trajectory);
    const diagnostics = await waitForDiagnostics(trajectory, 'a jsonl-syntax diagnostic', () => ours(trajectory).some((d) => codeOf(d) === 'jsonl-syntax'));
    assert.ok(diagnostics.some((d) => codeOf(d) === 'jsonl-syntax' && d.range.start.line === 2));
  });

  test('its packaged schemas validate the JSON artifacts', async () => {
    const config = workspaceFile(`${faultyRollout}/config.json`);
    await openInEditor(config);
    const diagnostics = await waitForDiagnostics(config, 'a JSON schema diagnostic on agent_idle_timeout_sec', (all) => all.some((d) => d.range.start.line === 7));
    assert.match(diagnostics.find((d) => d.range.start.line === 7)!.message, /number|null/i);
  });
});
