/**
 * Everything that names a container or a user is checked before anything runs: a rejected value gives a
 * clear error and no process is started. Values are passed as argv in any case, never as shell text; the
 * checks keep a bad name from reaching a container engine at all.
 */
import { sandboxUserPattern, type ContainerEngine, type ProbeMode, type ProbeTarget } from '../../../shared/src/probe';

export class ProbeUsageError extends Error {}

/** Docker's and podman's rule for container names; container ids (hex) match it too. */
const containerPattern = /^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,254}$/;

export function checkUser(user: string): string {
  if (!sandboxUserPattern.test(user)) {
    throw new ProbeUsageError(`the sandbox user must be a name matching ^[a-z_][a-z0-9_-]*$ (as BenchFlow requires) or a numeric uid, not ${JSON.stringify(user)}`);
  }
  if (/^0+$/.test(user)) throw new ProbeUsageError('uid 0 is root: the probe never observes or signals root');
  return user;
}

export function checkContainerName(name: string): string {
  if (!containerPattern.test(name)) {
    throw new ProbeUsageError(`a container name or id is letters, digits, "_", "." and "-", starting with a letter or digit; not ${JSON.stringify(name)}`);
  }
  return name;
}

export function checkMode(mode: string): ProbeMode {
  if (mode === 'observe' || mode === 'harden') return mode;
  throw new ProbeUsageError(`the mode must be observe or harden, not ${JSON.stringify(mode)}`);
}

/** `docker:NAME`, `podman:NAME` or `local`. */
export function parseTarget(text: string): ProbeTarget {
  if (text === 'local') return { kind: 'local' };
  const separator = text.indexOf(':');
  const engine = text.slice(0, separator);
  if (separator > 0 && isContainerEngine(engine)) return { kind: engine, name: checkContainerName(text.slice(separator + 1)) };
  throw new ProbeUsageError(`the target must be docker:NAME, podman:NAME or local, not ${JSON.stringify(text)}`);
}

export function checkTarget(target: ProbeTarget): ProbeTarget {
  if (target.kind === 'local') return target;
  if (!isContainerEngine(target.kind)) throw new ProbeUsageError(`unknown target kind ${JSON.stringify(target.kind)}`);
  checkContainerName(target.name);
  return target;
}

export function formatTarget(target: ProbeTarget): string {
  return target.kind === 'local' ? 'local' : `${target.kind}:${target.name}`;
}

function isContainerEngine(kind: string): kind is ContainerEngine {
  return kind === 'docker' || kind === 'podman';
}
