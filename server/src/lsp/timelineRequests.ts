/**
 * The timeline view's picture of a rollout, built from the same evaluation as the rollout's diagnostics
 * (open documents first, then disk), so the view and the Problems panel never disagree.
 */
import { statSync } from 'node:fs';
import { LSPErrorCodes, ErrorCodes, ResponseError, type Connection } from 'vscode-languageserver/node';
import { timelineRequest, type TimelinePicture, type TimelineRange } from '../../../shared/src/timelinePicture';
import { buildTimelinePicture } from '../engine/picture/buildPicture';
import type { DocumentValidator } from './documentValidator';

export function registerTimelineRequests(connection: Connection, validator: DocumentValidator): void {
  connection.onRequest(timelineRequest, async (params, token): Promise<TimelinePicture | ResponseError<void>> => {
    const problem = paramsProblem(params.root, params.range);
    if (problem) return new ResponseError(ErrorCodes.InvalidParams, problem);
    const cancelled = () => token.isCancellationRequested;
    const rollout = await validator.evaluateRollout(params.root, cancelled);
    if (!rollout || cancelled()) return new ResponseError(LSPErrorCodes.RequestCancelled, 'The timeline request was cancelled.');
    if (rollout.bundle.files.length === 0) return new ResponseError(ErrorCodes.InvalidParams, `${params.root} holds no rollout artifacts to draw.`);
    return buildTimelinePicture(rollout.bundle, rollout.evaluation, params.range ? { range: params.range } : {});
  });
}

function paramsProblem(root: unknown, range: TimelineRange | undefined): string | undefined {
  if (typeof root !== 'string' || root === '') return 'The timeline needs the folder of a rollout.';
  try {
    if (!statSync(root).isDirectory()) return `${root} is not a folder: the timeline needs a rollout's folder.`;
  } catch {
    return `${root} does not exist.`;
  }
  if (range !== undefined && !(Number.isFinite(range.from) && Number.isFinite(range.to) && range.from < range.to)) return 'A timeline range needs finite numbers with from before to.';
  return undefined;
}
