/**
 * The real server keeps its reads inside a rollout as the CLI does (test/cli/containment.test.ts): a
 * trajectory linked to a file outside the rollout is reported, and nothing behind the link reaches a
 * diagnostic, whether the linked file is open in the editor (which follows links) or read from disk. An
 * artifact's name that is a FIFO is reported as no regular file and read as present but unreadable, as
 * the CLI reads it (test/unit/notRegularFiles.test.ts compares the two paths case by case); the server
 * never blocks on it.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { Diagnostic } from 'vscode-languageserver-protocol/node';
import { LspTestClient } from '../support/lspClient';
import { repoRoot, temporaryFolder } from '../support/repo';

const folder = temporaryFolder();
after(() => folder.remove());

const secret = 'ghp_AAAAAAAAAAAAAAAAAAAA';
const secrets = join(folder.path, 'secrets.txt');
writeFileSync(secrets, `${secret}\n`);

function rolloutWithTrajectory(name: string, linkTo: (root: string) => string): string {
  const root = join(folder.path, name);
  cpSync(join(repoRoot, 'test/fixtures/bundles/healthy'), root, { recursive: true });
  const trajectory = join(root, 'trajectory/acp_trajectory.jsonl');
  const target = linkTo(root);
  if (target !== trajectory) {
    rmSync(trajectory);
    symlinkSync(target, trajectory);
  }
  return root;
}

const codes = (diagnostics: readonly Diagnostic[]) => diagnostics.map((diagnostic) => String(diagnostic.code));

describe('language server: reads stay inside the rollout', () => {
  let client: LspTestClient;
  before(async () => {
    client = (await LspTestClient.start({ pull: true, settings: {} })).client;
  });
  after(async () => {
    await client.stop();
  });

  it('a trajectory linked outside, open in the editor with the text behind the link, is reported and not read', async () => {
    const root = rolloutWithTrajectory('linked-out', () => secrets);
    const trajectory = pathToFileURL(join(root, 'trajectory/acp_trajectory.jsonl')).href;
    const actions = pathToFileURL(join(root, 'benchguard/action_records.jsonl')).href;
    // What an editor shows for the link: the secrets file's text.
    await client.open(trajectory, readFileSync(secrets, 'utf8'));
    await client.open(actions, readFileSync(join(root, 'benchguard/action_records.jsonl'), 'utf8'));
    const onTrajectory = await client.pullFull(trajectory);
    assert.deepEqual(codes(onTrajectory.items), ['artifact-outside-bundle']);
    const onActions = await client.pullFull(actions);
    for (const diagnostic of [...onTrajectory.items, ...onActions.items])
      assert.ok(!JSON.stringify(diagnostic).includes('ghp_'), JSON.stringify(diagnostic));
    await client.close(trajectory);
    await client.close(actions);
  });

  it('a FIFO as the preflight of a setup-only verifier is reported, and the rollout stays untrusted', async () => {
    const root = join(folder.path, 'fifo-preflight');
    cpSync(join(repoRoot, 'test/fixtures/bundles/setup-only-verifier'), root, { recursive: true });
    const preflight = join(root, 'benchguard/preflight.json');
    rmSync(preflight);
    execFileSync('mkfifo', [preflight]);
    const actionsPath = join(root, 'benchguard/action_records.jsonl');
    const actions = pathToFileURL(actionsPath).href;
    await client.open(actions, readFileSync(actionsPath, 'utf8'));
    await client.pullFull(actions);
    assert.equal(client.reports.filter((report) => report.uri === actions).at(-1)?.verdict, 'untrusted');
    // The FIFO has no tab: its findings are pushed.
    const onPreflight = await client.nextPublished(
      pathToFileURL(preflight).href,
      (params) => params.diagnostics.length > 0,
    );
    assert.equal(String(onPreflight.diagnostics[0]?.code), 'artifact-not-regular-file');
    // Read as present but unreadable: the declaration may be "separate", so the setup-only exec still counts.
    assert.ok(codes(onPreflight.diagnostics).includes('verifier-declaration-unreadable'), 'present, not absent');
    assert.ok(codes(onPreflight.diagnostics).includes('verifier-setup-only'), codes(onPreflight.diagnostics).join(' '));
    await client.close(actions);
  });

  it('near miss: a trajectory linked to a file inside its rollout is read as the file itself', async () => {
    const root = rolloutWithTrajectory('linked-in', (rolloutRoot) => {
      const moved = join(rolloutRoot, 'agent-trajectory.jsonl');
      cpSync(join(rolloutRoot, 'trajectory/acp_trajectory.jsonl'), moved);
      return moved;
    });
    const trajectory = pathToFileURL(join(root, 'trajectory/acp_trajectory.jsonl')).href;
    await client.open(trajectory, readFileSync(join(root, 'trajectory/acp_trajectory.jsonl'), 'utf8'));
    assert.deepEqual(codes((await client.pullFull(trajectory)).items), []);
    await client.close(trajectory);
  });
});
