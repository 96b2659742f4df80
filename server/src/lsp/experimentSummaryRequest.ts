/**
 * "Show Experiment Summary", served: every rollout under a folder (a job, or a workspace folder),
 * evaluated as its diagnostics are (open documents first, then disk, with the folder's settings), and
 * summarised by the CLI's own summary (engine/experiment/summary.ts), with rollout paths relative to the
 * workspace folder, so that the text equals `rollout-evidence check <folder> --format summary` run there.
 */
import { ErrorCodes, ResponseError, type Connection } from 'vscode-languageserver/node';
import { experimentSummaryRequest, type ExperimentSummaryParams } from '../../../shared/src/protocol';
import type { ExperimentSummaryResult } from '../../../shared/src/rollouts';
import { displayPath } from '../../../shared/src/paths';
import { failedTally, SummaryBuilder, summaryMarkdown, tallyOf, type RolloutTally } from '../engine/experiment/summary';
import { errorDetail } from '../../../shared/src/errors';
import type { DocumentValidator } from './documentValidator';
import { objectOf, withCheckedParams, type Check } from './requestParams';
import { cancelledError, runSafeAsync } from './runner';
import type { WorkspaceFolders } from './workspaceFolders';
import { findRollouts } from './workspaceRollouts';

const failedSummary = new ResponseError<void>(
  ErrorCodes.InternalError,
  'The experiment summary could not be made: the output of Rollout Evidence says why.',
);

export function registerExperimentSummaryRequest(
  connection: Connection,
  validator: DocumentValidator,
  workspace: WorkspaceFolders,
): void {
  // It walks the folder it is given, so only one inside the workspace.
  const params: Check<ExperimentSummaryParams> = objectOf({ folder: workspace.walkableFolder });
  connection.onRequest(
    experimentSummaryRequest,
    withCheckedParams(params, ({ folder }, token) =>
      runSafeAsync(
        async () => {
          // walkableFolder admits only folders inside a workspace folder, so there is one.
          const relativeTo = workspace.workspaceFolderOf(folder) ?? folder;
          const summary = await summarise(
            folder,
            relativeTo,
            validator,
            () => token.isCancellationRequested,
            (message) => connection.console.error(message),
          );
          return summary ?? cancelledError<void>();
        },
        failedSummary,
        'Summarising the experiment',
        token,
        connection.console,
      ),
    ),
  );
}

/**
 * Resolves to undefined when cancelled. A rollout the checker fails on counts as the CLI counts it
 * (incomplete, for internal-error) and the rest are summarised in full; `logError` gets the error.
 */
export async function summarise(
  folder: string,
  relativeTo: string,
  validator: Pick<DocumentValidator, 'evaluateRollout'>,
  isCancelled: () => boolean,
  logError: (message: string) => void,
): Promise<ExperimentSummaryResult | undefined> {
  const found = await findRollouts([folder], isCancelled);
  if (!found) return undefined;
  const builder = new SummaryBuilder();
  for (const root of found.roots) {
    if (isCancelled()) return undefined;
    // The CLI shows each rollout relative to where it runs; the workspace folder is the editor's equivalent.
    const shown = displayPath(relativeTo, root);
    let tally: RolloutTally;
    try {
      const rollout = await validator.evaluateRollout(root, isCancelled);
      if (!rollout) return undefined;
      tally = tallyOf(shown, rollout.bundle, rollout.evaluation);
    } catch (error) {
      logError(`Summarising ${root} failed: ${errorDetail(error)}`);
      tally = failedTally(shown);
    }
    builder.add(tally);
  }
  const summary = builder.result();
  return {
    markdown: summaryMarkdown(summary),
    rollouts: summary.rollouts,
    verdicts: summary.verdicts,
    relativeTo,
    ioErrors: found.ioErrors,
  };
}
