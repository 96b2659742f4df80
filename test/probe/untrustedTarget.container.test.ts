/**
 * The probe trusts nothing in the target that the sandbox user could have changed: programs planted on
 * root's PATH, a /proc that hides other users' processes, a process that keeps the sandbox uid in only
 * some of its four uids. Each scenario runs against real processes in the test containers.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  processStatuses,
  requireEngine,
  startContainer,
  waitFor,
  type ProcessStatus,
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
import { runProgram } from '../support/programs';
import { temporaryFolder } from '../support/repo';

const timeout = 180_000;
const folder = temporaryFolder();
after(() => folder.remove());

async function inContainer(
  route: ProbeRoute,
  body: (container: TestContainer) => Promise<void>,
  capabilities: readonly string[] = [],
): Promise<void> {
  requireEngine(route.engine);
  const container = await startContainer(route.engine, { capabilities });
  try {
    await body(container);
  } finally {
    await container.remove();
  }
}

async function asRoot(container: TestContainer, argv: readonly string[]): Promise<void> {
  const run = await container.exec(argv, { user: '0' });
  assert.equal(run.code, 0, `${argv.join(' ')}: ${run.stderr}`);
}

/**
 * Each planted program leaves a mark in /tmp when it runs, then lies: `id` names another uid, `sh` prints
 * a quiescent result for that uid and exits 0, `sleep` returns at once.
 */
const planted: Readonly<Record<string, string>> = {
  id: 'echo 4343',
  sh: `echo '{"event":"result","return_code":0,"uid":4343,"survivors":0,"reason":"planted"}'`,
  sleep: 'exit 0',
};

describe("programs planted on root's PATH by the sandbox user are never run", () => {
  for (const route of routes) {
    it(
      `${route.name}: the real uid and its live process are found, and harden ends it, with sh, id and sleep planted in /usr/local/bin`,
      { timeout },
      () =>
        inContainer(route, async (container) => {
          const sleeper = await startProcess(container, 'sandbox', 'exec sleep 100040', isSandbox('sleep'));
          // /usr/local/bin comes first on the PATH an exec gets; here the sandbox user may write to it.
          await asRoot(container, ['mkdir', '-p', '/usr/local/bin']);
          await asRoot(container, ['chown', String(sandboxUid), '/usr/local/bin']);
          for (const [name, lie] of Object.entries(planted)) {
            const text = `#!/bin/busybox sh\n: >/tmp/planted-${name}-ran\n${lie}\n`;
            const written = await container.exec(
              ['/bin/sh', '-c', 'printf %s "$1" >"$2" && chmod 755 "$2"', 'plant', text, `/usr/local/bin/${name}`],
              { user: 'sandbox' },
            );
            assert.equal(written.code, 0, written.stderr);
          }
          const observed = await probeContainer(container, route, { mode: 'observe' });
          assert.equal(observed.returnCode, 1, observed.reason);
          assert.equal(observed.uid, sandboxUid);
          assert.deepEqual(
            observed.survivors.map((survivor) => survivor.pid),
            [sleeper.pid],
          );
          const hardened = await probeContainer(container, route, { mode: 'harden' });
          assert.equal(hardened.returnCode, 0, hardened.reason);
          assert.equal(hardened.uid, sandboxUid);
          assert.deepEqual(signalsOf(hardened), [`TERM ${sleeper.pid}`]);
          assert.equal((await processStatuses(container)).filter(isSandbox('sleep')).length, 0, 'the sleeper is gone');
          const marks = await container.exec(['ls', '/tmp']);
          assert.doesNotMatch(marks.stdout, /planted-/, 'no planted program ran');
          assertEndsOnObservation(hardened);
        }),
    );
  }
});

describe("a /proc that hides other users' processes", () => {
  const route = routes[0]!;
  // Root's group 0 is exempt from hidepid unless gid= names another group: this one names a group the
  // probe is not in, so only CAP_SYS_PTRACE lets it see other users' processes.
  const hidingMount = ['mount', '-t', 'proc', '-o', 'hidepid=2,gid=4444', 'proc', '/proc'];

  it(
    'hidepid=2 with a gid= group the root prober is not in, and no CAP_SYS_PTRACE: cannot observe (2), never quiescent',
    { timeout },
    () =>
      inContainer(
        route,
        async (container) => {
          await startProcess(container, 'sandbox', 'exec sleep 100041', isSandbox('sleep'));
          await asRoot(container, hidingMount);
          const outcome = await probeContainer(container, route, { mode: 'observe' });
          assert.equal(outcome.returnCode, 2, outcome.reason);
          assert.match(
            outcome.reason,
            /^\/proc is mounted with hidepid=invisible and the probe \(uid 0\) can read no process of another user/,
          );
          const hardened = await probeContainer(container, route, { mode: 'harden' });
          assert.equal(hardened.returnCode, 2, hardened.reason);
          assert.deepEqual(hardened.signals, []);
        },
        ['SYS_ADMIN'],
      ),
  );

  it(
    'the same with CAP_SYS_PTRACE, which lets the root prober see every process: the survivor is found',
    { timeout },
    () =>
      inContainer(
        route,
        async (container) => {
          const sleeper = await startProcess(container, 'sandbox', 'exec sleep 100042', isSandbox('sleep'));
          await asRoot(container, hidingMount);
          const outcome = await probeContainer(container, route, { mode: 'observe' });
          assert.equal(outcome.returnCode, 1, outcome.reason);
          assert.deepEqual(
            outcome.survivors.map((survivor) => survivor.pid),
            [sleeper.pid],
          );
        },
        ['SYS_ADMIN', 'SYS_PTRACE'],
      ),
  );
});

describe("a process that holds the sandbox uid in any of its four uids is the sandbox user's", () => {
  let program: string;
  before(async () => {
    // setresuid(real, effective, saved) as given, then waits: what a setuid program of the user's can do.
    // Static, for an image that has no C library.
    program = join(folder.path, 'mixeduid');
    writeFileSync(
      `${program}.c`,
      '#define _GNU_SOURCE\n#include <stdlib.h>\n#include <unistd.h>\nint main(int argc, char **argv) {\n  if (argc != 4 || setresuid(atoi(argv[1]), atoi(argv[2]), atoi(argv[3])) != 0) return 1;\n  for (;;) pause();\n}\n',
    );
    const compiled = await runProgram(['cc', '-static', '-o', program, `${program}.c`]);
    assert.equal(compiled.status, 0, `cc -static (gcc and libc6-dev): ${compiled.stderr}`);
  });

  const cases = [
    { uids: [sandboxUid, 2000, sandboxUid], what: "real uid the user's, effective uid another" },
    { uids: [2000, 2000, sandboxUid], what: "only the saved uid the user's" },
  ];
  for (const route of [routes[0]!, routes[2]!]) {
    for (const { uids, what } of cases) {
      it(`${route.name}: ${what}: a survivor in observe, signalled and gone after harden`, { timeout }, () =>
        inContainer(route, async (container) => {
          await container.copyIn(program, '/bin/mixeduid');
          const started = await container.exec(['/bin/mixeduid', ...uids.map(String)], { user: '0', detach: true });
          assert.equal(started.code, 0, started.stderr);
          const isMixed = (status: ProcessStatus): boolean =>
            status.name === 'mixeduid' && status.state !== 'Z' && status.uids.includes(sandboxUid);
          const mixed = await waitFor(async () => (await processStatuses(container)).find(isMixed));
          assert.ok(mixed, `the mixed-uid process did not appear in ${container.name}`);
          const observed = await probeContainer(container, route, { mode: 'observe' });
          assert.equal(observed.returnCode, 1, observed.reason);
          assert.deepEqual(
            observed.survivors.map((survivor) => [survivor.pid, survivor.ruid, survivor.euid]),
            [[mixed.pid, uids[0], uids[1]]],
          );
          const hardened = await probeContainer(container, route, { mode: 'harden' });
          assert.equal(hardened.returnCode, 0, hardened.reason);
          assert.ok(signalsOf(hardened).includes(`TERM ${mixed.pid}`), signalsOf(hardened).join(', '));
          assert.deepEqual((await processStatuses(container)).filter(isMixed), [], 'the process is gone');
          assertEndsOnObservation(hardened);
        }),
      );
    }
  }
});
