/**
 * A real VS Code without a desktop build: the VS Code server (from code-server) in its own process
 * group, and its web workbench in headless Chromium driven by playwright-core. Every wait is bounded
 * and everything started is stopped, whatever happens.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { format } from 'node:util';
import { chromium, type Page } from 'playwright-core';
import { errorMessage } from '../../shared/src/errors';
import { temporaryFolder } from '../support/repo';
import type { VsCodeServerTools } from './environment';

const serverStartTimeoutMs = 60_000;
const browserLaunchTimeoutMs = 60_000;

export interface WorkbenchOptions {
  readonly tools: VsCodeServerTools;
  readonly folder?: string;
  readonly extensionDevelopmentPaths: readonly string[];
  readonly extensionTestsPath?: string;
  readonly extensionsDir?: string;
  readonly userDataDir?: string;
  /** Environment for the server, and so for the extension host and the tests in it. */
  readonly env?: NodeJS.ProcessEnv;
  /** Keep workspace trust on, so an untrusted folder opens in Restricted Mode; off (all trusted) by default. */
  readonly workspaceTrust?: boolean;
  readonly log: (line: string) => void;
}

export interface Workbench {
  readonly page: Page;
  /** Resolves with the exit code the workbench reports when the extension tests finish. */
  readonly testsFinished: Promise<number>;
  close(): Promise<void>;
}

/** Noise of an offline web workbench that says nothing about our extension. */
const noise = [
  /ENOTFOUND/,
  /open-vsx|openvsx/i,
  /telemetry/i,
  /serviceWorker\.js/,
  /manifest\.json/,
  /authentication provider/i,
  /AgentHost|Copilot|\[Chat\]|chat\./i,
  /^Creating a socket/,
  /connection token/,
  /reconnection-grace-time/,
  /AccountPolicyGate/,
  /builtin extensions cache/,
];

export async function openWorkbench(options: WorkbenchOptions): Promise<Workbench> {
  const scratch = temporaryFolder('rollout-evidence-vscode-');
  const cleanups: (() => Promise<void> | void)[] = [scratch.remove];
  const close = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      try {
        await cleanup();
      } catch {
        // Tearing down must get through every step.
      }
    }
  };
  try {
    const server = await startServer(options, scratch.path);
    cleanups.push(() => stopProcessGroup(server.process));
    const onExit = () => stopProcessGroup(server.process);
    process.once('exit', onExit);
    cleanups.push(() => void process.removeListener('exit', onExit));

    const context = await chromium
      .launchPersistentContext(join(scratch.path, 'chromium-profile'), {
        executablePath: options.tools.chromium,
        headless: true,
        timeout: browserLaunchTimeoutMs,
        viewport: { width: 1400, height: 900 },
        // No background networking: this machine's closed network would refuse it at every start.
        args: [
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      })
      .catch((error: unknown) => {
        throw new Error(`the browser ${options.tools.chromium} could not be launched: ${errorMessage(error)}`);
      });
    cleanups.push(() => context.close());
    const page = context.pages()[0] ?? (await context.newPage());

    let reportExit: (code: number) => void = () => undefined;
    const testsFinished = new Promise<number>((resolve) => (reportExit = resolve));
    await page.exposeFunction('codeAutomationLog', (type: string, args: unknown[]) => {
      const line = format(...args.map((arg) => (typeof arg === 'string' ? arg.replace(/%c/g, '') : arg)));
      if (noise.some((pattern) => pattern.test(line))) return;
      (type === 'error' ? process.stderr : process.stdout).write(`${line}\n`);
    });
    await page.exposeFunction('codeAutomationExit', (code: number) => reportExit(code));

    await page.goto(workbenchUrl(server.port, options), { timeout: serverStartTimeoutMs });
    options.log(`workbench opened on 127.0.0.1:${server.port}`);
    return { page, testsFinished, close };
  } catch (error) {
    await close();
    throw error;
  }
}

function workbenchUrl(port: number, options: WorkbenchOptions): string {
  const remote = (path: string) => `vscode-remote://127.0.0.1:${port}${path}`;
  const payload = [
    ...options.extensionDevelopmentPaths.map((path) => ['extensionDevelopmentPath', remote(path)]),
    ...(options.extensionTestsPath ? [['extensionTestsPath', remote(options.extensionTestsPath)]] : []),
  ];
  const where = options.folder ? `folder=${encodeURIComponent(options.folder)}` : 'ew=true';
  return `http://127.0.0.1:${port}/?${where}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
}

interface RunningServer {
  readonly process: ChildProcess;
  readonly port: number;
}

function startServer(options: WorkbenchOptions, scratch: string): Promise<RunningServer> {
  const args = [
    join(options.tools.serverDir, 'out/server-main.js'),
    '--host',
    '127.0.0.1',
    '--port',
    '0',
    '--without-connection-token',
    '--accept-server-license-terms',
    // Makes a built VS Code honour the extension development and tests paths in the URL payload.
    '--enable-smoke-test-driver',
    '--disable-telemetry',
    ...(options.workspaceTrust ? [] : ['--disable-workspace-trust']),
    '--user-data-dir',
    options.userDataDir ?? join(scratch, 'user-data'),
    '--server-data-dir',
    join(scratch, 'server-data'),
    '--extensions-dir',
    options.extensionsDir ?? join(scratch, 'extensions'),
  ];
  // Its own process group: the server forks an agent host and extension hosts that outlive it.
  const child = spawn(options.tools.node, args, {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env },
  });
  return new Promise((resolve, reject) => {
    let output = '';
    let listening = false;
    const fail = (reason: string) => {
      clearTimeout(timer);
      stopProcessGroup(child);
      reject(new Error(`the VS Code server did not start: ${reason}\n${output.slice(-4000)}`));
    };
    const timer = setTimeout(() => fail(`no port after ${serverStartTimeoutMs / 1000} s`), serverStartTimeoutMs);
    const scan = (chunk: Buffer) => {
      if (process.env['VSCODE_SERVER_LOG']) process.stderr.write(chunk);
      if (listening) return;
      output += chunk.toString();
      const match = /Extension host agent listening on (\d+)/.exec(output);
      if (match) {
        listening = true;
        clearTimeout(timer);
        child.removeListener('exit', onEarlyExit);
        resolve({ process: child, port: Number(match[1]) });
      }
    };
    const onEarlyExit = (code: number | null, signal: string | null) =>
      fail(`it exited (${code ?? signal}) before listening`);
    child.stdout!.on('data', scan);
    child.stderr!.on('data', scan);
    child.once('exit', onEarlyExit);
    child.once('error', (error) => fail(error.message));
  });
}

function stopProcessGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}
