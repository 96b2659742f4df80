/**
 * The framing guard in front of the language server's stdio reader (lsp/messageFraming.ts): well-framed
 * bytes pass unchanged however they are cut into chunks, and each header the reader could not recover
 * from is named at once, having kept no more than one header's bytes.
 */
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import {
  maxContentLength,
  maxHeaderBytes,
  MessageFraming,
  MessageFramingGuard,
} from '../../server/src/lsp/messageFraming';

function framed(body: string, header = `Content-Length: ${Buffer.byteLength(body)}\r\n`): Buffer {
  return Buffer.from(`${header}\r\n${body}`);
}

/** What the framing says about `bytes` cut into `size`-byte chunks. */
function checkIn(bytes: Buffer, size: number): string | undefined {
  const framing = new MessageFraming();
  for (let offset = 0; offset < bytes.length; offset += size) {
    const problem = framing.check(bytes.subarray(offset, offset + size));
    if (problem !== undefined) return problem;
  }
  return undefined;
}

const session = Buffer.concat([
  framed('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}'),
  // Names in any case, no space after the colon, and another header besides.
  framed(
    '{"jsonrpc":"2.0","method":"initialized","params":{}}',
    'content-length:52\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n',
  ),
  framed('{"jsonrpc":"2.0","method":"x","params":{"text":"héllo \\r\\n\\r\\n wörld"}}'),
  framed('', 'Content-Length: 0\r\n'),
  framed('{"jsonrpc":"2.0","id":2,"method":"shutdown"}'),
]);

describe('MessageFraming', () => {
  it('accepts well-framed messages however the bytes are cut, several to a chunk or one byte at a time', () => {
    for (const size of [1, 2, 3, 7, 19, 64, session.length]) assert.equal(checkIn(session, size), undefined, `${size}`);
  });

  it('names each header the reader could not recover from', () => {
    const faults: [string, RegExp][] = [
      ['Content-Length: abc\r\n', /Content-Length is not a whole number of bytes: "abc"/],
      ['Content-Length: -5\r\n', /Content-Length is not a whole number of bytes: "-5"/],
      ['Content-Length: 12abc\r\n', /not a whole number of bytes: "12abc"/],
      ['Content-Length: \r\n', /not a whole number of bytes: ""/],
      ['Content-Type: application/json\r\n', /has no Content-Length/],
      ['Content-Length: 2\r\nContent-Length: 2\r\n', /gives Content-Length twice/],
      [`Content-Length: ${maxContentLength + 1}\r\n`, new RegExp(`is more than the ${maxContentLength} bytes`)],
      ['Content-Length: 99999999999999999999999\r\n', /is more than the/],
      ['{"jsonrpc":"2.0"}\r\n', /is not "Name: value": "\{\\"jsonrpc\\":\\"2.0\\"}"/],
      ['Content-Length : 2\r\n', /is not "Name: value"/],
      ['Content-Length: 2\nX: y\r\n', /is not "Name: value": "Content-Length: 2\\nX: y"/],
      ['\r\nContent-Length: 2\r\n', /is not "Name: value": ""/],
      ['Content-Length: 2\r\nX: \u001b[31m\r\n', /is not "Name: value": "X: \\u001b\[31m"/],
    ];
    for (const [header, expected] of faults) {
      const bytes = Buffer.concat([session, framed('{}', header)]);
      for (const size of [1, 5, bytes.length]) assert.match(checkIn(bytes, size) ?? 'accepted', expected, header);
    }
  });

  it('gives up on a header that never ends in the chunk where it outgrows any header', () => {
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const framing = new MessageFraming();
    let chunksRead = 0;
    let problem: string | undefined;
    // 10 MB with no header end, in the 64 KiB chunks stdin delivers: the first one is the last read.
    while (problem === undefined && chunksRead < 160) {
      problem = framing.check(chunk);
      chunksRead++;
    }
    assert.equal(chunksRead, 1);
    assert.equal(
      problem,
      `a message header of more than ${maxHeaderBytes} bytes has no end (an empty line, CR LF CR LF)`,
    );
    // A header of exactly the limit, its end included, is read; one byte more is not.
    const header = (length: number) => `Content-Length: 2\r\nX: ${'y'.repeat(length - 26)}\r\n`;
    assert.equal(framed('{}', header(maxHeaderBytes)).indexOf('{}'), maxHeaderBytes);
    assert.equal(checkIn(framed('{}', header(maxHeaderBytes)), 64), undefined);
    assert.match(checkIn(framed('{}', header(maxHeaderBytes + 1)), 64) ?? 'accepted', /has no end/);
  });
});

describe('MessageFramingGuard', () => {
  it('passes well-framed bytes through unchanged', async () => {
    const chunks = [session.subarray(0, 10), session.subarray(10, 100), session.subarray(100)];
    const guard = Readable.from(chunks).pipe(new MessageFramingGuard(() => assert.fail('no fault')));
    const passed: Buffer[] = [];
    for await (const chunk of guard) passed.push(chunk as Buffer);
    assert.deepEqual(Buffer.concat(passed), session);
  });

  it('at the first fault passes nothing more and says so once', async () => {
    const faults: string[] = [];
    const guard = Readable.from([
      session,
      Buffer.from('Content-Length: abc\r\n\r\n{}'),
      framed('{"jsonrpc":"2.0","id":3,"method":"shutdown"}'),
    ]).pipe(new MessageFramingGuard((problem) => faults.push(problem)));
    const passed: Buffer[] = [];
    for await (const chunk of guard) passed.push(chunk as Buffer);
    assert.deepEqual(Buffer.concat(passed), session);
    assert.deepEqual(faults, ['a message header\'s Content-Length is not a whole number of bytes: "abc"']);
  });
});
