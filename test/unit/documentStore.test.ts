/**
 * When the store says a document is due for validation: a single edit at once, an edit in a burst of
 * typing once the burst pauses. Driven through a stand-in connection and a clock the test moves, so that
 * nothing here depends on how fast the machine is.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type {
  Connection,
  DidChangeTextDocumentParams,
  DidOpenTextDocumentParams,
  NotificationHandler,
} from 'vscode-languageserver/node';
import { createDocumentStore, editQuietMs } from '../../server/src/lsp/documentStore';

/** A connection that only keeps the synchronisation handlers the store registers, for the test to call. */
function standInConnection() {
  const handlers: {
    open?: NotificationHandler<DidOpenTextDocumentParams>;
    change?: NotificationHandler<DidChangeTextDocumentParams>;
  } = {};
  const connection = {
    onDidOpenTextDocument: (handler: NotificationHandler<DidOpenTextDocumentParams>) => (handlers.open = handler),
    onDidChangeTextDocument: (handler: NotificationHandler<DidChangeTextDocumentParams>) => (handlers.change = handler),
    onDidCloseTextDocument: () => undefined,
    onWillSaveTextDocument: () => undefined,
    onWillSaveTextDocumentWaitUntil: () => undefined,
    onDidSaveTextDocument: () => undefined,
  } as unknown as Connection;
  return { connection, handlers };
}

/** Whether `promise` settles before a 0 ms timer fires: "at once", as opposed to after a wait. */
async function settlesAtOnce(promise: Promise<boolean>): Promise<boolean> {
  let settled = false;
  void promise.then(() => (settled = true));
  await new Promise((resolve) => setTimeout(resolve, 0));
  return settled;
}

describe('document store: when an edit is validated', () => {
  it('a single edit at once; an edit in a burst once the burst pauses; an edit after a pause at once again', async () => {
    let now = 1_000;
    const { connection, handlers } = standInConnection();
    const store = createDocumentStore(connection, { warn: () => undefined }, () => now);
    const uri = 'file:///r/trajectory/acp_trajectory.jsonl';
    const edit = (version: number) =>
      handlers.change!({
        textDocument: { uri, version },
        contentChanges: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: 'x' }],
      });
    handlers.open!({ textDocument: { uri, languageId: 'jsonl', version: 1, text: '{"a":1}\n' } });
    const never = () => false;
    assert.equal(await settlesAtOnce(store.whenQuiet(uri, never)), true, 'opened, not edited');

    edit(2);
    assert.equal(store.inBurst(uri), false);
    assert.equal(await settlesAtOnce(store.whenQuiet(uri, never)), true, 'the first edit after opening');

    now += editQuietMs - 1;
    edit(3);
    assert.equal(store.inBurst(uri), true, 'an edit within the pause of the one before');
    const burst = store.whenQuiet(uri, never);
    assert.equal(await settlesAtOnce(burst), false, 'an edit in a burst waits for the pause');
    now += editQuietMs;
    assert.equal(await burst, true, 'and is validated once the burst has paused');

    now += editQuietMs;
    edit(4);
    assert.equal(store.inBurst(uri), false, 'an edit after a pause starts a new burst');
    assert.equal(await settlesAtOnce(store.whenQuiet(uri, never)), true, 'and is validated at once');

    now += 1;
    edit(5);
    let cancelled = false;
    const waiting = store.whenQuiet(uri, () => cancelled);
    cancelled = true;
    assert.equal(await waiting, false, 'a wait ends as soon as its request is cancelled');
    assert.equal(store.documents.get(uri)?.getText(), 'xxxx{"a":1}\n');
  });
});
