/**
 * The live probe, served to the extension: the rollout context that picks its defaults, the running
 * containers, and the probe itself with a streamed transcript. The client asks only in a trusted
 * workspace; the probe runs our own script and nothing found in a bundle.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ResponseError, ErrorCodes, type Connection } from 'vscode-languageserver/node';
import { isJsonObject } from '../../../shared/src/jsonObject';
import { probeContextRequest, probeTargetsRequest, probeTranscriptNotification, runProbeRequest, type ProbeContext } from '../../../shared/src/protocol';
import { sandboxUserInConfig } from '../engine/rules/timeline';
import { listRunningContainers } from '../probe/containers';
import { quiescenceRecord } from '../probe/observationRecord';
import { runProbe } from '../probe/runProbe';
import { ProbeUsageError } from '../probe/validation';
import { EngineUnavailableError } from '../probe/engines';
import { rolloutRootOfUri } from './uris';

export function registerProbeRequests(connection: Connection): void {
  connection.onRequest(probeContextRequest, (params) => probeContextOf(params.uri));

  connection.onRequest(probeTargetsRequest, (params, token) => {
    const cancel = new AbortController();
    token.onCancellationRequested(() => cancel.abort());
    return listRunningContainers(params.dockerAccess, process.env, cancel.signal);
  });

  connection.onRequest(runProbeRequest, async (params, token) => {
    const cancel = new AbortController();
    token.onCancellationRequested(() => cancel.abort());
    try {
      const outcome = await runProbe(params.request, {
        env: process.env,
        signal: cancel.signal,
        onTranscript: (entry) => void connection.sendNotification(probeTranscriptNotification, { transcriptId: params.transcriptId, entry }),
      });
      return { outcome, recordLine: JSON.stringify(quiescenceRecord(outcome)) };
    } catch (error) {
      // Refused before anything ran: the message is for the user, as it stands.
      if (error instanceof ProbeUsageError || error instanceof EngineUnavailableError) return new ResponseError(ErrorCodes.InvalidParams, error.message);
      throw error;
    }
  });
}

function probeContextOf(uri: string | undefined): ProbeContext {
  const root = uri === undefined ? undefined : rolloutRootOfUri(uri);
  if (root === undefined) return { rolloutRoot: null, actionRecords: null };
  const actionRecords = join(root, 'benchguard', 'action_records.jsonl');
  let config: unknown;
  try {
    config = JSON.parse(readFileSync(join(root, 'config.json'), 'utf8').replace(/^\uFEFF/, ''));
  } catch {
    return { rolloutRoot: root, actionRecords };
  }
  if (!isJsonObject(config)) return { rolloutRoot: root, actionRecords };
  const state = sandboxUserInConfig(config);
  return { rolloutRoot: root, actionRecords, ...(state.kind === 'user' ? { sandboxUser: state.user.name } : state.kind === 'none' ? { sandboxUser: null } : {}) };
}
