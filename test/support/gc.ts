/**
 * A full garbage collection on demand, for tests that measure what stays reachable. Node exposes `gc`
 * only under --expose-gc; setting the flag at run time and reading `gc` from a fresh context gives the
 * same function without starting the test process with it.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

/** The heap in use after a full collection, in bytes. */
export function heapUsedAfterCollection(): number {
  // Twice: the first pass may only queue finalisers whose objects the second then frees.
  collect();
  collect();
  return process.memoryUsage().heapUsed;
}
