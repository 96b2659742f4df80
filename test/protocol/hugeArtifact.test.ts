/**
 * The real language server on a rollout whose trajectory is 1 TB (a sparse file) beside a normal one:
 * while it reads the huge file it keeps answering other requests, a cancellation stops the listing, and
 * asked again it lists the huge rollout incomplete, pushes artifact-too-large for the trajectory, and
 * lists the other rollout as the CLI finds it. Before, the server answered nothing until it was killed.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { CancellationTokenSource, LSPErrorCodes, ResponseError } from 'vscode-languageserver-protocol/node';
import { rolloutsRequest, type RolloutsParams } from '../../shared/src/protocol';
import { LspTestClient } from '../support/lspClient';
import { builtCli, healthyRollout, repoRoot, temporaryFolder } from '../support/repo';

const folder = temporaryFolder();
const job = join(folder.path, 'jobs/2026-08-22__10-00-00');
const hugeRoot = join(job, 'huge__00000001');
const normalRoot = join(job, 'normal__00000002');
const hugeTrajectory = join(hugeRoot, 'trajectory/acp_trajectory.jsonl');

/** Requests answered while the listing reads the huge file: one would slip in before a server that never gives way. */
const answersWhileReading = 20;

describe('a rollout with a 1 TB artifact, in the language server', () => {
  let client: LspTestClient;
  const listing: RolloutsParams = { folders: [folder.path], maxRollouts: 10 };
  const listRollouts = (token?: CancellationTokenSource) =>
    client.connection.sendRequest(rolloutsRequest, listing, token?.token);

  before(async () => {
    mkdirSync(job, { recursive: true });
    cpSync(healthyRollout, hugeRoot, { recursive: true });
    cpSync(healthyRollout, normalRoot, { recursive: true });
    truncateSync(hugeTrajectory, 1024 ** 4);
    client = (await LspTestClient.start({ pull: true, settings: {}, workspaceFolders: [folder.path] })).client;
  });
  after(async () => {
    await client.stop();
    folder.remove();
  });

  it(
    'answers other requests while it reads the file, in bounded memory, and stops when cancelled',
    { timeout: 120_000 },
    async () => {
      const token = new CancellationTokenSource();
      let listed = false;
      const cancelled = listRollouts(token);
      cancelled.then(
        () => (listed = true),
        () => (listed = true),
      );
      let answered = 0;
      let mostResidentBytes = 0;
      while (!listed && answered < answersWhileReading) {
        const usage = await client.processUsage();
        mostResidentBytes = Math.max(mostResidentBytes, usage.rssBytes);
        if (!listed) answered++;
      }
      assert.equal(
        answered,
        answersWhileReading,
        `the listing ended after the server answered ${answered} other requests, not ${answersWhileReading}`,
      );
      token.cancel();
      await assert.rejects(
        cancelled,
        (error: unknown) => error instanceof ResponseError && error.code === LSPErrorCodes.RequestCancelled,
      );
      assert.ok(mostResidentBytes < 512 * 1024 * 1024, `${mostResidentBytes} bytes resident while reading`);
    },
  );

  it(
    'lists the huge rollout incomplete with artifact-too-large pushed, and the other as the CLI does',
    { timeout: 120_000 },
    async () => {
      const trajectoryUri = pathToFileURL(hugeTrajectory).href;
      // The push follows a read of 4 GiB, which a loaded 2-core machine takes well over the 10 s default
      // wait to make: this test is about what is pushed, never how soon.
      const pushed = client.nextPublished(trajectoryUri, () => true, 100_000);
      const result = await listRollouts();
      const verdicts = new Map(
        result.jobs.flatMap((listedJob) => listedJob.rollouts).map((rollout) => [rollout.root, rollout.verdict]),
      );
      assert.equal(verdicts.get(hugeRoot), 'incomplete');
      assert.deepEqual(
        (await pushed).diagnostics.map((diagnostic) => diagnostic.code),
        ['artifact-too-large'],
      );
      const cli = spawnSync(process.execPath, [builtCli, 'check', normalRoot, '--format', 'json'], {
        cwd: repoRoot,
        encoding: 'utf8',
        timeout: 60_000,
      });
      const cliVerdict = (JSON.parse(cli.stdout) as { rollouts: { verdict: string }[] }).rollouts[0]?.verdict;
      assert.equal(verdicts.get(normalRoot), cliVerdict);
    },
  );
});
