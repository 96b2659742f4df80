/** Runs the live probe against the tests' real containers and checks what every run must show. */
import assert from 'node:assert/strict';
import type { DockerAccess, ProbeMode, ProbeOutcome } from '../../shared/src/probe';
import { runProbe } from '../../server/src/probe/runProbe';
import { engineEnv, processStatuses, waitFor, type ProcessStatus, type TestContainer } from './containers';

/** The ways a container can be reached: docker by its CLI and by the Engine API, and podman. */
export interface ProbeRoute {
  readonly name: string;
  readonly engine: 'docker' | 'podman';
  readonly dockerAccess?: DockerAccess;
}

export const routes: readonly ProbeRoute[] = [
  { name: 'docker engine-api', engine: 'docker', dockerAccess: 'engine-api' },
  { name: 'docker cli', engine: 'docker', dockerAccess: 'cli' },
  { name: 'podman', engine: 'podman' },
];

export function probeContainer(
  container: TestContainer,
  route: ProbeRoute,
  {
    mode,
    user = 'sandbox',
    graceSeconds = 1,
    timeoutSeconds = 60,
    signal,
  }: { mode: ProbeMode; user?: string; graceSeconds?: number; timeoutSeconds?: number; signal?: AbortSignal },
): Promise<ProbeOutcome> {
  return runProbe(
    {
      target: { kind: container.kind, name: container.name },
      user,
      mode,
      graceSeconds,
      timeoutSeconds,
      ...(route.dockerAccess ? { dockerAccess: route.dockerAccess } : {}),
    },
    { env: engineEnv(), ...(signal ? { signal } : {}) },
  );
}

/** Starts `script` with sh in the container as `user` (detached) and waits until `match` sees its process. */
export async function startProcess(
  container: TestContainer,
  user: string,
  script: string,
  match: (status: ProcessStatus) => boolean,
): Promise<ProcessStatus> {
  const started = await container.exec(['sh', '-c', script], { user, detach: true });
  assert.equal(started.code, 0, `exec -d -u ${user} sh -c ${script}: ${started.stderr}`);
  const found = await waitFor(async () => (await processStatuses(container)).find(match));
  assert.ok(found, `the process of "${script}" did not appear in ${container.name}`);
  return found;
}

export const sandboxUid = 1000;
export const isSandbox = (name: string) => (status: ProcessStatus) =>
  status.name === name && status.euid === sandboxUid && status.state !== 'Z';

/**
 * The contract of every run: the probe's output ends on its final observation (survivors, then the
 * result), every signal comes before it, and nothing but the exec's exit follows it.
 */
export function assertEndsOnObservation(outcome: ProbeOutcome): void {
  const events = outcome.transcript.flatMap((entry) => (entry.kind === 'stdout' ? [parseEvent(entry.line)] : []));
  assert.ok(events.length > 0, 'the probe printed its events');
  assert.equal(events.at(-1), 'result', 'the last line is the result');
  const lastSignal = events.lastIndexOf('signal');
  const firstFinal = events.findIndex((event) => event === 'survivor' || event === 'result');
  assert.ok(lastSignal < firstFinal, `every signal precedes the final observation: ${events.join(', ')}`);
  const resultAt = outcome.transcript.findIndex(
    (entry) => entry.kind === 'stdout' && parseEvent(entry.line) === 'result',
  );
  assert.deepEqual(
    outcome.transcript.slice(resultAt + 1).map((entry) => entry.kind),
    ['exit'],
    'nothing runs after the final observation',
  );
}

/** The signals as "TERM 12" strings, in order. */
export function signalsOf(outcome: ProbeOutcome): string[] {
  return outcome.signals.map((sent) => `${sent.signal} ${sent.pid}`);
}

function parseEvent(line: string): string {
  const parsed = JSON.parse(line) as { event?: unknown };
  return String(parsed.event);
}
