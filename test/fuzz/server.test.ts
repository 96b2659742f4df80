/**
 * The fuzz property through the real language server over LSP: a couple of hundred seeded mutated
 * artifacts opened as documents in their rollouts, with malformed messages between them (a uri that is
 * not a string, null or array params to the custom requests, relative folders to walk). The server
 * must answer every pull, give each document's rollout the verdict the in-process engine gives the same
 * input, never answer InternalError, and still answer a valid request for an untouched document with
 * the same diagnostics as before.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { DocumentDiagnosticReportKind, ErrorCodes, ResponseError } from 'vscode-languageserver-protocol/node';
import { artifactKindInfo } from '../../shared/src/layout';
import { fixtureMarkerFile } from '../../shared/src/scaffold';
import { writeTree } from '../support/files';
import { LspTestClient } from '../support/lspClient';
import { faultyRollout, temporaryFolder } from '../support/repo';
import { loadCorpus } from './corpus';
import { FuzzWorkspace } from './engineRun';
import { drawInput } from './fuzzInput';
import { fuzzSettings, inputRandom } from './inputs';

/** Where the server's inputs are numbered from: apart from the in-process and the CLI runs'. */
const firstIndex = 2_000_000_000;
/** A malformed message after every this many documents. */
const malformedEvery = 5;

type Malformed = { readonly what: string } & (
  | { readonly notification: string; readonly params: unknown }
  | { readonly request: string; readonly params: unknown; readonly mustFail?: boolean }
);

/** Messages no well-behaved client sends; each is tried in turn. */
const malformedMessages: readonly Malformed[] = [
  {
    what: 'didOpen whose uri is a number',
    notification: 'textDocument/didOpen',
    params: { textDocument: { uri: 42, languageId: 'jsonl', version: 1, text: '{}' } },
  },
  { what: 'didOpen without a textDocument', notification: 'textDocument/didOpen', params: { textDocument: null } },
  {
    what: 'didOpen whose text is a number',
    notification: 'textDocument/didOpen',
    params: {
      textDocument: {
        uri: 'file:///virtual/x/trajectory/acp_trajectory.jsonl',
        languageId: 'jsonl',
        version: 1,
        text: 5,
      },
    },
  },
  {
    what: 'didChange of a document never opened',
    notification: 'textDocument/didChange',
    params: {
      textDocument: { uri: 'file:///virtual/never/opened.jsonl', version: 2 },
      contentChanges: [{ text: '{}' }],
    },
  },
  {
    what: 'didChange whose contentChanges is null',
    notification: 'textDocument/didChange',
    params: {
      textDocument: { uri: 'file:///virtual/x/trajectory/acp_trajectory.jsonl', version: 3 },
      contentChanges: null,
    },
  },
  {
    what: 'didClose whose uri is an object',
    notification: 'textDocument/didClose',
    params: { textDocument: { uri: {} } },
  },
  {
    what: 'diagnostic pull without a textDocument',
    request: 'textDocument/diagnostic',
    params: { textDocument: null },
  },
  {
    what: 'documentSymbol whose uri is a number',
    request: 'textDocument/documentSymbol',
    params: { textDocument: { uri: 7 } },
  },
  {
    what: 'hover without a position',
    request: 'textDocument/hover',
    params: { textDocument: { uri: 'file:///virtual/x/trajectory/acp_trajectory.jsonl' }, position: null },
  },
  { what: 'probeContext with null params', request: 'rolloutEvidence/probeContext', params: null },
  { what: 'probeContext with array params', request: 'rolloutEvidence/probeContext', params: [] },
  { what: 'probeContext whose uri is a number', request: 'rolloutEvidence/probeContext', params: { uri: 5 } },
  { what: 'probeTargets with null params', request: 'rolloutEvidence/probeTargets', params: null },
  { what: 'probeTargets with array params', request: 'rolloutEvidence/probeTargets', params: [1] },
  { what: 'runProbe with null params', request: 'rolloutEvidence/runProbe', params: null, mustFail: true },
  { what: 'runProbe with array params', request: 'rolloutEvidence/runProbe', params: [], mustFail: true },
  { what: 'rollouts with null params', request: 'rolloutEvidence/rollouts', params: null },
  { what: 'rollouts with array params', request: 'rolloutEvidence/rollouts', params: [] },
  {
    what: 'rollouts of the empty folder name',
    request: 'rolloutEvidence/rollouts',
    params: { folders: [''], maxRollouts: 5 },
    mustFail: true,
  },
  {
    what: 'rollouts of a relative folder',
    request: 'rolloutEvidence/rollouts',
    params: { folders: ['examples'], maxRollouts: 5 },
    mustFail: true,
  },
  {
    what: 'rollouts whose folders is a string',
    request: 'rolloutEvidence/rollouts',
    params: { folders: '/', maxRollouts: 5 },
  },
  { what: 'timeline with null params', request: 'rolloutEvidence/timeline', params: null },
  { what: 'timeline with array params', request: 'rolloutEvidence/timeline', params: [] },
  { what: 'timeline whose root is a number', request: 'rolloutEvidence/timeline', params: { root: 5 } },
  { what: 'scaffoldFiles with null params', request: 'rolloutEvidence/scaffoldFiles', params: null },
  { what: 'scaffoldFiles with array params', request: 'rolloutEvidence/scaffoldFiles', params: [] },
];

const withTimeout = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([
    promise,
    new Promise<T>((_, reject) =>
      setTimeout(() => reject(new Error(`no answer in ${ms / 1000} s to ${what}`)), ms).unref(),
    ),
  ]);

describe('fuzz property, through the language server', () => {
  let client: LspTestClient;
  const scratch = temporaryFolder('rollout-evidence-fuzz-server-');
  const workspace = new FuzzWorkspace(loadCorpus());
  // An untouched document whose diagnostics must stay what they were.
  const sentinelUri = pathToFileURL(join(faultyRollout, 'trajectory/acp_trajectory.jsonl')).href;
  let sentinelCount = 0;

  /** A server of its own, with the sentinel open: at the start, and after one is found stuck or poisoned. */
  const startServer = async () => {
    ({ client } = await LspTestClient.start({ pull: true, settings: {} }));
    await client.open(sentinelUri, readFileSync(join(faultyRollout, 'trajectory/acp_trajectory.jsonl'), 'utf8'));
    return (await client.pullFull(sentinelUri)).items.length;
  };
  let restarts = 0;
  /** Reported once as a failure; the rest of the inputs go to a fresh server rather than waiting out one that no longer answers. */
  const restartServer = async () => {
    restarts++;
    client.process.kill('SIGKILL');
    await startServer();
  };

  before(async () => {
    sentinelCount = await startServer();
  });
  after(async () => {
    workspace.remove();
    scratch.remove();
    if (client) await client.stop();
  });

  it(
    'mutated documents and malformed messages: every pull answered, the in-process verdict, no InternalError, no poisoned state',
    { timeout: 20 * 60 * 1000 },
    async (t) => {
      assert.ok(sentinelCount > 0, 'the sentinel document has diagnostics to lose');
      const settings = fuzzSettings(0);
      const count = Number(process.env.ROLLOUT_EVIDENCE_FUZZ_SERVER_INPUTS ?? 200);
      const failures: string[] = [];
      let malformedSent = 0;
      for (let index = firstIndex; index < firstIndex + count; index++) {
        const { bundle, target, mutation } = drawInput(workspace, inputRandom(settings.seed, index), settings.operator);
        // The server is started with default settings: bundles checked with other options are the other runs' part.
        if (
          bundle.corpus.rules.allowOracleWithoutLlm ||
          bundle.corpus.rules.allowNativeSubscriptionWithoutLlm ||
          bundle.corpus.maxProblems !== 1000
        )
          continue;
        const expected = workspace.check(bundle, target, mutation.bytes);
        const root = join(scratch.path, 'jobs', String(index));
        writeTree(root, Object.fromEntries(bundle.corpus.files));
        writeFileSync(join(root, target.name), mutation.bytes);
        // A fixture judged as one in-process is made one out here by the scaffold's marker.
        if (bundle.corpus.rules.fixtureBundle) writeFileSync(join(root, fixtureMarkerFile), '{}\n');
        const uri = pathToFileURL(join(root, target.name)).href;
        const name = `input ${index} (bundle ${bundle.corpus.name}, ${target.name}, ${mutation.operator}: ${mutation.description})`;
        try {
          await client.open(
            uri,
            mutation.bytes.toString('utf8'),
            artifactKindInfo(target.kind).format === 'json' ? 'json' : 'jsonl',
          );
          const report = await withTimeout(client.pull(uri), 120_000, `the pull of ${name}`);
          if (report.kind !== DocumentDiagnosticReportKind.Full)
            failures.push(`${name}: the first pull is not a full report`);
          const validated = await client.until(
            () => client.reports.find((entry) => entry.uri === uri),
            'the validation report',
            60_000,
          );
          // The server reads the document's text; bytes that are not UTF-8 reach it decoded, so only UTF-8 inputs compare.
          const comparable = expected.ok && Buffer.from(mutation.bytes.toString('utf8')).equals(mutation.bytes);
          if (comparable && validated.verdict !== expected.verdict)
            failures.push(`${name}: the server says ${validated.verdict}, in-process ${expected.verdict}`);
          await client.close(uri);
        } catch (error) {
          failures.push(`${name}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
          await restartServer();
        }
        if ((index - firstIndex) % malformedEvery !== malformedEvery - 1) continue;
        const message = malformedMessages[malformedSent++ % malformedMessages.length]!;
        const problem = await sendMalformed(client, message);
        if (problem) failures.push(`${message.what}: ${problem}`);
        try {
          const sentinel = await withTimeout(client.pullFull(sentinelUri), 60_000, 'the sentinel pull');
          if (sentinel.items.length !== sentinelCount) {
            failures.push(
              `after ${message.what}: the untouched document has ${sentinel.items.length} diagnostics, not ${sentinelCount}`,
            );
            await restartServer();
          }
        } catch (error) {
          failures.push(
            `after ${message.what}: the untouched document's pull failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
          );
          await restartServer();
        }
      }
      const summary = `fuzz (server): seed ${settings.seed}, ${count} inputs (ROLLOUT_EVIDENCE_FUZZ_SERVER_INPUTS) from index ${firstIndex}, ${malformedSent} malformed messages, ${failures.length} failure(s), ${restarts} server restart(s)`;
      t.diagnostic(summary);
      console.log(summary);
      assert.equal(client.process.exitCode, null, 'the server is still running');
      assert.deepEqual(failures, [], failures.join('\n'));
    },
  );
});

/** Sends one malformed message; what was wrong with the server's answer, if anything. */
async function sendMalformed(client: LspTestClient, message: Malformed): Promise<string | undefined> {
  if ('notification' in message) {
    await client.connection.sendNotification(message.notification, message.params);
    return undefined;
  }
  try {
    await withTimeout(client.connection.sendRequest(message.request, message.params), 60_000, message.what);
    return message.mustFail ? 'answered as if valid' : undefined;
  } catch (error) {
    if (error instanceof ResponseError && error.code === ErrorCodes.InternalError)
      return `answered InternalError: ${error.message.split('\n')[0]}`;
    if (!(error instanceof ResponseError)) return error instanceof Error ? error.message.split('\n')[0] : String(error);
    return undefined;
  }
}
