/**
 * Real containers for the tests whose file name says "container". scripts/test.mjs starts a private
 * dockerd and a private podman store (scripts/testContainers.mjs) and passes their settings in the
 * environment; these helpers start containers there and run commands in them. Every command is an argv
 * array handed to spawn, never a shell line.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';

export type EngineKind = 'docker' | 'podman';
export type ImageName = 'busybox' | 'procps';

export interface ExecResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface TestContainer {
  readonly name: string;
  readonly kind: EngineKind;
  /** Runs argv in the container (`exec`); `detach` returns as soon as it started (`exec -d`). */
  exec(argv: readonly string[], options?: { user?: string; detach?: boolean }): Promise<ExecResult>;
  /** Copies a file of this machine into the container (`cp`), keeping its mode. */
  copyIn(hostPath: string, containerPath: string): Promise<void>;
  /** Removes the container at once (`rm -f`); never throws, so it can sit in a finally. */
  remove(): Promise<void>;
}

/** One line of /proc/PID/status per field the tests look at. */
export interface ProcessStatus {
  pid: number;
  name: string;
  /** The single state letter: S, R, Z… */
  state: string;
  uid: number;
  euid: number;
  /** All four Uid: fields: real, effective, saved, filesystem. */
  uids: readonly number[];
}

/** The label testContainers.mjs removes every container by at the end of the run. */
export const containerLabel = 'rollout-evidence-test';
// Built by testContainers.mjs from the host's busybox-static, the second with the host's procps added.
const images: Readonly<Record<ImageName, string>> = {
  busybox: 'rollout-evidence-probe:busybox',
  procps: 'rollout-evidence-probe:procps',
};
const errorVariables: Readonly<Record<EngineKind, string>> = {
  docker: 'ROLLOUT_EVIDENCE_DOCKER_ERROR',
  podman: 'ROLLOUT_EVIDENCE_PODMAN_ERROR',
};
const settingVariables: Readonly<Record<EngineKind, readonly string[]>> = {
  docker: ['DOCKER_HOST'],
  podman: ['CONTAINERS_CONF', 'CONTAINERS_STORAGE_CONF'],
};
const howToRun =
  'run the tests through `npm test` (scripts/test.mjs), which starts the private engines; `.ci/run` installs the packages they need';

/** Throws, with the recorded reason, unless the engine was set up for this run. Call it first in each test. */
export function requireEngine(kind: EngineKind): void {
  const setupError = process.env.ROLLOUT_EVIDENCE_CONTAINERS_ERROR;
  if (setupError) throw new Error(`the container environment could not be set up: ${setupError}`);
  const engineError = process.env[errorVariables[kind]];
  if (engineError) throw new Error(`${kind} could not be set up for this run: ${engineError}`);
  const missing = settingVariables[kind].filter((name) => !process.env[name]);
  if (missing.length > 0) throw new Error(`${kind}: ${missing.join(', ')} not set: ${howToRun}`);
}

/** The extracted busybox rootfs (with /dev/null) for tests that run unshare + nsenter instead of an engine. */
export function testRootfs(): string {
  const setupError = process.env.ROLLOUT_EVIDENCE_CONTAINERS_ERROR;
  if (setupError) throw new Error(`the container environment could not be set up: ${setupError}`);
  const rootfs = process.env.ROLLOUT_EVIDENCE_TEST_ROOTFS;
  if (!rootfs) throw new Error(`ROLLOUT_EVIDENCE_TEST_ROOTFS not set: ${howToRun}`);
  return rootfs;
}

/**
 * The environment for the engines' CLIs: this process's, which test.mjs filled with DOCKER_HOST and
 * CONTAINERS_CONF / CONTAINERS_STORAGE_CONF, so a plain `docker` or `podman` reaches the private engine.
 */
export function engineEnv(): NodeJS.ProcessEnv {
  return { ...process.env };
}

/**
 * Starts a container that stays up: `run -d --network none --label rollout-evidence-test`. Its PID 1
 * is an init by default, run as root: a sandbox-owned PID 1 would survive SIGKILL from inside its own
 * pid namespace, and an init reaps the orphans of killed processes.
 */
export async function startContainer(
  kind: EngineKind,
  {
    image = 'busybox',
    user,
    command = ['sleep', '1000000'],
    init = true,
    capabilities = [],
  }: { image?: ImageName; user?: string; command?: string[]; init?: boolean; capabilities?: readonly string[] } = {},
): Promise<TestContainer> {
  requireEngine(kind);
  const name = `re-test-${randomBytes(6).toString('hex')}`;
  const args = ['run', '-d', '--network', 'none', '--label', containerLabel, '--name', name];
  if (init) args.push('--init');
  if (user !== undefined) args.push('--user', user);
  for (const capability of capabilities) args.push('--cap-add', capability);
  const started = await runEngine(kind, [...args, images[image], ...command]);
  if (started.code !== 0)
    throw new Error(`${kind} ${args.join(' ')} ${images[image]} failed (${started.code}): ${started.stderr.trim()}`);
  return {
    name,
    kind,
    exec: (argv, { user: execUser, detach = false } = {}) =>
      runEngine(kind, [
        'exec',
        ...(detach ? ['-d'] : []),
        ...(execUser !== undefined ? ['-u', execUser] : []),
        name,
        ...argv,
      ]),
    copyIn: async (hostPath, containerPath) => {
      const copied = await runEngine(kind, ['cp', hostPath, `${name}:${containerPath}`]);
      if (copied.code !== 0)
        throw new Error(
          `${kind} cp ${hostPath} ${name}:${containerPath} failed (${copied.code}): ${copied.stderr.trim()}`,
        );
    },
    // podman waits 10 s for a graceful stop unless told otherwise; docker's rm -f kills at once.
    remove: async () => {
      await runEngine(kind, ['rm', '-f', ...(kind === 'podman' ? ['-t', '0'] : []), name]).catch(() => undefined);
    },
  };
}

/**
 * Every process in the container, read from /proc/PID/status by `cat` (no shell, no ps: busybox and
 * procps ps differ). A process that ends between the listing and the read is simply absent.
 */
export async function processStatuses(container: TestContainer): Promise<ProcessStatus[]> {
  const listing = await container.exec(['ls', '/proc']);
  // ls complains about entries that vanish while it lists them; the rest of its listing stands.
  if (listing.code !== 0 && !/^\d+$/m.test(listing.stdout))
    throw new Error(`ls /proc in ${container.name} failed: ${listing.stderr.trim()}`);
  const pids = listing.stdout.split(/\s+/).filter((entry) => /^\d+$/.test(entry));
  // cat exits 1 when a file vanished; what it did read is still valid.
  const read = await container.exec(['cat', ...pids.map((pid) => `/proc/${pid}/status`)]);
  return read.stdout
    .split(/^(?=Name:)/m)
    .map(parseStatus)
    .filter((status): status is ProcessStatus => status !== undefined);
}

/** Polls `find` until it returns something or `timeoutMs` passes: `exec -d` returns before the process runs. */
export async function waitFor<T>(find: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await find();
    if (found !== undefined || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function parseStatus(text: string): ProcessStatus | undefined {
  const field = (key: string): string | undefined => new RegExp(`^${key}:\\s*(.*)$`, 'm').exec(text)?.[1];
  const pid = field('Pid');
  const uids = field('Uid')?.split(/\s+/);
  if (pid === undefined || uids === undefined || uids.length < 2) return undefined;
  return {
    pid: Number(pid),
    name: field('Name') ?? '',
    state: (field('State') ?? '?').charAt(0),
    uid: Number(uids[0]),
    euid: Number(uids[1]),
    uids: uids.map(Number),
  };
}

/** Runs the engine's CLI with an argv array; resolves its exit code and output, whatever the code. */
function runEngine(kind: EngineKind, args: readonly string[], timeoutMs = 120_000): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(kind, args, { env: engineEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    // A hung CLI should fail its test with a reason, not stall the whole run until the runner's timeout.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${kind} ${args.join(' ')}: no answer in ${timeoutMs / 1000} s; stderr: ${stderr.trim()}`));
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`${kind} ${args.join(' ')}: ${error.message} (${howToRun})`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr });
    });
  });
}
