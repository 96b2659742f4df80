/**
 * Fixture scaffolds, served to the extension: the scenarios it offers, and one scenario's files. The
 * server only makes the text; the extension writes it, through VS Code's file system, where the user chose.
 */
import { ErrorCodes, ResponseError, type Connection } from 'vscode-languageserver/node';
import { scaffoldFilesRequest, scaffoldScenariosRequest, type ScaffoldFilesParams } from '../../../shared/src/scaffold';
import { scaffoldRollout, ScaffoldUsageError, scenarioSummaries } from '../authoring/scaffold/scaffold';

export function registerScaffoldRequests(connection: Connection): void {
  connection.onRequest(scaffoldScenariosRequest, () => scenarioSummaries());

  connection.onRequest(scaffoldFilesRequest, (params: Partial<ScaffoldFilesParams> | null) => {
    const { scenario, rolloutName, startedAt } = params ?? {};
    if (typeof scenario !== 'string' || typeof rolloutName !== 'string') return new ResponseError(ErrorCodes.InvalidParams, 'a scaffold needs a scenario id and a rollout name');
    try {
      return scaffoldRollout(scenario, rolloutName, typeof startedAt === 'string' ? new Date(startedAt) : new Date());
    } catch (error) {
      if (error instanceof ScaffoldUsageError) return new ResponseError(ErrorCodes.InvalidParams, error.message);
      throw error;
    }
  });
}
