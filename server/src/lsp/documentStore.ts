/**
 * The open documents, as the client synchronises them. Every synchronisation notification is checked
 * before it touches anything: a document uri and language that are strings, an integer version that
 * only goes up, text that is a string, changes whose ranges lie in the document. A malformed one is
 * logged and dropped, and the documents stay as they were (one `didOpen` with a number for a uri used to
 * break every later request until a restart). The documents are ChunkedDocuments, whose cost per edit
 * does not grow with their length; and the store knows when each was last edited, so that a burst of
 * typing is validated once it pauses, while a single edit is validated at once.
 */
import {
  TextDocuments,
  type Connection,
  type DidChangeTextDocumentParams,
  type DidCloseTextDocumentParams,
  type DidOpenTextDocumentParams,
  type DidSaveTextDocumentParams,
  type NotificationHandler,
  type WillSaveTextDocumentParams,
} from 'vscode-languageserver/node';
import type { Position, TextDocument, TextDocumentContentChangeEvent } from 'vscode-languageserver-textdocument';
import { ChangeOutsideDocument, ChunkedDocument } from './chunkedDocument';
import { afterMessageWithText } from './transportGarbage';

/** What TextDocuments listens to: the document synchronisation handlers of a connection. */
type SyncConnection = Parameters<TextDocuments<TextDocument>['listen']>[0];

export interface Logger {
  warn(message: string): void;
}

/**
 * Edits closer together than this are a burst of typing, whose diagnostics wait until it pauses this
 * long: a storm of keystrokes costs one validation of its last version, not one per key. An edit after
 * a pause at least this long starts a burst and is validated at once: a single change (a fix pasted, a
 * value corrected) is answered without waiting, and keys typed slower than this are each answered.
 */
export const editQuietMs = 150;

export interface DocumentStore {
  readonly documents: TextDocuments<TextDocument>;
  /**
   * Resolves to true when document `uri`'s latest version is due for validation: at once when its last
   * edit started a burst (or it was not edited since it was opened), else once it has gone `editQuietMs`
   * without an edit; to false as soon as `isCancelled` says so.
   */
  whenQuiet(uri: string, isCancelled: () => boolean): Promise<boolean>;
  /** Whether the last edit of document `uri` came within `editQuietMs` of the edit before it. */
  inBurst(uri: string): boolean;
}

/** When a document was last edited, and whether that edit came within editQuietMs of the one before. */
interface LastEdit {
  readonly at: number;
  readonly inBurst: boolean;
}

/** `now`: the clock edits are timed by, in milliseconds. */
export function createDocumentStore(
  connection: Connection,
  logger: Logger,
  now: () => number = () => performance.now(),
): DocumentStore {
  const documents = new TextDocuments<TextDocument>({
    create: (uri, languageId, version, text) => ChunkedDocument.create(uri, languageId, version, text),
    // Only changes the checks below accepted get here, so withChanges does not throw.
    update: (document, changes, version) => (document as ChunkedDocument).withChanges(changes, version),
  });
  const lastEdits = new Map<string, LastEdit>();
  const edited = (uri: string): void => {
    const at = now();
    const previous = lastEdits.get(uri);
    lastEdits.set(uri, { at, inBurst: previous !== undefined && at - previous.at < editQuietMs });
  };
  documents.listen(checkedSync(connection, documents, logger, edited));
  documents.onDidOpen((event) => lastEdits.delete(event.document.uri));
  documents.onDidClose((event) => lastEdits.delete(event.document.uri));

  return {
    documents,
    async whenQuiet(uri, isCancelled) {
      for (;;) {
        if (isCancelled()) return false;
        const last = lastEdits.get(uri);
        const wait = last?.inBurst ? last.at + editQuietMs - now() : 0;
        if (wait <= 0) return true;
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    },
    inBurst: (uri) => lastEdits.get(uri)?.inBurst === true,
  };
}

/**
 * The connection as TextDocuments listens to it, with every synchronisation notification checked first;
 * `onEdited` hears of each accepted change before the documents' listeners do.
 */
function checkedSync(
  connection: Connection,
  documents: TextDocuments<TextDocument>,
  logger: Logger,
  onEdited: (uri: string) => void,
): SyncConnection {
  const guard = <P>(
    method: string,
    problemOf: (params: P) => string | undefined,
    handler: NotificationHandler<P>,
  ): NotificationHandler<P> => {
    return (params: P) => {
      const problem = problemOf(params);
      if (problem !== undefined) {
        logger.warn(`Dropped ${method}: ${problem}.`);
        return;
      }
      // The connection awaits what the handler returns, and logs its rejection.
      return handler(params);
    };
  };
  return {
    onDidOpenTextDocument: (handler) =>
      connection.onDidOpenTextDocument(
        guard('textDocument/didOpen', openProblem, (params) => {
          handler(params);
          afterMessageWithText(params.textDocument.text.length);
        }),
      ),
    onDidChangeTextDocument: (handler) =>
      connection.onDidChangeTextDocument(
        guard(
          'textDocument/didChange',
          (params: DidChangeTextDocumentParams) => changeProblem(params, documents),
          (params) => {
            if (params.contentChanges.length > 0) onEdited(params.textDocument.uri);
            handler(params);
            afterMessageWithText(params.contentChanges.reduce((sum, change) => sum + change.text.length, 0));
          },
        ),
      ),
    onDidCloseTextDocument: (handler) =>
      connection.onDidCloseTextDocument(
        guard('textDocument/didClose', identifierProblem<DidCloseTextDocumentParams>, handler),
      ),
    onWillSaveTextDocument: (handler) =>
      connection.onWillSaveTextDocument(
        guard('textDocument/willSave', identifierProblem<WillSaveTextDocumentParams>, handler),
      ),
    onWillSaveTextDocumentWaitUntil: (handler) =>
      connection.onWillSaveTextDocumentWaitUntil((params, token) =>
        identifierProblem(params) === undefined ? handler(params, token) : [],
      ),
    onDidSaveTextDocument: (handler) =>
      connection.onDidSaveTextDocument(
        guard('textDocument/didSave', identifierProblem<DidSaveTextDocumentParams>, handler),
      ),
  };
}

function openProblem(params: DidOpenTextDocumentParams): string | undefined {
  const document = objectAt(params, 'textDocument');
  if (!document) return 'params.textDocument is not an object';
  if (typeof document['uri'] !== 'string' || document['uri'] === '')
    return `textDocument.uri is ${described(document['uri'])}, not a uri`;
  if (typeof document['languageId'] !== 'string')
    return `textDocument.languageId of ${document['uri']} is ${described(document['languageId'])}, not a string`;
  if (!Number.isSafeInteger(document['version']))
    return `textDocument.version of ${document['uri']} is ${described(document['version'])}, not an integer`;
  if (typeof document['text'] !== 'string')
    return `textDocument.text of ${document['uri']} is ${described(document['text'])}, not a string`;
  return undefined;
}

/** The whole notification is refused when one of its changes is bad: applying only some would garble the text. */
function changeProblem(
  params: DidChangeTextDocumentParams,
  documents: TextDocuments<TextDocument>,
): string | undefined {
  const identifier = objectAt(params, 'textDocument');
  if (!identifier) return 'params.textDocument is not an object';
  const uri = identifier['uri'];
  if (typeof uri !== 'string') return `textDocument.uri is ${described(uri)}, not a uri`;
  const version = identifier['version'];
  if (!Number.isSafeInteger(version)) return `textDocument.version of ${uri} is ${described(version)}, not an integer`;
  const document = documents.get(uri);
  if (!(document instanceof ChunkedDocument)) return `${uri} is not open`;
  if ((version as number) <= document.version)
    return `version ${String(version)} of ${uri} is not after its version ${document.version}`;
  const changes = (params as { contentChanges?: unknown }).contentChanges;
  if (!Array.isArray(changes)) return `contentChanges of ${uri} is ${described(changes)}, not an array`;
  for (const [index, change] of changes.entries()) {
    const problem = contentChangeProblem(change);
    if (problem !== undefined) return `contentChanges[${index}] of ${uri}: ${problem}`;
  }
  try {
    document.withChanges(changes as TextDocumentContentChangeEvent[], version as number);
  } catch (error) {
    if (error instanceof ChangeOutsideDocument) return `a change of ${uri} lies outside the document: ${error.message}`;
    throw error;
  }
  return undefined;
}

function contentChangeProblem(change: unknown): string | undefined {
  if (typeof change !== 'object' || change === null || Array.isArray(change))
    return `${described(change)}, not an object`;
  const fields = change as Record<string, unknown>;
  if (typeof fields['text'] !== 'string') return `text is ${described(fields['text'])}, not a string`;
  if (fields['range'] === undefined) return undefined;
  const range = fields['range'];
  if (typeof range !== 'object' || range === null) return `range is ${described(range)}, not a range`;
  const { start, end } = range as Record<string, unknown>;
  if (!isPosition(start)) return `range.start is ${described(start)}, not a position`;
  if (!isPosition(end)) return `range.end is ${described(end)}, not a position`;
  return undefined;
}

function identifierProblem<P>(params: P): string | undefined {
  const identifier = objectAt(params, 'textDocument');
  if (!identifier) return 'params.textDocument is not an object';
  return typeof identifier['uri'] === 'string'
    ? undefined
    : `textDocument.uri is ${described(identifier['uri'])}, not a uri`;
}

function isPosition(value: unknown): value is Position {
  if (typeof value !== 'object' || value === null) return false;
  const { line, character } = value as Record<string, unknown>;
  return isCount(line) && isCount(character);
}

/** A line or character number: LSP's uinteger. */
function isCount(value: unknown): boolean {
  return Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) <= 0x7fffffff;
}

function objectAt(params: unknown, key: string): Record<string, unknown> | undefined {
  if (typeof params !== 'object' || params === null) return undefined;
  const value = (params as Record<string, unknown>)[key];
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** What a bad value was, short enough for a log line whatever was sent. */
function described(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string')
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}
