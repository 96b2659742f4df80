/** An exec carried by a local process: the local target itself, or the docker and podman CLIs. */
import { spawn } from 'node:child_process';
import { abortReason, type Exec, type ExecEnd, type ExecHooks } from './execution';
import { LineSplitter } from './lines';

export function processExec(argv: readonly string[], display: readonly string[], env: NodeJS.ProcessEnv): Exec {
  return { display, run: (hooks) => runProcess(argv, env, hooks) };
}

function runProcess(argv: readonly string[], env: NodeJS.ProcessEnv, hooks: ExecHooks): Promise<ExecEnd> {
  return new Promise((resolve) => {
    if (hooks.signal.aborted) return resolve({ kind: 'failed', reason: abortReason(hooks.signal) });
    const [program, ...args] = argv;
    // No shell: each argument reaches the program exactly as given. Its own process group, so that
    // stopping it stops whatever it started too (a CLI's helpers, the local probe's sleep).
    const child = spawn(program!, args, { env, stdio: ['ignore', 'pipe', 'pipe'], shell: false, detached: true });
    const stdout = new LineSplitter(hooks.onStdout);
    const stderr = new LineSplitter(hooks.onStderr);
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    let failure: string | undefined;
    const abort = (): void => {
      failure = abortReason(hooks.signal);
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
      // A descendant that left the group could still hold the pipes open: stop reading them.
      child.stdout.destroy();
      child.stderr.destroy();
    };
    hooks.signal.addEventListener('abort', abort, { once: true });
    child.on('error', (error: NodeJS.ErrnoException) => {
      failure ??= error.code === 'ENOENT' ? `${program} was not found` : error.message;
    });
    child.on('close', (code, signal) => {
      hooks.signal.removeEventListener('abort', abort);
      stdout.end();
      stderr.end();
      if (failure !== undefined) resolve({ kind: 'failed', reason: failure });
      else if (code !== null) resolve({ kind: 'exited', code });
      else resolve({ kind: 'failed', reason: `${program} was ended by signal ${signal}` });
    });
  });
}
