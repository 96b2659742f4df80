/**
 * The container environment itself, checked once per engine: a container from each image, a process
 * started as the sandbox user that really runs as uid 1000, and procps' pkill/pgrep in the procps image.
 * The probe's own tests build on exactly these steps.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type EngineKind,
  type TestContainer,
  processStatuses,
  requireEngine,
  startContainer,
  waitFor,
} from '../support/containers';

/** Starts `sleep 100001` as sandbox with `exec -d -u sandbox` and returns its status once it runs. */
async function startSandboxSleep(container: TestContainer): Promise<{ pid: number; uid: number; euid: number }> {
  const started = await container.exec(['sleep', '100001'], { user: 'sandbox', detach: true });
  assert.equal(started.code, 0, `exec -d -u sandbox: ${started.stderr}`);
  const sleeper = await waitFor(async () =>
    (await processStatuses(container)).find((status) => status.name === 'sleep' && status.uid === 1000),
  );
  assert.ok(sleeper, `no process with uid 1000 in ${container.kind} container ${container.name}`);
  return sleeper;
}

for (const kind of ['docker', 'podman'] as const satisfies readonly EngineKind[]) {
  test(
    `${kind}: a process started with exec -u sandbox runs as uid 1000 under a root init`,
    { timeout: 120_000 },
    async () => {
      requireEngine(kind);
      const container = await startContainer(kind, { image: 'busybox' });
      try {
        const sleeper = await startSandboxSleep(container);
        assert.equal(sleeper.euid, 1000);
        const statuses = await processStatuses(container);
        const init = statuses.find((status) => status.pid === 1);
        assert.ok(init, 'the container has a PID 1');
        assert.equal(init.uid, 0, 'PID 1 (the init) runs as root');
        // Debian's busybox has no pkill: the busybox image is the one without it.
        const pkill = await container.exec(['sh', '-c', 'command -v pkill || echo none']);
        assert.equal(pkill.stdout.trim(), 'none');
      } finally {
        await container.remove();
      }
    },
  );

  test(
    `${kind}: the procps image's /usr/bin/pkill and pgrep find the sandbox process by uid`,
    { timeout: 120_000 },
    async () => {
      requireEngine(kind);
      const container = await startContainer(kind, { image: 'procps' });
      try {
        const sleeper = await startSandboxSleep(container);
        const pgrep = await container.exec(['/usr/bin/pgrep', '-u', '1000']);
        assert.equal(pgrep.code, 0, `pgrep -u 1000: ${pgrep.stderr}`);
        assert.deepEqual(pgrep.stdout.trim().split('\n').map(Number), [sleeper.pid]);
        const pkill = await container.exec(['/usr/bin/pkill', '-0', '-u', '1000']);
        assert.equal(pkill.code, 0, `pkill -0 -u 1000: ${pkill.stderr}`);
        // Nothing owned by uid 1001: pgrep says so with exit code 1.
        assert.equal((await container.exec(['/usr/bin/pgrep', '-u', '1001'])).code, 1);
      } finally {
        await container.remove();
      }
    },
  );
}
