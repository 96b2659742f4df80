/**
 * `rollout-evidence check` as the CLI runs it: the discovered bundles (of one shard, with --shard) are
 * checked on the main thread (--jobs 1) or on worker threads, and each one's report is written as soon
 * as it and every bundle before it in discovery's sorted order are done; then only counts are kept. At
 * most a few reports per worker wait for their turn, so memory does not grow with the number of rollouts.
 * The worker threads start while discovery still walks the tree, one per bundle found from the second on
 * (one alone is checked on the main thread): loading the checker and compiling its schemas takes each a
 * good fraction of a second, which then overlaps the walk.
 */
import { join } from 'node:path';
import type { Discovery } from '../../engine/bundle/discover';
import type { CheckRequest, BundleChecker } from '../checkRun';
import { displayPath } from '../../../../shared/src/paths';
import { BundleCheckSession } from '../checkRun';
import type { ProgressLine } from '../progress';
import type { RolloutReport } from '../report/rolloutReport';
import { contextOf, type Output, type RunEnd, type WriterFactory } from '../report/reportWriter';
import { RunTally } from '../report/runTally';
import { checkReport, type ReportRequest } from './checkReport';
import { fileSpool } from './fileSpool';
import { bundlesOfShard, type Shard } from './shard';
import { WorkerPool } from './workerPool';

export interface StreamRequest extends CheckRequest {
  readonly shard: Shard | undefined;
  /** Worker threads; 1 checks on the main thread. */
  readonly jobs: number;
  readonly quiet: boolean;
}

export interface StreamFormat {
  readonly writer: WriterFactory;
  readonly fingerprints: boolean;
}

/** Where the output goes; `write` answers false when the reader is behind, and `drained` waits for it. */
export interface Sink {
  readonly write: (text: string) => boolean;
  readonly drained: () => Promise<void>;
}

export interface StreamOptions {
  readonly progress: ProgressLine;
  /** Called with each message of a path that could not be read, before the document's end is written. */
  readonly onIoError: (message: string) => void;
  /** The worker script; dist/checkWorker.js beside the running CLI by default. */
  readonly workerScript?: string;
  /** How a bundle is checked on the main thread; a test gives one that fails. */
  readonly check?: BundleChecker;
}

/** How many reports may be under way or waiting for their turn, per worker. */
const reportsPerWorker = 4;

/** Discovery, calling `onBundleFound` with the number found so far as it finds each bundle. */
export type DiscoverStep = (onBundleFound: (found: number) => void) => Discovery;

export async function streamCheck(
  request: StreamRequest,
  discover: DiscoverStep,
  format: StreamFormat,
  sink: Sink,
  options: StreamOptions,
): Promise<RunEnd> {
  const reportRequest: ReportRequest = { cwd: request.cwd, fingerprints: format.fingerprints };
  let pool: WorkerPool | undefined;
  try {
    const discovery = discover((found) => {
      if (found < 2 || request.jobs === 1) return;
      pool ??= workerPool(request, reportRequest, options);
      pool.warm(found);
    });
    return await checkDiscovered({ request, format, sink, options, reportRequest }, discovery, pool);
  } finally {
    await pool?.close();
  }
}

interface StreamRun {
  readonly request: StreamRequest;
  readonly format: StreamFormat;
  readonly sink: Sink;
  readonly options: StreamOptions;
  readonly reportRequest: ReportRequest;
}

/** The run once discovery is done: on `pool`'s workers when there is one (the caller closes it). */
async function checkDiscovered(
  { request, format, sink, options, reportRequest }: StreamRun,
  discovery: Discovery,
  pool: WorkerPool | undefined,
): Promise<RunEnd> {
  const bundles = request.shard ? bundlesOfShard(discovery.bundles, request.paths, request.shard) : discovery.bundles;
  const context = contextOf(request, discovery.ioErrors, {
    quiet: request.quiet,
    shard: request.shard ? { index: request.shard.index, count: request.shard.count } : null,
  });
  const spool = fileSpool();
  let behind = false;
  const write: Output = (text) => {
    if (!sink.write(text)) behind = true;
  };
  const writer = format.writer(context, write, spool);
  const tally = new RunTally(context);
  const { progress } = options;
  // Progress counts rollouts, as discovery found them (of this shard); loose files pass uncounted.
  const rolloutCount = bundles.filter((bundle) => !bundle.loose).length;
  let rolloutsDone = 0;
  progress.rollouts(0, rolloutCount);
  const take = async (report: RolloutReport) => {
    tally.add(report);
    writer.rollout(report);
    if (!report.loose) progress.rollouts(++rolloutsDone, rolloutCount);
    if (behind) {
      behind = false;
      await sink.drained();
    }
  };
  try {
    // The main thread checks, writing each report at once, until a worker is ready: all of a small run,
    // which then never waits for the workers to load, and the first rollouts of a large one; after that
    // it hands rollouts out and writes their reports in order.
    let session: BundleCheckSession | undefined;
    const observer = {
      onFileStart: (path: string) => progress.update(`checking ${displayPath(request.cwd, path)}`),
      onBytesRead: () => progress.tick(),
    };
    const window = request.jobs * reportsPerWorker;
    const underWay: Promise<RolloutReport>[] = [];
    let next = 0;
    while (next < bundles.length || underWay.length > 0) {
      if (underWay.length === 0 && !pool?.hasReadyRoom()) {
        session ??= new BundleCheckSession(request, options.check);
        await take(checkReport(session, bundles[next++]!, reportRequest, observer));
        // A turn of the event loop, in which a worker that has loaded can say so.
        if (pool) await new Promise((resolve) => setImmediate(resolve));
        continue;
      }
      while (next < bundles.length && underWay.length < window && pool?.hasReadyRoom())
        underWay.push(pool.check(bundles[next++]!));
      await take(await underWay.shift()!);
    }
    progress.clear();
    const end = tally.end();
    for (const message of end.ioErrors) options.onIoError(message);
    writer.end(end);
    return end;
  } finally {
    spool.dispose();
  }
}

function workerPool(request: StreamRequest, report: ReportRequest, options: StreamOptions): WorkerPool {
  return new WorkerPool(request.jobs, options.workerScript ?? join(__dirname, 'checkWorker.js'), {
    check: { maxProblems: request.maxProblems, rules: request.rules, fixtureFolders: request.fixtureFolders },
    report,
  });
}

/** Standard output, with a wait for when the reader is behind (pipes are asynchronous on some systems). */
export function stdoutSink(): Sink {
  return {
    write: (text) => process.stdout.write(text),
    drained: () => new Promise((resolve) => process.stdout.once('drain', resolve)),
  };
}
