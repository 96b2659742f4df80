/**
 * `rollout-evidence check` as the CLI runs it: the discovered bundles (of one shard, with --shard) are
 * checked by `--jobs` threads, the main thread and `jobs - 1` workers, and each one's report is written
 * as soon as it and every bundle before it in discovery's sorted order are done; then only counts are
 * kept. At most a few reports per thread wait for their turn, so memory does not grow with the number of
 * rollouts. The workers start while discovery still walks the tree, one per bundle found beyond the
 * first (which the main thread takes): loading the checker takes each a good fraction of a second, which
 * then overlaps the walk. The main thread checks too because a worker costs more than its share where
 * cores are few: on two, a second isolate's own compilation and garbage collection add about 1.7 s of
 * CPU to a 10,000-rollout run, so the main thread and one worker beat two workers beside an idle main.
 */
import { join } from 'node:path';
import type { DiscoveredBundle, Discovery } from '../../engine/bundle/discover';
import type { BundleChecker } from '../checkRun';
import type { CheckRequest } from '../report/run';
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

/** How many reports may be under way or waiting for their turn, per thread that checks (the main one too). */
const reportsPerThread = 4;

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
      pool.warm(found - 1);
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
    // The main thread is one of the `jobs` that check: with --jobs 1 it checks and writes each rollout in
    // turn; with more, it hands rollouts to the workers that have loaded, checks the next itself whenever
    // the window has room (all of them until a worker has loaded, so a small run never waits for one),
    // and writes the reports in order as they come.
    let session: BundleCheckSession | undefined;
    const observer = {
      onFileStart: (path: string) => progress.update(`checking ${displayPath(request.cwd, path)}`),
      onBytesRead: () => progress.tick(),
    };
    const onMain = (bundle: DiscoveredBundle): RolloutReport =>
      checkReport((session ??= new BundleCheckSession(request, options.check)), bundle, reportRequest, observer);
    if (!pool) for (const bundle of bundles) await take(onMain(bundle));
    else {
      const window = request.jobs * reportsPerThread;
      const underWay = new ReportsInOrder();
      let next = 0;
      while (next < bundles.length || underWay.size > 0) {
        while (next < bundles.length && underWay.size < window && pool.hasReadyRoom())
          underWay.add(pool.check(bundles[next++]!));
        if (next < bundles.length && underWay.size < window) {
          underWay.add(Promise.resolve(onMain(bundles[next++]!)));
          // A turn of the event loop, in which the workers' answers (and word that one has loaded) come in.
          await new Promise((resolve) => setImmediate(resolve));
          for (let report = underWay.takeReady(); report; report = underWay.takeReady()) await take(report);
        } else await take(await underWay.takeNext());
      }
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

/** Reports under way, taken in the order they were added; the first can be taken at once when it is done. */
class ReportsInOrder {
  private readonly entries: { readonly done: Promise<RolloutReport>; report?: RolloutReport }[] = [];

  get size(): number {
    return this.entries.length;
  }

  add(done: Promise<RolloutReport>): void {
    const entry: { readonly done: Promise<RolloutReport>; report?: RolloutReport } = { done };
    void done.then((report) => (entry.report = report));
    this.entries.push(entry);
  }

  /** The first report, once it is done. */
  takeNext(): Promise<RolloutReport> {
    return this.entries.shift()!.done;
  }

  /** The first report when it is done already, else undefined. */
  takeReady(): RolloutReport | undefined {
    const report = this.entries[0]?.report;
    if (report) this.entries.shift();
    return report;
  }
}

/** The workers beside the main thread, which checks too: `jobs - 1` of them. */
function workerPool(request: StreamRequest, report: ReportRequest, options: StreamOptions): WorkerPool {
  return new WorkerPool(request.jobs - 1, options.workerScript ?? join(__dirname, 'checkWorker.js'), {
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
