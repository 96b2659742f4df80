/**
 * Fixture scaffolds, served to the extension: the scenarios it offers, and one scenario's files. The
 * server only makes the text; the extension writes it, through VS Code's file system, where the user chose.
 */
import { ErrorCodes, ResponseError, type Connection } from 'vscode-languageserver/node';
import { scaffoldFilesRequest, scaffoldScenariosRequest, type ScaffoldFilesParams } from '../../../shared/src/protocol';
import { scaffoldRollout, ScaffoldUsageError, scenarioSummaries } from '../authoring/scaffold/scaffold';
import { objectOf, optional, string, withCheckedParams, withoutParams, type Check } from './requestParams';

// Which scenarios exist, which rollout names are safe and which times are dates, the scaffold says.
const scaffoldFilesParams: Check<ScaffoldFilesParams> = objectOf({
  scenario: string,
  rolloutName: string,
  startedAt: optional(string),
});

export function registerScaffoldRequests(connection: Connection): void {
  connection.onRequest(
    scaffoldScenariosRequest.method,
    withoutParams(() => scenarioSummaries()),
  );

  connection.onRequest(
    scaffoldFilesRequest,
    withCheckedParams(scaffoldFilesParams, ({ scenario, rolloutName, startedAt }) => {
      try {
        return scaffoldRollout(scenario, rolloutName, startedAt !== undefined ? new Date(startedAt) : new Date());
      } catch (error) {
        // An unknown scenario or an unsafe rollout name: said as the scaffold says it.
        if (error instanceof ScaffoldUsageError) return new ResponseError(ErrorCodes.InvalidParams, error.message);
        throw error;
      }
    }),
  );
}
