/**
 * The live quiescence probe's vocabulary, shared by the language server and CLI that run it and the
 * extension that asks for it: where it runs, what it was asked, and what it saw.
 */

export type ContainerEngine = 'docker' | 'podman';
export type ProbeTarget = { readonly kind: ContainerEngine; readonly name: string } | { readonly kind: 'local' };
export type ProbeMode = 'observe' | 'harden';
/** How the docker target is reached: auto picks the Engine API when DOCKER_HOST names a unix socket. */
export type DockerAccess = 'auto' | 'cli' | 'engine-api';
export const dockerAccesses: readonly DockerAccess[] = ['auto', 'cli', 'engine-api'];

/** 0 quiescent, 1 survivors remain, 2 could not observe: BenchFlow's contract for its quiescence check. */
export type ProbeReturnCode = 0 | 1 | 2;

export interface ProbeRequest {
  readonly target: ProbeTarget;
  /** A user name as BenchFlow allows (`^[a-z_][a-z0-9_-]*$`) or a numeric uid. */
  readonly user: string;
  readonly mode: ProbeMode;
  /** The bound on the whole probe, exec included. */
  readonly timeoutSeconds: number;
  /** How long TERM is given to work before KILL, per round. */
  readonly graceSeconds?: number;
  readonly dockerAccess?: DockerAccess;
}

/**
 * A process as the observation saw it in `/proc/<pid>/status`: the user's when any of its four uids (the
 * `Uid:` fields) is the user's.
 */
export interface SeenProcess {
  readonly pid: number;
  readonly state: string;
  readonly ruid: number;
  readonly euid: number;
  /** The saved uid: one the process can switch its effective uid back to. */
  readonly suid: number;
  /** The filesystem uid: the one file access is checked with. */
  readonly fsuid: number;
  readonly name: string;
  /** Pid 1 of the target's pid namespace: signals sent inside the namespace cannot end it. */
  readonly pid1: boolean;
}

export interface SentSignal {
  readonly signal: 'TERM' | 'KILL';
  readonly pid: number;
  readonly round: number;
  /** False when kill failed, usually because the process had already gone. */
  readonly delivered: boolean;
}

/** One line of what happened, in order: the commands run, what they printed, and how they ended. */
export type TranscriptEntry =
  | { readonly kind: 'command'; readonly argv: readonly string[] }
  | { readonly kind: 'stdout' | 'stderr'; readonly line: string }
  | { readonly kind: 'exit'; readonly status: string }
  | { readonly kind: 'note'; readonly text: string };

export interface ProbeOutcome {
  readonly request: ProbeRequest;
  readonly returnCode: ProbeReturnCode;
  /** Why, in a sentence: the probe's own result, or what kept it from observing. */
  readonly reason: string;
  /** The uid the user resolved to inside the target; null when it did not resolve or was refused. */
  readonly uid: number | null;
  readonly signals: readonly SentSignal[];
  readonly survivors: readonly SeenProcess[];
  /**
   * True when the probe's own result arrived, and the exec's exit status agrees with it. False when the
   * exec failed, timed out, was cancelled or ended without that result: then nothing was observed.
   */
  readonly reported: boolean;
  readonly startedAt: string;
  readonly finishedAt: string;
  /** When the final observation's result arrived; the end of the exec when there was none. */
  readonly observedAt: string;
  readonly transcript: readonly TranscriptEntry[];
}

/** The probe script is ours: the transcript names it rather than printing it in every command line. */
export const probeScriptPlaceholder = '<quiescence probe script>';

/** What a transcript entry says, as one line of text for an output channel or a terminal. */
export function describeTranscriptEntry(entry: TranscriptEntry): string {
  switch (entry.kind) {
    case 'command':
      return `$ ${entry.argv.map(quoteForDisplay).join(' ')}`;
    case 'stdout':
      return `  ${entry.line}`;
    case 'stderr':
      return `  stderr: ${entry.line}`;
    case 'exit':
      return `  → ${entry.status}`;
    case 'note':
      return `  (${entry.text})`;
  }
}

/** For reading only: the argv was passed as an array, never as shell text. */
function quoteForDisplay(argument: string): string {
  if (argument === probeScriptPlaceholder || /^[\w@%+=:,./-]+$/.test(argument)) return argument;
  return `'${argument.replace(/'/g, `'\\''`)}'`;
}

/** The plain-language result: quiescent, N survivors (with pids and names), or could not observe. */
export function summarizeOutcome(outcome: ProbeOutcome): string {
  const who = `sandbox user "${outcome.request.user}"${outcome.uid !== null && String(outcome.uid) !== outcome.request.user ? ` (uid ${outcome.uid})` : ''}`;
  const where = describeTarget(outcome.request.target);
  if (outcome.returnCode === 0) return `Quiescent: no live process of ${who} in ${where}.`;
  if (outcome.returnCode === 1) {
    const pid1 = outcome.survivors.some((process) => process.pid1)
      ? ' Pid 1 of the container runs as the sandbox user: the kernel shields it from signals sent inside the container, so only stopping the container ends it.'
      : '';
    return `${outcome.survivors.length} survivor${outcome.survivors.length === 1 ? '' : 's'} of ${who} in ${where}: ${listProcesses(outcome.survivors)}.${pid1}`;
  }
  return `Could not observe ${who} in ${where}: ${outcome.reason}`;
}

function listProcesses(processes: readonly SeenProcess[]): string {
  return processes
    .map((process) => `${process.pid} ${process.name}${process.pid1 ? ' (pid 1)' : ''}${mixedUids(process)}`)
    .join(', ');
}

/** A process that holds the user's uid in only some of its uids says which: it counts all the same. */
function mixedUids({ ruid, euid, suid, fsuid }: SeenProcess): string {
  return ruid === euid && euid === suid && suid === fsuid
    ? ''
    : ` (uids real ${ruid}, effective ${euid}, saved ${suid}, filesystem ${fsuid})`;
}

export function describeTarget(target: ProbeTarget): string {
  return target.kind === 'local' ? 'the local machine' : `${target.kind} container "${target.name}"`;
}

/** A running container the probe could target, as its engine lists it. */
export interface RunningContainer {
  readonly engine: ContainerEngine;
  readonly id: string;
  readonly name: string;
  readonly image: string;
  readonly status: string;
}

export interface ContainerListing {
  readonly containers: readonly RunningContainer[];
  /** Engines that could not be asked, each with what was looked for or what went wrong. */
  readonly unavailable: readonly { readonly engine: ContainerEngine; readonly reason: string }[];
}

/** `rolloutEvidence.probe.*`, read by the extension; the CLI takes the same as options. */
export interface ProbeSettings {
  /** The user to probe when the active rollout's config.json does not name one. */
  readonly sandboxUser: string;
  readonly timeoutSeconds: number;
  readonly graceSeconds: number;
  readonly docker: DockerAccess;
}

export const probeSettingDefaults: ProbeSettings = {
  sandboxUser: 'agent',
  timeoutSeconds: 60,
  graceSeconds: 2,
  docker: 'auto',
};

/**
 * BenchFlow's rule for sandbox user names, or a numeric uid: the one rule for the probe, the extension and
 * the engine's reading of config.json, so that a user the probe refuses (root) is never one the rules
 * trust a proof for.
 */
const sandboxUserPattern = /^(?:[a-z_][a-z0-9_-]*|[0-9]{1,10})$/;

/** The longest bound a probe may be given, in seconds. */
export const maxProbeTimeoutSeconds = 3600;

/** Why `user` cannot be probed, or undefined when it can: the extension's input box and the server say the same. */
export function sandboxUserProblem(user: unknown): string | undefined {
  if (typeof user !== 'string' || !sandboxUserPattern.test(user)) {
    // Only a string is quoted: any other value may be bundle text nested past what JSON.stringify can walk.
    const given =
      typeof user === 'string' ? JSON.stringify(user) : `a value of type ${user === null ? 'null' : typeof user}`;
    return `the sandbox user must be a name matching ^[a-z_][a-z0-9_-]*$ (as BenchFlow requires) or a numeric uid, not ${given}`;
  }
  if (/^0+$/.test(user)) return 'uid 0 is root: the probe never observes or signals root';
  return undefined;
}

/** A sandbox user the probe accepts (`sandboxUserProblem` finds nothing). */
export function isSandboxUserName(user: unknown): user is string {
  return typeof user === 'string' && sandboxUserProblem(user) === undefined;
}
