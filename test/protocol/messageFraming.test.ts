/**
 * The real, built language server over stdio, sent bytes that do not frame LSP messages: a header it
 * cannot read ends it at once, with the reason on stderr and a non-zero exit status, instead of leaving
 * a connection that never reads a message again; a header that never ends is given up after a bounded
 * read. Well-framed messages cut anywhere, or several in one write, are read as before.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { after, describe, it } from 'node:test';
import { StreamMessageReader, type Message } from 'vscode-languageserver-protocol/node';
import { builtServer } from '../support/repo';

/** A bound for a test that would otherwise wait for ever on a server that never exits. */
const timeout = 60_000;

interface RunningServer {
  readonly child: ChildProcessWithoutNullStreams;
  readonly messages: Message[];
  /** Resolves when a message with this id arrives. */
  answer(id: number): Promise<Message>;
  readonly exited: Promise<{ code: number | null; stderr: string }>;
  /** Resolves once the bytes are in the pipe; false when the server no longer reads it. */
  write(bytes: string | Buffer): Promise<boolean>;
}

const started: ChildProcessWithoutNullStreams[] = [];
// A server that failed a test by not exiting must not outlive it.
after(() => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill();
});

function startServer(): RunningServer {
  const child = spawn(process.execPath, [builtServer, '--stdio'], { stdio: 'pipe' });
  started.push(child);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  // Writing after the server exited fails with EPIPE: write() reports it.
  child.stdin.on('error', () => {});
  const messages: Message[] = [];
  const waiting: (() => void)[] = [];
  new StreamMessageReader(child.stdout).listen((message) => {
    messages.push(message);
    for (const wake of waiting.splice(0)) wake();
  });
  const exited = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stderr })),
  );
  return {
    child,
    messages,
    exited,
    async answer(id) {
      for (;;) {
        const found = messages.find((message) => 'id' in message && message.id === id);
        if (found) return found;
        await new Promise<void>((resolve) => waiting.push(resolve));
      }
    },
    write: (bytes) => new Promise((resolve) => child.stdin.write(bytes, (error) => resolve(!error))),
  };
}

function framed(message: object): string {
  const body = JSON.stringify({ jsonrpc: '2.0', ...message });
  return `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

const initialize = framed({
  id: 1,
  method: 'initialize',
  params: { processId: null, rootUri: null, capabilities: {} },
});

const failurePrefix = "rollout-evidence language server: the client's messages cannot be read: ";

describe('language server over stdio, message framing', () => {
  const badHeaders: [what: string, header: string, reason: string][] = [
    [
      'a Content-Length that is no number',
      'Content-Length: abc',
      'Content-Length is not a whole number of bytes: "abc"',
    ],
    ['a negative Content-Length', 'Content-Length: -5', 'Content-Length is not a whole number of bytes: "-5"'],
    ['no Content-Length', 'Content-Type: application/vscode-jsonrpc; charset=utf-8', 'has no Content-Length'],
    ['an oversized Content-Length', 'Content-Length: 99999999999999', 'Content-Length "99999999999999" is more than'],
  ];
  for (const [what, header, reason] of badHeaders) {
    it(`ends with the reason on stderr after a header with ${what}`, { timeout }, async () => {
      const server = startServer();
      assert.ok(await server.write(initialize));
      assert.ok('result' in (await server.answer(1)), 'the session worked before');
      await server.write(`${header}\r\n\r\n{"jsonrpc":"2.0","id":2,"method":"shutdown"}`);
      const { code, stderr } = await server.exited;
      assert.equal(code, 1);
      assert.ok(stderr.startsWith(failurePrefix), stderr);
      assert.ok(stderr.includes(reason), stderr);
      assert.ok(stderr.endsWith('; ending the connection.\n'), stderr);
      assert.ok(!server.messages.some((message) => 'id' in message && message.id === 2), 'nothing after it is read');
    });
  }

  it('gives up on 10 MB with no header end, having read a bounded part of them', { timeout }, async () => {
    const server = startServer();
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let accepted = 0;
    // One chunk in the pipe at a time: what the server took before it stopped reading is counted.
    while (accepted < 10 * 1024 * 1024 && (await server.write(chunk))) accepted += chunk.length;
    assert.ok(accepted < 1024 * 1024, `the server took ${accepted} bytes of the 10 MB`);
    const { code, stderr } = await server.exited;
    assert.equal(code, 1);
    assert.equal(
      stderr,
      `${failurePrefix}a message header of more than 4096 bytes has no end (an empty line, CR LF CR LF); ending the connection.\n`,
    );
  });

  it('reads messages cut inside their header and body, and two in one write', { timeout }, async () => {
    const server = startServer();
    for (const piece of [
      initialize.slice(0, 9),
      initialize.slice(9, 21),
      initialize.slice(21, 40),
      initialize.slice(40),
    ]) {
      assert.ok(await server.write(piece));
      await nextTurn();
    }
    assert.ok('result' in (await server.answer(1)));
    // Each message waits for the one before it: the exit notification only after shutdown is answered.
    await server.write(framed({ method: 'initialized', params: {} }) + framed({ id: 2, method: 'shutdown' }));
    assert.deepEqual(await server.answer(2), { jsonrpc: '2.0', id: 2, result: null });
    await server.write(framed({ method: 'exit' }));
    const { code, stderr } = await server.exited;
    assert.equal(code, 0, stderr);
    assert.equal(stderr, '');
  });
});
