/**
 * The in-process fuzz run over child processes, one per core: each takes a contiguous range of input
 * indices, checks them in-process (fuzzInput.ts) and reports failures as they happen and its counts at
 * the end. Processes rather than threads, so that CPU time (`process.cpuUsage`) and RSS are each
 * input's own, and an input that exhausts the heap or hangs takes down only its worker: before each
 * input a worker writes its index to a status file, so the parent knows which input a dead or silent
 * worker was on, reports it, and goes on from the next one in a fresh worker.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { loadCorpus } from './corpus';
import { FuzzWorkspace } from './engineRun';
import { drawInput, failureOf, limits, runInput, type Failure, type FailureKind } from './fuzzInput';
import { inputRandom, type FuzzSettings } from './inputs';
import { describeEdit } from './shrink';

/**
 * Set in a worker's environment: the path of a file holding the JSON of its WorkerTask. Not the JSON
 * itself: 100,000 indices are more than one environment variable may hold (spawn fails with E2BIG).
 */
export const workerEnvironment = 'ROLLOUT_EVIDENCE_FUZZ_WORKER';

/**
 * A worker that has spent this much CPU on one input is killed: the input is far over the CPU bound,
 * and waiting for it to end could take the rest of the run (a quadratic analysis of a long command
 * takes minutes). Read from /proc, where there is one.
 */
const killCpuMs = 10_000;
/**
 * A worker that has not started a new input for this long is stuck on the one it is on. Far above the
 * CPU bound, since wall time stretches on a loaded machine.
 */
const hangMs = 300_000;

/** CPU time (user and system) of process `pid` in ms, from /proc/<pid>/stat; undefined without /proc. */
function processCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticksPerSecond = 100;
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
  } catch {
    return undefined;
  }
}
/** A worker's heap may grow past the RSS bound, so that it is measured and reported rather than fatal. */
const workerHeapMb = 3072;
const countsEvery = 2000;

interface WorkerTask {
  readonly settings: FuzzSettings;
  readonly indices: readonly number[];
  readonly statusFile: string;
}

export interface FuzzCounts {
  inputs: number;
  damaging: number;
  readonly byOperator: Record<string, { inputs: number; damaging: number }>;
  /** Damaging inputs whose verdict changed, by "before → after". */
  readonly transitions: Record<string, number>;
  maxCpu: { ms: number; index: number; bytes: number };
  peakRssBytes: number;
}

type WorkerMessage =
  | { readonly type: 'failure'; readonly failure: Failure }
  /** The worker's counts so far (sent every few thousand inputs, so that a worker that dies keeps them); `final` at its end. */
  | { readonly type: 'counts'; readonly counts: FuzzCounts; readonly final: boolean }
  /** The worker stops after this input (its memory is spoilt); the parent goes on from the next. */
  | { readonly type: 'restart'; readonly after: number };

export const emptyCounts = (): FuzzCounts => ({
  inputs: 0,
  damaging: 0,
  byOperator: {},
  transitions: {},
  maxCpu: { ms: 0, index: -1, bytes: 0 },
  peakRssBytes: 0,
});

export function mergeCounts(into: FuzzCounts, from: FuzzCounts): void {
  into.inputs += from.inputs;
  into.damaging += from.damaging;
  for (const [operator, count] of Object.entries(from.byOperator)) {
    const entry = (into.byOperator[operator] ??= { inputs: 0, damaging: 0 });
    entry.inputs += count.inputs;
    entry.damaging += count.damaging;
  }
  for (const [transition, count] of Object.entries(from.transitions))
    into.transitions[transition] = (into.transitions[transition] ?? 0) + count;
  if (from.maxCpu.ms > into.maxCpu.ms) into.maxCpu = from.maxCpu;
  into.peakRssBytes = Math.max(into.peakRssBytes, from.peakRssBytes);
}

/** The body of a worker process. */
export function runWorker(): void {
  const task = JSON.parse(readFileSync(process.env[workerEnvironment]!, 'utf8')) as WorkerTask;
  const workspace = new FuzzWorkspace(loadCorpus());
  const status = openSync(task.statusFile, 'w');
  const counts = emptyCounts();
  const send = (message: WorkerMessage) => process.send!(message);
  const classesSeen = new Set<string>();
  const firstOfClass = (classKey: string) => !classesSeen.has(classKey) && Boolean(classesSeen.add(classKey));
  try {
    for (const index of task.indices) {
      writeSync(status, `${String(index).padEnd(12)}\n`, 0);
      const result = runInput(workspace, task.settings, index, firstOfClass);
      counts.inputs++;
      const operator = (counts.byOperator[result.operator] ??= { inputs: 0, damaging: 0 });
      operator.inputs++;
      if (result.damaging) {
        counts.damaging++;
        operator.damaging++;
      }
      if (result.transition) counts.transitions[result.transition] = (counts.transitions[result.transition] ?? 0) + 1;
      if (result.cpuMs > counts.maxCpu.ms) counts.maxCpu = { ms: result.cpuMs, index, bytes: result.bytes };
      if (result.failure) send({ type: 'failure', failure: result.failure });
      if (counts.inputs % countsEvery === 0) send({ type: 'counts', counts, final: false });
      const rss = process.memoryUsage().rss;
      counts.peakRssBytes = Math.max(counts.peakRssBytes, rss);
      if (rss > limits.rssBytes) {
        send({
          type: 'failure',
          failure: describedFailure(
            workspace,
            task.settings,
            index,
            'rss',
            `RSS ${Math.round(rss / 2 ** 20)} MB after the input`,
          ),
        });
        send({ type: 'restart', after: index });
        break;
      }
    }
  } finally {
    closeSync(status);
    workspace.remove();
  }
  send({ type: 'counts', counts, final: true });
  process.disconnect();
}

/** A failure known only by its input (the worker died on it, or hung): described from a fresh draw of it. */
function describedFailure(
  workspace: FuzzWorkspace,
  settings: FuzzSettings,
  index: number,
  kind: FailureKind,
  detail: string,
): Failure {
  const { bundle, target, mutation } = drawInput(workspace, inputRandom(settings.seed, index), settings.operator);
  return failureOf(
    kind,
    index,
    bundle,
    target,
    mutation,
    detail,
    kind,
    describeEdit(target.name, target.bytes, mutation.bytes),
  );
}

export interface PoolResult {
  readonly counts: FuzzCounts;
  readonly failures: readonly Failure[];
  readonly workers: number;
}

/** Runs `indices` over `workers` processes of `program` (the built test file, which calls runWorker when forked). */
export async function runPool(
  program: string,
  settings: FuzzSettings,
  indices: readonly number[],
  workers: number,
  scratch: string,
): Promise<PoolResult> {
  const counts = emptyCounts();
  const failures: Failure[] = [];
  // Only to describe inputs a worker died on: drawing one checks the unmutated bundle, nothing more.
  let describer: FuzzWorkspace | undefined;
  const describe = (index: number, kind: FailureKind, detail: string): Failure =>
    describedFailure((describer ??= new FuzzWorkspace(loadCorpus())), settings, index, kind, detail);
  const size = Math.ceil(indices.length / workers);
  const slices = Array.from({ length: workers }, (_, worker) =>
    indices.slice(worker * size, (worker + 1) * size),
  ).filter((slice) => slice.length > 0);
  try {
    await Promise.all(
      slices.map(async (slice, worker) => {
        let remaining = slice;
        for (let attempt = 0; remaining.length > 0; attempt++) {
          const statusFile = join(scratch, `worker-${worker}-${attempt}.status`);
          const ended = await runOneWorker(program, { settings, indices: remaining, statusFile });
          failures.push(...ended.failures);
          if (ended.counts) mergeCounts(counts, ended.counts);
          let stoppedAt: number | undefined = ended.restartAfter;
          if (ended.death) {
            stoppedAt = currentIndex(statusFile);
            if (stoppedAt === undefined)
              throw new Error(`fuzz worker ${worker} died before its first input: ${ended.death.detail}`);
            failures.push(describe(stoppedAt, ended.death.kind, ended.death.detail));
            counts.inputs++;
          }
          if (stoppedAt === undefined) break;
          remaining = remaining.slice(remaining.indexOf(stoppedAt) + 1);
        }
      }),
    );
  } finally {
    describer?.remove();
  }
  return { counts, failures, workers: slices.length };
}

function currentIndex(statusFile: string): number | undefined {
  try {
    const value = Number(readFileSync(statusFile, 'utf8').trim());
    return Number.isSafeInteger(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

interface WorkerEnd {
  readonly failures: readonly Failure[];
  readonly counts?: FuzzCounts;
  readonly restartAfter?: number;
  /** Why the worker ended without reporting its counts. */
  readonly death?: { readonly kind: FailureKind; readonly detail: string };
}

function runOneWorker(program: string, task: WorkerTask): Promise<WorkerEnd> {
  return new Promise((resolve) => {
    // The test runner's own variables would make the worker report to it as a test file.
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('NODE_TEST')));
    const taskFile = `${task.statusFile}.task.json`;
    writeFileSync(taskFile, JSON.stringify(task));
    const child: ChildProcess = fork(program, [], {
      env: { ...env, [workerEnvironment]: taskFile },
      execArgv: [`--max-old-space-size=${workerHeapMb}`],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    const failures: Failure[] = [];
    let counts: FuzzCounts | undefined;
    let finished = false;
    let restartAfter: number | undefined;
    let stderr = '';
    let stuck: { kind: FailureKind; detail: string } | undefined;
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2000);
    });
    child.on('message', (message: WorkerMessage) => {
      if (message.type === 'failure') failures.push(message.failure);
      else if (message.type === 'counts') {
        counts = message.counts;
        finished = message.final;
      } else restartAfter = message.after;
    });
    let lastStatus = '';
    let lastChange = Date.now();
    let cpuAtChange = 0;
    const watchdog = setInterval(() => {
      let status = '';
      try {
        status = readFileSync(task.statusFile, 'utf8');
      } catch {
        // Not written yet: the worker is still loading.
      }
      const cpuMs = child.pid === undefined ? undefined : processCpuMs(child.pid);
      if (status !== lastStatus) {
        lastStatus = status;
        lastChange = Date.now();
        cpuAtChange = cpuMs ?? 0;
      } else if (cpuMs !== undefined && cpuMs - cpuAtChange > killCpuMs) {
        stuck = { kind: 'cpu', detail: `over ${killCpuMs / 1000} s of CPU on one input: killed` };
        child.kill('SIGKILL');
      } else if (Date.now() - lastChange > hangMs) {
        stuck = { kind: 'hang', detail: `no new input for ${hangMs / 1000} s: killed` };
        child.kill('SIGKILL');
      }
    }, 1000);
    child.on('exit', (code, signal) => {
      clearInterval(watchdog);
      const kept = counts ? { counts } : {};
      if (finished) resolve({ failures, ...kept, ...(restartAfter !== undefined ? { restartAfter } : {}) });
      else {
        const death = stuck ?? {
          kind: 'worker-died' as const,
          detail: `worker exited (${signal ?? `code ${code}`}): ${stderr.trim().split('\n').slice(-6).join('\n')}`,
        };
        resolve({ failures, ...kept, death });
      }
    });
  });
}
