/**
 * The shell analyser's claims checked against the shells that run hardening commands: every command
 * of a seeded corpus (BenchFlow's own commands, hand-written cases, >= 10,000 generated ones) runs in
 * real dash and busybox sh in three worlds (test/support/shellWorlds.ts). When the analyser says a
 * status proves quiescence, no run with a survivor or a failing observer may have ended with it.
 * Its parser must also accept exactly what `dash -n` accepts.
 *   ROLLOUT_EVIDENCE_SHELL_SEED=<n>      another corpus (the seed is printed, so a failure replays)
 *   ROLLOUT_EVIDENCE_SHELL_COMMANDS=<n>  how many to generate (10,000 when unset; fewer fails the
 *                                        corpus-size test, so only for a quick local look)
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  analyseCommand,
  meaningOfStatus,
  type CommandEvidence,
  type StatusMeaning,
} from '../../server/src/engine/shell/evidence';
import { parseShell } from '../../server/src/engine/shell/parse';
import { ShellSyntaxError } from '../../server/src/engine/shell/syntax';
import {
  benchflowQuiescence,
  generateCommands,
  handWrittenCommands,
  invalidMutations,
  parseEdgeCases,
  type CorpusCommand,
} from '../support/commandGenerator';
import { seededRandom } from '../support/random';
import {
  createWorlds,
  dashAccepts,
  findRealShells,
  runCommands,
  runInWorld,
  survivorPid,
  worldNames,
  type RealShell,
  type StubKind,
  type World,
  type WorldName,
} from '../support/shellWorlds';

const agent = { name: 'agent', uid: 1001 };
const defaultSeed = 0x10781088;
const requiredCount = 10_000;
const generatedCount = countFromEnvironment();
const mutationCount = 300;
/** Commands also run with the stub executables, to show the function stubs stand in for them exactly. */
const calibrationCount = 300;
/**
 * A batch takes one to three minutes on two cores (a process start costs 1 to 3 ms there, and each run
 * needs one or more); a hung command must not hold the suite past node's 10-minute test limit.
 */
/** Drivers that share the `dash -n` checks. */
const dashDrivers = 4;
const batchTimeoutMs = 8 * 60_000;
/** The worlds in which a status must never be taken as proof. */
const dishonestWorlds: readonly WorldName[] = ['survivor', 'observer-fails'];

function seedFromEnvironment(): number {
  const text = process.env.ROLLOUT_EVIDENCE_SHELL_SEED;
  if (text === undefined || text === '') return defaultSeed;
  const seed = Number(text);
  if (!Number.isSafeInteger(seed) || seed < 0)
    throw new Error(`ROLLOUT_EVIDENCE_SHELL_SEED must be a non-negative integer, not ${JSON.stringify(text)}`);
  return seed;
}

function countFromEnvironment(): number {
  const text = process.env.ROLLOUT_EVIDENCE_SHELL_COMMANDS;
  if (text === undefined || text === '') return requiredCount;
  const count = Number(text);
  if (!Number.isSafeInteger(count) || count < 1)
    throw new Error(`ROLLOUT_EVIDENCE_SHELL_COMMANDS must be a positive integer, not ${JSON.stringify(text)}`);
  return count;
}

interface RealRuns {
  readonly seed: number;
  /** Commands that are meant to be valid shell: run in every shell and world. */
  readonly runnable: readonly CorpusCommand[];
  /** Everything, the runnable commands first, then the parse edge cases and the mutations, for the parse comparison. */
  readonly all: readonly CorpusCommand[];
  readonly shells: readonly RealShell[];
  readonly worlds: readonly World[];
  /** statuses.get(shell name).get(world)[index into runnable], with the function stubs. */
  readonly statuses: ReadonlyMap<string, ReadonlyMap<WorldName, readonly number[]>>;
  /** The same for the first `calibrationCount` commands (and the hand-written ones), with the stub executables. */
  readonly calibration: ReadonlyMap<string, ReadonlyMap<WorldName, readonly number[]>>;
  /** Whether `dash -n` accepts each of `all`. */
  readonly dashAccepted: readonly boolean[];
  readonly root: string;
  readonly timings: {
    readonly generateMs: number;
    readonly runMs: number;
    readonly dashNMs: number;
    readonly calibrationMs: number;
  };
}

let root: string | undefined;
after(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

// Built once, on first use, by whichever test asks first; every test fails with its error if it throws.
let realRuns: Promise<RealRuns> | undefined;
function runAll(): Promise<RealRuns> {
  realRuns ??= (async () => {
    const seed = seedFromEnvironment();
    const { dash, busybox, shells } = await findRealShells();
    root = await mkdtemp(join(tmpdir(), 'rollout-evidence-shells-'));
    const generateStart = performance.now();
    const hand = handWrittenCommands();
    const random = seededRandom(seed);
    const generated = generateCommands(random, generatedCount, new Set(hand.map((command) => command.text))).map(
      (text) => ({ text, origin: 'generated' as const }),
    );
    const runnable = [...hand, ...generated];
    const mutations = invalidMutations(
      random,
      runnable.map((command) => command.text),
      mutationCount,
    ).map((text) => ({ text, origin: 'mutation' as const }));
    const taken = new Set(runnable.map((command) => command.text));
    const parseCases = parseEdgeCases
      .filter((text) => !taken.has(text))
      .map((text) => ({ text, origin: 'parse-case' as const }));
    const all = [...runnable, ...parseCases, ...mutations.filter((command) => !parseEdgeCases.includes(command.text))];
    const generateMs = performance.now() - generateStart;
    const worlds = await createWorlds(join(root, 'worlds'), busybox);
    const texts = runnable.map((command) => command.text);
    const calibrationTexts = texts.slice(0, hand.length + calibrationCount);
    const runStart = performance.now();
    let dashNMs = 0;
    let calibrationMs = 0;
    const timed = <T>(promise: Promise<T>, done: (ms: number) => void): Promise<T> =>
      promise.then((value) => {
        done(performance.now() - runStart);
        return value;
      });
    const batches = (stubs: StubKind, batchTexts: readonly string[]) =>
      settledAll(
        shells.flatMap((shell) =>
          worlds.map(async (world) => ({
            shell: shell.name,
            world: world.name,
            statuses: await runCommands(
              shell,
              world,
              stubs,
              batchTexts,
              join(root!, stubs, shell.name.replace(/ /g, '-'), world.name),
              batchTimeoutMs,
            ),
          })),
        ),
      ).then(byShellAndWorld);
    // All batches and the parse check at once: the machine's cores share them.
    const [dashAccepted, statuses, calibration] = await settledAll([
      // dash -n starts a process per text, the slowest part: in a few drivers, so no core waits on one.
      timed(
        settledAll(
          chunks(
            all.map((command) => command.text),
            dashDrivers,
          ).map((chunk, index) => dashAccepts(dash, chunk, join(root!, 'dash-n', String(index)), batchTimeoutMs)),
        ).then((parts) => parts.flat()),
        (ms) => (dashNMs = ms),
      ),
      batches('functions', texts),
      timed(batches('executables', calibrationTexts), (ms) => (calibrationMs = ms)),
    ]);
    const runMs = performance.now() - runStart;
    const runs: RealRuns = {
      seed,
      runnable,
      all,
      shells,
      worlds,
      statuses,
      calibration,
      dashAccepted,
      root,
      timings: { generateMs, runMs, dashNMs, calibrationMs },
    };
    console.log(
      `real shells: seed ${seed} (ROLLOUT_EVIDENCE_SHELL_SEED), ${hand.length} hand-written + ${generated.length} generated commands, ${mutations.length} mutations; ` +
        `${runnable.length} commands run in each of ${shells.length} shells x ${worlds.length} worlds (${runnable.length * shells.length * worlds.length} runs, stub functions), ` +
        `${calibrationTexts.length} of them also with the stub executables (${calibrationTexts.length * shells.length * worlds.length} runs, done at ${seconds(calibrationMs)}), ` +
        `dash -n on ${all.length} texts (done at ${seconds(dashNMs)}), all in parallel: ${seconds(runMs)} wall; generating took ${seconds(generateMs)}`,
    );
    return runs;
  })();
  return realRuns;
}

/**
 * Promise.all that, when one fails, still waits for the others (each bounded by its timeout), so that no
 * batch is left writing into the temporary directory that the cleanup removes.
 */
async function settledAll<T extends readonly unknown[]>(promises: {
  readonly [K in keyof T]: Promise<T[K]>;
}): Promise<T> {
  const settled = await Promise.allSettled(promises);
  const failure = settled.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failure) throw failure.reason;
  return settled.map((result) => (result as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

function byShellAndWorld(
  batches: readonly { shell: string; world: WorldName; statuses: readonly number[] }[],
): Map<string, Map<WorldName, readonly number[]>> {
  const statuses = new Map<string, Map<WorldName, readonly number[]>>();
  for (const batch of batches) {
    const byWorld = statuses.get(batch.shell) ?? new Map<WorldName, readonly number[]>();
    byWorld.set(batch.world, batch.statuses);
    statuses.set(batch.shell, byWorld);
  }
  return statuses;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** A command for a table: its name if it has one, else its text on one line, cut when long. */
function named(command: CorpusCommand, width = 150): string {
  return command.name === undefined ? shown(command.text, width) : `[${command.name}]`;
}

/** One line of a command for a table: newlines shown, long ones cut. */
function shown(text: string, width = 150): string {
  const one = JSON.stringify(text);
  return one.length > width ? `${one.slice(0, width - 1)}…` : one;
}

/** The statuses each shell and world gave command `index`. */
function statusesOf(runs: RealRuns, index: number): { shell: string; world: WorldName; status: number }[] {
  return runs.shells.flatMap((shell) =>
    worldNames.map((world) => ({
      shell: shell.name,
      world,
      status: runs.statuses.get(shell.name)!.get(world)![index]!,
    })),
  );
}

interface Analysed {
  readonly evidence?: CommandEvidence;
  /** A crash of the analyser (not a syntax error, which is part of the evidence). */
  readonly crash?: string;
}

const analysed = new Map<string, Analysed>();
function analyse(text: string): Analysed {
  let result = analysed.get(text);
  if (!result) {
    try {
      result = { evidence: analyseCommand(text, agent) };
    } catch (error) {
      result = { crash: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
    }
    analysed.set(text, result);
  }
  return result;
}

describe('the shell analyser against real dash and busybox sh', () => {
  it('has dash and busybox sh to run the commands in', async () => {
    // Fails, naming the Debian package, when either is missing: never a silent skip.
    const { shells } = await findRealShells();
    assert.deepEqual(
      shells.map((shell) => shell.name),
      ['dash', 'busybox sh'],
    );
  });

  it('runs stubs that behave as each world says, in both shells', async () => {
    const runs = await runAll();
    const probe = [
      'pgrep -u agent; echo "pgrep $?"',
      'pgrep -U 1001; echo "pgrep-U $?"',
      'ps -u agent; echo "ps $?"',
      'pkill -9 -u agent; echo "pkill $?"',
      'killall -u agent; echo "killall $?"',
      `kill -9 ${survivorPid}; echo "kill $?"`,
      `kill -0 ${survivorPid}; echo "kill-0 $?"`,
      `kill -s TERM ${survivorPid}; echo "kill-s $?"`,
      'sleep 1; echo "sleep $?"',
      'id -u agent; echo "id $?"',
      'pgrep -u agent | wc -l; echo "wc $?"',
    ].join('\n');
    const expected: Record<WorldName, string> = {
      quiescent: [
        'pgrep 1',
        'pgrep-U 1',
        '  PID TTY          TIME CMD',
        'ps 1',
        'pkill 1',
        'killall 1',
        'kill 1',
        'kill-0 1',
        'kill-s 1',
        'sleep 0',
        '1001',
        'id 0',
        '0',
        'wc 0',
        '',
      ].join('\n'),
      survivor: [
        `${survivorPid}`,
        'pgrep 0',
        `${survivorPid}`,
        'pgrep-U 0',
        '  PID TTY          TIME CMD',
        ` ${survivorPid} ?        00:00:00 sleep`,
        'ps 0',
        'pkill 0',
        'killall 0',
        'kill 0',
        'kill-0 0',
        'kill-s 0',
        'sleep 0',
        '1001',
        'id 0',
        '1',
        'wc 0',
        '',
      ].join('\n'),
      'observer-fails': [
        'pgrep 2',
        'pgrep-U 2',
        'ps 1',
        'pkill 2',
        'killall 2',
        'kill 2',
        'kill-0 2',
        'kill-s 2',
        'sleep 0',
        '1001',
        'id 0',
        '0',
        'wc 0',
        '',
      ].join('\n'),
    };
    // BenchFlow's later command scans the /proc fixture: 0 none left, 1 survivors, 2 cannot look.
    const benchflowStatus: Record<WorldName, number> = { quiescent: 0, survivor: 1, 'observer-fails': 2 };
    for (const stubs of ['executables', 'functions'] as const) {
      for (const shell of runs.shells) {
        for (const world of runs.worlds) {
          const where = `${shell.name}, ${world.name} world, stub ${stubs}`;
          const name = `${stubs}-${shell.name.replace(/ /g, '-')}-${world.name}`;
          const start = performance.now();
          const run = await runInWorld(shell, world, stubs, probe, join(runs.root, `probe-${name}`));
          assert.equal(
            run.stdout,
            expected[world.name],
            `${where}: the stubs' output and statuses (stderr: ${run.stderr})`,
          );
          assert.ok(performance.now() - start < 5_000, `${where}: sleep is the stub, not a real sleep`);
          const benchflow = await runInWorld(
            shell,
            world,
            stubs,
            benchflowQuiescence,
            join(runs.root, `benchflow-${name}`),
          );
          assert.equal(
            benchflow.status,
            benchflowStatus[world.name],
            `${where}: BenchFlow's /proc scan on the fixture (stderr: ${benchflow.stderr})`,
          );
        }
      }
    }
  });

  it('gives every calibration command the same statuses with stub functions as with stub executables', async () => {
    const runs = await runAll();
    const differences: string[] = [];
    for (const shell of runs.shells) {
      for (const world of worldNames) {
        const executables = runs.calibration.get(shell.name)!.get(world)!;
        const functions = runs.statuses.get(shell.name)!.get(world)!;
        executables.forEach((status, index) => {
          if (functions[index] !== status)
            differences.push(
              `${shell.name}, ${world}: executables ${status}, functions ${functions[index]}: ${shown(runs.runnable[index]!.text)}`,
            );
        });
      }
    }
    assert.deepEqual(differences, [], 'the function stubs must stand in exactly for the executables');
  });

  it('generates at least 10,000 distinct commands, all of which dash accepts', async () => {
    const runs = await runAll();
    const generated = runs.runnable.filter((command) => command.origin === 'generated');
    assert.ok(generated.length >= requiredCount, `${generated.length} generated commands, fewer than ${requiredCount}`);
    assert.equal(
      new Set(runs.all.map((command) => command.text)).size,
      runs.all.length,
      'every text in the corpus is distinct',
    );
    // A runnable command dash rejects is a generator bug: its runs say nothing.
    const rejected = runs.runnable.filter((_, index) => !runs.dashAccepted[index]);
    assert.deepEqual(
      rejected.map((command) => command.text),
      [],
      'dash -n rejects these commands meant to be valid',
    );
  });

  it('claims a status proves quiescence only if no survivor or failing observer ended with it, in either shell', async () => {
    const runs = await runAll();
    interface Violation {
      command: CorpusCommand;
      status: number;
      claim: StatusMeaning;
      shells: Set<string>;
      worlds: Set<WorldName>;
    }
    const violations: Violation[] = [];
    const crashes: string[] = [];
    runs.runnable.forEach((command, index) => {
      const { evidence, crash } = analyse(command.text);
      if (crash !== undefined) {
        crashes.push(`${crash}: ${named(command)}`);
        return;
      }
      const observed = statusesOf(runs, index);
      // 0..3 always; any other status a real run gave as well.
      const candidates = new Set([0, 1, 2, 3, ...observed.map((run) => run.status)]);
      for (const status of [...candidates].sort((a, b) => a - b)) {
        const claim = meaningOfStatus(evidence!, status);
        if (claim !== 'quiescent') continue;
        // The union over both shells: a dishonest status in either is a counterexample.
        const against = observed.filter((run) => run.status === status && dishonestWorlds.includes(run.world));
        if (against.length === 0) continue;
        violations.push({
          command,
          status,
          claim,
          shells: new Set(against.map((run) => run.shell)),
          worlds: new Set(against.map((run) => run.world)),
        });
      }
    });
    const commands = new Set(violations.map((violation) => violation.command.text)).size;
    console.log(
      `unsound claims: ${violations.length} (command, status) pairs on ${commands} of ${runs.runnable.length} commands; analyser crashes: ${crashes.length}`,
    );
    // The hand-written commands first, in their order; then the shortest generated ones, the easiest to read.
    const rank = (violation: Violation) => (violation.command.origin === 'generated' ? 1 : 0);
    violations.sort((a, b) => rank(a) - rank(b) || (rank(a) === 1 ? a.command.text.length - b.command.text.length : 0));
    if (violations.length > 0) {
      console.log(
        [
          '  status  claim      shells               worlds                     command',
          ...violations
            .slice(0, 30)
            .map(
              (violation) =>
                `  ${String(violation.status).padEnd(6)}  ${violation.claim.padEnd(9)}  ${[...violation.shells].join(',').padEnd(19)}  ${[...violation.worlds].join(',').padEnd(25)}  ${named(violation.command)}`,
            ),
        ].join('\n'),
      );
    }
    if (crashes.length > 0) console.log(crashes.slice(0, 10).join('\n'));
    assert.equal(crashes.length, 0, `the analyser threw on ${crashes.length} commands, first: ${crashes[0]}`);
    assert.equal(
      violations.length,
      0,
      `${violations.length} unsound claims of quiescence on ${commands} commands (table above), first: status ${violations[0]?.status} of ${violations[0] ? named(violations[0].command) : ''}`,
    );
  });

  it('parses exactly what dash -n accepts', async () => {
    const runs = await runAll();
    interface Disagreement {
      text: string;
      origin: CorpusCommand['origin'];
      /** Our parser's message when we reject; undefined when we accept what dash rejects. */
      ours?: string;
    }
    const disagreements: Disagreement[] = [];
    const parseStart = performance.now();
    runs.all.forEach((command, index) => {
      let ours: string | undefined;
      try {
        parseShell(command.text);
      } catch (error) {
        ours =
          error instanceof ShellSyntaxError
            ? error.message
            : `crashed: ${error instanceof Error ? error.message : String(error)}`;
      }
      if ((ours === undefined) !== runs.dashAccepted[index])
        disagreements.push({ text: command.text, origin: command.origin, ...(ours === undefined ? {} : { ours }) });
    });
    const parseMs = performance.now() - parseStart;
    const weReject = disagreements.filter((disagreement) => disagreement.ours !== undefined);
    const weAccept = disagreements.filter((disagreement) => disagreement.ours === undefined);
    const mutations = runs.all
      .map((command, index) => ({ command, index }))
      .filter(({ command }) => command.origin === 'mutation');
    const rejectedMutations = mutations.filter(({ index }) => !runs.dashAccepted[index]).length;
    console.log(
      `dash -n rejects ${rejectedMutations} of the ${mutations.length} mutations (the rest happen to be valid shell)`,
    );
    console.log(
      `parse disagreements with dash -n: ${disagreements.length} of ${runs.all.length} texts (dash accepts, we reject: ${weReject.length}; dash rejects, we accept: ${weAccept.length}); parseShell on all took ${seconds(parseMs)}`,
    );
    // Grouped by our message (offsets and quoted tokens left out), shortest examples first, about 40 in all.
    const groups = new Map<string, Disagreement[]>();
    for (const disagreement of disagreements) {
      const kind =
        disagreement.ours === undefined
          ? 'dash rejects, we accept'
          : `dash accepts, we reject: ${disagreement.ours.replace(/\d+/g, 'N').replace(/(["'`]).*?\1/g, '…')}`;
      groups.set(kind, [...(groups.get(kind) ?? []), disagreement]);
    }
    const perGroup = Math.max(2, Math.ceil(40 / Math.max(1, groups.size)));
    for (const [kind, members] of [...groups].sort((a, b) => b[1].length - a[1].length)) {
      console.log(`  ${kind} (${members.length})`);
      for (const member of [...members].sort((a, b) => a.text.length - b.text.length).slice(0, perGroup)) {
        console.log(
          `    ${member.origin.padEnd(12)} ${shown(member.text, 140)}${member.ours === undefined ? '' : `  -- ${member.ours}`}`,
        );
      }
    }
    assert.equal(
      disagreements.length,
      0,
      `${disagreements.length} parse disagreements with dash -n (listed above), first: ${shown(disagreements[0]?.text ?? '')}`,
    );
  });

  it('reports where the analyser is too strict and where dash and busybox differ', async () => {
    const runs = await runAll();
    // Too strict: the command observes, every real 0 was honest (none in a dishonest world, some in the
    // quiescent one), yet 0 is not taken as proof. Reported, not failed: the worlds model one failure
    // status (2), so a command that is honest here may still conflate pgrep's 3.
    const tooStrict: string[] = [];
    const disagreeing: string[] = [];
    runs.runnable.forEach((command, index) => {
      const observed = statusesOf(runs, index);
      for (const world of worldNames) {
        const [dash, busybox] = runs.shells.map((shell) => runs.statuses.get(shell.name)!.get(world)![index]!);
        if (dash !== busybox)
          disagreeing.push(`  ${world.padEnd(15)} dash ${dash} busybox ${busybox}  ${shown(command.text, 130)}`);
      }
      const { evidence } = analyse(command.text);
      if (!evidence || evidence.observations.length === 0) return;
      const honestZero =
        observed.some((run) => run.world === 'quiescent' && run.status === 0) &&
        !observed.some((run) => run.status === 0 && dishonestWorlds.includes(run.world));
      if (honestZero && meaningOfStatus(evidence, 0) !== 'quiescent') tooStrict.push(command.text);
    });
    const observing = runs.runnable.filter(
      (command) => (analyse(command.text).evidence?.observations.length ?? 0) > 0,
    ).length;
    console.log(
      `too strict: ${tooStrict.length} observing commands (of ${observing}) whose every real 0 was honest, yet 0 is not taken as proof; first few:`,
    );
    for (const text of [...tooStrict].sort((a, b) => a.length - b.length).slice(0, 10))
      console.log(`    ${shown(text, 140)}`);
    console.log(
      `dash and busybox sh disagree on ${disagreeing.length} (command, world) runs${disagreeing.length > 0 ? '; first:' : ''}`,
    );
    if (disagreeing.length > 0) console.log(disagreeing.slice(0, 10).join('\n'));
    console.log(
      `real shells: time ${seconds(runs.timings.runMs)} for the runs (dash -n ${seconds(runs.timings.dashNMs)}), seed ${runs.seed}`,
    );
    // Soundness is the test above's; this one bounds the cost of it. An analyser that stopped taking
    // honest observations as proof (or stopped seeing them) would be safe and useless: every real rollout
    // would be incomplete. The fixed seed's corpus: 173 of 8,317 observing commands too strict (2.1%).
    assert.ok(observing >= runs.runnable.length / 2, `only ${observing} of ${runs.runnable.length} commands observe`);
    assert.ok(
      tooStrict.length <= observing * 0.05,
      `the analyser refuses an honest 0 for ${tooStrict.length} of ${observing} observing commands (over 5%)`,
    );
  });
});

/** `items` in `count` runs of about equal length, in order. */
function chunks<T>(items: readonly T[], count: number): T[][] {
  const size = Math.ceil(items.length / count);
  return Array.from({ length: count }, (_, index) => items.slice(index * size, (index + 1) * size)).filter(
    (chunk) => chunk.length > 0,
  );
}
