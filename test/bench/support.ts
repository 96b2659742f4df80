/**
 * What both benchmarks share: each measurement runs in a fresh copy of the benchmark's own process, so
 * that its peak memory is its own, and the median of a few runs is kept; and the synthetic trajectory
 * they read.
 */
import { fork, spawn } from 'node:child_process';
import { closeSync, openSync, readdirSync, readSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export const megabyte = 1024 * 1024;

export interface Measured {
  readonly milliseconds: number;
  readonly peakRssBytes: number;
}

const childFlag = 'ROLLOUT_EVIDENCE_BENCH_CHILD';

/**
 * Runs `measure` when this process is a measuring child (and reports the result with its peak RSS to
 * the parent), else `main`.
 */
export function benchmark<T extends Measured>(
  measure: (mode: string, path: string) => T | Promise<T>,
  main: () => Promise<void>,
): void {
  if (!process.env[childFlag]) {
    void main();
    return;
  }
  const [mode, path] = process.argv.slice(2) as [string, string];
  void Promise.resolve(measure(mode, path)).then((result) =>
    process.send!({ ...result, peakRssBytes: process.resourceUsage().maxRSS * 1024 }),
  );
}

/** The median of `runs` measurements, each in a fresh process; the peak RSS is the highest seen. */
export async function medianOf<T extends Measured>(mode: string, path: string, runs = 3): Promise<T> {
  const results: T[] = [];
  for (let run = 0; run < runs; run++) results.push(await measureInChild<T>(mode, path));
  results.sort((a, b) => a.milliseconds - b.milliseconds);
  return {
    ...results[Math.floor(results.length / 2)]!,
    peakRssBytes: Math.max(...results.map((result) => result.peakRssBytes)),
  };
}

function measureInChild<T>(mode: string, path: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = fork(process.argv[1]!, [mode, path], { env: { ...process.env, [childFlag]: '1' }, stdio: 'inherit' });
    let result: T | undefined;
    child.on('message', (message) => (result = message as T));
    child.on('exit', (code) =>
      code === 0 && result ? resolve(result) : reject(new Error(`${mode} exited with ${code}`)),
    );
  });
}

export interface ProcessRun {
  /** From spawn to exit, as a reviewer waits: start-up and schema compilation included. */
  readonly milliseconds: number;
  readonly peakRssBytes: number;
  /** User and system CPU time of the process (all its threads): steadier than wall time on a busy machine. */
  readonly cpuMilliseconds: number;
  readonly status: number | null;
}

/** What the wrappers report: Node's process.resourceUsage() names (KB, microseconds). */
export interface ResourceReport {
  readonly maxRSS: number;
  readonly userCPUTime: number;
  readonly systemCPUTime: number;
}

/**
 * Runs `command` in a process of its own and reports its peak RSS: Node's process.resourceUsage() of a
 * wrapper that loads the program in place (the wrapper adds nothing but itself; worker threads share
 * the process, so their memory is counted). The report leaves through fd 3; stdout goes to /dev/null.
 */
export function runMeasured(
  wrapper: string,
  program: readonly string[],
  interpreter = process.execPath,
): Promise<ProcessRun> {
  return new Promise((resolve, reject) => {
    const devNull = openSync('/dev/null', 'w');
    const started = performance.now();
    const child = spawn(interpreter, [wrapper, ...program], { stdio: ['ignore', devNull, 'inherit', 'pipe'] });
    closeSync(devNull);
    let report = '';
    child.stdio[3]!.on('data', (data: Buffer) => (report += data.toString()));
    child.on('error', reject);
    child.on('close', (status) => {
      const milliseconds = performance.now() - started;
      const usage = report ? (JSON.parse(report) as ResourceReport) : undefined;
      if (!usage) reject(new Error(`${program.join(' ')} reported no resource usage (status ${status})`));
      else
        resolve({
          milliseconds,
          peakRssBytes: usage.maxRSS * 1024,
          cpuMilliseconds: (usage.userCPUTime + usage.systemCPUTime) / 1000,
          status,
        });
    });
  });
}

/** The median time of `runs` runs of `program` (through `wrapper`); the peak RSS is the highest seen. */
export async function medianRun(
  wrapper: string,
  program: readonly string[],
  runs = 3,
  interpreter = process.execPath,
): Promise<ProcessRun> {
  const results: ProcessRun[] = [];
  for (let run = 0; run < runs; run++) results.push(await runMeasured(wrapper, program, interpreter));
  results.sort((a, b) => a.milliseconds - b.milliseconds);
  return { ...results[Math.floor(runs / 2)]!, peakRssBytes: Math.max(...results.map((result) => result.peakRssBytes)) };
}

/**
 * Writes the Node wrapper `runMeasured` runs programs through: it loads the program as `node program
 * args…` would, and reports its process's resource usage at exit on fd 3. Returns its path.
 */
export function writeNodeWrapper(folder: string): string {
  const path = join(folder, 'measure.js');
  writeFileSync(
    path,
    [
      "const { writeSync } = require('node:fs');",
      "process.on('exit', () => writeSync(3, JSON.stringify(process.resourceUsage())));",
      'process.argv.splice(1, 1);',
      "require(require('node:path').resolve(process.argv[1]));",
    ].join('\n'),
  );
  return path;
}

/** The check's chunk size (engine/text/sourceLines.ts): the baseline reads the same bytes the same way. */
const chunkBytes = 1 << 20;
const chunk = Buffer.allocUnsafe(chunkBytes);

export interface Parsed {
  /** Lines (or whole JSON documents) JSON.parse accepted. */
  readonly records: number;
  /** Those it rejected: damaged lines are read as far as the check reads them, and counted. */
  readonly rejected: number;
  readonly bytes: number;
}

/**
 * The floor for checking one file: the bytes streamed in 1 MiB chunks into one reused buffer, as the
 * check streams them, each line decoded and given to JSON.parse (a `.json` file is one document, as the
 * check reads it, so it is parsed whole). Nothing is kept.
 */
export function streamedParse(path: string): Parsed {
  const wholeDocument = path.endsWith('.json');
  const descriptor = openSync(path, 'r');
  let records = 0;
  let rejected = 0;
  let bytes = 0;
  const parse = (text: string): void => {
    if (text.length === 0 || (!wholeDocument && text === '\r')) return;
    try {
      JSON.parse(text);
      records++;
    } catch {
      rejected++;
    }
  };
  try {
    let pending: Buffer[] = [];
    for (;;) {
      const count = readSync(descriptor, chunk, 0, chunkBytes, null);
      if (count === 0) break;
      bytes += count;
      let start = 0;
      if (!wholeDocument) {
        for (
          let newline = chunk.indexOf(10, 0);
          newline !== -1 && newline < count;
          newline = chunk.indexOf(10, start)
        ) {
          const piece = chunk.subarray(start, newline);
          parse((pending.length === 0 ? piece : Buffer.concat([...pending, piece])).toString('utf8'));
          pending = [];
          start = newline + 1;
        }
      }
      if (start < count) pending.push(Buffer.from(chunk.subarray(start, count)));
    }
    if (pending.length > 0) parse(Buffer.concat(pending).toString('utf8'));
  } finally {
    closeSync(descriptor);
  }
  return { records, rejected, bytes };
}

/** Every file below `root`, found with one readdir per folder (as discovery walks), each `streamedParse`d. */
export function streamedParseOfTree(root: string): Parsed & { readonly files: number } {
  let records = 0;
  let rejected = 0;
  let bytes = 0;
  let files = 0;
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) {
        const parsed = streamedParse(path);
        records += parsed.records;
        rejected += parsed.rejected;
        bytes += parsed.bytes;
        files++;
      }
    }
  };
  walk(root);
  return { records, rejected, bytes, files };
}

/** Writes records until the file reaches `bytes`; returns the number of lines. */
export function writeTrajectory(path: string, bytes: number, record: (index: number) => unknown): number {
  const descriptor = openSync(path, 'w');
  let written = 0;
  let lines = 0;
  const batch: string[] = [];
  while (written < bytes) {
    const line = `${JSON.stringify(record(lines++))}\n`;
    batch.push(line);
    written += Buffer.byteLength(line);
    if (batch.length === 1000) writeSync(descriptor, batch.splice(0).join(''));
  }
  writeSync(descriptor, batch.join(''));
  closeSync(descriptor);
  return lines;
}

const words =
  'the agent ran a command and read the output of the test suite before editing the source file again'.split(' ');

function prose(index: number, length: number): string {
  let text = '';
  for (let k = 0; text.length < length; k++) text += `${words[(index * 7 + k) % words.length]} `;
  return text;
}

/** About 1.4 KB a line: long text in messages, thoughts and tool output, as real trajectories have. */
export function stringHeavyRow(index: number): unknown {
  switch (index % 4) {
    case 0:
      return { type: 'agent_thought', text: prose(index, 1300) };
    case 1:
      return {
        type: 'tool_call',
        tool_call_id: `call_${index}`,
        kind: 'execute',
        title: `pytest -q tests/test_${index % 97}.py`,
        status: 'completed',
        content: [{ type: 'content', content: { type: 'text', text: prose(index, 1150) } }],
      };
    case 2:
      return { type: 'agent_message', text: prose(index, 1350) };
    default:
      return { type: 'user_message', text: prose(index, 1350) };
  }
}
