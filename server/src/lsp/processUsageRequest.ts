/** Answers `rolloutEvidence/processUsage` (see shared/src/processUsage.ts): memory and CPU of this process. */
import type { Connection } from 'vscode-languageserver/node';
import type { ProcessUsage } from '../../../shared/src/processUsage';
import { processUsageRequest } from '../../../shared/src/protocol';

export function registerProcessUsageRequest(connection: Connection): void {
  connection.onRequest(processUsageRequest, (): ProcessUsage => {
    // Present only under --expose-gc, which nobody passes by accident.
    const collect = (globalThis as { gc?: () => void }).gc;
    if (typeof collect === 'function') {
      // Twice: the first pass may only queue finalisers whose objects the second then frees.
      collect();
      collect();
    }
    const memory = process.memoryUsage();
    const cpu = process.cpuUsage();
    return {
      heapUsedBytes: memory.heapUsed,
      rssBytes: memory.rss,
      cpuMicroseconds: cpu.user + cpu.system,
      collected: typeof collect === 'function',
    };
  });
}
