/** The running containers of docker and podman, for the target pick list. */
import { isJsonObject, type JsonObject } from '../../../shared/src/jsonObject';
import type { ContainerEngine, ContainerListing, DockerAccess, RunningContainer } from '../../../shared/src/probe';
import { errorMessage } from '../../../shared/src/errors';
import { dockerEngineApiContainers } from './exec/dockerEngineApi';
import { processExec } from './exec/processExec';
import { containerEngineRoute } from './containerEngines';

/** Listing is quick when a container engine answers at all; a daemon that hangs must not hold the pick list. */
const listingTimeoutMs = 10_000;

export async function listRunningContainers(
  access: DockerAccess,
  env: NodeJS.ProcessEnv,
  signal?: AbortSignal,
): Promise<ContainerListing> {
  const engines: ContainerEngine[] = ['docker', 'podman'];
  const bounded = signal
    ? AbortSignal.any([signal, AbortSignal.timeout(listingTimeoutMs)])
    : AbortSignal.timeout(listingTimeoutMs);
  const results = await Promise.all(
    engines.map(async (engine) => {
      try {
        return { engine, containers: await listContainersOf(engine, access, env, bounded) };
      } catch (error) {
        return { engine, reason: errorMessage(error) };
      }
    }),
  );
  return {
    containers: results.flatMap((result) => result.containers ?? []),
    unavailable: results.flatMap((result) =>
      result.reason !== undefined ? [{ engine: result.engine, reason: result.reason }] : [],
    ),
  };
}

async function listContainersOf(
  engine: ContainerEngine,
  access: DockerAccess,
  env: NodeJS.ProcessEnv,
  signal: AbortSignal,
): Promise<RunningContainer[]> {
  const route = containerEngineRoute(engine, access, env);
  if (route.kind === 'engine-api')
    return arrayOf(await dockerEngineApiContainers(route.socketPath, signal)).map((entry) =>
      fromEntry('docker', entry),
    );
  // docker prints one JSON object per line; podman prints one JSON array.
  const args = engine === 'docker' ? ['ps', '--no-trunc', '--format', '{{json .}}'] : ['ps', '--format', 'json'];
  const output = await collectOutput([route.program, ...args], env, signal);
  const entries =
    engine === 'docker'
      ? output
          .split('\n')
          .filter((line) => line.trim() !== '')
          .map((line) => JSON.parse(line) as unknown)
      : arrayOf(JSON.parse(output === '' ? '[]' : output) as unknown);
  return entries.map((entry) => fromEntry(engine, entry));
}

async function collectOutput(argv: readonly string[], env: NodeJS.ProcessEnv, signal: AbortSignal): Promise<string> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const end = await processExec(argv, argv, env).run({
    onStdout: (line) => stdout.push(line),
    onStderr: (line) => stderr.push(line),
    signal,
  });
  if (end.kind === 'failed') throw new Error(end.reason);
  if (end.code !== 0)
    throw new Error(
      `${argv.slice(0, 2).join(' ')} exited with status ${end.code}${stderr.length > 0 ? `: ${stderr.join(' ').trim().slice(0, 300)}` : ''}`,
    );
  return stdout.join('\n');
}

/** The CLIs and the API spell the same fields differently (ID/Id, Names as text or list, "/name"). */
function fromEntry(engine: ContainerEngine, entry: unknown): RunningContainer {
  const fields: JsonObject = isJsonObject(entry) ? entry : {};
  const id = text(fields['ID'] ?? fields['Id']);
  const names = fields['Names'];
  const firstName = Array.isArray(names) ? text(names[0]) : (text(names).split(',')[0] ?? '');
  return {
    engine,
    id,
    name: firstName.replace(/^\//, '') || id.slice(0, 12),
    image: text(fields['Image']),
    status: text(fields['Status'] ?? fields['State']),
  };
}

function arrayOf(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  throw new Error('the container list was not a JSON array');
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
