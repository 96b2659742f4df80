/**
 * The real server reading a rollout as a whole: rule findings on every open file of the bundle, with
 * related locations and a link to the rule, re-evaluated when one file is edited or changes on disk.
 */
import assert from 'node:assert/strict';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import {
  DidChangeWatchedFilesNotification,
  DocumentDiagnosticReportKind,
  FileChangeType,
  type Diagnostic,
} from 'vscode-languageserver-protocol/node';
import { LspTestClient } from '../support/lspClient';
import { repoRoot, temporaryFolder } from '../support/repo';

const folder = temporaryFolder();
after(() => folder.remove());

/** A copy of a fixture bundle to edit, as `name` in the temporary folder; returns its root. */
function copyOfFixture(fixture: string, name: string): string {
  const root = join(folder.path, name);
  cpSync(join(repoRoot, 'test/fixtures/bundles', fixture), root, { recursive: true });
  return root;
}

const rollout = copyOfFixture('masked-quiescence-probe', 'masked');
const actionsPath = join(rollout, 'benchguard/action_records.jsonl');
const resultPath = join(rollout, 'result.json');
const actions = pathToFileURL(actionsPath).href;
const result = pathToFileURL(resultPath).href;

const finalObservation = JSON.stringify({
  event_type: 'SandboxUserQuiescence',
  phase: 'Harden',
  service: 'main',
  status: 'ok',
  sandbox_user: 'agent',
  uid: 1001,
  mode: 'harden',
  survivors: [],
  return_code: 0,
  observed_at: '2026-08-22T10:00:51Z',
  final: true,
});

function codes(diagnostics: readonly Diagnostic[]): string[] {
  return diagnostics.map((d) => `${d.range.start.line + 1} ${String(d.code)}`);
}

describe('language server on a whole rollout', () => {
  let client: LspTestClient;
  let interFile: boolean | undefined;

  before(async () => {
    const started = await LspTestClient.start({ pull: true, settings: {} });
    client = started.client;
    const provider = started.initialize.capabilities.diagnosticProvider;
    interFile = provider && 'interFileDependencies' in provider ? provider.interFileDependencies : undefined;
    await client.open(actions, readFileSync(actionsPath, 'utf8'));
    await client.open(result, readFileSync(resultPath, 'utf8'), 'json');
  });
  after(async () => {
    await client.stop();
  });

  it('declares that diagnostics depend on other files', () => {
    assert.equal(interFile, true);
  });

  it('puts each rule finding on the file that carries the evidence, related to the others', async () => {
    const onActions = await client.pullFull(actions);
    assert.deepEqual(codes(onActions.items), ['2 quiescence-unproven', '2 masked-exit-status']);
    const masked = onActions.items[1]!;
    // The copy of README the build puts beside the server: the .vsix's own README is the short one.
    assert.equal(
      masked.codeDescription?.href,
      `${pathToFileURL(join(repoRoot, 'dist/README.md')).href}#masked-exit-status`,
    );
    assert.deepEqual(
      masked.relatedInformation?.map((related) => [related.location.uri, related.location.range.start.line]),
      [[actions, 1]],
    );

    const onResult = await client.pullFull(result);
    assert.deepEqual(codes(onResult.items), ['5 untrusted-reward']);
    assert.deepEqual(
      onResult.items[0]!.relatedInformation?.map((related) => related.location.uri),
      [actions],
    );
    const report = client.reports.filter((r) => r.uri === result).at(-1)!;
    assert.deepEqual([report.rollout, report.verdict], [rollout, 'untrusted']);
  });

  it('re-evaluates the rollout when one of its files is edited, and asks the client to pull the others again', async () => {
    const before = client.refreshRequests;
    const text = readFileSync(actionsPath, 'utf8');
    const lines = text.trimEnd().split('\n');
    // Put a final, positive observation right after the kills.
    await client.replace(actions, [...lines.slice(0, 2), finalObservation, ...lines.slice(2)].join('\n') + '\n', 2);
    assert.deepEqual(codes((await client.pullFull(actions)).items), []);
    await client.until(() => client.refreshRequests > before, 'a diagnostics refresh for the other open files');
    assert.deepEqual(codes((await client.pullFull(result)).items), []);
    assert.equal(client.reports.filter((r) => r.uri === result).at(-1)!.verdict, 'trusted');
  });

  it('follows a file that changes on disk while it is not open', async () => {
    const before = client.refreshRequests;
    // The run's config now names another sandbox user: the recorded observation of "agent" no longer counts.
    const configPath = join(rollout, 'config.json');
    writeFileSync(
      configPath,
      readFileSync(configPath, 'utf8').replace('"sandbox_user": "agent"', '"sandbox_user": "operator"'),
    );
    await client.connection.sendNotification(DidChangeWatchedFilesNotification.type, {
      changes: [{ uri: pathToFileURL(configPath).href, type: FileChangeType.Changed }],
    });
    await client.until(() => client.refreshRequests > before, 'a diagnostics refresh after the change on disk');
    assert.deepEqual(
      codes((await client.pullFull(actions)).items),
      ['6 quiescence-unproven'],
      'nothing kills or observes "operator": unproven, on the first grading attempt',
    );
    assert.match(JSON.stringify((await client.pullFull(actions)).items[0]!.message), /Sandbox user \\"operator\\"/);
  });

  it('answers Unchanged for a document whose rollout has not changed', async () => {
    const first = await client.pullFull(actions);
    assert.equal((await client.pull(actions, first.resultId)).kind, DocumentDiagnosticReportKind.Unchanged);
  });
});

describe('language server on a rollout whose documents close and reopen', () => {
  it('evaluates a reopened document afresh, although its version starts at 1 again', async () => {
    const root = copyOfFixture('masked-quiescence-probe', 'reopened');
    const { client } = await LspTestClient.start({ pull: true, settings: {} });
    try {
      const uri = pathToFileURL(join(root, 'benchguard/action_records.jsonl')).href;
      const lines = readFileSync(join(root, 'benchguard/action_records.jsonl'), 'utf8').trimEnd().split('\n');
      await client.open(uri, `${lines.join('\n')}\n`);
      assert.deepEqual(codes((await client.pullFull(uri)).items), ['2 quiescence-unproven', '2 masked-exit-status']);
      // The last document of the rollout closes; it comes back, at version 1, with the observation fixed.
      await client.close(uri);
      await client.open(uri, `${[...lines.slice(0, 2), finalObservation, ...lines.slice(2)].join('\n')}\n`);
      assert.deepEqual(codes((await client.pullFull(uri)).items), []);
    } finally {
      await client.stop();
    }
  });
});

describe('language server on a whole rollout, push mode', () => {
  it('republishes the other open files of a rollout when one is edited', async () => {
    const root = copyOfFixture('survivors-with-reward', 'survivors');
    const { client } = await LspTestClient.start({ pull: false });
    try {
      const actionsUri = pathToFileURL(join(root, 'benchguard/action_records.jsonl')).href;
      const resultUri = pathToFileURL(join(root, 'result.json')).href;
      const actionsText = readFileSync(join(root, 'benchguard/action_records.jsonl'), 'utf8');
      await client.open(actionsUri, actionsText);
      await client.open(resultUri, readFileSync(join(root, 'result.json'), 'utf8'), 'json');
      const untrusted = await client.nextPublished(resultUri, (params) =>
        params.diagnostics.some((d) => d.code === 'untrusted-reward'),
      );
      assert.equal(untrusted.diagnostics[0]!.range.start.line, 4);
      // The probe now finds nothing: the reward is trusted again, and result.json is republished clean.
      await client.replace(
        actionsUri,
        actionsText.replace('"return_code":1', '"return_code":0').replace(/"survivors":\[[^\]]*\]/, '"survivors":[]'),
        2,
      );
      await client.nextPublished(resultUri, (params) => params.diagnostics.length === 0);
    } finally {
      await client.stop();
    }
  });
});
