/**
 * Worker threads that check bundles. Each is sent up to two at a time, so that it starts the next as
 * soon as it answers one instead of waiting a round trip through the main thread; it checks them in the
 * order sent, so a worker that dies (an uncaught error, running out of memory, an exit) is known to have
 * died on the first it has not answered, which then gets the internal-error its check's error boundary
 * would give it; the others it held go back to the queue, and a new worker takes the worker's place.
 */
import { Worker } from 'node:worker_threads';
import type { DiscoveredBundle } from '../../engine/bundle/discover';
import type { CheckRequest } from '../report/run';
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

/** A worker's answer to a task, or its word that it has loaded (its checker made, its schemas compiled). */
export type WorkerMessage = { readonly id: number; readonly report: RolloutReport } | { readonly ready: true };

interface Task extends WorkerTask {
  readonly resolve: (report: RolloutReport) => void;
}

interface Slot {
  readonly worker: Worker;
  /** Sent and not answered yet, in the order sent. */
  readonly tasks: Task[];
  ready: boolean;
  error?: unknown;
}

/** Bundles a worker holds at most: the one it checks and the next. */
const tasksPerWorker = 2;

export class WorkerPool {
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
    while (this.slots.size < Math.min(count, this.size)) this.start();
  }

  /** Whether a worker that has loaded would take a bundle now. */
  hasReadyRoom(): boolean {
    if (this.queue.length > 0) return false;
    for (const slot of this.slots) if (slot.ready && slot.tasks.length < tasksPerWorker) return true;
    return false;
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
      const slot = this.leastBusy();
      if (!slot) return;
      const task = this.queue.shift()!;
      slot.tasks.push(task);
      slot.worker.postMessage({ id: task.id, bundle: task.bundle } satisfies WorkerTask);
    }
  }

  /**
   * The worker to send the next bundle to: the least busy of those that have loaded and have room, else
   * a new one while the pool has room, else one still loading that has room.
   */
  private leastBusy(): Slot | undefined {
    let best: Slot | undefined;
    for (const slot of this.slots) {
      if (slot.tasks.length >= tasksPerWorker) continue;
      if (!best || (slot.ready && !best.ready) || (slot.ready === best.ready && slot.tasks.length < best.tasks.length))
        best = slot;
    }
    if (best?.ready) return best;
    if (this.slots.size < this.size) return this.start();
    return best;
  }

  private start(): Slot {
    const slot: Slot = { worker: new Worker(this.script, { workerData: this.setup }), tasks: [], ready: false };
    this.slots.add(slot);
    slot.worker.on('message', (answer: WorkerMessage) => {
      if ('ready' in answer) {
        slot.ready = true;
        return;
      }
      const task = slot.tasks[0];
      if (task?.id !== answer.id) return;
      slot.tasks.shift();
      task.resolve(answer.report);
      this.dispatch();
    });
    slot.worker.on('error', (error) => {
      slot.error = error;
    });
    slot.worker.on('exit', (code) => {
      this.slots.delete(slot);
      const [task, ...held] = slot.tasks;
      if (task) {
        const reason = slot.error ?? new Error(`the worker thread checking it exited with code ${code}`);
        task.resolve(failedReport(task.bundle, reason, this.setup.report));
      }
      this.queue.unshift(...held);
      if (!this.closing) this.dispatch();
    });
    return slot;
  }
}
