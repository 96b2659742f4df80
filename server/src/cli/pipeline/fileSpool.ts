/**
 * A spool in a temporary file, so that what a format holds back until the end of a run (SARIF's results)
 * does not grow the process's memory with the number of rollouts. The file is made on the first write
 * and removed when drained or disposed.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { Output, Spool } from '../report/reportWriter';

const chunkBytes = 1024 * 1024;

export interface DisposableSpool extends Spool {
  dispose(): void;
}

export function fileSpool(): DisposableSpool {
  let folder: string | undefined;
  let fd: number | undefined;
  const dispose = () => {
    if (fd !== undefined) closeSync(fd);
    fd = undefined;
    if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
    folder = undefined;
  };
  return {
    write(text) {
      if (fd === undefined) {
        folder = mkdtempSync(join(tmpdir(), 'rollout-evidence-'));
        fd = openSync(join(folder, 'spool'), 'w+', 0o600);
      }
      writeSync(fd, text);
    },
    drainTo(write: Output) {
      if (fd === undefined) return;
      const buffer = Buffer.allocUnsafe(chunkBytes);
      // A chunk may end inside a character: the decoder keeps its first bytes for the next.
      const decoder = new StringDecoder('utf8');
      let position = 0;
      for (
        let read = readSync(fd, buffer, 0, chunkBytes, position);
        read > 0;
        read = readSync(fd, buffer, 0, chunkBytes, position)
      ) {
        position += read;
        write(decoder.write(buffer.subarray(0, read)));
      }
      const rest = decoder.end();
      if (rest !== '') write(rest);
      dispose();
    },
    dispose,
  };
}
