/**
 * The live probe against real containers and real processes: each scenario from BenchFlow's quiescence
 * contract, through docker's Engine API, docker's CLI and podman, on the busybox-only image (no procps)
 * and the procps one. Every run must end on its final observation.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { summarizeOutcome } from '../../shared/src/probe';
import { listRunningContainers } from '../../server/src/probe/containers';
import {
  engineEnv,
  processStatuses,
  requireEngine,
  startContainer,
  type ImageName,
  type TestContainer,
} from '../support/containers';
import {
  assertEndsOnObservation,
  isSandbox,
  probeContainer,
  routes,
  sandboxUid,
  signalsOf,
  startProcess,
  type ProbeRoute,
} from '../support/probe';

const timeout = 180_000;

/**
 * Whether processes keep being created in the container: the last pid of its pid namespace (the last
 * field of /proc/loadavg) moves by far more in half a second than the few execs of this check make.
 * A hopper cannot hide from it as it can from a listing of /proc.
 */
async function pidsKeepComing(container: TestContainer): Promise<boolean> {
  const lastPid = async (): Promise<number> =>
    Number((await container.exec(['cat', '/proc/loadavg'])).stdout.trim().split(/\s+/).at(-1));
  const before = await lastPid();
  await new Promise((resolve) => setTimeout(resolve, 500));
  return (await lastPid()) - before > 20;
}

async function inContainer(
  route: ProbeRoute,
  image: ImageName,
  body: (container: TestContainer) => Promise<void>,
  options: { user?: string; init?: boolean } = {},
): Promise<void> {
  requireEngine(route.engine);
  const container = await startContainer(route.engine, { image, ...options });
  try {
    await body(container);
  } finally {
    await container.remove();
  }
}

for (const route of routes) {
  for (const image of ['busybox', 'procps'] as const) {
    // The two images differ only in procps; the Engine API covers both, the other routes the busybox one.
    if (image === 'procps' && route.dockerAccess !== 'engine-api') continue;
    describe(`probe in a ${route.name} container (${image} image)`, () => {
      it('harden with no sandbox process: quiescent, no signal sent', { timeout }, () =>
        inContainer(route, image, async (container) => {
          const outcome = await probeContainer(container, route, { mode: 'harden' });
          assert.equal(outcome.returnCode, 0, outcome.reason);
          assert.deepEqual(outcome.signals, []);
          assert.equal(outcome.uid, sandboxUid);
          assertEndsOnObservation(outcome);
        }),
      );

      it('harden ends a live process with TERM: quiescent, TERM only', { timeout }, () =>
        inContainer(route, image, async (container) => {
          const sleeper = await startProcess(container, 'sandbox', 'exec sleep 100001', isSandbox('sleep'));
          const outcome = await probeContainer(container, route, { mode: 'harden' });
          assert.equal(outcome.returnCode, 0, outcome.reason);
          assert.deepEqual(signalsOf(outcome), [`TERM ${sleeper.pid}`]);
          assert.equal((await processStatuses(container)).filter(isSandbox('sleep')).length, 0, 'the sleeper is gone');
          assertEndsOnObservation(outcome);
        }),
      );

      it('harden ends a TERM-ignoring process with KILL: quiescent, TERM then KILL', { timeout }, () =>
        inContainer(route, image, async (container) => {
          const stubborn = await startProcess(
            container,
            'sandbox',
            'trap "" TERM; while :; do sleep 1; done',
            isSandbox('sh'),
          );
          const outcome = await probeContainer(container, route, { mode: 'harden' });
          assert.equal(outcome.returnCode, 0, outcome.reason);
          const signals = signalsOf(outcome);
          assert.ok(signals.indexOf(`TERM ${stubborn.pid}`) !== -1, signals.join(', '));
          assert.ok(
            signals.indexOf(`KILL ${stubborn.pid}`) > signals.indexOf(`TERM ${stubborn.pid}`),
            `KILL after TERM: ${signals.join(', ')}`,
          );
          assertEndsOnObservation(outcome);
        }),
      );

      it('observe with a live sandbox process: 1 survivor named by pid, nothing signalled', { timeout }, () =>
        inContainer(route, image, async (container) => {
          const sleeper = await startProcess(container, 'sandbox', 'exec sleep 100002', isSandbox('sleep'));
          const outcome = await probeContainer(container, route, { mode: 'observe' });
          assert.equal(outcome.returnCode, 1, outcome.reason);
          assert.deepEqual(outcome.signals, []);
          assert.deepEqual(
            outcome.survivors.map((survivor) => [survivor.pid, survivor.name, survivor.euid]),
            [[sleeper.pid, 'sleep', sandboxUid]],
          );
          assert.match(
            summarizeOutcome(outcome),
            new RegExp(
              `^1 survivor of sandbox user "sandbox" \\(uid 1000\\) in ${route.engine} container "${container.name}": ${sleeper.pid} sleep\\.$`,
            ),
          );
          assert.ok(
            (await processStatuses(container)).some((status) => status.pid === sleeper.pid),
            'observe left the process alone',
          );
          assertEndsOnObservation(outcome);
        }),
      );
    });
  }
}

describe('probe scenarios in a docker container (Engine API)', () => {
  const route = routes[0]!;

  it('a zombie owned by the sandbox user is not a survivor: quiescent, nothing signalled', { timeout }, () =>
    inContainer(route, 'busybox', async (container) => {
      // A root parent that execs into sleep never reaps its sandbox-owned child, which stays a zombie.
      await startProcess(
        container,
        '0',
        'su -s /bin/sh sandbox -c true & exec sleep 100003',
        (status) => status.euid === sandboxUid && status.state === 'Z',
      );
      const outcome = await probeContainer(container, route, { mode: 'harden' });
      assert.equal(outcome.returnCode, 0, outcome.reason);
      assert.deepEqual(outcome.signals, []);
      assert.ok(
        (await processStatuses(container)).some((status) => status.euid === sandboxUid && status.state === 'Z'),
        'the zombie is still there',
      );
      assertEndsOnObservation(outcome);
    }),
  );

  it('a root supervisor respawns the sandbox process: 1, naming the new pid', { timeout }, () =>
    inContainer(route, 'busybox', async (container) => {
      const first = await startProcess(
        container,
        '0',
        'while :; do su -s /bin/sh sandbox -c "exec sleep 100004"; done',
        isSandbox('sleep'),
      );
      const outcome = await probeContainer(container, route, { mode: 'harden' });
      assert.equal(outcome.returnCode, 1, outcome.reason);
      assert.equal(outcome.survivors.length, 1, JSON.stringify(outcome.survivors));
      const survivor = outcome.survivors[0]!;
      assert.notEqual(survivor.pid, first.pid, 'the survivor is a respawned process');
      assert.equal(survivor.name, 'sleep');
      assert.ok(signalsOf(outcome).includes(`TERM ${first.pid}`));
      assert.match(summarizeOutcome(outcome), new RegExp(`: ${survivor.pid} sleep\\.$`));
      assertEndsOnObservation(outcome);
    }),
  );

  it('pid 1 running as the sandbox user survives: 1, marked as pid 1 with the explanation', { timeout }, () =>
    inContainer(
      route,
      'busybox',
      async (container) => {
        const outcome = await probeContainer(container, route, { mode: 'harden' });
        assert.equal(outcome.returnCode, 1, outcome.reason);
        assert.deepEqual(
          outcome.survivors.map((survivor) => [survivor.pid, survivor.pid1]),
          [[1, true]],
        );
        assert.ok(signalsOf(outcome).includes('KILL 1'), 'KILL was tried');
        assert.match(
          summarizeOutcome(outcome),
          /: 1 sleep \(pid 1\)\. Pid 1 of the container runs as the sandbox user: .*only stopping the container ends it\./,
        );
        assertEndsOnObservation(outcome);
      },
      { user: String(sandboxUid), init: false },
    ),
  );

  it('processes forking and exiting during the scan give no false survivor in 30 runs', { timeout }, () =>
    inContainer(route, 'busybox', async (container) => {
      // The user's loops fork short-lived subshells: their /proc entries vanish between listing and reading.
      const loops: number[] = [];
      for (let loop = 0; loop < 2; loop++)
        loops.push(
          (
            await startProcess(
              container,
              'sandbox',
              `while :; do (:); done # ${loop}`,
              (status) => status.euid === sandboxUid && status.name === 'sh' && !loops.includes(status.pid),
            )
          ).pid,
        );
      for (let run = 0; run < 30; run++) {
        const outcome = await probeContainer(container, route, { mode: 'observe' });
        assert.equal(outcome.returnCode, 1, `run ${run}: ${outcome.reason}`);
        const pids = outcome.survivors.map((survivor) => survivor.pid);
        assert.ok(
          loops.every((pid) => pids.includes(pid)),
          `run ${run}: the loops are survivors: ${pids.join(', ')}`,
        );
        // Anything else reported was read alive, as the user's: a subshell caught while it ran.
        assert.ok(
          outcome.survivors.every((survivor) => survivor.euid === sandboxUid && survivor.name === 'sh'),
          JSON.stringify(outcome.survivors),
        );
      }
    }),
  );

  it(
    "another user's churn never yields a false survivor: 0, or 2 when absence cannot be proven, in 30 runs",
    { timeout },
    () =>
      inContainer(route, 'busybox', async (container) => {
        for (let loop = 0; loop < 2; loop++)
          await startProcess(container, 'other', `while :; do (:); done # ${loop}`, (status) => status.euid === 1001);
        const codes = new Set<number>();
        for (let run = 0; run < 30; run++) {
          const outcome = await probeContainer(container, route, { mode: 'observe' });
          codes.add(outcome.returnCode);
          assert.deepEqual(outcome.survivors, [], `run ${run}: ${outcome.reason}`);
          if (outcome.returnCode === 2) assert.match(outcome.reason, /new processes kept appearing/);
        }
        assert.ok(!codes.has(1), `codes seen: ${[...codes].join(', ')}`);
      }),
  );

  it(
    'a process that hops from pid to pid (fork, then exit) is never reported quiescent while it runs',
    { timeout },
    () =>
      inContainer(route, 'busybox', async (container) => {
        // Each instance starts the next in the background and exits at once.
        const hop = 'sh -c "$0" "$0" &';
        const started = await container.exec(['sh', '-c', hop, hop], { user: 'sandbox', detach: true });
        assert.equal(started.code, 0, started.stderr);
        for (let run = 0; run < 5; run++) {
          const outcome = await probeContainer(container, route, { mode: 'observe' });
          assert.notEqual(outcome.returnCode, 0, `observe ${run}: ${outcome.reason}`);
        }
        assert.ok(await pidsKeepComing(container), 'the hopper runs');
        // harden may well catch and end it; then, and only then, 0 is the truth.
        const outcome = await probeContainer(container, route, { mode: 'harden' });
        assert.ok(
          outcome.returnCode !== 0 || !(await pidsKeepComing(container)),
          `harden said 0 (${outcome.reason}) with the hopper still running`,
        );
      }),
  );

  it('harden while sandbox processes fork and exit: quiescent once they are ended', { timeout }, () =>
    inContainer(route, 'busybox', async (container) => {
      for (let loop = 0; loop < 2; loop++)
        await startProcess(
          container,
          'sandbox',
          `while :; do (:); done # ${loop}`,
          (status) => status.euid === sandboxUid && status.name === 'sh',
        );
      const outcome = await probeContainer(container, route, { mode: 'harden' });
      assert.equal(outcome.returnCode, 0, outcome.reason);
      assert.equal(
        (await processStatuses(container)).filter((status) => status.euid === sandboxUid && status.state !== 'Z')
          .length,
        0,
      );
      assertEndsOnObservation(outcome);
    }),
  );

  it('an unknown user cannot be observed: 2', { timeout }, () =>
    inContainer(route, 'busybox', async (container) => {
      const outcome = await probeContainer(container, route, { mode: 'harden', user: 'nobody_here' });
      assert.equal(outcome.returnCode, 2);
      assert.equal(outcome.uid, null);
      assert.match(outcome.reason, /user nobody_here does not exist in the target/);
      assert.deepEqual(outcome.signals, []);
    }),
  );

  it('a name that resolves to uid 0 is refused by the probe itself: 2, nothing killed', { timeout }, () =>
    inContainer(route, 'busybox', async (container) => {
      const rootSleeper = await startProcess(
        container,
        '0',
        'exec sleep 100005',
        (status) => status.name === 'sleep' && status.euid === 0,
      );
      const outcome = await probeContainer(container, route, { mode: 'harden', user: 'root' });
      assert.equal(outcome.returnCode, 2);
      assert.match(outcome.reason, /uid 0 is root/);
      assert.deepEqual(outcome.signals, []);
      assert.ok(
        (await processStatuses(container)).some((status) => status.pid === rootSleeper.pid),
        'the root process is alive',
      );
    }),
  );

  it(
    'a cancelled probe is unobservable, never quiet, and the abandoned probe is stopped in the container',
    { timeout },
    () =>
      inContainer(
        route,
        'busybox',
        async (container) => {
          // Pid 1 as the sandbox user keeps harden going for rounds: long enough to cancel it midway.
          const cancel = new AbortController();
          setTimeout(() => cancel.abort(), 1500);
          const outcome = await probeContainer(container, route, {
            mode: 'harden',
            graceSeconds: 5,
            signal: cancel.signal,
          });
          assert.equal(outcome.returnCode, 2);
          assert.equal(outcome.reported, false);
          assert.match(outcome.reason, /cancelled before it finished; nothing was observed/);
          const stop = outcome.transcript.findIndex(
            (entry) => entry.kind === 'note' && entry.text.includes('stopping the abandoned probe'),
          );
          assert.ok(stop !== -1, 'the abandoned probe is stopped');
          assert.deepEqual(
            outcome.transcript[stop + 2],
            { kind: 'exit', status: 'exit status 0' },
            'it was still running, and was killed',
          );
          const stillRunning = (await processStatuses(container)).filter(
            (status) => status.euid === 0 && status.name === 'sh',
          );
          assert.deepEqual(stillRunning, [], 'no probe shell is left in the container');
        },
        { user: String(sandboxUid), init: false },
      ),
  );
});

describe('the target pick list', () => {
  for (const access of ['cli', 'engine-api'] as const) {
    it(`lists running docker (${access}) and podman containers with name, image and status`, { timeout }, async () => {
      requireEngine('docker');
      requireEngine('podman');
      const containers = await Promise.all([startContainer('docker'), startContainer('podman')]);
      try {
        const listing = await listRunningContainers(access, engineEnv());
        assert.deepEqual(listing.unavailable, []);
        for (const container of containers) {
          const listed = listing.containers.find(
            (entry) => entry.engine === container.kind && entry.name === container.name,
          );
          assert.ok(listed, `${container.kind} ${container.name} is listed: ${JSON.stringify(listing.containers)}`);
          assert.match(listed.image, /rollout-evidence-probe:busybox/);
          assert.match(listed.status, /^Up/);
          assert.match(listed.id, /^[0-9a-f]{12,64}$/);
        }
      } finally {
        await Promise.all(containers.map((container) => container.remove()));
      }
    });
  }
});
