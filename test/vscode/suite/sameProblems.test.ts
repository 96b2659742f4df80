/**
 * One set of problems, the same everywhere: for each bundle, the Rollouts view's counts, the diagnostics
 * VS Code holds (every source, not only ours: what the Problems panel and the tab badges show) and the
 * CLI's JSON report agree per file and per severity. And the reasons for a verdict reach the Problems
 * panel with only one file of the rollout open. The bundles are fresh copies from the repository, in a
 * job folder of their own, removed at the end (the other suites count the workspace's rollouts).
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { RolloutsNode } from '../../../client/src/views/rolloutItems';
import type { RolloutsViewForTests } from '../../../client/src/views/rolloutsView';
import {
  codeOf,
  extensionId,
  openInEditor,
  waitFor,
  waitForActivation,
  waitForDiagnostics,
  workspaceFile,
} from '../editorSupport';

const job = 'jobs/2026-09-03__00-00-00';

/** Bundle name → where the repository keeps it. */
const bundles: Readonly<Record<string, string>> = {
  'hello-world': 'examples/jobs/2026-08-22__10-00-00/hello-world__1a2b3c4d',
  'regex-log': 'examples/jobs/2026-08-22__10-00-00/regex-log__bab1cbf6',
  // config.json breaks its schema: once reported by VS Code's JSON support as an untagged warning.
  schema: 'test/fixtures/bundles/schema',
  // timing.json has a trailing comma, which VS Code's JSON support reports as well unless told not to.
  'json-syntax': 'test/fixtures/bundles/json-syntax',
};

type Severity = 'error' | 'warning' | 'info';

/** `file severity` → count, sorted, for one rollout. */
type Counts = [string, number][];

function sortedCounts(entries: Iterable<readonly [string, Severity]>): Counts {
  const counts = new Map<string, number>();
  for (const [file, severity] of entries)
    counts.set(`${file} ${severity}`, (counts.get(`${file} ${severity}`) ?? 0) + 1);
  return [...counts].sort(([a], [b]) => a.localeCompare(b));
}

const vscodeSeverities: Readonly<Record<vscode.DiagnosticSeverity, Severity>> = {
  [vscode.DiagnosticSeverity.Error]: 'error',
  [vscode.DiagnosticSeverity.Warning]: 'warning',
  [vscode.DiagnosticSeverity.Information]: 'info',
  [vscode.DiagnosticSeverity.Hint]: 'info',
};

suite('One set of problems, the same everywhere', () => {
  let extensionPath: string;
  let rollouts: RolloutsViewForTests;

  suiteSetup(async () => {
    const extension = vscode.extensions.getExtension<{ rolloutsView: RolloutsViewForTests }>(extensionId);
    assert.ok(extension);
    await waitForActivation(extension);
    extensionPath = extension.extensionPath;
    rollouts = extension.exports.rolloutsView;
    for (const [name, source] of Object.entries(bundles))
      cpSync(join(extensionPath, source), workspaceFile(`${job}/${name}`).fsPath, { recursive: true });
    await vscode.commands.executeCommand('rolloutEvidence.rollouts.focus');
    await waitFor(
      'the Rollouts view to be visible',
      () => (rollouts.view.visible ? true : undefined),
      rollouts.view.onDidChangeVisibility,
    );
  });

  suiteTeardown(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    // Through VS Code's file system, which tells the watchers (the headless harness's own watcher does not).
    await vscode.workspace.fs.delete(workspaceFile(job), { recursive: true });
    await vscode.commands.executeCommand('rolloutEvidence.refreshRollouts');
  });

  /** The CLI's diagnostics of the rollout (the built dist/cli.js, on this extension host's Node). */
  function byCli(root: string): { counts: Counts; files: string[]; codes: Map<string, string[]> } {
    const stdout = execFileSync(
      process.execPath,
      [join(extensionPath, 'dist/cli.js'), 'check', root, '--format', 'json'],
      {
        encoding: 'utf8',
        env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
        // Exit 1 means the check found errors; execFileSync throws then, with the output attached.
      },
    ).toString();
    return parseCli(stdout);
  }

  function parseCli(stdout: string): { counts: Counts; files: string[]; codes: Map<string, string[]> } {
    const report = JSON.parse(stdout) as {
      rollouts: { files: { file: string }[]; diagnostics: { file: string; severity: string; code: string }[] }[];
    };
    const rollout = report.rollouts[0]!;
    const codes = new Map<string, string[]>();
    for (const diagnostic of rollout.diagnostics)
      codes.set(diagnostic.file, [...(codes.get(diagnostic.file) ?? []), diagnostic.code]);
    const severity = (name: string): Severity => (name === 'error' || name === 'warning' ? name : 'info');
    return {
      counts: sortedCounts(rollout.diagnostics.map((d) => [d.file, severity(d.severity)])),
      files: rollout.files.map((file) => file.file),
      codes,
    };
  }

  function cliReport(root: string): ReturnType<typeof byCli> {
    try {
      return byCli(root);
    } catch (error) {
      const stdout = (error as { stdout?: string | Buffer }).stdout;
      if (stdout === undefined) throw error;
      return parseCli(stdout.toString());
    }
  }

  /** Every diagnostic VS Code holds for the rollout's files, whatever its source, by file and severity. */
  function heldByVsCode(root: vscode.Uri, files: readonly string[]): Counts {
    return sortedCounts(
      files.flatMap((file) =>
        vscode.languages
          .getDiagnostics(vscode.Uri.joinPath(root, file))
          .map((d): [string, Severity] => [file, vscodeSeverities[d.severity]]),
      ),
    );
  }

  /** The Rollouts view's counts of the rollout's files, read from the tree as VS Code reads it. */
  async function shownByView(name: string): Promise<Counts | undefined> {
    const provider = rollouts.provider;
    const children = async (node?: RolloutsNode) => (await provider.getChildren(node)) ?? [];
    const labelOf = async (node: RolloutsNode) => {
      const item = await provider.getTreeItem(node);
      return { item, text: typeof item.label === 'string' ? item.label : (item.label?.label ?? '') };
    };
    for (const jobNode of await children()) {
      if ((await labelOf(jobNode)).text !== '2026-09-03__00-00-00') continue;
      for (const rollout of await children(jobNode)) {
        if ((await labelOf(rollout)).text !== name) continue;
        const entries: [string, Severity][] = [];
        for (const file of await children(rollout)) {
          const { item, text } = await labelOf(file);
          for (const match of String(item.description ?? '').matchAll(/(\d+) (error|warning|info)/g))
            for (let i = 0; i < Number(match[1]); i++) entries.push([text, match[2] as Severity]);
        }
        return sortedCounts(entries);
      }
    }
    return undefined;
  }

  /** Waits, refresh by refresh, until the view shows `expected` for the rollout. */
  async function viewShows(name: string, expected: Counts): Promise<void> {
    let last = await shownByView(name);
    const same = () => JSON.stringify(last) === JSON.stringify(expected);
    if (same()) return;
    const changes = new vscode.EventEmitter<void>();
    const subscription = rollouts.provider.onDidChangeTreeData!(() => {
      void shownByView(name).then((now) => {
        last = now;
        changes.fire();
      });
    });
    try {
      await vscode.commands.executeCommand('rolloutEvidence.refreshRollouts');
      await waitFor(
        `the view's counts of ${name} to be the CLI's`,
        () => (same() ? true : undefined),
        changes.event,
        30_000,
        () => `${JSON.stringify(last)} vs the CLI's ${JSON.stringify(expected)}`,
      );
    } finally {
      subscription.dispose();
      changes.dispose();
    }
  }

  for (const name of Object.keys(bundles)) {
    test(`${name}: the Rollouts view, the diagnostics VS Code holds and the CLI count the same problems, per file and severity`, async () => {
      const root = workspaceFile(`${job}/${name}`);
      const cli = cliReport(root.fsPath);
      // Every file the CLI read is open, so that VS Code's own JSON support has its say on the JSON ones.
      for (const file of cli.files) await openInEditor(vscode.Uri.joinPath(root, file));
      const files = [...new Set([...cli.files, ...cli.codes.keys()])];
      await waitFor(
        `the diagnostics of ${name} to be the CLI's`,
        () => (JSON.stringify(heldByVsCode(root, files)) === JSON.stringify(cli.counts) ? true : undefined),
        vscode.languages.onDidChangeDiagnostics,
        30_000,
        () => `${JSON.stringify(heldByVsCode(root, files))} vs the CLI's ${JSON.stringify(cli.counts)}`,
      );
      // VS Code's JSON support has read the JSON files once it answers for them: a hover on the first key.
      for (const file of cli.files.filter((path) => path.endsWith('.json'))) {
        await vscode.commands.executeCommand(
          'vscode.executeHoverProvider',
          vscode.Uri.joinPath(root, file),
          new vscode.Position(1, 4),
        );
      }
      assert.deepEqual(heldByVsCode(root, files), cli.counts);
      await viewShows(name, cli.counts);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    });
  }

  test('opening only the trajectory of an untrusted rollout puts the reasons of its verdict in the Problems panel', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const root = workspaceFile(`${job}/only-trajectory`);
    cpSync(join(extensionPath, bundles['regex-log']!), root.fsPath, { recursive: true });
    const cli = cliReport(root.fsPath);
    const result = vscode.Uri.joinPath(root, 'result.json');
    const actions = vscode.Uri.joinPath(root, 'benchguard/action_records.jsonl');
    assert.ok(cli.codes.get('result.json')?.includes('untrusted-reward'), 'the CLI finds the untrusted reward');
    await openInEditor(vscode.Uri.joinPath(root, 'trajectory/acp_trajectory.jsonl'));
    const onResult = await waitForDiagnostics(result, 'untrusted-reward on result.json, which is not open', (all) =>
      all.some((d) => codeOf(d) === 'untrusted-reward'),
    );
    const onActions = await waitForDiagnostics(
      actions,
      'the findings of the action records, which are not open',
      (all) => all.length === cli.codes.get('benchguard/action_records.jsonl')?.length,
    );
    assert.deepEqual(onResult.map(codeOf).sort(), [...cli.codes.get('result.json')!].sort());
    assert.deepEqual(onActions.map(codeOf).sort(), [...cli.codes.get('benchguard/action_records.jsonl')!].sort());
    assert.ok(onActions.some((d) => codeOf(d) === 'masked-exit-status'));
    assert.ok(
      !vscode.workspace.textDocuments.some(
        (document) =>
          document.uri.toString() === result.toString() &&
          !document.isClosed &&
          vscode.window.visibleTextEditors.some((editor) => editor.document === document),
      ),
      'result.json is not shown in an editor',
    );

    // The trajectory closes: nothing of the rollout stays in the Problems panel, stale.
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await waitForDiagnostics(
      result,
      'the problems of result.json cleared once no file of its rollout is open',
      (all) => all.length === 0,
    );
    await waitForDiagnostics(actions, 'the problems of the action records cleared', (all) => all.length === 0);
  });

  test('Show Problems of All Rollouts puts every rollout’s problems in the Problems panel, with no file open', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const root = workspaceFile(`${job}/regex-log`);
    const cli = cliReport(root.fsPath);
    const result = await vscode.commands.executeCommand<{ shown: number; found: number; notice?: string } | undefined>(
      'rolloutEvidence.showWorkspaceProblems',
    );
    assert.ok(result && result.shown === result.found && result.notice === undefined, JSON.stringify(result));
    const files = [...new Set([...cli.files, ...cli.codes.keys()])];
    await waitFor(
      'every problem of the rollout in the Problems panel',
      () => (JSON.stringify(heldByVsCode(root, files)) === JSON.stringify(cli.counts) ? true : undefined),
      vscode.languages.onDidChangeDiagnostics,
      30_000,
      () => `${JSON.stringify(heldByVsCode(root, files))} vs the CLI's ${JSON.stringify(cli.counts)}`,
    );
  });

  test('measures what VS Code’s JSON support still reports on a JSON artifact broken beyond a trailing comma', async () => {
    const root = workspaceFile(`${job}/broken-json`);
    cpSync(join(extensionPath, bundles['hello-world']!), root.fsPath, { recursive: true });
    const timing = vscode.Uri.joinPath(root, 'timing.json');
    writeFileSync(timing.fsPath, '{\n  "started_at": "2026-08-22T10:00:00Z"\n  "finished_at": 3,\n  // a comment\n}\n');
    await openInEditor(timing);
    const all = await waitForDiagnostics(timing, 'our json-syntax on timing.json', (diagnostics) =>
      diagnostics.some((d) => codeOf(d) === 'json-syntax'),
    );
    await vscode.commands.executeCommand('vscode.executeHoverProvider', timing, new vscode.Position(1, 5));
    const held = vscode.languages.getDiagnostics(timing);
    console.log(
      `measured on timing.json: ${JSON.stringify(held.map((d) => [d.source ?? '', codeOf(d), d.severity, d.range.start.line, d.message]))}`,
    );
    // Ours, once; VS Code's JSON support adds its own syntax error on the same line (a known limit), and
    // nothing about the schema, the comment or anything else.
    assert.equal(all.filter((d) => codeOf(d) === 'json-syntax').length, 1);
    const theirs = held.filter((d) => d.source !== 'rollout-evidence');
    assert.ok(
      theirs.every((d) => d.range.start.line === 2 && d.severity === vscode.DiagnosticSeverity.Error),
      JSON.stringify(theirs.map((d) => [d.source, d.message])),
    );
  });
});
