/**
 * The Rollouts view in a real VS Code, on the workspace's copy of the example bundles: it lists them by
 * job with their verdicts and the problems the diagnostics show, filters and sorts, and follows a
 * rollout that appears, and then grows, while the view is open, refreshing only for files that can
 * change what it lists. The tree is read through the data the
 * extension hands to VS Code (activate() returns it), as the workbench reads it.
 */
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { mayChangeListing } from '../../../client/src/views/listingChanges';
import type { RolloutsNode } from '../../../client/src/views/rolloutItems';
import type { RolloutsViewForTests } from '../../../client/src/views/rolloutsView';
import {
  extensionId,
  faultyRollout,
  openInEditor,
  ours,
  waitFor,
  waitForActivation,
  waitForDiagnostics,
  workspaceFile,
} from '../editorSupport';

interface ShownRollout {
  readonly job: string;
  readonly name: string;
  /** The verdict icon's codicon. */
  readonly icon: string;
  readonly description: string;
  readonly files: ReadonlyMap<string, string>;
}

const examplesJobName = '2026-08-22__10-00-00';
const healthyRollout = `jobs/${examplesJobName}/hello-world__1a2b3c4d`;

suite('Rollouts view', () => {
  let rollouts: RolloutsViewForTests;

  suiteSetup(async () => {
    const extension = vscode.extensions.getExtension<{ rolloutsView: RolloutsViewForTests }>(extensionId);
    assert.ok(extension);
    await waitForActivation(extension);
    rollouts = extension.exports.rolloutsView;
    await vscode.commands.executeCommand('rolloutEvidence.rollouts.focus');
    await waitFor(
      'the Rollouts view to be visible',
      () => (rollouts.view.visible ? true : undefined),
      rollouts.view.onDidChangeVisibility,
    );
  });

  suiteTeardown(async () => {
    await vscode.commands.executeCommand('rolloutEvidence.filterRollouts', [
      'untrusted',
      'incomplete',
      'trusted-timeout',
      'trusted',
    ]);
    await vscode.commands.executeCommand('rolloutEvidence.sortRollouts', 'verdict');
  });

  /** What the tree shows, walked as VS Code walks it. */
  async function shown(): Promise<ShownRollout[]> {
    const provider = rollouts.provider;
    const children = async (node?: RolloutsNode) => (await provider.getChildren(node)) ?? [];
    const label = async (node: RolloutsNode) => {
      const item = await provider.getTreeItem(node);
      return { item, text: typeof item.label === 'string' ? item.label : (item.label?.label ?? '') };
    };
    const result: ShownRollout[] = [];
    for (const job of await children()) {
      const jobLabel = (await label(job)).text;
      for (const rollout of await children(job)) {
        const { item, text } = await label(rollout);
        const files = new Map<string, string>();
        for (const file of await children(rollout)) {
          const shownFile = await label(file);
          files.set(shownFile.text, String(shownFile.item.description ?? ''));
        }
        const icon = item.iconPath instanceof vscode.ThemeIcon ? item.iconPath.id : '';
        result.push({ job: jobLabel, name: text, icon, description: String(item.description ?? ''), files });
      }
    }
    return result;
  }

  /** Waits, refresh by refresh, until the tree satisfies `accept`. */
  async function shownWhen(
    what: string,
    accept: (rollouts: readonly ShownRollout[]) => boolean,
    timeoutMs = 30_000,
  ): Promise<ShownRollout[]> {
    let last: ShownRollout[] = await shown();
    if (accept(last)) return last;
    const changes = new vscode.EventEmitter<void>();
    const subscription = rollouts.provider.onDidChangeTreeData!(() => {
      void shown().then((now) => {
        last = now;
        changes.fire();
      });
    });
    try {
      return await waitFor(
        what,
        () => (accept(last) ? last : undefined),
        changes.event,
        timeoutMs,
        () => JSON.stringify(last.map((r) => [r.job, r.name, r.icon, r.description])),
      );
    } finally {
      subscription.dispose();
      changes.dispose();
    }
  }

  const named = (list: readonly ShownRollout[], path: string) =>
    list.find((rollout) => `jobs/${rollout.job}/${rollout.name}` === path);

  test('lists the workspace’s rollouts by job, each with its verdict icon', async () => {
    const list = await shownWhen(
      'both example rollouts',
      (now) => named(now, healthyRollout) !== undefined && named(now, faultyRollout) !== undefined,
    );
    assert.equal(named(list, healthyRollout)!.icon, 'pass', 'the healthy example is trusted');
    assert.equal(named(list, healthyRollout)!.description, '', 'and has no problems');
    assert.equal(named(list, faultyRollout)!.icon, 'error', 'the faulty example is untrusted');
    assert.match(named(list, faultyRollout)!.description, /^\d+ errors/);
    assert.match(rollouts.view.description ?? '', /^2 of 2 · all verdicts/);
  });

  test('counts the problems of a file as its diagnostics show them', async () => {
    const trajectory = workspaceFile(`${faultyRollout}/trajectory/acp_trajectory.jsonl`);
    await openInEditor(trajectory);
    const problemsIn = (description: string | undefined) =>
      [...(description ?? '').matchAll(/(\d+) (error|warning|info)/g)].reduce(
        (sum, match) => sum + Number(match[1]),
        0,
      );
    await waitForDiagnostics(trajectory, 'diagnostics on the trajectory', () => ours(trajectory).length > 0);
    // The view refreshes on diagnostic changes of its rollouts: it catches up with the diagnostics.
    await shownWhen(
      'the view to count the trajectory’s problems as its diagnostics do',
      (now) =>
        problemsIn(named(now, faultyRollout)?.files.get('trajectory/acp_trajectory.jsonl')) === ours(trajectory).length,
    );
  });

  test('filters by verdict, and says so in its description', async () => {
    await vscode.commands.executeCommand('rolloutEvidence.filterRollouts', ['untrusted']);
    const list = await shown();
    assert.deepEqual(
      list.map((rollout) => rollout.icon),
      ['error'],
    );
    assert.match(rollouts.view.description ?? '', /^1 of 2 · untrusted ·/);
    await vscode.commands.executeCommand('rolloutEvidence.filterRollouts', ['trusted-timeout']);
    assert.deepEqual(await shown(), []);
    assert.match(rollouts.view.message ?? '', /All 2 rollouts are hidden by the verdict filter/);
    await vscode.commands.executeCommand('rolloutEvidence.filterRollouts', [
      'untrusted',
      'incomplete',
      'trusted-timeout',
      'trusted',
    ]);
    assert.equal((await shown()).length, 2);
  });

  /** The examples' job node, as VS Code gets it: the node itself (a command's argument) and its item. */
  async function examplesJob(): Promise<{ node: RolloutsNode; item: vscode.TreeItem }> {
    const jobs = (await rollouts.provider.getChildren()) ?? [];
    for (const node of jobs) {
      const item = await rollouts.provider.getTreeItem(node);
      if (item.label === examplesJobName) return { node, item };
    }
    assert.fail(`no job node ${examplesJobName}`);
  }

  test('shows on each job node its verdict counts, of all its rollouts or of those the filter shows', async () => {
    await shownWhen(
      'both example rollouts',
      (now) => now.filter((rollout) => rollout.job === examplesJobName).length === 2,
    );
    const all = (await examplesJob()).item;
    assert.equal(all.description, '2 rollouts · 1 untrusted · 1 trusted');
    assert.equal(
      all.tooltip,
      [
        workspaceFile(`jobs/${examplesJobName}`).fsPath,
        'Counts of all 2 rollouts of the job:',
        '  untrusted: 1',
        '  incomplete: 0',
        '  trusted-timeout: 0',
        '  trusted: 1',
        'Countable (trusted or trusted-timeout): 1 of 2',
      ].join('\n'),
    );

    await vscode.commands.executeCommand('rolloutEvidence.filterRollouts', ['untrusted', 'incomplete']);
    const filtered = (await examplesJob()).item;
    assert.equal(filtered.description, '1 rollout · 1 untrusted', 'the counts agree with the children shown');
    assert.match(
      String(filtered.tooltip),
      /^Counts of the 1 rollout the verdict filter shows \(1 of the job’s 2 hidden\):$/m,
    );
    assert.match(String(filtered.tooltip), /^Countable \(trusted or trusted-timeout\): 0 of 1$/m);
    await vscode.commands.executeCommand('rolloutEvidence.filterRollouts', [
      'untrusted',
      'incomplete',
      'trusted-timeout',
      'trusted',
    ]);
  });

  test('Show Experiment Summary on a job node opens its summary, with the counts of its rollouts', async () => {
    const { node } = await examplesJob();
    const uri = await vscode.commands.executeCommand<vscode.Uri | undefined>(
      'rolloutEvidence.showExperimentSummary',
      node,
    );
    assert.ok(uri, 'the command showed a summary');
    const text = (await vscode.workspace.openTextDocument(uri)).getText();
    assert.match(text, /^## Experiment summary$/m);
    assert.match(text, /\*\*1 of 2 rollouts countable\*\* \(50\.0%/);
    assert.match(text, /^\| untrusted \| 1 \|$/m);
    assert.match(text, /^\| trusted \| 1 \|$/m);
    assert.match(text, /^\| trusted-timeout \| 0 \|$/m);
    // The faulty example's causes, with it as their example rollout, as the workspace folder names it.
    const causes = text.split('\n').filter((line) => /^\| `[a-z-]+` \| untrusted \| 1 \| /.test(line));
    assert.ok(causes.length > 0, text);
    for (const cause of causes) assert.ok(cause.replace(/\\(.)/g, '$1').includes(faultyRollout), cause);
    // Shown as a Markdown preview, or (without VS Code's Markdown extension) as the read-only document.
    const tabs = vscode.window.tabGroups.all.flatMap((group) => group.tabs);
    assert.ok(
      tabs.some(
        (tab) =>
          (tab.input instanceof vscode.TabInputWebview && /markdown/i.test(tab.input.viewType)) ||
          (tab.input instanceof vscode.TabInputText && tab.input.uri.toString() === uri.toString()),
      ),
      `a tab shows the summary: ${tabs.map((tab) => tab.label).join(', ')}`,
    );
    assert.ok(rollouts.view.visible, 'the Rollouts view stays in sight beside the summary');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('Show Experiment Summary with no argument summarises every rollout of the workspace folder', async () => {
    const uri = await vscode.commands.executeCommand<vscode.Uri | undefined>('rolloutEvidence.showExperimentSummary');
    assert.ok(uri, 'the command showed a summary');
    const text = (await vscode.workspace.openTextDocument(uri)).getText();
    const listed = (await shown()).length;
    assert.match(text, new RegExp(`of ${listed} rollouts countable`), 'as many rollouts as the view lists');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  test('shows a rollout written while it is open, and follows it as it grows', async () => {
    const newRollout = 'jobs/2026-09-01__09-00-00/still-running__0001';
    // Written through VS Code's file system, which reports its own writes to the watchers: in the
    // headless harness the operating system's watcher reports no writes made by other processes.
    const root = workspaceFile(newRollout);
    await vscode.workspace.fs.copy(workspaceFile(healthyRollout), root);
    // The copy is not atomic: a refresh while it runs may list the rollout with only some of its files,
    // rightly incomplete, before the refresh after its last file shows the finished rollout.
    const appeared = await shownWhen(
      'the new rollout, once copied whole, after the throttled refresh',
      (now) => named(now, newRollout)?.icon === 'pass',
    );
    assert.equal(named(appeared, newRollout)!.icon, 'pass');

    // The run writes on: half a line, not yet ended, makes the evidence not final.
    const trajectory = vscode.Uri.joinPath(root, 'trajectory/acp_trajectory.jsonl');
    const written = await vscode.workspace.fs.readFile(trajectory);
    await vscode.workspace.fs.writeFile(
      trajectory,
      Buffer.concat([written, Buffer.from('{"type":"agent_message","text":"still wri')]),
    );
    await shownWhen('the growing rollout to become incomplete', (now) => named(now, newRollout)?.icon === 'warning');

    await vscode.commands.executeCommand('rolloutEvidence.sortRollouts', 'newest');
    assert.equal((await shown())[0]!.name, 'still-running__0001', 'newest first: the rollout just written');
    await vscode.commands.executeCommand('rolloutEvidence.sortRollouts', 'name');
    assert.deepEqual(
      (await shown()).map((rollout) => rollout.name),
      ['hello-world__1a2b3c4d', 'regex-log__bab1cbf6', 'still-running__0001'],
    );
  });

  test('refreshes for changes in a listed rollout and for files that can make a new one, not for other JSON', () => {
    const workspace = workspaceFile('').fsPath;
    const listed = join(workspace, 'jobs/2026-08-22__10-00-00/hello-world__1a2b3c4d');
    const elsewhere = join(workspace, 'jobs/2026-09-02__08-00-00/new__0001');
    const cases: readonly (readonly [string, boolean])[] = [
      [join(listed, 'trajectory/acp_trajectory.jsonl'), true],
      [join(listed, 'agent/notes.json'), true],
      [listed, true],
      [join(listed, 'artifacts/data.json'), false],
      [join(listed, 'artifacts/deep/out.json'), false],
      [join(elsewhere, 'result.json'), true],
      [join(elsewhere, 'config.json'), true],
      [join(elsewhere, 'results.jsonl'), true],
      [join(elsewhere, 'trajectory/llm_trajectory.jsonl'), true],
      [join(elsewhere, 'benchguard/preflight.json'), true],
      [join(elsewhere, 'verifier/reward.txt'), true],
      [join(workspace, 'build/output.json'), false],
      [join(workspace, 'package.json'), false],
      [join(workspace, 'notes/trajectory.json'), false],
      [join(workspace, 'node_modules/some-package/config.json'), false],
      [join(workspace, '.git/info/result.json'), false],
    ];
    for (const [path, expected] of cases) assert.equal(mayChangeListing(path, [listed]), expected, path);
  });
});
