/**
 * The timeline view's picture of a rollout, built from the same evaluation as the rollout's diagnostics
 * (open documents first, then disk), so the view and the Problems panel never disagree.
 */
import { statSync } from 'node:fs';
import { LSPErrorCodes, ErrorCodes, ResponseError, type Connection } from 'vscode-languageserver/node';
import { timelineRequest, type TimelineParams } from '../../../shared/src/protocol';
import type { TimelinePicture } from '../../../shared/src/timelinePicture';
import { buildTimelinePicture } from '../engine/picture/buildPicture';
import type { DocumentValidator } from './documentValidator';
import { finiteNumber, objectOf, optional, refined, withCheckedParams, type Check } from './requestParams';
import type { WorkspaceFolders } from './workspaceFolders';

const timeRange = refined(
  objectOf({ from: finiteNumber, to: finiteNumber }),
  ({ from, to }) => from < to,
  'a range { from, to } with from before to',
);

export function registerTimelineRequests(
  connection: Connection,
  validator: DocumentValidator,
  workspace: WorkspaceFolders,
): void {
  // The params come from any client; the folder is read, so it must be one the client has shown us.
  const timelineParams: Check<TimelineParams> = objectOf({
    root: workspace.readableFolder,
    range: optional(timeRange),
  });
  connection.onRequest(
    timelineRequest,
    withCheckedParams(
      timelineParams,
      async ({ root, range }, token): Promise<TimelinePicture | ResponseError<void>> => {
        const notFolder = folderProblem(root);
        if (notFolder) return new ResponseError(ErrorCodes.InvalidParams, notFolder);
        const cancelled = () => token.isCancellationRequested;
        const rollout = await validator.evaluateRollout(root, cancelled);
        if (!rollout || cancelled())
          return new ResponseError(LSPErrorCodes.RequestCancelled, 'The timeline request was cancelled.');
        if (rollout.bundle.files.length === 0)
          return new ResponseError(ErrorCodes.InvalidParams, `${root} holds no rollout artifacts to draw.`);
        return buildTimelinePicture(rollout.bundle, rollout.evaluation, range ? { range } : {});
      },
    ),
  );
}

function folderProblem(root: string): string | undefined {
  try {
    return statSync(root).isDirectory() ? undefined : `${root} is not a folder: the timeline needs a rollout's folder.`;
  } catch {
    return `${root} does not exist.`;
  }
}
