/**
 * The probe as the extension asks for it: the real language server over LSP, a real docker container.
 * The record line it returns, appended to the open action records, is what the quiescence rule accepts.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import { CancellationTokenSource, ErrorCodes, ResponseError } from 'vscode-languageserver-protocol/node';
import { describeTranscriptEntry } from '../../shared/src/probe';
import {
  probeContextRequest,
  probeTargetsRequest,
  probeTranscriptNotification,
  runProbeRequest,
  type ProbeTranscriptParams,
  type RunProbeParams,
} from '../../shared/src/protocol';
import { requireEngine, startContainer } from '../support/containers';
import { jsonl, writeTree } from '../support/files';
import { LspTestClient } from '../support/lspClient';
import { isSandbox, sandboxUid, startProcess } from '../support/probe';
import { temporaryFolder } from '../support/repo';

const timeout = 120_000;
const folder = temporaryFolder();
after(() => folder.remove());

const root = join(folder.path, 'rollout');
const actionsPath = join(root, 'benchguard/action_records.jsonl');
const killLine = jsonl({
  event_type: 'SandboxExec',
  phase: 'Harden',
  service: 'main',
  status: 'ok',
  command_preview: 'pkill -9 -u sandbox',
  return_code: 0,
});
writeTree(root, {
  'result.json': JSON.stringify({ task_name: 'probe-demo', trial_name: 't', rewards: { reward: 1 } }),
  'config.json': JSON.stringify({ sandbox_user: 'sandbox' }),
  'benchguard/action_records.jsonl': killLine,
});
const actions = pathToFileURL(actionsPath).href;

async function quiescenceCodes(client: LspTestClient): Promise<string[]> {
  const report = await client.pullFull(actions);
  return report.items.map((diagnostic) => String(diagnostic.code)).filter((code) => code.includes('quiescence'));
}

describe('probe requests to the language server', () => {
  it(
    'gives the rollout context, lists the container, runs the probe with its transcript, and the record proves quiescence',
    { timeout },
    async () => {
      requireEngine('docker');
      const container = await startContainer('docker');
      // The server runs the probe only for a client that says the workspace is trusted.
      const { client } = await LspTestClient.start({ pull: true, initializationOptions: { workspaceTrusted: true } });
      try {
        const sleeper = await startProcess(container, 'sandbox', 'exec sleep 100040', isSandbox('sleep'));
        await client.open(actions, killLine);
        assert.deepEqual(await quiescenceCodes(client), ['quiescence-unproven']);

        assert.deepEqual(await client.connection.sendRequest(probeContextRequest, { uri: actions }), {
          rolloutRoot: root,
          actionRecords: actionsPath,
          sandboxUser: 'sandbox',
        });
        assert.deepEqual(await client.connection.sendRequest(probeContextRequest, {}), {
          rolloutRoot: null,
          actionRecords: null,
        });

        const listing = await client.connection.sendRequest(probeTargetsRequest, { dockerAccess: 'auto' });
        assert.ok(
          listing.containers.some((entry) => entry.engine === 'docker' && entry.name === container.name),
          JSON.stringify(listing),
        );

        const transcript: ProbeTranscriptParams[] = [];
        client.connection.onNotification(probeTranscriptNotification, (params) => void transcript.push(params));
        const params: RunProbeParams = {
          transcriptId: 'run-1',
          request: {
            target: { kind: 'docker', name: container.name },
            user: 'sandbox',
            mode: 'harden',
            timeoutSeconds: 60,
            graceSeconds: 1,
          },
        };
        const { outcome, recordLine } = await client.connection.sendRequest(runProbeRequest, params);
        assert.equal(outcome.returnCode, 0, outcome.reason);
        assert.deepEqual(
          outcome.signals.map((sent) => `${sent.signal} ${sent.pid}`),
          [`TERM ${sleeper.pid}`],
        );
        assert.deepEqual(
          transcript.map((entry) => entry.entry),
          outcome.transcript,
          'every transcript entry was streamed, in order',
        );
        assert.ok(transcript.every((entry) => entry.transcriptId === 'run-1'));

        const record = JSON.parse(recordLine) as Record<string, unknown>;
        assert.equal(record['uid'], sandboxUid);
        // A real probe's record says so, with a digest of the transcript it streamed, as the output shows it.
        assert.equal(record['provenance'], 'probe');
        const shown = transcript.map((entry) => `${describeTranscriptEntry(entry.entry)}\n`).join('');
        assert.equal(record['transcript_sha256'], createHash('sha256').update(shown).digest('hex'));
        await client.replace(actions, `${killLine}${recordLine}\n`, 2);
        assert.deepEqual(await quiescenceCodes(client), [], 'the recorded observation proves quiescence');
      } finally {
        await client.stop();
        await container.remove();
      }
    },
  );

  it(
    'refuses a bad request with a message for the user, and a cancelled probe could not observe',
    { timeout },
    async () => {
      requireEngine('docker');
      const container = await startContainer('docker', { user: String(sandboxUid), init: false });
      const { client } = await LspTestClient.start({ pull: true, initializationOptions: { workspaceTrusted: true } });
      try {
        const request = {
          target: { kind: 'docker', name: container.name },
          user: '0',
          mode: 'harden',
          timeoutSeconds: 60,
        } as const;
        await assert.rejects(
          client.connection.sendRequest(runProbeRequest, { transcriptId: 'refused', request }),
          (error: unknown) => {
            assert.ok(error instanceof ResponseError);
            assert.equal(error.code, ErrorCodes.InvalidParams);
            assert.equal(error.message, 'uid 0 is root: the probe never observes or signals root');
            return true;
          },
        );
        // Pid 1 as the sandbox user keeps harden busy long enough to cancel it.
        const cancel = new CancellationTokenSource();
        const running = client.connection.sendRequest(
          runProbeRequest,
          { transcriptId: 'cancelled', request: { ...request, user: 'sandbox', graceSeconds: 5 } },
          cancel.token,
        );
        setTimeout(() => cancel.cancel(), 500);
        const { outcome } = await running;
        assert.equal(outcome.returnCode, 2);
        assert.match(outcome.reason, /cancelled before it finished; nothing was observed/);
      } finally {
        await client.stop();
        await container.remove();
      }
    },
  );
});
