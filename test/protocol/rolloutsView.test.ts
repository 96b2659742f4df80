/**
 * The Rollouts view's request against the real server: jobs, verdicts and problem counts as the CLI
 * computes them for the same rollouts, the notice when the listing is bounded, cancellation, and a
 * trajectory over VS Code's 50 MB limit analysed from disk with its diagnostics pushed, and cleared
 * when its rollout is listed no more.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, createWriteStream, readFileSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { CancellationTokenSource, ErrorCodes, LSPErrorCodes, ResponseError } from 'vscode-languageserver-protocol/node';
import { rolloutsRequest, type RolloutsParams } from '../../shared/src/protocol';
import {
  editorSyncLimitBytes,
  type ProblemCounts,
  type RolloutsResult,
  type RolloutSummary,
} from '../../shared/src/rollouts';
import { LspTestClient } from '../support/lspClient';
import { builtCli, examplesDir, repoRoot, temporaryFolder } from '../support/repo';

const fixturesDir = join(repoRoot, 'test/fixtures/bundles');

interface CliBundle {
  readonly root: string;
  readonly loose: boolean;
  readonly verdict: string | null;
  readonly files: readonly { readonly file: string; readonly omitted?: number }[];
  readonly diagnostics: readonly { readonly file: string; readonly severity: keyof ProblemCounts }[];
}

/** The CLI's JSON report of the same folders, with absolute roots. */
function checkedByCli(folders: readonly string[]): CliBundle[] {
  const run = spawnSync(process.execPath, [builtCli, 'check', ...folders, '--format', 'json'], {
    cwd: repoRoot,
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.ok(run.status === 0 || run.status === 1, `the CLI ran: ${run.stderr}`);
  const report = JSON.parse(run.stdout) as { rollouts: CliBundle[] };
  return report.rollouts
    .filter((bundle) => !bundle.loose)
    .map((bundle) => ({ ...bundle, root: join(repoRoot, bundle.root) }));
}

function countsOf(severities: readonly (keyof ProblemCounts)[]): ProblemCounts {
  const counts = { error: 0, warning: 0, information: 0, hint: 0 };
  for (const severity of severities) counts[severity]++;
  return counts;
}

function allRollouts(result: RolloutsResult): RolloutSummary[] {
  return result.jobs.flatMap((job) => job.rollouts);
}

describe('the Rollouts view request', () => {
  let client: LspTestClient;
  const request = (params: RolloutsParams, token?: CancellationTokenSource) =>
    client.connection.sendRequest(rolloutsRequest, params, token?.token);

  before(async () => {
    // The examples and fixtures, and the temporary folders the tests write rollouts into.
    client = (await LspTestClient.start({ pull: true, settings: {}, workspaceFolders: [repoRoot, tmpdir()] })).client;
  });
  after(async () => {
    await client.stop();
  });

  it('groups the rollouts into the jobs that hold them, with the verdicts and problem counts the CLI finds', async () => {
    const folders = [examplesDir, fixturesDir];
    const expected = checkedByCli(folders);
    assert.ok(new Set(expected.map((bundle) => bundle.verdict)).size >= 3, 'the rollouts cover several verdicts');
    assert.ok(
      expected.every((bundle) => bundle.files.every((file) => !file.omitted)),
      'nothing is left out, so listed diagnostics are all the problems',
    );

    const result = await request({ folders, maxRollouts: 1000 });
    assert.equal(result.notice, undefined);
    assert.deepEqual(result.ioErrors, []);
    assert.equal(result.found, expected.length);
    assert.deepEqual(
      result.jobs.map((job) => job.folder),
      [...new Set(expected.map((bundle) => dirname(bundle.root)))].sort((a, b) => a.localeCompare(b)),
    );
    for (const job of result.jobs) for (const rollout of job.rollouts) assert.equal(dirname(rollout.root), job.folder);

    const listed = new Map(allRollouts(result).map((rollout) => [rollout.root, rollout]));
    for (const bundle of expected) {
      const rollout = listed.get(bundle.root);
      assert.ok(rollout, `${bundle.root} is listed`);
      assert.equal(rollout.verdict, bundle.verdict, bundle.root);
      assert.deepEqual(
        rollout.problems,
        countsOf(bundle.diagnostics.map((d) => d.severity)),
        `problems of ${bundle.root}`,
      );
      for (const file of rollout.files) {
        const inBundle = relative(bundle.root, file.path).split('\\').join('/');
        assert.deepEqual(
          file.problems,
          countsOf(bundle.diagnostics.filter((d) => d.file === inBundle).map((d) => d.severity)),
          `problems of ${file.path}`,
        );
      }
      const ownFiles = rollout.files
        .filter((file) => file.kind !== null)
        .map((file) => relative(bundle.root, file.path).split('\\').join('/'));
      assert.deepEqual(ownFiles.sort(), bundle.files.map((file) => file.file).sort(), `files of ${bundle.root}`);
    }
  });

  it('lists at most the rollouts asked for, and says how many more there are', async () => {
    const result = await request({ folders: [fixturesDir], maxRollouts: 2 });
    const found = checkedByCli([fixturesDir]).length;
    assert.equal(allRollouts(result).length, 2);
    assert.equal(result.found, found);
    assert.match(result.notice ?? '', new RegExp(`Listing 2 of ${found} rollouts.* ${found - 2} more were found`));
  });

  it('names a folder that does not exist instead of failing', async () => {
    const missing = join(examplesDir, 'no-such-folder');
    const result = await request({ folders: [missing, examplesDir], maxRollouts: 1000 });
    assert.equal(result.ioErrors.length, 1);
    assert.match(result.ioErrors[0]!, /no-such-folder/);
    assert.equal(allRollouts(result).length, checkedByCli([examplesDir]).length);
  });

  it('answers malformed params from another editor with a clear error, and lists again afterwards', async () => {
    for (const [params, expected] of [
      [{ maxRollouts: 10 }, /"folders" must be an array/],
      [{ folders: [examplesDir, 3], maxRollouts: 10 }, /"folders\[1\]" must be a string/],
      [{ folders: [examplesDir] }, /"maxRollouts" must be a whole number/],
      [{ folders: [examplesDir], maxRollouts: -1 }, /"maxRollouts" must be a whole number/],
    ] as const) {
      await assert.rejects(
        client.connection.sendRequest(rolloutsRequest.method, params),
        (error: { code?: number; message?: string }) =>
          error.code === ErrorCodes.InvalidParams && expected.test(error.message ?? ''),
      );
    }
    assert.equal(
      allRollouts(await request({ folders: [examplesDir], maxRollouts: 1000 })).length,
      checkedByCli([examplesDir]).length,
    );
  });

  it('follows a rollout that is still being written', async () => {
    const folder = temporaryFolder();
    try {
      const root = join(folder.path, 'jobs/2026-09-01__09-00-00/still-running__0001');
      cpSync(join(fixturesDir, 'healthy'), root, { recursive: true });
      const verdictNow = async () =>
        allRollouts(await request({ folders: [folder.path], maxRollouts: 10 }))[0]!.verdict;
      assert.equal(await verdictNow(), 'trusted');
      appendFileSync(join(root, 'trajectory/acp_trajectory.jsonl'), '{"type":"agent_message","text":"still wri');
      assert.equal(await verdictNow(), 'incomplete', 'a last line not yet ended makes the evidence not final');
    } finally {
      folder.remove();
    }
  });

  describe('with a trajectory over the size VS Code hands to extensions', () => {
    const folder = temporaryFolder();
    const root = join(folder.path, 'jobs/2026-09-01__12-00-00/big__0001');
    const trajectory = join(root, 'trajectory/acp_trajectory.jsonl');
    const brokenLine = 3;
    after(() => folder.remove());

    before(async () => {
      cpSync(join(fixturesDir, 'healthy'), root, { recursive: true });
      const lines = readFileSync(trajectory, 'utf8').trimEnd().split('\n');
      // Streamed out, so the test never holds 50 MB: the healthy rows, a trailing comma on line 4, then filler rows.
      const out = createWriteStream(trajectory);
      const write = async (text: string) => {
        if (!out.write(text)) await once(out, 'drain');
      };
      for (const line of lines) await write(`${line}\n`);
      await write('{"type":"agent_message","text":"cut here",}\n');
      const filler = `${JSON.stringify({ type: 'agent_message', text: 'x'.repeat(4000) })}\n`;
      for (let written = 0; written <= editorSyncLimitBytes; written += filler.length * 64)
        await write(filler.repeat(64));
      await new Promise<void>((resolve, reject) =>
        out.end((error?: Error | null) => (error ? reject(error) : resolve())),
      );
      assert.ok(statSync(trajectory).size > editorSyncLimitBytes);
    });

    it('stops when cancelled, and answers in full when asked again', async () => {
      const token = new CancellationTokenSource();
      const cancelled = request({ folders: [folder.path], maxRollouts: 10 }, token);
      token.cancel();
      await assert.rejects(
        cancelled,
        (error: unknown) => error instanceof ResponseError && error.code === LSPErrorCodes.RequestCancelled,
      );
      assert.equal(allRollouts(await request({ folders: [folder.path], maxRollouts: 10 })).length, 1);
    });

    it('analyses it from disk, and pushes its diagnostics for its URI', async () => {
      const uri = pathToFileURL(trajectory).href;
      const result = await request({ folders: [folder.path], maxRollouts: 10 });
      const file = allRollouts(result)[0]!.files.find((candidate) => candidate.path === trajectory)!;
      assert.equal(file.tooLargeForEditor, true);
      assert.equal(file.problems.error, 1);

      const published = await client.nextPublished(uri, () => true);
      assert.deepEqual(
        published.diagnostics.map((d) => [d.code, d.range.start.line]),
        [['jsonl-syntax', brokenLine]],
      );
      const expected = checkedByCli([root]);
      assert.deepEqual(
        expected[0]!.diagnostics.filter((d) => d.file === 'trajectory/acp_trajectory.jsonl').map((d) => d.severity),
        published.diagnostics.map(() => 'error'),
        'the CLI finds the same problem in the file',
      );
    });

    it('clears them when the rollout is listed no more, past the limit or out of the folders searched', async () => {
      const uri = pathToFileURL(trajectory).href;
      const pushedAgain = async () => {
        await request({ folders: [folder.path], maxRollouts: 10 });
        await client.nextPublished(uri, (params) => params.diagnostics.length === 1);
      };
      assert.equal(client.published.get(uri)?.diagnostics.length, 1, 'pushed by the listing before');

      const pastTheLimit = await request({ folders: [folder.path], maxRollouts: 0 });
      assert.equal(pastTheLimit.found, 1);
      assert.equal(allRollouts(pastTheLimit).length, 0);
      await client.nextPublished(uri, (params) => params.diagnostics.length === 0);
      await pushedAgain();

      await request({ folders: [examplesDir], maxRollouts: 10 });
      await client.nextPublished(uri, (params) => params.diagnostics.length === 0);
      await pushedAgain();
    });

    it('pushes nothing again while the rollout is unchanged, and clears them when the file is opened', async () => {
      const uri = pathToFileURL(trajectory).href;
      const lastPush = client.published.get(uri);
      assert.ok(lastPush);
      await request({ folders: [folder.path], maxRollouts: 10 });
      // The answer comes after any push the request made, on the same connection: a new push would be here by now.
      assert.equal(client.published.get(uri), lastPush);
      await client.open(uri, '{"type":"agent_message","text":"now small"}\n');
      await client.nextPublished(uri, (params) => params.diagnostics.length === 0);
    });
  });
});
