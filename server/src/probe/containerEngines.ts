/**
 * Where the probe's commands go: which program or socket reaches each kind of target, and how a
 * command is run there as root. When a container engine cannot be reached, the error says what was looked for.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { ContainerEngine, DockerAccess, ProbeTarget } from '../../../shared/src/probe';
import { dockerEngineApiExec } from './exec/dockerEngineApi';
import type { Exec } from './exec/execution';
import { processExec } from './exec/processExec';

export class ContainerEngineUnavailableError extends Error {}

export type DockerRoute =
  { readonly kind: 'cli'; readonly program: string } | { readonly kind: 'engine-api'; readonly socketPath: string };

const defaultDockerSocket = '/var/run/docker.sock';

/**
 * auto: the Engine API when DOCKER_HOST names a unix socket (no CLI needed), else the docker CLI, else
 * the default socket. cli and engine-api insist on one.
 */
export function dockerRoute(access: DockerAccess, env: NodeJS.ProcessEnv): DockerRoute {
  const host = env['DOCKER_HOST'];
  const hostSocket = host?.startsWith('unix://') ? host.slice('unix://'.length) : undefined;
  const socket = hostSocket ?? (host === undefined && exists(defaultDockerSocket) ? defaultDockerSocket : undefined);
  const program = findProgram('docker', env);
  if (access === 'engine-api' || (access === 'auto' && hostSocket !== undefined)) {
    if (socket !== undefined) return { kind: 'engine-api', socketPath: socket };
    throw new ContainerEngineUnavailableError(
      host === undefined
        ? `no Docker Engine socket: DOCKER_HOST is not set and ${defaultDockerSocket} does not exist`
        : `no Docker Engine socket: DOCKER_HOST is "${host}", not a unix socket`,
    );
  }
  if (program !== undefined) return { kind: 'cli', program };
  if (access === 'auto' && socket !== undefined) return { kind: 'engine-api', socketPath: socket };
  throw new ContainerEngineUnavailableError(
    `docker is not installed: looked for the docker CLI on PATH${access === 'auto' && host === undefined ? ` and for the Engine API socket ${defaultDockerSocket}` : ''}`,
  );
}

/**
 * How every command runs in a target: this shell by its absolute path, with PATH set to the system
 * folders alone. The target's own PATH (a container's, or root's on this machine) may lead through a
 * folder the sandbox user can write to, where a planted `sh` or `sleep` would run as root.
 */
export const targetShell = '/bin/sh';
export const targetPath = '/usr/sbin:/usr/bin:/sbin:/bin';

export function podmanProgram(env: NodeJS.ProcessEnv): string {
  const program = findProgram('podman', env);
  if (program === undefined)
    throw new ContainerEngineUnavailableError('podman is not installed: looked for the podman CLI on PATH');
  return program;
}

/**
 * Runs `command` in the target with PATH set to `targetPath` and nothing else of this process's
 * environment: as root in a container, as this process's own user on the local machine (the probe
 * refuses to harden there without root). `shown` is the command as the transcript shows it (the probe's
 * script replaced by a placeholder). `env` is where the container engines are looked for.
 */
export function execAsRoot(
  target: ProbeTarget,
  command: readonly string[],
  shown: readonly string[],
  access: DockerAccess,
  env: NodeJS.ProcessEnv,
): Exec {
  if (target.kind === 'local') return processExec(command, shown, { PATH: targetPath });
  const execArgs = ['exec', '-u', '0', '-e', `PATH=${targetPath}`, target.name];
  if (target.kind === 'podman')
    return processExec([podmanProgram(env), ...execArgs, ...command], ['podman', ...execArgs, ...shown], env);
  const route = dockerRoute(access, env);
  if (route.kind === 'cli')
    return processExec([route.program, ...execArgs, ...command], ['docker', ...execArgs, ...shown], env);
  return dockerEngineApiExec(
    route.socketPath,
    target.name,
    command,
    [`PATH=${targetPath}`],
    [`engine-api:${route.socketPath}`, ...execArgs, ...shown],
  );
}

export function containerEngineRoute(
  engine: ContainerEngine,
  access: DockerAccess,
  env: NodeJS.ProcessEnv,
): DockerRoute {
  return engine === 'podman' ? { kind: 'cli', program: podmanProgram(env) } : dockerRoute(access, env);
}

function findProgram(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const folder of (env['PATH'] ?? '').split(delimiter)) {
    if (folder === '') continue;
    const candidate = join(folder, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // Not here; keep looking along PATH.
    }
  }
  return undefined;
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}
