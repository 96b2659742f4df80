/**
 * The extension, loaded from the repository, in a real VS Code on a workspace holding a copy of the
 * example bundles.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { extensionId, faultyRollout, openInEditor, ours, summarize, waitForActivation, waitForDiagnostics, workspaceFile } from '../editorSupport';

suite('Rollout Evidence in VS Code', () => {
  const trajectory = workspaceFile(`${faultyRollout}/trajectory/acp_trajectory.jsonl`);
  const expectedTrajectoryProblems = ['jsonl-syntax@2:129-2:130', 'schema@3:92-3:101', 'record-not-object@4:0-4:18', 'schema@5:68-5:73'];

  test('activates by itself on a workspace holding rollout bundles', async () => {
    const extension = vscode.extensions.getExtension(extensionId);
    assert.ok(extension, `${extensionId} is installed in the test instance`);
    await waitForActivation(extension);
  });

  test('puts the syntax and schema faults of a JSONL artifact into the Problems, with codes and ranges', async () => {
    await openInEditor(trajectory);
    const diagnostics = await waitForDiagnostics(trajectory, 'the trajectory diagnostics', () => ours(trajectory).length >= expectedTrajectoryProblems.length);
    assert.deepEqual(summarize(diagnostics.filter((d) => d.source === 'rollout-evidence')), expectedTrajectoryProblems);
    const status = diagnostics.find((d) => d.code === 'schema')!;
    assert.equal(status.severity, vscode.DiagnosticSeverity.Error);
    assert.match(status.message, /"status": expected one of .*found string "running"/);
  });

  test('reports a schema fault in the action records, and a still-growing last line as information', async () => {
    const actions = workspaceFile(`${faultyRollout}/benchguard/action_records.jsonl`);
    const document = await openInEditor(actions);
    const diagnostics = await waitForDiagnostics(actions, 'the action record diagnostics', () => ours(actions).length >= 2);
    const line = document.lineAt(2).text;
    const valueStart = line.indexOf('"return_code":"0"') + '"return_code":'.length;
    assert.deepEqual(summarize(diagnostics), [`schema@2:${valueStart}-2:${valueStart + 3}`, `jsonl-partial-line@3:0-3:${document.lineAt(3).text.length}`]);
    assert.equal(diagnostics[1]!.severity, vscode.DiagnosticSeverity.Information);
  });

  test('clears a diagnostic when an edit fixes the fault', async () => {
    const document = await openInEditor(trajectory);
    const line = document.lineAt(3);
    const start = line.text.indexOf('"running"');
    const edit = new vscode.WorkspaceEdit();
    edit.replace(trajectory, new vscode.Range(3, start, 3, start + '"running"'.length), '"completed"');
    assert.ok(await vscode.workspace.applyEdit(edit));
    const diagnostics = await waitForDiagnostics(trajectory, 'the fixed status to lose its diagnostic', () => !ours(trajectory).some((d) => d.range.start.line === 3));
    assert.deepEqual(summarize(diagnostics.filter((d) => d.source === 'rollout-evidence')), ['jsonl-syntax@2:129-2:130', 'record-not-object@4:0-4:18', 'schema@5:68-5:73']);
  });

  test('has VS Code validate the JSON artifacts with the contributed schemas, and does not report them twice', async () => {
    const result = workspaceFile(`${faultyRollout}/result.json`);
    await openInEditor(result);
    const diagnostics = await waitForDiagnostics(result, 'a JSON schema diagnostic on n_tool_calls and on the status count', (all) => all.some((d) => d.range.start.line === 7) && all.some((d) => d.range.start.line === 13));
    const nToolCalls = diagnostics.find((d) => d.range.start.line === 7)!;
    assert.notEqual(nToolCalls.source, 'rollout-evidence');
    assert.deepEqual([nToolCalls.range.start.character, nToolCalls.range.end.character], [18, 21]);
    assert.deepEqual(ours(result).filter((d) => d.code === 'schema'), []);
  });

  test('registers every contributed command, and each runs', async () => {
    const extension = vscode.extensions.getExtension(extensionId)!;
    const contributed = (extension.packageJSON as { contributes: { commands: { command: string }[] } }).contributes.commands.map((c) => c.command);
    const registered = await vscode.commands.getCommands(true);
    assert.ok(contributed.length >= 2);
    for (const command of contributed) {
      assert.ok(registered.includes(command), `${command} is registered`);
      await vscode.commands.executeCommand(command);
    }
  });

  test('Restart Server brings the server back, and diagnostics follow edits again', async () => {
    await vscode.commands.executeCommand('rolloutEvidence.restartServer');
    const document = await openInEditor(trajectory);
    const edit = new vscode.WorkspaceEdit();
    edit.insert(trajectory, new vscode.Position(document.lineCount - 1, 0), '{"type":42}\n');
    assert.ok(await vscode.workspace.applyEdit(edit));
    const diagnostics = await waitForDiagnostics(trajectory, 'a diagnostic on the inserted line from the restarted server', () =>
      ours(trajectory).some((d) => d.range.start.line === document.lineCount - 2 && d.code === 'schema'),
    );
    assert.ok(diagnostics.length > 0);
  });
});
