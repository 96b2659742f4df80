/**
 * Runs a task at most once per interval, measured from the end of its last run. Calls that arrive while
 * it runs or while it rests coalesce into one more run, so a burst of file events from a run that is
 * still writing costs one refresh, and a run that writes for minutes is followed once a second.
 */
export class Throttle {
  private running = false;
  private pending = false;
  private disposed = false;
  private timer: NodeJS.Timeout | undefined;
  private lastEnd = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly task: () => Promise<void>,
    private readonly intervalMs: number,
  ) {}

  schedule(): void {
    if (this.disposed) return;
    this.pending = true;
    if (this.running || this.timer) return;
    const wait = Math.max(0, this.lastEnd + this.intervalMs - performance.now());
    this.timer = setTimeout(() => void this.run(), wait);
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async run(): Promise<void> {
    this.timer = undefined;
    this.pending = false;
    this.running = true;
    try {
      await this.task();
    } finally {
      this.running = false;
      this.lastEnd = performance.now();
      if (this.pending) {
        this.pending = false;
        this.schedule();
      }
    }
  }
}
