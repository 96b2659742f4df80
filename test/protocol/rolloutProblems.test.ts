/**
 * The problems of a whole rollout reach the client wherever they lie: opening one file of a rollout
 * pushes the diagnostics of its other files (the ones the editor does not hold), the same the CLI
 * reports; a file that opens is pulled instead; the last file that closes takes the pushed ones with
 * it. On request, every rollout of the workspace up to a bound, with a notice past it.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import {
  DidChangeWatchedFilesNotification,
  FileChangeType,
  type Diagnostic,
  type PublishDiagnosticsParams,
} from 'vscode-languageserver-protocol/node';
import { shownDocumentsNotification, workspaceProblemsRequest } from '../../shared/src/protocol';
import { LspTestClient } from '../support/lspClient';
import { builtCli, faultyRollout, healthyRollout, repoRoot, temporaryFolder } from '../support/repo';

const folder = temporaryFolder();
after(() => folder.remove());

/** A copy of `source` as rollout `name` of job `job` in the temporary folder; returns its root. */
function copyAsRollout(source: string, jobs: string, job: string, name: string): string {
  const root = join(folder.path, jobs, job, name);
  mkdirSync(join(folder.path, jobs, job), { recursive: true });
  cpSync(source, root, { recursive: true });
  return root;
}

const severityNames = ['', 'error', 'warning', 'information', 'hint'] as const;

/** `file severity` → count, from the CLI's JSON report of the rollout: what every editor view must agree with. */
function cliCounts(root: string): Map<string, number> {
  const run = spawnSync(process.execPath, [builtCli, 'check', root, '--format', 'json'], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.ok(run.status === 0 || run.status === 1, `the CLI ran: ${run.stderr}`);
  const report = JSON.parse(run.stdout) as {
    rollouts: { root: string; diagnostics: { file: string; severity: string }[] }[];
  };
  const counts = new Map<string, number>();
  for (const rollout of report.rollouts) {
    for (const diagnostic of rollout.diagnostics) {
      const key = `${join(root, diagnostic.file)} ${diagnostic.severity}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  return counts;
}

function countsOf(entries: Iterable<readonly [string, readonly Diagnostic[]]>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const [path, diagnostics] of entries) {
    for (const diagnostic of diagnostics) {
      const key = `${path} ${severityNames[diagnostic.severity ?? 1]}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  return counts;
}

function sorted(counts: Map<string, number>): [string, number][] {
  return [...counts].sort(([a], [b]) => a.localeCompare(b));
}

function pushedUnder(client: LspTestClient, root: string): [string, Diagnostic[]][] {
  const prefix = pathToFileURL(root).href + '/';
  return [...client.published.values()]
    .filter((params) => params.uri.startsWith(prefix))
    .map((params) => [decodeURIComponent(params.uri.slice('file://'.length)), params.diagnostics]);
}

function codesOf(params: PublishDiagnosticsParams | undefined): string[] {
  return (params?.diagnostics ?? []).map((diagnostic) => String(diagnostic.code));
}

describe('the problems of a whole rollout', () => {
  it('pushes the findings of the files not open when one file is open, as the CLI reports them; pulls a file that opens; clears them when the last file closes', async () => {
    const root = copyAsRollout(faultyRollout, 'opened', '2026-08-22__10-00-00', 'untrusted');
    const trajectory = pathToFileURL(join(root, 'trajectory/acp_trajectory.jsonl')).href;
    const result = pathToFileURL(join(root, 'result.json')).href;
    const actions = pathToFileURL(join(root, 'benchguard/action_records.jsonl')).href;
    const { client } = await LspTestClient.start({ pull: true, settings: {}, workspaceFolders: [folder.path] });
    try {
      await client.open(trajectory, readFileSync(join(root, 'trajectory/acp_trajectory.jsonl'), 'utf8'));
      const pulled = await client.pullFull(trajectory);
      // The reasons the rollout is untrusted lie in files the user did not open.
      await client.nextPublished(result, (params) => codesOf(params).includes('untrusted-reward'));
      await client.nextPublished(actions, (params) => codesOf(params).includes('masked-exit-status'));

      const expected = JSON.stringify(sorted(cliCounts(root)));
      const seen = () =>
        JSON.stringify(
          sorted(
            countsOf([...pushedUnder(client, root), [join(root, 'trajectory/acp_trajectory.jsonl'), pulled.items]]),
          ),
        );
      await client
        .until(
          () => seen() === expected,
          'pushed and pulled diagnostics that count as the CLI does, per file and severity',
        )
        .catch(() => assert.equal(seen(), expected));

      // Opened, result.json is pulled: its pushed diagnostics are cleared so that none are shown twice.
      await client.open(result, readFileSync(join(root, 'result.json'), 'utf8'), 'json');
      await client.nextPublished(result, (params) => params.diagnostics.length === 0);
      assert.ok((await client.pullFull(result)).items.some((diagnostic) => diagnostic.code === 'untrusted-reward'));

      // Closed while the trajectory stays open, it is pushed again.
      await client.close(result);
      await client.nextPublished(result, (params) => codesOf(params).includes('untrusted-reward'));

      // The last open file closes: nothing of the rollout stays behind, stale.
      await client.close(trajectory);
      await client.until(
        () => pushedUnder(client, root).every(([, diagnostics]) => diagnostics.length === 0),
        'every pushed diagnostic of the rollout cleared',
      );
    } finally {
      await client.stop();
    }
  });

  it('takes the documents the client shows in tabs, not those it keeps synchronised, for the files it pulls', async () => {
    const root = copyAsRollout(faultyRollout, 'tabs', '2026-08-22__10-00-00', 'untrusted');
    const trajectory = pathToFileURL(join(root, 'trajectory/acp_trajectory.jsonl')).href;
    const result = pathToFileURL(join(root, 'result.json')).href;
    const { client } = await LspTestClient.start({ pull: true, settings: {}, workspaceFolders: [folder.path] });
    try {
      await client.open(trajectory, readFileSync(join(root, 'trajectory/acp_trajectory.jsonl'), 'utf8'));
      await client.open(result, readFileSync(join(root, 'result.json'), 'utf8'), 'json');
      await client.pullFull(trajectory);
      // result.json is synchronised but its tab closed (VS Code keeps such documents for minutes): the
      // client no longer pulls it, so its problems are pushed.
      await client.connection.sendNotification(shownDocumentsNotification, { uris: [trajectory] });
      await client.nextPublished(result, (params) => codesOf(params).includes('untrusted-reward'));
      // Its tab again: pulled, so no longer pushed.
      await client.connection.sendNotification(shownDocumentsNotification, { uris: [trajectory, result] });
      await client.nextPublished(result, (params) => params.diagnostics.length === 0);
      // No tab shows the rollout: nothing of it stays pushed, though both documents are still synchronised.
      await client.connection.sendNotification(shownDocumentsNotification, { uris: [result] });
      await client.nextPublished(trajectory, (params) => params.diagnostics.length > 0);
      await client.connection.sendNotification(shownDocumentsNotification, { uris: [] });
      await client.until(
        () =>
          pushedUnder(client, root).every(([, diagnostics]) => diagnostics.length === 0) &&
          pushedUnder(client, root).length > 0,
        'every pushed diagnostic of the rollout cleared',
      );
    } finally {
      await client.stop();
    }
  });

  it('shows the problems of every rollout of the workspace on request, up to the bound, with a notice past it, kept up to date on disk changes', async () => {
    const older = copyAsRollout(faultyRollout, 'jobs', '2026-08-21__09-00-00', 'older');
    const newer = copyAsRollout(faultyRollout, 'jobs', '2026-08-23__09-00-00', 'newer');
    const healthy = copyAsRollout(healthyRollout, 'jobs', '2026-08-23__09-00-00', 'healthy');
    const { client } = await LspTestClient.start({ pull: true, settings: {}, workspaceFolders: [folder.path] });
    try {
      const jobs = join(folder.path, 'jobs');
      const bounded = await client.connection.sendRequest(workspaceProblemsRequest, {
        folders: [jobs],
        maxRollouts: 2,
      });
      assert.equal(bounded.shown, 2);
      assert.equal(bounded.found, 3);
      assert.match(bounded.notice ?? '', /2 of 3 rollouts/);
      assert.match(bounded.notice ?? '', /rolloutEvidence\.workspaceProblems\.maxRollouts/);
      // The latest job's rollouts are shown, with what the CLI says of them; the older job's are not.
      const newerByCli = JSON.stringify(sorted(cliCounts(newer)));
      await client.until(
        () => JSON.stringify(sorted(countsOf(pushedUnder(client, newer)))) === newerByCli,
        'the newer rollout pushed as the CLI reports it',
      );
      assert.deepEqual(sorted(countsOf(pushedUnder(client, healthy))), sorted(cliCounts(healthy)));
      assert.deepEqual(pushedUnder(client, older), []);

      const all = await client.connection.sendRequest(workspaceProblemsRequest, { folders: [jobs], maxRollouts: 10 });
      assert.deepEqual([all.shown, all.found, all.notice], [3, 3, undefined]);
      const olderByCli = JSON.stringify(sorted(cliCounts(older)));
      await client.until(
        () => JSON.stringify(sorted(countsOf(pushedUnder(client, older)))) === olderByCli,
        'the older rollout pushed as the CLI reports it',
      );

      // A record written on disk reaches the pushed diagnostics of a rollout nobody opened.
      const actionsPath = join(older, 'benchguard/action_records.jsonl');
      appendFileSync(actionsPath, '\n{"event_type": 7}\n');
      const changedByCli = JSON.stringify(sorted(cliCounts(older)));
      assert.notEqual(changedByCli, olderByCli);
      await client.connection.sendNotification(DidChangeWatchedFilesNotification.type, {
        changes: [{ uri: pathToFileURL(actionsPath).href, type: FileChangeType.Changed }],
      });
      await client.until(
        () => JSON.stringify(sorted(countsOf(pushedUnder(client, older)))) === changedByCli,
        'the older rollout pushed again after its action records changed',
      );

      // Asked again with a smaller bound, the rollouts left out are cleared.
      await client.connection.sendRequest(workspaceProblemsRequest, { folders: [jobs], maxRollouts: 2 });
      await client.until(
        () => pushedUnder(client, older).every(([, diagnostics]) => diagnostics.length === 0),
        'the older rollout cleared',
      );

      // A rollout folder deleted takes its problems with it, though the event names only the folder.
      rmSync(newer, { recursive: true });
      await client.connection.sendNotification(DidChangeWatchedFilesNotification.type, {
        changes: [{ uri: pathToFileURL(newer).href, type: FileChangeType.Deleted }],
      });
      await client.until(
        () => pushedUnder(client, newer).every(([, diagnostics]) => diagnostics.length === 0),
        'the deleted rollout cleared',
      );
    } finally {
      await client.stop();
    }
  });

  it('refuses folders outside the workspace', async () => {
    const { client } = await LspTestClient.start({ pull: true, settings: {}, workspaceFolders: [folder.path] });
    try {
      await assert.rejects(
        client.connection.sendRequest(workspaceProblemsRequest, { folders: [repoRoot], maxRollouts: 1 }),
      );
    } finally {
      await client.stop();
    }
  });
});
