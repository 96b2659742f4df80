/**
 * `npm run bench`, the edit storm: the real language server with a 100,000-line action log open.
 * - Typing into one record at 1,000 edits a second for 1,000 edits, a pull after each that the client cancels when the
 *   next edit comes (as VS Code does): the server's CPU time for the storm, and how long the pull sent
 *   after the last edit takes to be answered. The floor for the same traffic is measured in the same
 *   run: the same storm on a document the server stores but does not validate (not an artifact).
 * - Memory: RSS after 1 and after 100 edits, each validated, as a user sees it; and the heap still
 *   reachable then (the server runs with --expose-gc and collects when asked, after RSS is read).
 * - The document store alone, in this process: 1,000 edits of the same text in our ChunkedDocument and
 *   in vscode-languageserver-textdocument.
 * CPU and RSS are read from /proc (Linux), so that the figures are the server process's own, whatever
 * build of it runs. Prints the numbers; never fails on them (machines differ).
 *   node out/test/bench/editStorm.bench.js [EDITS]   the storm's length (1,000 by default)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CancellationTokenSource } from 'vscode-languageserver-protocol/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { ChunkedDocument } from '../../server/src/lsp/chunkedDocument';
import { actionIdDigitsColumn, actionLogPath, writeRolloutWithLargeActionLog } from '../support/largeActionLog';
import { LspTestClient } from '../support/lspClient';
import { temporaryFolder } from '../support/repo';
import { megabyte } from './support';

const lines = 100_000;
const stormEdits = Number(process.argv[2] ?? 1_000);
const memoryEdits = 100;
/** Linux reports CPU time in clock ticks of USER_HZ, 100 a second on every architecture Node runs on. */
const ticksPerSecond = 100;

interface ProcessFigures {
  readonly cpuMilliseconds: number;
  readonly rssBytes: number;
}

function figuresOf(pid: number): ProcessFigures {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // After the command name in parentheses: state is field 3, utime and stime fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return { cpuMilliseconds: (ticks * 1000) / ticksPerSecond, rssBytes: Number(rss?.[1] ?? 0) * 1024 };
}

type Change = {
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  text: string;
};

/** One character typed into an action id, on another line each time (each such edit is validated). */
function typed(edit: number): Change {
  const at = { line: 1_000 + ((edit * 337) % (lines - 2_000)), character: actionIdDigitsColumn };
  return { range: { start: at, end: at }, text: 'x' };
}

/** The storm is typing: character after character into one action id in the middle of the log. */
function typedInOneRecord(edit: number): Change {
  const at = { line: lines / 2, character: actionIdDigitsColumn + edit - 1 };
  return { range: { start: at, end: at }, text: 'x' };
}

async function startServer(nodeArguments: readonly string[] = []): Promise<LspTestClient> {
  return (await LspTestClient.start({ pull: true, settings: {}, nodeArguments })).client;
}

/** The heap still reachable, after a full collection; undefined from a server build without the request. */
async function reachableHeap(client: LspTestClient): Promise<number | undefined> {
  try {
    const usage = await client.processUsage();
    return usage.collected ? usage.heapUsedBytes : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `stormEdits` edits at one a millisecond, each followed by a pull; each new edit cancels the pull
 * before it. Returns the server's CPU time from the first edit until the pull after the last is
 * answered, and how long that pull took.
 */
async function storm(
  client: LspTestClient,
  uri: string,
): Promise<{ cpuMilliseconds: number; answerMilliseconds: number }> {
  const pid = client.process.pid!;
  const before = figuresOf(pid);
  const started = performance.now();
  let pending: CancellationTokenSource | undefined;
  const settled: Promise<unknown>[] = [];
  for (let edit = 1; edit <= stormEdits; edit++) {
    while (performance.now() < started + edit) await new Promise((resolve) => setImmediate(resolve));
    pending?.cancel();
    await client.edit(uri, edit + 1, [typedInOneRecord(edit)]);
    pending = new CancellationTokenSource();
    if (edit < stormEdits) settled.push(client.pull(uri, undefined, pending).catch(() => undefined));
  }
  const lastEditAt = performance.now();
  await client.pull(uri);
  const answerMilliseconds = performance.now() - lastEditAt;
  await Promise.all(settled);
  return { cpuMilliseconds: figuresOf(pid).cpuMilliseconds - before.cpuMilliseconds, answerMilliseconds };
}

async function serverStorm(
  uri: string,
  text: string,
): Promise<{ cpuMilliseconds: number; answerMilliseconds: number }> {
  const client = await startServer();
  try {
    await client.open(uri, text);
    await client.pull(uri);
    return await storm(client, uri);
  } finally {
    await client.stop();
  }
}

interface MemoryFigures {
  readonly rssBytes: number;
  readonly reachableHeapBytes: number | undefined;
}

/** RSS as it is (read first), then the heap still reachable after a collection, after edit 1 and edit `memoryEdits`. */
async function memoryAfterEdits(
  uri: string,
  text: string,
): Promise<{ afterFirst: MemoryFigures; afterLast: MemoryFigures }> {
  const client = await startServer(['--expose-gc']);
  const measure = async (): Promise<MemoryFigures> => ({
    rssBytes: figuresOf(client.process.pid!).rssBytes,
    reachableHeapBytes: await reachableHeap(client),
  });
  try {
    await client.open(uri, text);
    await client.pull(uri);
    let afterFirst: MemoryFigures | undefined;
    for (let edit = 1; edit <= memoryEdits; edit++) {
      await client.edit(uri, edit + 1, [typed(edit)]);
      await client.pull(uri);
      if (edit === 1) afterFirst = await measure();
    }
    return { afterFirst: afterFirst!, afterLast: await measure() };
  } finally {
    await client.stop();
  }
}

function megabytes(bytes: number | undefined): string {
  return bytes === undefined ? 'n/a' : `${(bytes / megabyte).toFixed(0)} MB`;
}

/** CPU milliseconds per edit of `edits` edits of `text` in a document store, in this process. */
function storeCostPerEdit<D>(
  create: (text: string) => D,
  update: (document: D, edit: number) => D,
  text: string,
  edits: number,
): number {
  let document = create(text);
  const started = process.cpuUsage();
  for (let edit = 1; edit <= edits; edit++) document = update(document, edit);
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000 / edits;
}

async function main(): Promise<void> {
  const folder = temporaryFolder('rollout-evidence-storm-bench-');
  try {
    const root = join(folder.path, 'jobs/2026-08-22__10-00-00/storm__00000001');
    const text = writeRolloutWithLargeActionLog(root, lines);
    const uri = pathToFileURL(join(root, actionLogPath)).href;
    // The same text where no artifact is: stored and synchronised, never validated.
    const floorUri = pathToFileURL(join(folder.path, 'notes.txt')).href;
    console.log(
      `Edit storm: a ${lines.toLocaleString('en')}-line action log (${(text.length / megabyte).toFixed(1)} MB) open in the real server; ${stormEdits} edits at 1,000/s.`,
    );

    // The library rebuilds the whole text per edit: 50 of its edits tell its cost well enough.
    const chunked = storeCostPerEdit(
      (content) => ChunkedDocument.create(uri, 'jsonl', 1, content),
      (document, edit) => document.withChanges([typedInOneRecord(edit)], edit + 1),
      text,
      stormEdits,
    );
    const library = storeCostPerEdit(
      (content) => TextDocument.create(uri, 'jsonl', 1, content),
      (document, edit) => TextDocument.update(document, [typedInOneRecord(edit)], edit + 1),
      text,
      50,
    );
    console.log(
      `  document store alone, CPU per edit: ChunkedDocument ${(chunked * 1000).toFixed(0)} µs (${stormEdits} edits); vscode-languageserver-textdocument ${library.toFixed(1)} ms (50 edits)`,
    );

    const floor = await serverStorm(floorUri, text);
    const server = await serverStorm(uri, text);
    console.log(
      `  floor: the same storm on a document the server does not validate   ${floor.cpuMilliseconds.toFixed(0).padStart(7)} ms server CPU, answered ${floor.answerMilliseconds.toFixed(0)} ms after the last edit`,
    );
    console.log(
      `  the storm on the action log (validated after the edits pause)        ${server.cpuMilliseconds.toFixed(0).padStart(7)} ms server CPU, answered ${server.answerMilliseconds.toFixed(0)} ms after the last edit`,
    );

    const { afterFirst, afterLast } = await memoryAfterEdits(uri, text);
    console.log(
      `  each edit validated: RSS after 1 edit ${megabytes(afterFirst.rssBytes)}, after ${memoryEdits} edits ${megabytes(afterLast.rssBytes)}`,
    );
    console.log(
      `                       heap reachable after a full collection: after 1 edit ${megabytes(afterFirst.reachableHeapBytes)}, after ${memoryEdits} ${megabytes(afterLast.reachableHeapBytes)}`,
    );
  } finally {
    folder.remove();
  }
}

void main();
