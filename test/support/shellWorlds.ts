/**
 * Runs shell commands in real `dash` and busybox `sh` against three simulated worlds, with the
 * programs hardening commands call replaced by stubs, so that a command's real exit status in each
 * world can be compared with what the shell analyser claims that status proves:
 *   quiescent       no sandbox-user process: pgrep finds none (1), kills have nothing to signal (1);
 *   survivor        a process (4242) the kills cannot remove: pgrep finds it (0), kills "succeed" (0);
 *   observer-fails  the process table cannot be read: pgrep fails (2), ps fails (1), kills fail (2).
 * pgrep, pkill, killall, ps, id and wc are stubs: executables in a directory that is the whole PATH,
 * or the same stubs as shell functions (see StubKind). `kill` (a builtin) and `sleep` (an applet in
 * busybox), and in busybox every stubbed name it also has as an applet (busybox runs its applets
 * whatever PATH says), are always shell functions defined ahead of the command. A command's `/proc`
 * is a fixture tree per world.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { benchflowPath } from './commandGenerator';

export type WorldName = 'quiescent' | 'survivor' | 'observer-fails';
export const worldNames: readonly WorldName[] = ['quiescent', 'survivor', 'observer-fails'];

export interface RealShell {
  readonly name: 'dash' | 'busybox sh';
  /** The program and its arguments ahead of a script's path. */
  readonly argv: readonly string[];
  /** Names the shell runs as its own applets whatever PATH says; the stubs shadow them with functions. */
  readonly applets: ReadonlySet<string>;
}

export interface World {
  readonly name: WorldName;
  /** The stub executables; the whole PATH of a command run in this world. */
  readonly stubDirectory: string;
  /** Stands in for /proc in the text that is run. */
  readonly procRoot: string;
  /** What pkill, killall and kill return here. */
  readonly killStatus: number;
}

/** The programs that are stub executables. */
const stubbedPrograms = ['pgrep', 'pkill', 'killall', 'ps', 'id', 'wc'] as const;

/** The pid of the survivor, in pgrep's and ps's output and in the /proc fixture. */
export const survivorPid = 4242;

/** dash and busybox sh, or an error naming the Debian package that provides the missing one. */
export async function findRealShells(): Promise<{ dash: string; busybox: string; shells: RealShell[] }> {
  const dash = findProgram('dash');
  const busybox = findProgram('busybox', ['/bin/busybox', '/usr/bin/busybox']);
  const missing = [
    dash
      ? undefined
      : 'dash not found: install the Debian package "dash" (Essential on Debian, so the machine is unusual)',
    busybox
      ? undefined
      : 'busybox not found: install the Debian package "busybox-static" (or "busybox"), as .ci/run does',
  ].filter((message): message is string => message !== undefined);
  if (missing.length > 0 || !dash || !busybox) throw new Error(missing.join('; '));
  const list = await runBounded([busybox, '--list'], { PATH: '/nonexistent' }, 10_000);
  const applets = new Set(list.stdout.split('\n').filter((line) => line !== ''));
  if (list.status !== 0 || !applets.has('sh'))
    throw new Error(`${busybox} has no sh applet: install the Debian package "busybox-static"`);
  return {
    dash,
    busybox,
    shells: [
      { name: 'dash', argv: [dash], applets: new Set() },
      { name: 'busybox sh', argv: [busybox, 'sh'], applets },
    ],
  };
}

function findProgram(name: string, extra: readonly string[] = []): string | undefined {
  const candidates = [
    ...(process.env.PATH ?? '')
      .split(delimiter)
      .filter((folder) => folder !== '')
      .map((folder) => join(folder, name)),
    ...extra,
    `/usr/bin/${name}`,
    `/bin/${name}`,
  ];
  return candidates.find((path) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * The three worlds' stub directories and /proc fixtures, under `root`. The stubs are scripts run by
 * static busybox's sh (`busybox` is its path): a process start is most of a run's cost, and a static
 * binary starts in about half the time of dash.
 */
export async function createWorlds(root: string, busybox: string): Promise<World[]> {
  return Promise.all(worldNames.map((name) => createWorld(root, busybox, name)));
}

async function createWorld(root: string, busybox: string, name: WorldName): Promise<World> {
  const world: World = {
    name,
    stubDirectory: join(root, name, 'bin'),
    procRoot: join(root, name, 'proc'),
    killStatus: { quiescent: 1, survivor: 0, 'observer-fails': 2 }[name],
  };
  for (const path of [world.stubDirectory, world.procRoot]) {
    // The paths are spliced into shell text (the prelude, the /proc swap): keep them plain.
    if (!/^[A-Za-z0-9_./-]+$/.test(path))
      throw new Error(`temporary path ${path} has characters the shell text cannot carry unquoted`);
  }
  await mkdir(world.stubDirectory, { recursive: true });
  for (const program of stubbedPrograms) {
    const path = join(world.stubDirectory, program);
    // The executable runs the very function the function stubs define, so the two kinds cannot drift.
    await writeFile(
      path,
      `#!${busybox} sh\n# ${program} in the ${name} world (test/support/shellWorlds.ts)\n${stubFunction(program, world)}\n${program} "$@"\n`,
    );
    await chmod(path, 0o755);
  }
  await writeProcFixture(world);
  return world;
}

/**
 * A stub as a shell function. It may run inside the command's own shell, so it returns rather than
 * exits, and keeps its variables local (and oddly named) so as not to touch the command's.
 */
function stubFunction(program: (typeof stubbedPrograms)[number], world: World): string {
  return `${program}() {\n${stubBody(program, world)}\n}`;
}

/** Whether the arguments select the sandbox user by -u/-U (agent or 1001), as the stubs require. */
const selectsAgent = `local rollout_stub_selects='' rollout_stub_previous='' rollout_stub_argument
for rollout_stub_argument do
  case "$rollout_stub_previous" in -u|-U) case "$rollout_stub_argument" in agent|1001) rollout_stub_selects=1 ;; esac ;; esac
  rollout_stub_previous=$rollout_stub_argument
done
if [ -z "$rollout_stub_selects" ]; then echo "stub: no -u/-U selecting agent or 1001" >&2; return 3; fi`;

function stubBody(program: (typeof stubbedPrograms)[number], world: World): string {
  switch (program) {
    case 'pgrep':
      return `${selectsAgent}\n${{ quiescent: 'return 1', survivor: `echo ${survivorPid}; return 0`, 'observer-fails': "echo 'pgrep: cannot read process table' >&2; return 2" }[world.name]}`;
    case 'ps':
      return `${selectsAgent}\n${
        {
          quiescent: "echo '  PID TTY          TIME CMD'; return 1",
          survivor: `echo '  PID TTY          TIME CMD'; echo ' ${survivorPid} ?        00:00:00 sleep'; return 0`,
          'observer-fails': "echo 'Error, do this: mount -t proc proc /proc' >&2; return 1",
        }[world.name]
      }`;
    case 'pkill':
    case 'killall':
      // Nothing changes: in the survivor world the process stays whatever the kill says.
      return `return ${world.killStatus}`;
    case 'id':
      return 'if [ "$1" = -u ] && [ "$2" = agent ]; then echo 1001; return 0; fi\necho "id stub: unexpected arguments: $*" >&2; return 1';
    case 'wc':
      return 'if [ "$1" != -l ]; then echo "wc stub: only -l" >&2; return 1; fi\nlocal rollout_stub_lines=0 rollout_stub_line\nwhile IFS= read -r rollout_stub_line; do rollout_stub_lines=$((rollout_stub_lines + 1)); done\necho "$rollout_stub_lines"';
  }
}

async function writeProcFixture(world: World): Promise<void> {
  const status = (name: string, uid: number) =>
    `Name:\t${name}\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t1\nPid:\t1\nUid:\t${uid}\t${uid}\t${uid}\t${uid}\nGid:\t${uid}\t${uid}\t${uid}\t${uid}\n`;
  const entries: [string, string | undefined][] = [
    ['self', status('sh', 0)],
    ['1', status('init', 0)],
  ];
  if (world.name === 'survivor') entries.push([String(survivorPid), status('sleep', 1001)]);
  // An entry whose status cannot be read: the scan cannot tell whose process it is.
  if (world.name === 'observer-fails') entries.push(['77', undefined]);
  for (const [entry, text] of entries) {
    await mkdir(join(world.procRoot, entry), { recursive: true });
    if (text !== undefined) await writeFile(join(world.procRoot, entry, 'status'), text);
  }
}

/**
 * How the stubbed programs are reached: `executables`, the stub executables on PATH (a process start
 * each, as the real programs are), or `functions`, the same stubs as shell functions, which start no
 * process. A process start costs 1 to 4 ms on the CI machines, most of a command's run, so the whole
 * corpus runs with `functions` and a calibration sample with both, which must give equal statuses.
 */
export type StubKind = 'executables' | 'functions';

/** Functions defined ahead of every command: what PATH cannot replace in this shell, or every stub. */
export function prelude(shell: RealShell, world: World, stubs: StubKind): string {
  // busybox runs its own applets (ps, id, wc, killall) whatever PATH says: those go through functions.
  const wrappers = stubbedPrograms
    .filter((program) => shell.applets.has(program))
    .map((program) => `${program}() { '${join(world.stubDirectory, program)}' "$@"; }`);
  return [
    `# The ${world.name} world for ${shell.name}: kill is a builtin and sleep a busybox applet, so both are functions.`,
    `kill() { return ${world.killStatus}; }`,
    'sleep() { return 0; }',
    ...(stubs === 'functions' ? stubbedPrograms.map((program) => stubFunction(program, world)) : wrappers),
  ].join('\n');
}

/**
 * The text that runs in a world: /proc is that world's fixture and BenchFlow's PATH is the stub
 * directory. The analyser reads the original text.
 */
export function runnableText(text: string, world: World): string {
  return text
    .split(`PATH='${benchflowPath}'`)
    .join(`PATH='${world.stubDirectory}'`)
    .split('/proc')
    .join(world.procRoot);
}

/**
 * Runs each command once in one shell and world and returns its exit statuses, in order. One shell
 * process runs them all, each in a subshell (so that `exit` ends only that command) with stdin, stdout
 * and stderr on /dev/null; the batch is killed when it outlives `timeoutMs`.
 */
export async function runCommands(
  shell: RealShell,
  world: World,
  stubs: StubKind,
  texts: readonly string[],
  directory: string,
  timeoutMs: number,
): Promise<number[]> {
  await mkdir(directory, { recursive: true });
  await writeNumbered(
    directory,
    texts.map((text) => runnableText(text, world)),
  );
  const driver = join(directory, 'driver');
  await writeFile(
    driver,
    `${prelude(shell, world, stubs)}
rollout_evidence_directory=$1
rollout_evidence_count=$2
rollout_evidence_index=0
while [ "$rollout_evidence_index" -lt "$rollout_evidence_count" ]; do
  ( . "$rollout_evidence_directory/$rollout_evidence_index" ) </dev/null >/dev/null 2>&1
  echo "$rollout_evidence_index $?"
  rollout_evidence_index=$((rollout_evidence_index + 1))
done
`,
  );
  const run = await runBounded(
    [...shell.argv, driver, directory, String(texts.length)],
    { PATH: world.stubDirectory, LC_ALL: 'C' },
    timeoutMs,
  );
  return statusesOf(run, texts, `${shell.name} in the ${world.name} world (stub ${stubs})`, timeoutMs);
}

/** Whether `dash -n` accepts each text, one `dash -n` per text from one driver. */
export async function dashAccepts(
  dash: string,
  texts: readonly string[],
  directory: string,
  timeoutMs: number,
): Promise<boolean[]> {
  await mkdir(directory, { recursive: true });
  await writeNumbered(directory, texts);
  const driver = join(directory, 'driver');
  await writeFile(
    driver,
    `dash=$1
directory=$2
count=$3
index=0
while [ "$index" -lt "$count" ]; do
  "$dash" -n "$directory/$index" </dev/null >/dev/null 2>&1
  echo "$index $?"
  index=$((index + 1))
done
`,
  );
  const run = await runBounded(
    [dash, driver, dash, directory, String(texts.length)],
    { PATH: '/nonexistent', LC_ALL: 'C' },
    timeoutMs,
  );
  return statusesOf(run, texts, 'dash -n', timeoutMs).map((status) => status === 0);
}

/** Each text to its own file, named by its index; a few hundred at a time, to stay clear of the open-file limit. */
async function writeNumbered(directory: string, texts: readonly string[]): Promise<void> {
  for (let start = 0; start < texts.length; start += 256) {
    await Promise.all(
      texts.slice(start, start + 256).map((text, offset) => writeFile(join(directory, String(start + offset)), text)),
    );
  }
}

function statusesOf(run: BoundedRun, texts: readonly string[], what: string, timeoutMs: number): number[] {
  const statuses = new Array<number | undefined>(texts.length).fill(undefined);
  for (const line of run.stdout.split('\n')) {
    const match = /^(\d+) (\d+)$/.exec(line);
    if (match) statuses[Number(match[1])] = Number(match[2]);
  }
  const missing = statuses.findIndex((status) => status === undefined);
  if (run.timedOut)
    throw new Error(
      `${what}: not done after ${timeoutMs / 1000} s, at command ${missing}: ${JSON.stringify(texts[missing])}`,
    );
  if (missing !== -1 || run.status !== 0)
    throw new Error(
      `${what}: the driver exited ${run.status} without a status for command ${missing} (${JSON.stringify(texts[missing])}): ${run.stderr.slice(0, 2000)}`,
    );
  return statuses as number[];
}

/** One script's exit status and output in a shell and world, for checking that the worlds are what they claim. */
export async function runInWorld(
  shell: RealShell,
  world: World,
  stubs: StubKind,
  text: string,
  path: string,
): Promise<BoundedRun> {
  await writeFile(path, `${prelude(shell, world, stubs)}\n${runnableText(text, world)}\n`);
  return runBounded([...shell.argv, path], { PATH: world.stubDirectory, LC_ALL: 'C' }, 20_000);
}

export interface BoundedRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
}

/** Runs a program in its own process group, killed whole (stubs included) if it outlives `timeoutMs`. */
function runBounded(argv: readonly string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<BoundedRun> {
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
    }, timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-10_000)));
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ status: null, stdout, stderr: `${stderr}${error.message}`, timedOut });
    });
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr, timedOut });
    });
  });
}
