/**
 * The probe's default user is the one the rules judge: the server reads it through the rollout's model, so
 * run_config.json comes before config.json (the validator's order) and an open, unsaved edit counts.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { probeContextRequest } from '../../shared/src/protocol';
import { LspTestClient } from '../support/lspClient';
import { repoRoot, temporaryFolder } from '../support/repo';

const folder = temporaryFolder();
const workspace = join(folder.path, 'workspace');
const rollout = join(workspace, 'jobs/2026-09-01__09-00-00/healthy__00000001');
mkdirSync(rollout, { recursive: true });
cpSync(join(repoRoot, 'test/fixtures/bundles/healthy'), rollout, { recursive: true });
writeFileSync(join(rollout, 'config.json'), JSON.stringify({ sandbox_user: 'sandbox' }));
const runConfig = join(rollout, 'run_config.json');
writeFileSync(runConfig, JSON.stringify({ sandbox_user: 'runner' }));
const trajectory = pathToFileURL(join(rollout, 'trajectory/acp_trajectory.jsonl')).href;

after(() => folder.remove());

describe('language server: the probe context', () => {
  let client: LspTestClient;
  before(async () => {
    ({ client } = await LspTestClient.start({ pull: true, settings: {}, workspaceFolders: [workspace] }));
  });
  after(async () => client.stop());

  it('offers the sandbox user of run_config.json, which the rules read before config.json', async () => {
    const context = await client.connection.sendRequest(probeContextRequest, { uri: trajectory });
    assert.equal(context.rolloutRoot, rollout);
    assert.equal(context.sandboxUser, 'runner');
  });

  it('offers the user of an open, unsaved config, as the rules judge it', async () => {
    const uri = pathToFileURL(runConfig).href;
    await client.open(uri, JSON.stringify({ sandbox_user: null }), 'json');
    try {
      assert.equal((await client.connection.sendRequest(probeContextRequest, { uri: trajectory })).sandboxUser, null);
    } finally {
      await client.close(uri);
    }
  });
});
