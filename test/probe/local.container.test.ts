/**
 * The local target (a VS Code window attached to a dev container runs the probe right there), tested in
 * a pid namespace made with unshare, so the processes it kills are the test's own.
 */
import assert from 'node:assert/strict';
import { chmodSync, chownSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { ProbeOutcome } from '../../shared/src/probe';
import { runProgram, type ProgramRun } from '../support/programs';
import { builtCli, temporaryFolder } from '../support/repo';

const timeout = 120_000;
/** A uid no account on the machine uses: the namespace's sandbox user. */
const sandboxUid = '4242';
const asSandbox = `setpriv --reuid ${sandboxUid} --regid ${sandboxUid} --clear-groups`;
/** The prober when it is not root. */
const nobody = 'setpriv --reuid 65534 --regid 65534 --clear-groups';
const folder = temporaryFolder();
after(() => folder.remove());

/**
 * Runs `setup` (shell text of the test's own, never user input) and then the CLI's probe in a fresh pid
 * namespace with its own /proc (and its own mounts). Its sh stays pid 1, so the processes the probe kills
 * are reaped. With `reportLeft`, the live processes holding the sandbox uid in any of their four uids are
 * afterwards named on stderr, one `left NAME` line each, as seen from outside the probe.
 */
function inPidNamespace(
  setup: string,
  probeArgs: readonly string[],
  { cliPrefix = '', reportLeft = false }: { cliPrefix?: string; reportLeft?: boolean } = {},
): Promise<ProgramRun> {
  const quoted = probeArgs.map((argument) => `'${argument}'`).join(' ');
  const left = `status=$?\ncat /proc/[0-9]*/status 2>/dev/null | awk '/^Name:/ { name = $2 } /^State:/ { state = $2 } /^Uid:/ && state != "Z" && ($2 == ${sandboxUid} || $3 == ${sandboxUid} || $4 == ${sandboxUid} || $5 == ${sandboxUid}) { print "left " name }' >&2\nexit $status`;
  const script = `${setup}\nsleep 0.3\n${cliPrefix} "${process.execPath}" "${builtCli}" probe --target local ${quoted}${reportLeft ? `\n${left}` : ''}`;
  return runProgram(['unshare', '--pid', '--fork', '--kill-child', '--mount-proc', 'sh', '-c', script]);
}

function outcomeOf(result: ProgramRun): ProbeOutcome {
  return (JSON.parse(result.stdout) as { outcome: ProbeOutcome }).outcome;
}

describe(
  'probe --target local, in a pid namespace',
  { skip: process.getuid?.() !== 0 ? 'needs root for unshare' : false },
  () => {
    it(
      'harden ends a live and a TERM-ignoring process: exit 0, TERM to both, KILL to the stubborn one only',
      { timeout },
      async () => {
        const result = await inPidNamespace(
          `${asSandbox} sleep 100020 &\n${asSandbox} sh -c 'trap "" TERM; while :; do sleep 1; done' &`,
          ['--user', sandboxUid, '--mode', 'harden', '--grace', '1', '--format', 'json'],
        );
        assert.equal(result.status, 0, result.stderr + result.stdout);
        const outcome = outcomeOf(result);
        const terms = outcome.signals.filter((sent) => sent.signal === 'TERM').map((sent) => sent.pid);
        const kills = outcome.signals.filter((sent) => sent.signal === 'KILL').map((sent) => sent.pid);
        assert.ok(terms.length >= 2, `TERM to both: ${JSON.stringify(outcome.signals)}`);
        // The stubborn loop's own sleep children come and go; the loop itself gets TERM, then KILL.
        assert.ok(
          kills.some((pid) => terms.includes(pid)),
          `KILL to what TERM did not end: ${JSON.stringify(outcome.signals)}`,
        );
        assert.ok(
          terms.some((pid) => !kills.includes(pid)),
          `the sleeper ended on TERM alone: ${JSON.stringify(outcome.signals)}`,
        );
        // Pids of a fresh namespace are small: the probe saw the namespace, not the host.
        assert.ok(
          terms.every((pid) => pid < 100),
          `namespace pids: ${terms.join(', ')}`,
        );
      },
    );

    it('observe as an unprivileged user still works: exit 1 naming the survivor', { timeout }, async () => {
      const result = await inPidNamespace(`${asSandbox} sleep 100021 &`, ['--user', sandboxUid, '--format', 'json'], {
        cliPrefix: nobody,
      });
      assert.equal(result.status, 1, result.stderr + result.stdout);
      assert.deepEqual(
        outcomeOf(result).survivors.map((survivor) => [survivor.name, survivor.euid]),
        [['sleep', Number(sandboxUid)]],
      );
    });

    it(
      'a process whose main thread exited while another runs is alive, not a zombie: observe 1, harden ends it',
      { timeout },
      async () => {
        // pthread_exit in main leaves the leader in state Z while the process goes on running.
        const program = join(folder.path, 'zombie-leader');
        // The sandbox uid runs it from a folder mkdtemp made for root alone.
        chmodSync(folder.path, 0o755);
        writeFileSync(
          `${program}.c`,
          '#include <pthread.h>\n#include <unistd.h>\nstatic void *run(void *arg) { (void)arg; for (;;) pause(); return 0; }\nint main(void) { pthread_t t; pthread_create(&t, 0, run, 0); pthread_exit(0); }\n',
        );
        const compiled = await runProgram(['cc', '-pthread', '-o', program, `${program}.c`]);
        assert.equal(compiled.status, 0, `cc (from the machine's g++ toolchain): ${compiled.stderr}`);
        const observed = await inPidNamespace(`${asSandbox} "${program}" &`, [
          '--user',
          sandboxUid,
          '--format',
          'json',
        ]);
        assert.equal(observed.status, 1, observed.stderr + observed.stdout);
        assert.deepEqual(
          outcomeOf(observed).survivors.map((survivor) => [survivor.name, survivor.state]),
          [['zombie-leader', 'S']],
          'reported with the state of its running thread',
        );
        const hardened = await inPidNamespace(`${asSandbox} "${program}" &`, [
          '--user',
          sandboxUid,
          '--mode',
          'harden',
          '--grace',
          '1',
          '--format',
          'json',
        ]);
        assert.equal(hardened.status, 0, hardened.stderr + hardened.stdout);
        assert.equal(outcomeOf(hardened).signals[0]?.signal, 'TERM');
      },
    );

    it('harden as an unprivileged user is refused with the reason, and nothing is killed', { timeout }, async () => {
      const result = await inPidNamespace(`${asSandbox} sleep 100022 &`, ['--user', sandboxUid, '--mode', 'harden'], {
        cliPrefix: nobody,
      });
      assert.equal(result.status, 2);
      assert.match(
        result.stderr,
        /harden on the local target needs root, to signal another user's processes; this process is not root\. observe still works/,
      );
      assert.doesNotMatch(result.stderr, /^\$ /m, 'no command was run');
    });

    const hidden = { 1: 'noaccess', 2: 'invisible' } as const;
    for (const hidepid of [1, 2] as const) {
      // When pid 1 is the prober's own, its status is readable under hidepid too: that proves nothing.
      for (const pid1 of ['root', 'the prober'] as const) {
        it(
          `/proc mounted with hidepid=${hidepid}, a prober that is not root, pid 1 ${pid1}'s: exit 2, never quiet`,
          { timeout },
          async () => {
            const setup = `mount -t proc -o hidepid=${hidepid} proc /proc\n${asSandbox} sleep 100023 &`;
            const result = await inPidNamespace(setup, ['--user', sandboxUid], {
              cliPrefix: pid1 === 'root' ? nobody : `exec ${nobody}`,
            });
            assert.equal(result.status, 2, result.stderr + result.stdout);
            assert.equal(
              result.stdout,
              `Could not observe sandbox user "4242" in the local machine: /proc is mounted with hidepid=${hidden[hidepid]} and the probe (uid 65534) can read no process of another user, so the user's processes may be hidden from it: run the probe as root with CAP_SYS_PTRACE, or with /proc mounted without hidepid\n`,
            );
          },
        );
      }
    }

    it(
      '/proc mounted with hidepid=2 and a root prober, in group 0 which hidepid exempts by default: exit 1 naming the survivor',
      { timeout },
      async () => {
        const result = await inPidNamespace(`mount -t proc -o hidepid=2 proc /proc\n${asSandbox} sleep 100024 &`, [
          '--user',
          sandboxUid,
          '--format',
          'json',
        ]);
        assert.equal(result.status, 1, result.stderr + result.stdout);
        assert.deepEqual(
          outcomeOf(result).survivors.map((survivor) => survivor.name),
          ['sleep'],
        );
      },
    );

    it(
      "id and sleep planted earlier on root's PATH, in a folder the sandbox user owns, never run: the real uid, its survivor, then harden ends it",
      { timeout },
      async () => {
        chmodSync(folder.path, 0o755);
        const marks = join(folder.path, 'marks');
        const plantedBin = join(folder.path, 'planted-bin');
        mkdirSync(marks, { mode: 0o777 });
        chmodSync(marks, 0o777);
        mkdirSync(plantedBin);
        // Each leaves a mark when it runs, then lies: id names another uid, sleep returns at once.
        for (const [name, lie] of [
          ['id', 'echo 4343'],
          ['sleep', 'exit 0'],
        ] as const) {
          writeFileSync(join(plantedBin, name), `#!/bin/sh\n: >"${marks}/${name}"\n${lie}\n`, { mode: 0o755 });
          chownSync(join(plantedBin, name), Number(sandboxUid), Number(sandboxUid));
        }
        chownSync(plantedBin, Number(sandboxUid), Number(sandboxUid));
        // The namespace's own /etc/passwd names the sandbox user, so it is probed by name.
        const passwd = join(folder.path, 'passwd');
        writeFileSync(
          passwd,
          `root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534::/nonexistent:/bin/false\nsandbox:x:${sandboxUid}:${sandboxUid}::/nonexistent:/bin/sh\n`,
          { mode: 0o644 },
        );
        const setup = `mount --bind "${passwd}" /etc/passwd\n${asSandbox} sleep 100025 &`;
        const onPath = { cliPrefix: `PATH="${plantedBin}:$PATH"`, reportLeft: true };
        const observed = await inPidNamespace(setup, ['--user', 'sandbox', '--format', 'json'], onPath);
        assert.equal(observed.status, 1, observed.stderr + observed.stdout);
        assert.equal(outcomeOf(observed).uid, Number(sandboxUid));
        assert.deepEqual(
          outcomeOf(observed).survivors.map((survivor) => survivor.name),
          ['sleep'],
        );
        const hardened = await inPidNamespace(
          setup,
          ['--user', 'sandbox', '--mode', 'harden', '--grace', '1', '--format', 'json'],
          onPath,
        );
        assert.equal(hardened.status, 0, hardened.stderr + hardened.stdout);
        assert.equal(outcomeOf(hardened).uid, Number(sandboxUid));
        assert.deepEqual(
          outcomeOf(hardened).signals.map((sent) => sent.signal),
          ['TERM'],
        );
        assert.doesNotMatch(hardened.stderr, /^left /m, 'no process of the sandbox uid is left');
        assert.deepEqual(readdirSync(marks), [], 'no planted program ran');
      },
    );

    it(
      "a process with real uid the sandbox user's and effective uid another is the user's: observe 1, harden signals it and it is gone",
      { timeout },
      async () => {
        const setup = `setpriv --ruid ${sandboxUid} --euid 4343 --clear-groups sleep 100026 &`;
        const observed = await inPidNamespace(setup, ['--user', sandboxUid, '--format', 'json']);
        assert.equal(observed.status, 1, observed.stderr + observed.stdout);
        assert.deepEqual(
          outcomeOf(observed).survivors.map((survivor) => [survivor.name, survivor.ruid, survivor.euid]),
          [['sleep', Number(sandboxUid), 4343]],
        );
        const hardened = await inPidNamespace(
          setup,
          ['--user', sandboxUid, '--mode', 'harden', '--grace', '1', '--format', 'json'],
          { reportLeft: true },
        );
        assert.equal(hardened.status, 0, hardened.stderr + hardened.stdout);
        assert.deepEqual(
          outcomeOf(hardened).signals.map((sent) => sent.signal),
          ['TERM'],
        );
        assert.doesNotMatch(hardened.stderr, /^left /m, 'the process is gone');
      },
    );

    it(
      "a mount over a process's /proc entry, which shows another process there: exit 2, never quiet",
      { timeout },
      async () => {
        // Pid 1's entry bound over the sandbox process's: its status would read as root's.
        const result = await inPidNamespace(`${asSandbox} sleep 100027 &\nmount --bind /proc/1 /proc/$!`, [
          '--user',
          sandboxUid,
        ]);
        assert.equal(result.status, 2, result.stderr + result.stdout);
        assert.match(
          result.stdout,
          /^Could not observe sandbox user "4242" in the local machine: something is mounted over \/proc\/\d+, which hides the process there\n$/,
        );
      },
    );

    it('harden with no sleep in the system folders is refused, and nothing is signalled', { timeout }, async () => {
      // /bin is /usr/bin on this machine; /dev/null in sleep's place is not a program.
      const result = await inPidNamespace(
        `${asSandbox} tail -f /dev/null &\nsleep 0.3\nmount --bind /dev/null /usr/bin/sleep`,
        ['--user', sandboxUid, '--mode', 'harden', '--format', 'json'],
        { reportLeft: true },
      );
      assert.equal(result.status, 2, result.stderr + result.stdout);
      assert.match(outcomeOf(result).reason, /^harden needs sleep in \/usr\/sbin, \/usr\/bin, \/sbin or \/bin/);
      assert.deepEqual(outcomeOf(result).signals, []);
      assert.match(result.stderr, /^left tail$/m, 'the sandbox process is untouched');
    });

    it('with no readable /proc: exit 2, could not observe', { timeout }, async () => {
      // A private mount namespace whose /proc is an empty tmpfs.
      const script = `mount -t tmpfs none /proc && exec "${process.execPath}" "${builtCli}" probe --target local --user ${sandboxUid}`;
      const result = await runProgram(['unshare', '--mount', '--fork', 'sh', '-c', script]);
      assert.equal(result.status, 2, result.stderr);
      assert.match(
        result.stdout,
        /^Could not observe sandbox user "4242" in the local machine: no readable \/proc: the process table cannot be observed\n$/,
      );
    });
  },
);
