/**
 * One full garbage collection after a synchronisation message that carried a large text. The JSON-RPC
 * transport leaves, besides the document's text, about two more copies of it as garbage: the message's
 * bytes (and, over stdio, the chunks they were read in) and the decoded message the text was parsed
 * from. V8 frees them only at its next full collection, which need not come before the check of the
 * text has grown the heap again: opening a 50 MB trajectory then peaked with all of them alive. Asked
 * for once the message has been handled, the collection frees them first (about 30 ms for 50 MB; the
 * check that follows takes seconds).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Texts from this many characters on are worth a full collection. */
export const largeTextCharacters = 16 * 1024 * 1024;

let collect: (() => void) | undefined;
let scheduled = false;

/** Asks for one full collection after the current message, when the texts it carried are large. */
export function afterMessageWithText(characters: number): void {
  if (characters < largeTextCharacters || scheduled) return;
  scheduled = true;
  setImmediate(() => {
    scheduled = false;
    collector()();
  });
}

/** V8's full collection: the flag set now exposes it to contexts made after, not to this one's globals. */
function collector(): () => void {
  if (!collect) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  return collect;
}
