/**
 * The live probe, served to the extension: the rollout context that picks its defaults, the running
 * containers, and the probe itself with a streamed transcript. The probe runs commands as root, so the
 * server runs it only in a workspace the client says the user trusts; it runs our own script and nothing
 * found in a bundle.
 */
import { join } from 'node:path';
import { ResponseError, ErrorCodes, type Connection } from 'vscode-languageserver/node';
import { rolloutFiles } from '../../../shared/src/layout';
import { dockerAccesses } from '../../../shared/src/probe';
import {
  probeContextRequest,
  probeTargetsRequest,
  probeTranscriptNotification,
  runProbeRequest,
  workspaceNotTrustedErrorCode,
  workspaceTrustGrantedNotification,
  type ProbeContext,
} from '../../../shared/src/protocol';
import type { SandboxUserState } from '../engine/model/sandboxUser';
import { listRunningContainers } from '../probe/containers';
import { quiescenceRecord } from '../probe/observationRecord';
import { runProbe } from '../probe/runProbe';
import { ProbeUsageError } from '../probe/validation';
import { ContainerEngineUnavailableError } from '../probe/containerEngines';
import { objectOf, oneOf, optional, string, withCheckedParams } from './requestParams';
import type { SettingsCache } from './settingsCache';
import { rolloutRootOfUri } from './uris';
import type { WorkspaceFolders } from './workspaceFolders';

export interface ProbeRequestOptions {
  /** What the client said of workspace trust at initialization; undefined when it said nothing. */
  readonly workspaceTrusted: boolean | undefined;
  readonly settings: SettingsCache;
  readonly workspace: WorkspaceFolders;
  /**
   * The sandbox user of the rollout in `root`, as its model reads it for the rules (open documents first,
   * then disk); undefined when cancelled. The probe's default is the user the rules judge.
   */
  readonly sandboxUserOf: (root: string, isCancelled: () => boolean) => Promise<SandboxUserState | undefined>;
}

const probeContextParams = objectOf({ uri: optional(string) });
const probeTargetsParams = objectOf({ dockerAccess: oneOf(dockerAccesses) });
// The probe request itself is checked field by field by the probe, which says what is wrong in its words.
const runProbeParams = objectOf({ request: objectOf({}), transcriptId: string });

const untrustedRefusal = new ResponseError<void>(
  workspaceNotTrustedErrorCode,
  'the probe runs commands as root, so the language server runs it only in a workspace the editor says is trusted. ' +
    'In VS Code, trust the workspace; in another editor, set rolloutEvidence.probe.trustedWorkspace to true.',
);

export function registerProbeRequests(connection: Connection, options: ProbeRequestOptions): void {
  const trust = new ProbeTrust(options.workspaceTrusted, options.settings);
  connection.onNotification(workspaceTrustGrantedNotification, () => trust.granted());

  connection.onRequest(
    probeContextRequest,
    withCheckedParams(probeContextParams, async ({ uri }, token) => {
      const root = uri === undefined ? undefined : rolloutRootOfUri(uri);
      if (root === undefined) return { rolloutRoot: null, actionRecords: null };
      if (!options.workspace.mayRead(root)) {
        return new ResponseError(
          ErrorCodes.InvalidParams,
          `"uri" must be a document in a workspace folder, or one the editor has open; ${root} is neither`,
        );
      }
      return probeContextOf(root, await options.sandboxUserOf(root, () => token.isCancellationRequested));
    }),
  );

  connection.onRequest(
    probeTargetsRequest,
    withCheckedParams(probeTargetsParams, ({ dockerAccess }, token) => {
      const cancel = new AbortController();
      token.onCancellationRequested(() => cancel.abort());
      return listRunningContainers(dockerAccess, process.env, cancel.signal);
    }),
  );

  connection.onRequest(
    runProbeRequest,
    withCheckedParams(runProbeParams, async ({ request, transcriptId }, token) => {
      // Before anything of the request is looked at further: an untrusted workspace runs nothing.
      if (!(await trust.allows())) return untrustedRefusal;
      const cancel = new AbortController();
      token.onCancellationRequested(() => cancel.abort());
      try {
        // runProbe checks every field of the request before anything runs (ProbeUsageError otherwise).
        const outcome = await runProbe(request as Parameters<typeof runProbe>[0], {
          env: process.env,
          signal: cancel.signal,
          onTranscript: (entry) =>
            void connection.sendNotification(probeTranscriptNotification, { transcriptId, entry }),
        });
        return { outcome, recordLine: JSON.stringify(quiescenceRecord(outcome)) };
      } catch (error) {
        // Refused before anything ran: the message is for the user, as it stands.
        if (error instanceof ProbeUsageError || error instanceof ContainerEngineUnavailableError)
          return new ResponseError(ErrorCodes.InvalidParams, error.message);
        throw error;
      }
    }),
  );
}

/**
 * Whether the user trusts the workspace: as the client said (VS Code reports its workspace trust, and a
 * later grant), else as the user's `rolloutEvidence.probe.trustedWorkspace` says, asked anew each time
 * (settings are cached until they change).
 */
class ProbeTrust {
  constructor(
    private reported: boolean | undefined,
    private readonly settings: SettingsCache,
  ) {}

  granted(): void {
    this.reported = true;
  }

  async allows(): Promise<boolean> {
    if (this.reported !== undefined) return this.reported;
    return (await this.settings.get()).probeTrustedWorkspace;
  }
}

/** A user the rules know offers its name, `sandbox_user: null` says there is none; an unknown or unreadable one offers nothing. */
function probeContextOf(root: string, state: SandboxUserState | undefined): ProbeContext {
  const actionRecords = join(root, rolloutFiles.actionRecords);
  return {
    rolloutRoot: root,
    actionRecords,
    ...(state?.kind === 'user'
      ? { sandboxUser: state.user.name }
      : state?.kind === 'none'
        ? { sandboxUser: null }
        : {}),
  };
}
