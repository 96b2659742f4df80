/**
 * Everything that names a container or a user is checked before anything runs: a rejected value gives a
 * clear error and no process is started. Values are passed as argv in any case, never as shell text; the
 * checks keep a bad name from reaching a container engine at all.
 */
import {
  dockerAccesses,
  sandboxUserProblem,
  type ContainerEngine,
  type DockerAccess,
  type ProbeMode,
  type ProbeTarget,
} from '../../../shared/src/probe';
import { isJsonObject } from '../../../shared/src/jsonObject';

export class ProbeUsageError extends Error {}

/** Docker's and podman's rule for container names; container ids (hex) match it too. */
const containerPattern = /^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,254}$/;

// Requests also arrive over LSP, as JSON: each check takes what came and keeps only what it expects.

export function checkUser(user: unknown): string {
  const problem = sandboxUserProblem(user);
  if (problem !== undefined) throw new ProbeUsageError(problem);
  return user as string;
}

export function checkContainerName(name: unknown): string {
  if (typeof name !== 'string' || !containerPattern.test(name)) {
    throw new ProbeUsageError(
      `a container name or id is letters, digits, "_", "." and "-", starting with a letter or digit; not ${JSON.stringify(name)}`,
    );
  }
  return name;
}

export function checkMode(mode: unknown): ProbeMode {
  if (mode === 'observe' || mode === 'harden') return mode;
  throw new ProbeUsageError(`the mode must be observe or harden, not ${JSON.stringify(mode)}`);
}

/** `docker:NAME`, `podman:NAME` or `local`. */
export function parseTarget(text: string): ProbeTarget {
  if (text === 'local') return { kind: 'local' };
  const separator = text.indexOf(':');
  const engine = text.slice(0, separator);
  if (separator > 0 && isContainerEngine(engine))
    return { kind: engine, name: checkContainerName(text.slice(separator + 1)) };
  throw new ProbeUsageError(`the target must be docker:NAME, podman:NAME or local, not ${JSON.stringify(text)}`);
}

export function checkTarget(target: unknown): ProbeTarget {
  const kind = isJsonObject(target) ? target['kind'] : undefined;
  if (kind === 'local') return { kind };
  if (typeof kind !== 'string' || !isContainerEngine(kind))
    throw new ProbeUsageError(`the target kind must be docker, podman or local, not ${JSON.stringify(kind)}`);
  return { kind, name: checkContainerName((target as { name?: unknown }).name) };
}

export function checkDockerAccess(access: unknown): DockerAccess {
  const known = dockerAccesses.find((candidate) => candidate === access);
  if (known === undefined)
    throw new ProbeUsageError(
      `docker is reached by ${dockerAccesses.slice(0, -1).join(', ')} or ${dockerAccesses.at(-1)}, not ${JSON.stringify(access)}`,
    );
  return known;
}

function isContainerEngine(kind: string): kind is ContainerEngine {
  return kind === 'docker' || kind === 'podman';
}
