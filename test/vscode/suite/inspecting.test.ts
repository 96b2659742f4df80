/**
 * Reading and fixing a rollout in the real VS Code: the verdict code lens on an artifact, the outline,
 * and a fixture-authoring quick fix applied through VS Code's own code action machinery, in a fixture
 * folder (a copy of the example under test/fixtures/) and never on the real example rollout.
 */
import * as assert from 'node:assert/strict';
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

/** Asks `probe` until it answers: providers answer once the server has evaluated the rollout. */
async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

suite('Inspecting and fixing a rollout in VS Code', () => {
  const actions = workspaceFile(`${faultyRollout}/benchguard/action_records.jsonl`);
  // The same rollout in a folder the default rolloutEvidence.fixtureFolders marks: a fixture bundle.
  const fixtureRoot = workspaceFile(`test/fixtures/${faultyRollout.split('/').pop()!}`);
  const fixtureActions = vscode.Uri.joinPath(fixtureRoot, 'benchguard/action_records.jsonl');

  suiteSetup(async () => {
    await waitForActivation(vscode.extensions.getExtension(extensionId)!);
    // Through VS Code's file system, whose watchers see its own writes; removed again for the other suites.
    await vscode.workspace.fs.copy(workspaceFile(faultyRollout), fixtureRoot);
  });

  suiteTeardown(async () => {
    await vscode.workspace.fs.delete(workspaceFile('test'), { recursive: true });
  });

  test('shows the verdict and the quiescence fact in a code lens on the first line, naming the timeline command', async () => {
    await openInEditor(actions);
    const lenses = await eventually('our code lens on the action records', async () => {
      const all = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', actions);
      const found = all.filter((lens) => lens.command?.command === 'rolloutEvidence.showTimeline');
      return found.length > 0 ? found : undefined;
    });
    assert.equal(lenses.length, 1, 'one lens, from our server');
    const [lens] = lenses;
    assert.equal(lens!.range.start.line, 0);
    // The example's hardening exec ends on `sleep 1`: the masked exit status makes the reward untrusted.
    assert.match(lens!.command!.title, /^Rollout: untrusted · quiescence: masked exit status( · |$)/);
  });

  test('opens the rollout timeline when its code lens is clicked', async () => {
    const [lens] = (
      await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', actions)
    ).filter((found) => found.command?.command === 'rolloutEvidence.showTimeline');
    assert.ok(lens?.command, 'the lens is there');
    await vscode.commands.executeCommand(lens.command.command, ...(lens.command.arguments ?? []));
    const rollout = faultyRollout.split('/').pop()!;
    const timelineTab = () =>
      vscode.window.tabGroups.all
        .flatMap((group) => group.tabs)
        .find((tab) => tab.input instanceof vscode.TabInputWebview && tab.label === `Timeline: ${rollout}`);
    const tab = await eventually('the timeline panel of the rollout', async () => timelineTab());
    // VS Code prefixes the view type of an extension's webview with its own marker.
    assert.ok(
      (tab.input as vscode.TabInputWebview).viewType.endsWith('rolloutEvidence.timeline'),
      (tab.input as vscode.TabInputWebview).viewType,
    );
    await vscode.window.tabGroups.close(tab);
  });

  test('outlines the action records with what the rules read in each', async () => {
    const document = await openInEditor(actions);
    const symbols = await eventually('the outline of the action records', async () => {
      const found = await vscode.commands.executeCommand<vscode.DocumentSymbol[] | undefined>(
        'vscode.executeDocumentSymbolProvider',
        actions,
      );
      return found && found.length > 0 ? found : undefined;
    });
    const nonBlank = Array.from({ length: document.lineCount }, (_, line) => document.lineAt(line).text).filter(
      (text) => text.trim() !== '',
    ).length;
    assert.equal(symbols.length, nonBlank, 'one symbol per record, the unfinished last line included');
    const hardening = symbols.find((symbol) => symbol.range.start.line === 1)!;
    assert.match(hardening.name, /^SandboxExec Harden main · rc 0 · (.*, then )?kill attempt/);
  });

  test('in a fixture folder, applies the quick fix that records an authored observation after the last kill, and the finding goes away', async () => {
    const document = await openInEditor(fixtureActions);
    const unproven = await waitForDiagnostics(
      fixtureActions,
      'quiescence-unproven on the fixture copy of the action records',
      (all) => all.some((d) => codeOf(d) === 'quiescence-unproven'),
    );
    const finding = unproven.find((d) => codeOf(d) === 'quiescence-unproven')!;
    const fixes = await vscode.commands.executeCommand<vscode.CodeAction[]>(
      'vscode.executeCodeActionProvider',
      fixtureActions,
      finding.range,
      vscode.CodeActionKind.QuickFix.value,
    );
    const insert = fixes.find((action) =>
      action.title.startsWith('Insert a quiescent SandboxUserQuiescence observation'),
    );
    assert.ok(insert?.edit, fixes.map((action) => action.title).join('\n'));
    const killLine = finding.range.start.line;
    // The example's records carry no times and its config no uid: both are placeholders, and the title says so.
    assert.match(
      insert.title,
      new RegExp(`after the kill attempt on line ${killLine + 1} \\(placeholders to set: uid, observed_at\\)$`),
    );
    const linesBefore = document.lineCount;
    try {
      assert.ok(await vscode.workspace.applyEdit(insert.edit));
      assert.equal(document.lineCount, linesBefore + 1);
      const inserted = JSON.parse(document.lineAt(killLine + 1).text) as { event_type: string; provenance: string };
      assert.deepEqual([inserted.event_type, inserted.provenance], ['SandboxUserQuiescence', 'authored']);
      await waitForDiagnostics(
        fixtureActions,
        'quiescence-unproven to go away',
        () => !ours(fixtureActions).some((d) => codeOf(d) === 'quiescence-unproven'),
      );
    } finally {
      // Leave the file as it is on disk.
      await vscode.window.showTextDocument(document);
      await vscode.commands.executeCommand('workbench.action.files.revert');
    }
    assert.equal(document.isDirty, false);
  });

  test('on the real example rollout, offers no fix that writes evidence, and the finding says to run the probe instead', async () => {
    await openInEditor(actions);
    const unproven = await waitForDiagnostics(actions, 'quiescence-unproven on the action records', (all) =>
      all.some((d) => codeOf(d) === 'quiescence-unproven'),
    );
    const finding = unproven.find((d) => codeOf(d) === 'quiescence-unproven')!;
    assert.match(
      finding.message,
      /Run the live probe on the sandbox \(the command "Rollout Evidence: Probe Sandbox-User Quiescence…", or `rollout-evidence probe`\)/,
    );
    const fixes = await vscode.commands.executeCommand<vscode.CodeAction[]>(
      'vscode.executeCodeActionProvider',
      actions,
      finding.range,
      vscode.CodeActionKind.QuickFix.value,
    );
    // The test above got this fix for the same rollout in a fixture folder, so the server does answer.
    assert.deepEqual(
      fixes
        .map((action) => action.title)
        .filter((title) => title.startsWith('Insert a quiescent SandboxUserQuiescence observation')),
      [],
    );
  });
});
