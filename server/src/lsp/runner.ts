/**
 * Runs a request's work on a later turn of the event loop, checking cancellation before and after it,
 * and turns an unexpected exception into a logged fallback answer rather than a dead server.
 */
import { LSPErrorCodes, ResponseError, type CancellationToken } from 'vscode-languageserver/node';
import { errorDetail } from '../../../shared/src/errors';

export interface Logger {
  error(message: string): void;
}

export function cancelledError<T>(): ResponseError<T> {
  return new ResponseError(LSPErrorCodes.RequestCancelled, 'The request was cancelled.');
}

export function runSafeAsync<T, E>(
  work: () => Promise<T | ResponseError<E>>,
  fallback: T | ResponseError<E>,
  description: string,
  token: CancellationToken,
  logger: Logger,
): Promise<T | ResponseError<E>> {
  return new Promise((resolve) => {
    setImmediate(() => {
      if (token.isCancellationRequested) {
        resolve(cancelledError());
        return;
      }
      work().then(
        (result) => resolve(token.isCancellationRequested ? cancelledError() : result),
        (error: unknown) => {
          logger.error(`${description} failed: ${errorDetail(error)}`);
          resolve(fallback);
        },
      );
    });
  });
}
