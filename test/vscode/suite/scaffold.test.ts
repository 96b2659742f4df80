/**
 * "Rollout Evidence: New Fixture Bundle…" in a real VS Code: its prompts answered as a user pressing
 * Enter would, the rollout folder it writes, the file it opens, and the language server's judgement of
 * what it wrote.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { commandIds } from '../../../client/src/commandIds';
import { scenarioSummaries } from '../../../server/src/authoring/scaffold/scaffold';
import { codeOf, openInEditor, ours, waitFor, waitForDiagnostics, workspaceFile } from '../editorSupport';

const layout = [
  'config.json',
  'result.json',
  'results.jsonl',
  'trajectory/acp_trajectory.jsonl',
  'trajectory/llm_trajectory.jsonl',
  'benchguard/preflight.json',
  'benchguard/action_records.jsonl',
  'verifier/reward.txt',
];

suite('New Fixture Bundle', () => {
  const workspace = workspaceFile('.');
  const created: vscode.Uri[] = [];

  // Other suites read this workspace's rollouts: leave it as it was found.
  suiteTeardown(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    for (const root of created) await vscode.workspace.fs.delete(root, { recursive: true, useTrash: false });
  });

  test('asks where and under which name, writes the rollout in the real layout, opens the file that shows its point, and the server judges it', async () => {
    const root = await runAcceptingPrompts(commandIds.newFixtureBundle, { scenario: 'masked-quiescence-probe' });
    assert.ok(root instanceof vscode.Uri, 'the command returns the new rollout folder');
    created.push(root);
    assert.equal(
      vscode.Uri.joinPath(root, '..').toString(),
      workspace.toString(),
      'the first workspace folder is the default place',
    );
    assert.match(root.path.split('/').pop()!, /^hello-world__[0-9a-f]{8}$/, 'the suggested name is BenchFlow-style');
    for (const path of layout) await vscode.workspace.fs.stat(vscode.Uri.joinPath(root, path));

    const actions = vscode.Uri.joinPath(root, 'benchguard/action_records.jsonl');
    assert.equal(
      vscode.window.activeTextEditor?.document.uri.toString(),
      actions.toString(),
      'the action records, where the masked check is, are opened',
    );
    const diagnostics = await waitForDiagnostics(actions, 'the masked check to be flagged', () =>
      ['quiescence-unproven', 'masked-exit-status'].every((code) => ours(actions).some((d) => codeOf(d) === code)),
    );
    const masked = diagnostics.find((d) => codeOf(d) === 'masked-exit-status')!;
    assert.equal(masked.range.start.line, 1, 'on the second record, the check that ends on `sleep 1`');
  });

  test('with every prompt answered by Enter, writes the first scenario, the healthy rollout, and opens its trajectory', async () => {
    const root = await runAcceptingPrompts(commandIds.newFixtureBundle, undefined);
    assert.ok(root instanceof vscode.Uri);
    created.push(root);
    for (const path of layout) await vscode.workspace.fs.stat(vscode.Uri.joinPath(root, path));
    assert.equal(
      vscode.window.activeTextEditor?.document.uri.toString(),
      vscode.Uri.joinPath(root, 'trajectory/acp_trajectory.jsonl').toString(),
    );
  });

  test('never overwrites: the same name again says so and leaves the rollout as it was', async () => {
    const [first] = created;
    assert.ok(first, 'the first test created a rollout');
    const actions = vscode.Uri.joinPath(first, 'benchguard/action_records.jsonl');
    const before = new TextDecoder().decode(await vscode.workspace.fs.readFile(actions));
    const again = await vscode.commands.executeCommand(commandIds.newFixtureBundle, {
      scenario: 'healthy',
      folder: workspace,
      name: first.path.split('/').pop(),
    });
    assert.equal(again, undefined, 'nothing was written');
    assert.equal(new TextDecoder().decode(await vscode.workspace.fs.readFile(actions)), before);
  });

  test('refuses malformed arguments, writing nothing', async () => {
    for (const args of [
      { scenario: 'healthy', folder: workspace, name: '../escape' },
      { scenario: 'nope', folder: workspace, name: 'nope__0000abcd' },
      { scenario: 'healthy', folder: 'not a uri', name: 'x' },
      'healthy',
    ]) {
      assert.equal(
        await vscode.commands.executeCommand(commandIds.newFixtureBundle, args),
        undefined,
        JSON.stringify(args),
      );
    }
    for (const name of ['nope__0000abcd', 'x'])
      await assert.rejects(
        Promise.resolve(vscode.workspace.fs.stat(vscode.Uri.joinPath(workspace, name))),
        vscode.FileSystemError,
      );
  });

  test('each scenario with findings gets exactly its codes from the language server, over its open files', async function () {
    this.timeout(180_000);
    for (const scenario of scenarioSummaries().filter((candidate) => candidate.codes.length > 0)) {
      const root = await vscode.commands.executeCommand<vscode.Uri | undefined>(commandIds.newFixtureBundle, {
        scenario: scenario.id,
        folder: workspace,
        name: `${scenario.id}__0000abcd`,
      });
      assert.ok(root, scenario.id);
      created.push(root);
      const files = layout
        .filter((path) => path !== 'trajectory/llm_trajectory.jsonl' || scenario.requiredSettings.length === 0)
        .map((path) => vscode.Uri.joinPath(root, path));
      for (const file of files) await openInEditor(file);
      const codesNow = () => [...new Set(files.flatMap((file) => ours(file).map(codeOf)))].sort();
      const expected = [...scenario.codes].sort();
      await waitFor(
        `${scenario.id}: the codes ${expected.join(', ')}`,
        () => (JSON.stringify(codesNow()) === JSON.stringify(expected) ? true : undefined),
        vscode.languages.onDidChangeDiagnostics,
        30_000,
        () => codesNow().join(', '),
      );
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });
});

/**
 * Runs a command to its end, answering each quick pick and input box it opens with Enter: the
 * highlighted item, or the suggested value.
 */
async function runAcceptingPrompts(command: string, args: unknown, timeoutMs = 30_000): Promise<unknown> {
  let done = false;
  const running = Promise.resolve(vscode.commands.executeCommand(command, args)).finally(() => (done = true));
  const deadline = Date.now() + timeoutMs;
  while (!done) {
    if (Date.now() > deadline)
      throw new Error(`${command} did not return within ${timeoutMs / 1000} s with its prompts accepted`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    if (!done) await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
  }
  return running;
}
