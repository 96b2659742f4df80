/**
 * A code lens on the first line of each artifact of a rollout: the rollout's verdict and the facts that
 * decide it, in one line; clicking it opens the rollout's timeline.
 */
import { CodeLensRequest, type CodeLens, type Connection } from 'vscode-languageserver/node';
import { showTimelineCommand } from '../../../../shared/src/protocol';
import { summarizeRollout } from '../../engine/inspect/rolloutSummary';
import { textDocumentParams } from '../requestParams';
import { uriOfPath, type ArtifactDocuments } from './artifactDocuments';
import { featureRequest } from './featureRequest';

export function registerCodeLens(connection: Connection, artifacts: ArtifactDocuments): void {
  connection.onRequest(
    CodeLensRequest.type,
    featureRequest(
      connection.console,
      'The code lens',
      textDocumentParams,
      async (params, token): Promise<CodeLens[] | null> => {
        const artifact = await artifacts.get(params.textDocument.uri, token);
        if (!artifact?.rollout || token.isCancellationRequested) return null;
        const title = `Rollout: ${summarizeRollout(artifact.rollout.evaluation)}`;
        const range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
        return [
          {
            range,
            command: { title, command: showTimelineCommand, arguments: [uriOfPath(artifact.rollout.bundle.root)] },
          },
        ];
      },
    ),
  );
}
