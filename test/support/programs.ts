/** A program run to its end, for tests that look at what it printed and how it exited. */
import { spawn } from 'node:child_process';

export interface ProgramRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Asynchronous, so container engines and servers this process started keep answering meanwhile. */
export function runProgram(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<ProgramRun> {
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', (error) => resolve({ status: null, stdout, stderr: `${stderr}${error.message}` }));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}
