/**
 * Every language feature's request goes through here: its params are checked first (InvalidParams
 * otherwise), and a failure while computing it for one document is logged with its stack and answered
 * with the feature's empty answer, so one document the checker trips over costs only its own features.
 * Features register it with `connection.onRequest(XRequest.type, …)`, not `connection.onHover` and the
 * like: those read `params.workDoneToken` before any check, and throw on null params.
 */
import type { CancellationToken } from 'vscode-languageserver/node';
import { errorDetail } from '../../../../shared/src/errors';
import { withCheckedParams, type Check } from '../requestParams';
import type { Logger } from '../runner';

export function featureRequest<P extends { readonly textDocument: { readonly uri: string } }, R>(
  logger: Logger,
  feature: string,
  check: Check<P>,
  compute: (params: P, token: CancellationToken) => Promise<R | null>,
): ReturnType<typeof withCheckedParams<P, R | null>> {
  return withCheckedParams(check, async (params, token) => {
    try {
      return await compute(params, token);
    } catch (error) {
      logger.error(`${feature} for ${params.textDocument.uri} failed: ${errorDetail(error)}`);
      return null;
    }
  });
}
