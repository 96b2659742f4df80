/**
 * What the language server process uses, for benchmarks and for tests
 * that bound its memory from outside. It reads nothing of the workspace and changes nothing, except
 * that a server started with `node --expose-gc` first collects its garbage, so that `heapUsedBytes` is
 * what is still reachable rather than what the collector has not got to yet. The request,
 * `processUsageRequest`, is in protocol.ts.
 */
export interface ProcessUsage {
  /** The V8 heap in use (process.memoryUsage().heapUsed). */
  readonly heapUsedBytes: number;
  readonly rssBytes: number;
  /** User and system CPU time of the whole process since it started. */
  readonly cpuMicroseconds: number;
  /** Whether a full garbage collection ran just before: only when the server was started with --expose-gc. */
  readonly collected: boolean;
}
