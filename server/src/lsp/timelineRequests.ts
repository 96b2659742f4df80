/**
 * The timeline view's picture of a rollout, built from the same evaluation as the rollout's diagnostics
 * (open documents first, then disk), so the view and the Problems panel never disagree.
 */
import { statSync } from 'node:fs';
import { LSPErrorCodes, ErrorCodes, ResponseError, type Connection } from 'vscode-languageserver/node';
import { timelineRequest, type TimelineParams, type TimelinePicture } from '../../../shared/src/timelinePicture';
import { buildTimelinePicture } from '../engine/picture/buildPicture';
import type { DocumentValidator } from './documentValidator';

export function registerTimelineRequests(connection: Connection, validator: DocumentValidator): void {
  connection.onRequest(timelineRequest, async (params: unknown, token): Promise<TimelinePicture | ResponseError<void>> => {
    const checked = checkParams(params);
    if (typeof checked === 'string') return new ResponseError(ErrorCodes.InvalidParams, checked);
    const { root, range } = checked;
    const cancelled = () => token.isCancellationRequested;
    const rollout = await validator.evaluateRollout(root, cancelled);
    if (!rollout || cancelled()) return new ResponseError(LSPErrorCodes.RequestCancelled, 'The timeline request was cancelled.');
    if (rollout.bundle.files.length === 0) return new ResponseError(ErrorCodes.InvalidParams, `${root} holds no rollout artifacts to draw.`);
    return buildTimelinePicture(rollout.bundle, rollout.evaluation, range ? { range } : {});
  });
}

/** The params as the request's type says, or what is wrong with them: they come from any client. */
function checkParams(params: unknown): TimelineParams | string {
  if (typeof params !== 'object' || params === null) return 'The timeline request needs params { root, range? }.';
  const { root, range } = params as Record<string, unknown>;
  if (typeof root !== 'string' || root === '') return 'The timeline needs the folder of a rollout.';
  try {
    if (!statSync(root).isDirectory()) return `${root} is not a folder: the timeline needs a rollout's folder.`;
  } catch {
    return `${root} does not exist.`;
  }
  if (range === undefined) return { root };
  if (typeof range !== 'object' || range === null) return 'A timeline range must be an object { from, to }, or left out for the whole rollout.';
  const { from, to } = range as Record<string, unknown>;
  if (!(typeof from === 'number' && typeof to === 'number' && Number.isFinite(from) && Number.isFinite(to) && from < to)) return 'A timeline range needs finite numbers with from before to.';
  return { root, range: { from, to } };
}
