/**
 * Smoke check of the extension installed from the packaged .vsix (not the repository): a file missing
 * from the package makes one of these fail.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import {
  codeOf,
  extensionId,
  faultyRollout,
  openInEditor,
  ours,
  waitForActivation,
  waitForDiagnostics,
  workspaceFile,
} from '../editorSupport';

suite('Rollout Evidence installed from its .vsix', () => {
  test('is the installed copy, and activates', async () => {
    const extension = vscode.extensions.getExtension(extensionId);
    assert.ok(extension, `${extensionId} is installed`);
    const extensionsDir = process.env['ROLLOUT_EVIDENCE_EXTENSIONS_DIR'];
    assert.ok(
      extensionsDir && extension.extensionPath.startsWith(extensionsDir),
      `${extension.extensionPath} lies in the extensions folder ${extensionsDir}`,
    );
    await waitForActivation(extension);
  });

  test('its language server reports a JSONL fault', async () => {
    const trajectory = workspaceFile(`${faultyRollout}/trajectory/acp_trajectory.jsonl`);
    await openInEditor(trajectory);
    const diagnostics = await waitForDiagnostics(trajectory, 'a jsonl-syntax diagnostic', () =>
      ours(trajectory).some((d) => codeOf(d) === 'jsonl-syntax'),
    );
    assert.ok(diagnostics.some((d) => codeOf(d) === 'jsonl-syntax' && d.range.start.line === 2));
  });

  test('links each code to its row in the packaged code reference, and shows the short user README', () => {
    const extension = vscode.extensions.getExtension(extensionId)!;
    const trajectory = workspaceFile(`${faultyRollout}/trajectory/acp_trajectory.jsonl`);
    const syntax = ours(trajectory).find((d) => codeOf(d) === 'jsonl-syntax');
    assert.ok(syntax && typeof syntax.code === 'object', 'the jsonl-syntax diagnostic carries a link');
    const target = syntax.code.target;
    const reference = join(extension.extensionPath, 'dist', 'README.md');
    assert.equal(target.fsPath, reference);
    assert.equal(target.fragment, 'jsonl-syntax');
    assert.ok(
      readFileSync(reference, 'utf8').includes('<a id="jsonl-syntax"></a>'),
      'the packaged reference has the anchor',
    );
    // vsce stores the README it was given as readme.md: the user page, without the code table.
    const page = readFileSync(join(extension.extensionPath, 'readme.md'), 'utf8');
    assert.match(page, /^# Rollout Evidence\n/);
    assert.doesNotMatch(page, /<a id="/);
  });

  test('reports the schema faults of the JSON artifacts, and its packaged documentation-only schemas give VS Code’s hover', async () => {
    const config = workspaceFile(`${faultyRollout}/config.json`);
    await openInEditor(config);
    const diagnostics = await waitForDiagnostics(config, 'our schema diagnostic on agent_idle_timeout_sec', () =>
      ours(config).some((d) => d.range.start.line === 7 && codeOf(d) === 'schema'),
    );
    assert.match(diagnostics.find((d) => d.range.start.line === 7)!.message, /number|null/i);
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>(
      'vscode.executeHoverProvider',
      config,
      new vscode.Position(7, 5),
    );
    const hoverText = hovers
      .flatMap((hover) => hover.contents.map((content) => (typeof content === 'string' ? content : content.value)))
      .join('\n');
    assert.match(hoverText, /idle budget in seconds/);
    // The manifest's jsonValidation names the copies the build writes: they are in the package.
    const extension = vscode.extensions.getExtension(extensionId)!;
    for (const entry of (extension.packageJSON as { contributes: { jsonValidation: { url: string }[] } }).contributes
      .jsonValidation) {
      const schema = JSON.parse(readFileSync(join(extension.extensionPath, entry.url), 'utf8')) as {
        description?: string;
        type?: unknown;
      };
      assert.ok(
        schema.description !== undefined && schema.type === undefined,
        `${entry.url}: packaged, documentation only`,
      );
    }
  });
});
