/**
 * The extension, loaded from the repository, in a real VS Code on a workspace holding a copy of the
 * example bundles.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { perFileCodes } from '../../support/diagnosticCodes';
import {
  codeOf,
  extensionId,
  faultyRollout,
  openInEditor,
  ours,
  summarize,
  waitForActivation,
  waitForDiagnostics,
  workspaceFile,
} from '../editorSupport';

suite('Rollout Evidence in VS Code', () => {
  const trajectory = workspaceFile(`${faultyRollout}/trajectory/acp_trajectory.jsonl`);
  const expectedTrajectoryProblems = [
    'jsonl-syntax@2:129-2:130',
    'schema@3:92-3:101',
    'tool-pending@3:92-3:101',
    'timeout-incomplete@3:92-3:101',
    'record-not-object@4:0-4:18',
    'schema@5:68-5:73',
  ];

  test('activates by itself on a workspace holding rollout bundles', async () => {
    const extension = vscode.extensions.getExtension(extensionId);
    assert.ok(extension, `${extensionId} is installed in the test instance`);
    await waitForActivation(extension);
  });

  test('puts the syntax and schema faults of a JSONL artifact into the Problems, with codes and ranges', async () => {
    await openInEditor(trajectory);
    const diagnostics = await waitForDiagnostics(
      trajectory,
      'the trajectory diagnostics',
      () => ours(trajectory).length >= expectedTrajectoryProblems.length,
    );
    assert.deepEqual(summarize(diagnostics.filter((d) => d.source === 'rollout-evidence')), expectedTrajectoryProblems);
    const status = diagnostics.find((d) => codeOf(d) === 'schema')!;
    assert.equal(status.severity, vscode.DiagnosticSeverity.Error);
    assert.match(status.message, /"status": expected one of .*found string "running"/);
  });

  test('reports a schema fault in the action records, and a still-growing last line as information', async () => {
    const actions = workspaceFile(`${faultyRollout}/benchguard/action_records.jsonl`);
    const document = await openInEditor(actions);
    const diagnostics = await waitForDiagnostics(
      actions,
      'the action record diagnostics',
      () => ours(actions).filter((d) => perFileCodes.has(codeOf(d))).length >= 2,
    );
    const own = diagnostics.filter((d) => perFileCodes.has(codeOf(d)));
    const line = document.lineAt(2).text;
    const valueStart = line.indexOf('"return_code":"0"') + '"return_code":'.length;
    assert.deepEqual(summarize(own), [
      `schema@2:${valueStart}-2:${valueStart + 3}`,
      `jsonl-partial-line@3:0-3:${document.lineAt(3).text.length}`,
    ]);
    assert.equal(own[1]!.severity, vscode.DiagnosticSeverity.Information);
  });

  test('clears a diagnostic when an edit fixes the fault', async () => {
    const document = await openInEditor(trajectory);
    const line = document.lineAt(3);
    const start = line.text.indexOf('"running"');
    const edit = new vscode.WorkspaceEdit();
    edit.replace(trajectory, new vscode.Range(3, start, 3, start + '"running"'.length), '"completed"');
    assert.ok(await vscode.workspace.applyEdit(edit));
    const diagnostics = await waitForDiagnostics(
      trajectory,
      'the fixed status to lose its diagnostics',
      () => !ours(trajectory).some((d) => d.range.start.line === 3),
    );
    assert.deepEqual(
      summarize(diagnostics.filter((d) => d.source === 'rollout-evidence' && perFileCodes.has(codeOf(d)))),
      ['jsonl-syntax@2:129-2:130', 'record-not-object@4:0-4:18', 'schema@5:68-5:73'],
    );
    // The timeout marker still lists the call as pending, which its row now contradicts.
    assert.ok(ours(trajectory).some((d) => codeOf(d) === 'timeout-pending-mismatch' && d.range.start.line === 5));
  });

  test('reports the schema faults of a JSON artifact once, ours, while VS Code’s JSON support still hovers with the contributed documentation', async () => {
    const result = workspaceFile(`${faultyRollout}/result.json`);
    await openInEditor(result);
    const diagnostics = await waitForDiagnostics(
      result,
      'our schema diagnostics on n_tool_calls and on the status count',
      () =>
        ours(result).some((d) => codeOf(d) === 'schema' && d.range.start.line === 7) &&
        ours(result).some((d) => codeOf(d) === 'schema' && d.range.start.line === 13),
    );
    const nToolCalls = diagnostics.find((d) => codeOf(d) === 'schema' && d.range.start.line === 7)!;
    assert.deepEqual([nToolCalls.range.start.character, nToolCalls.range.end.character], [18, 21]);
    // The documentation-only schema: VS Code's JSON support explains the field and reports nothing of its own.
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>(
      'vscode.executeHoverProvider',
      result,
      new vscode.Position(7, 5),
    );
    const hoverText = hovers
      .flatMap((hover) => hover.contents.map((content) => (typeof content === 'string' ? content : content.value)))
      .join('\n');
    assert.match(hoverText, /Tool calls the agent made/);
    assert.deepEqual(
      vscode.languages
        .getDiagnostics(result)
        .filter((d) => d.source !== 'rollout-evidence')
        .map((d) => [d.source, d.message]),
      [],
    );
  });

  test('puts rule findings on every file of the rollout, related to the others and linked to their rule', async () => {
    const actions = workspaceFile(`${faultyRollout}/benchguard/action_records.jsonl`);
    const result = workspaceFile(`${faultyRollout}/result.json`);
    await openInEditor(actions);
    await openInEditor(result);
    const onActions = await waitForDiagnostics(actions, 'masked-exit-status on the action records', () =>
      ours(actions).some((d) => codeOf(d) === 'masked-exit-status'),
    );
    const masked = onActions.find((d) => codeOf(d) === 'masked-exit-status')!;
    assert.equal(masked.range.start.line, 1);
    assert.ok(
      typeof masked.code === 'object' && masked.code.target.toString().endsWith('#masked-exit-status'),
      'the code links to its rule',
    );
    assert.deepEqual(
      masked.relatedInformation?.map((related) => [related.location.uri.toString(), related.location.range.start.line]),
      [[actions.toString(), 1]],
    );

    const onResult = await waitForDiagnostics(result, 'untrusted-reward on result.json', () =>
      ours(result).some((d) => codeOf(d) === 'untrusted-reward'),
    );
    const reward = onResult.find((d) => codeOf(d) === 'untrusted-reward')!;
    assert.equal(reward.range.start.line, 3);
    assert.ok(
      reward.relatedInformation?.some((related) => related.location.uri.toString() === actions.toString()),
      'related to the masked command in the other file',
    );
  });

  test('registers every contributed command, and each runs', async () => {
    const extension = vscode.extensions.getExtension(extensionId)!;
    const contributed = (
      extension.packageJSON as { contributes: { commands: { command: string }[] } }
    ).contributes.commands.map((c) => c.command);
    const registered = await vscode.commands.getCommands(true);
    assert.ok(contributed.length >= 2);
    for (const command of contributed) {
      assert.ok(registered.includes(command), `${command} is registered`);
      await runDismissingPrompts(command);
    }
  });

  test('Restart Server brings the server back, and diagnostics follow edits again', async () => {
    await vscode.commands.executeCommand('rolloutEvidence.restartServer');
    const document = await openInEditor(trajectory);
    const edit = new vscode.WorkspaceEdit();
    edit.insert(trajectory, new vscode.Position(document.lineCount - 1, 0), '{"type":42}\n');
    assert.ok(await vscode.workspace.applyEdit(edit));
    const diagnostics = await waitForDiagnostics(
      trajectory,
      'a diagnostic on the inserted line from the restarted server',
      () => ours(trajectory).some((d) => d.range.start.line === document.lineCount - 2 && codeOf(d) === 'schema'),
    );
    assert.ok(diagnostics.length > 0);
  });
});

/**
 * Runs a command to its end. A command that asks first (the probe opens a quick pick) would wait for a
 * user forever: whatever quick input it opens is dismissed, as Escape would, until the command returns.
 */
async function runDismissingPrompts(command: string, timeoutMs = 30_000): Promise<void> {
  let done = false;
  const running = Promise.resolve(vscode.commands.executeCommand(command)).finally(() => (done = true));
  const deadline = Date.now() + timeoutMs;
  while (!done) {
    if (Date.now() > deadline)
      throw new Error(`${command} did not return within ${timeoutMs / 1000} s, even with its prompts dismissed`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    if (!done) await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
  }
  await running;
}
