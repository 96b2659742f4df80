/**
 * "Show Problems of All Rollouts", served: the reason for a verdict may lie in a file nobody opened, so on
 * request every rollout of the workspace (up to a bound, and never silently past it) has the problems of
 * all its files pushed, from the same evaluation as the pulled diagnostics.
 */
import { ErrorCodes, ResponseError, type Connection } from 'vscode-languageserver/node';
import {
  workspaceProblemsRequest,
  type WorkspaceProblemsParams,
  type WorkspaceProblemsResult,
} from '../../../shared/src/protocol';
import { settingsSection, workspaceProblemsMaxRolloutsSetting } from '../../../shared/src/settings';
import type { PushedDiagnostics } from './pushedDiagnostics';
import { arrayOf, objectOf, wholeNumber, withCheckedParams, type Check } from './requestParams';
import { cancelledError, runSafeAsync } from './runner';
import type { WorkspaceFolders } from './workspaceFolders';
import { findRollouts, latestJobsFirst } from './workspaceRollouts';

const failedRequest = new ResponseError<void>(
  ErrorCodes.InternalError,
  'The problems of the rollouts could not be shown: the output of Rollout Evidence says why.',
);

export function registerWorkspaceProblemsRequest(
  connection: Connection,
  pushed: PushedDiagnostics,
  workspace: WorkspaceFolders,
): void {
  // It walks every folder it is given, so only workspace folders.
  const params: Check<WorkspaceProblemsParams> = objectOf({
    folders: arrayOf(workspace.walkableFolder),
    maxRollouts: wholeNumber,
  });
  connection.onRequest(
    workspaceProblemsRequest,
    withCheckedParams(params, (checked, token) =>
      runSafeAsync(
        async () =>
          (await showWorkspaceProblems(checked, pushed, () => token.isCancellationRequested)) ?? cancelledError<void>(),
        failedRequest,
        'Showing the problems of every rollout',
        token,
        connection.console,
      ),
    ),
  );
}

/** Resolves to undefined when cancelled. */
async function showWorkspaceProblems(
  params: WorkspaceProblemsParams,
  pushed: PushedDiagnostics,
  isCancelled: () => boolean,
): Promise<WorkspaceProblemsResult | undefined> {
  const found = await findRollouts(params.folders, isCancelled);
  if (!found) return undefined;
  const shown = latestJobsFirst(found.roots).slice(0, params.maxRollouts);
  if (!(await pushed.showAll(shown, isCancelled))) return undefined;
  const left = found.roots.length - shown.length;
  return {
    shown: shown.length,
    found: found.roots.length,
    ...(left > 0
      ? {
          notice: `Showing the problems of ${shown.length} of ${found.roots.length} rollouts, those of the latest jobs by folder name; ${left} more were left out. Raise ${settingsSection}.${workspaceProblemsMaxRolloutsSetting} or open a narrower folder to see them.`,
        }
      : {}),
    ioErrors: found.ioErrors,
  };
}
