/**
 * The real server's `rolloutEvidence/timeline` request: the picture agrees with the open documents (an
 * unsaved edit shows), a range gives that range, and a folder that is no rollout, or a range that is no
 * range (null included), gets a clear error instead of a picture.
 */
import assert from 'node:assert/strict';
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { ResponseError } from 'vscode-languageserver-protocol/node';
import { timelineRequest, type TimelineParams } from '../../shared/src/protocol';
import type { TimelinePicture } from '../../shared/src/timelinePicture';
import { LspTestClient } from '../support/lspClient';
import { repoRoot, temporaryFolder } from '../support/repo';

const folder = temporaryFolder();
after(() => folder.remove());
const root = join(folder.path, 'timed-out');
cpSync(join(repoRoot, 'test/fixtures/bundles/native-timeout-pending-tool'), root, { recursive: true });
const trajectoryPath = join(root, 'trajectory/acp_trajectory.jsonl');

describe('language server: timeline request', () => {
  let client: LspTestClient;
  const timeline = (params: TimelineParams) =>
    client.connection.sendRequest(timelineRequest, params) as Promise<TimelinePicture>;

  before(async () => {
    ({ client } = await LspTestClient.start({ pull: true, settings: {}, workspaceFolders: [folder.path] }));
  });
  after(async () => client.stop());

  it('draws the rollout from disk, with its verdict', async () => {
    const picture = await timeline({ root });
    assert.equal(picture.root, root);
    assert.equal(picture.verdict, 'incomplete');
    const unresolved = picture.elements.filter(
      (element) => element.kind === 'tool-call' && element.status === 'unresolved',
    );
    assert.deepEqual(
      unresolved.map((element) => [element.file, element.line]),
      [[trajectoryPath, 2]],
    );
  });

  it('agrees with the open documents: an unsaved edit that completes the call shows', async () => {
    const uri = pathToFileURL(trajectoryPath).href;
    await client.open(
      uri,
      readFileSync(trajectoryPath, 'utf8').replace('"status":"in_progress"', '"status":"completed"'),
    );
    const picture = await timeline({ root });
    assert.equal(picture.elements.filter((element) => element.status === 'unresolved').length, 0);
    await client.close(uri);
  });

  it('gives the range asked for', async () => {
    const whole = await timeline({ root });
    const range = { from: whole.extent.to / 2, to: whole.extent.to };
    const zoomed = await timeline({ root, range });
    assert.deepEqual(zoomed.range, range);
    assert.ok(
      zoomed.elements.length > 0 && zoomed.elements.every((element) => (element.end ?? element.start) >= range.from),
    );
    assert.ok(zoomed.elements.length < whole.elements.length, 'the prompts, early in the rollout, are left out');
  });

  it('refuses a folder that is not a rollout, and a range that is not one, with a message', async () => {
    await assert.rejects(
      timeline({ root: join(folder.path, 'missing') }),
      (error: unknown) => error instanceof ResponseError && /does not exist/.test(error.message),
    );
    await assert.rejects(
      timeline({ root: folder.path }),
      (error: unknown) => error instanceof ResponseError && /no rollout artifacts/.test(error.message),
    );
    await assert.rejects(
      timeline({ root, range: { from: 5, to: 1 } }),
      (error: unknown) => error instanceof ResponseError && /from before to/.test(error.message),
    );
  });

  it('answers a null, string or half range with a message, and keeps serving', async () => {
    // What another editor may send: the request's type does not bind it.
    const send = (range: unknown) => client.connection.sendRequest('rolloutEvidence/timeline', { root, range });
    for (const range of [null, 'all', 7]) {
      await assert.rejects(
        send(range),
        (error: unknown) =>
          error instanceof ResponseError && error.code === -32602 && /"range" must be an object/.test(error.message),
        JSON.stringify(range),
      );
    }
    await assert.rejects(
      send({ from: 1 }),
      (error: unknown) =>
        error instanceof ResponseError && /"range.to" must be a finite number, not nothing/.test(error.message),
    );
    await assert.rejects(
      send({ from: '1', to: '5' }),
      (error: unknown) => error instanceof ResponseError && /"range.from" must be a finite number/.test(error.message),
    );
    assert.equal((await timeline({ root })).root, root, 'the server still answers');
  });
});
