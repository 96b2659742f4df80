/**
 * Worker threads that check bundles: each takes one bundle at a time, so a worker that dies (an
 * uncaught error, running out of memory, an exit) is known to have died on that bundle, which then gets
 * the internal-error its check's error boundary would give it; a new worker takes the worker's place.
 */
import { Worker } from 'node:worker_threads';
import type { DiscoveredBundle } from '../../engine/bundle/discover';
import type { CheckRequest } from '../checkRun';
import type { RolloutReport } from '../report/rolloutReport';
import { failedReport, type ReportRequest } from './checkReport';

/** What every worker is started with. */
export interface WorkerSetup {
  readonly check: Pick<CheckRequest, 'maxProblems' | 'rules' | 'fixtureFolders'>;
  readonly report: ReportRequest;
}

export interface WorkerTask {
  readonly id: number;
  readonly bundle: DiscoveredBundle;
}

export interface WorkerAnswer {
  readonly id: number;
  readonly report: RolloutReport;
}

interface Task extends WorkerTask {
  readonly resolve: (report: RolloutReport) => void;
}

interface Slot {
  readonly worker: Worker;
  task?: Task;
  error?: unknown;
}

export class WorkerPool {
  private readonly idle: Slot[] = [];
  private readonly queue: Task[] = [];
  private readonly slots = new Set<Slot>();
  private nextId = 0;
  private closing = false;

  constructor(
    private readonly size: number,
    private readonly script: string,
    private readonly setup: WorkerSetup,
  ) {}

  /** Starts workers now, up to `count` of the pool's size, so that they load while the caller still works. */
  warm(count: number): void {
    while (this.slots.size < Math.min(count, this.size)) this.idle.push(this.start());
  }

  /** The report of `bundle`, checked on the first free worker. */
  check(bundle: DiscoveredBundle): Promise<RolloutReport> {
    return new Promise((resolve) => {
      this.queue.push({ id: this.nextId++, bundle, resolve });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all([...this.slots].map((slot) => slot.worker.terminate()));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const slot = this.idle.pop() ?? (this.slots.size < this.size ? this.start() : undefined);
      if (!slot) return;
      const task = this.queue.shift()!;
      slot.task = task;
      slot.worker.postMessage({ id: task.id, bundle: task.bundle } satisfies WorkerTask);
    }
  }

  private start(): Slot {
    const slot: Slot = { worker: new Worker(this.script, { workerData: this.setup }) };
    this.slots.add(slot);
    slot.worker.on('message', (answer: WorkerAnswer) => {
      const task = slot.task;
      if (task?.id !== answer.id) return;
      slot.task = undefined;
      this.idle.push(slot);
      task.resolve(answer.report);
      this.dispatch();
    });
    slot.worker.on('error', (error) => {
      slot.error = error;
    });
    slot.worker.on('exit', (code) => {
      this.slots.delete(slot);
      const index = this.idle.indexOf(slot);
      if (index !== -1) this.idle.splice(index, 1);
      const task = slot.task;
      if (task) {
        const reason = slot.error ?? new Error(`the worker thread checking it exited with code ${code}`);
        task.resolve(failedReport(task.bundle, reason, this.setup.report));
      }
      if (!this.closing) this.dispatch();
    });
    return slot;
  }
}
