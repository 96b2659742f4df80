/**
 * What one shell command proves about the sandbox user's processes: the kill attempts and observations
 * it makes, in the order it makes them; whether it only prepares or cleans; and, when it observes,
 * which commands supply its exit status and whether each of them can carry the observation's result.
 * A command that ends on `sleep 1` after its observation reports success whatever was observed: that
 * is the masking the evidence rules flag.
 */
import { parseShell } from './parse';
import { ShellSyntaxError, type CommandList, type Loop, type SimpleCommand, type Span, type Word } from './syntax';
import { append, runCommands, statusSuppliers, WalkBudget, type Guard, type RunCommand, type Supplier } from './walk';

export interface SandboxUser {
  readonly name: string;
  readonly uid?: number;
}

/** One text per sandbox user (or none), for keeping what was worked out for that user. */
export function sandboxUserKey(user: SandboxUser | undefined): string {
  return `${user?.name ?? ''}\u0000${user?.uid ?? ''}`;
}

export type ZeroMeans = 'quiescent' | 'survivors' | 'unknown';

export interface CommandEvidence {
  /** Kill attempts and observations together, in run order. */
  readonly events: readonly { readonly kind: 'kill' | 'observation'; readonly span: Span }[];
  /** Set when the text is not shell this analyser can read; then nothing else is known. */
  readonly syntaxError?: { readonly message: string; readonly offset: number };
  /** Kill attempts against the sandbox user's processes, in run order. */
  readonly kills: readonly Span[];
  /** Observations listing the sandbox user's processes, in run order. */
  readonly observations: readonly Span[];
  /** Every command only prepares or cleans (mkdir, chmod, rm, …). */
  readonly setupOnly: boolean;
  /** When the command observes: status suppliers that cannot carry the observation's result. */
  readonly masking: readonly Span[];
  /** What exit status 0 means, when every supplier agrees. */
  readonly zeroMeans: ZeroMeans;
}

type Kind = 'kill' | 'observation' | 'test' | 'setup' | 'other';

const shells = new Set(['sh', 'bash', 'dash', 'ash', 'zsh', 'ksh']);
const wrappers = new Set(['sudo', 'env', 'timeout', 'nice', 'nohup', 'exec', 'command', 'builtin', 'setpriv', 'stdbuf', 'ionice', 'doas', 'runuser', 'chroot', 'busybox']);
const setupCommands = new Set(['mkdir', 'chmod', 'chown', 'chgrp', 'rm', 'rmdir', 'touch', 'true', ':', 'cd', 'umask', 'export', 'unset', 'set', 'ln']);
const procScan = /^\/proc\/(\*|\[[^\]]*\]\*?|\$)/;

export function analyseCommand(text: string, user: SandboxUser | undefined): CommandEvidence {
  try {
    // The walks can give up too, when function calls expand beyond what the text's size warrants.
    return new Analysis(text, user, new WalkBudget(text.length), 0).of(parseShell(text));
  } catch (error) {
    if (!(error instanceof ShellSyntaxError)) throw error;
    return { syntaxError: { message: error.message, offset: error.offset }, events: [], kills: [], observations: [], setupOnly: false, masking: [], zeroMeans: 'unknown' };
  }
}

class Analysis {
  /** Whether each `for` loop iterates over /proc, worked out once rather than for every command inside. */
  private readonly procLoops = new Map<Loop, boolean>();

  constructor(
    private readonly source: string,
    private readonly user: SandboxUser | undefined,
    /** Shared with the analyses of nested scripts, which repeat work as function calls do. */
    private readonly budget: WalkBudget,
    /** How many `sh -c` scripts this one is nested in. */
    private readonly depth: number,
  ) {}

  of(tree: CommandList): CommandEvidence {
    // Kill attempts and observations in the order they run (function bodies at their call sites), as
    // text order would misplace a function's body or a substitution.
    const events: { kind: 'kill' | 'observation'; span: Span }[] = [];
    let setupOnly = true;
    let commands = 0;
    const nested = new Map<SimpleCommand, CommandEvidence>();
    for (const run of runCommands(tree, this.budget)) {
      commands++;
      const inner = this.nestedScript(run.command);
      if (inner) {
        nested.set(run.command, inner);
        append(events, inner.events);
        setupOnly &&= inner.setupOnly;
        continue;
      }
      const kind = this.kindOf(run);
      if (kind === 'kill' || kind === 'observation') events.push({ kind, span: spanOf(run.command) });
      if (kind !== 'setup' && kind !== 'test') setupOnly = false;
    }
    const evidence = {
      events,
      kills: events.filter((event) => event.kind === 'kill').map((event) => event.span),
      observations: events.filter((event) => event.kind === 'observation').map((event) => event.span),
      setupOnly: setupOnly && commands > 0,
    };
    if (evidence.observations.length === 0) return { ...evidence, masking: [], zeroMeans: 'unknown' };
    return { ...evidence, ...this.reporting(statusSuppliers(tree, this.budget), nested) };
  }

  /** Which suppliers can carry the observation, and what status 0 then means. */
  private reporting(suppliers: readonly Supplier[], nested: ReadonlyMap<SimpleCommand, CommandEvidence>): Pick<CommandEvidence, 'masking' | 'zeroMeans'> {
    const masking: Span[] = [];
    const meanings = new Set<ZeroMeans>();
    for (const supplier of suppliers) {
      const inner = supplier.command ? nested.get(supplier.command) : undefined;
      if (inner) {
        append(masking, inner.masking);
        if (inner.observations.length > 0) meanings.add(supplier.negated ? flip(inner.zeroMeans) : inner.zeroMeans);
        else masking.push(spanOf(supplier.span));
        continue;
      }
      const meaning = this.meaningOf(supplier);
      if (meaning === undefined) masking.push(spanOf(supplier.span));
      else meanings.add(meaning);
    }
    const zeroMeans = masking.length === 0 && meanings.size === 1 ? [...meanings][0]! : 'unknown';
    return { masking, zeroMeans };
  }

  /** What status 0 of this supplier says about the processes, or undefined when it cannot say. */
  private meaningOf(supplier: Supplier): ZeroMeans | undefined {
    const command = supplier.command;
    if (command) {
      const kind = this.kindOf({ command });
      if (kind === 'observation' || kind === 'test') {
        const meaning = this.polarity(command);
        return supplier.negated ? flip(meaning) : meaning;
      }
      const value = constantStatus(command);
      // `exit "$rc"`: a status computed by the script, read by the 0/1/2 contract.
      if (value === undefined) return isExitLike(command) ? 'quiescent' : undefined;
      return this.honestConstant(supplier.negated ? Number(value === 0) : value, supplier.guard);
    }
    // A compound that ran no command ends with status 0.
    return this.honestConstant(supplier.negated ? 1 : 0, supplier.guard);
  }

  /**
   * A constant non-zero status never claims quiescence, so it cannot mislead. A constant 0 is honest
   * only when the path to it was decided by an observation that found nothing: `[ -z "$s" ] && exit 0`
   * is, `! pgrep -u agent || true` is not.
   */
  private honestConstant(value: number, guard: Guard | undefined): ZeroMeans | undefined {
    if (value !== 0) return 'quiescent';
    if (!guard) return undefined;
    const kind = this.kindOf({ command: guard.command });
    if (kind !== 'observation' && kind !== 'test') return undefined;
    const zeroMeans = guard.negated ? flip(this.polarity(guard.command)) : this.polarity(guard.command);
    if (zeroMeans === 'unknown') return undefined;
    const stateOnPath = guard.ranWhenSucceeded ? zeroMeans : flip(zeroMeans);
    return stateOnPath === 'quiescent' ? 'quiescent' : undefined;
  }

  /** What status 0 of an observation or test (not negated) means. */
  private polarity(command: SimpleCommand): ZeroMeans {
    const { name, args } = resolve(command);
    if (name === '[' || name === 'test' || name === '[[') {
      if (args.some((arg) => arg.text === '-z')) return 'quiescent';
      if (args.some((arg) => arg.text === '-n')) return 'survivors';
      return 'unknown';
    }
    // pgrep, ps, a /proc scan: status 0 means something was found.
    return 'survivors';
  }

  private kindOf(run: RunCommand): Kind {
    const { name, args } = resolve(run.command);
    if (name === undefined) return 'setup';
    const inProcLoop = run.loop ? this.scansProc(run.loop) : false;
    switch (name) {
      case 'pkill':
      case 'killall':
        return this.targetsOtherUser(args) ? 'other' : 'kill';
      case 'kill':
        return args.some((arg) => arg.text === '-0' || arg.text === '-l' || arg.text === '-L') ? 'other' : 'kill';
      case 'xargs':
        return args.some((arg) => ['kill', 'pkill', 'killall'].includes(basename(arg.text))) ? 'kill' : 'other';
      case 'pgrep':
      case 'ps':
        return this.selectsSandboxUser(args) ? 'observation' : 'other';
      case '[':
      case '[[':
      case 'test':
        return args.some((arg) => arg.substitutions.length > 0 || arg.text.startsWith('$')) ? 'test' : inProcLoop ? 'observation' : 'setup';
    }
    if (args.some((arg) => procScan.test(arg.text)) || inProcLoop) return 'observation';
    if (setupCommands.has(name)) return 'setup';
    if (name === 'wc' && args.some((arg) => /^-[clw]+$/.test(arg.text))) return 'setup';
    if (name === 'find' && args.some((arg, index) => arg.text === '-delete' || (arg.text === '-exec' && basename(args[index + 1]?.text ?? '') === 'rm'))) return 'setup';
    return 'other';
  }

  private scansProc(loop: Loop): boolean {
    let scans = this.procLoops.get(loop);
    if (scans === undefined) {
      scans = loop.items.some((item) => procScan.test(item.text));
      this.procLoops.set(loop, scans);
    }
    return scans;
  }

  private selectsSandboxUser(args: readonly Word[]): boolean {
    const selected = userSelectors(args);
    return selected.length > 0 && selected.some((value) => this.isSandboxUser(value));
  }

  private targetsOtherUser(args: readonly Word[]): boolean {
    const selected = userSelectors(args);
    return selected.length > 0 && !selected.some((value) => this.isSandboxUser(value));
  }

  private isSandboxUser(value: string): boolean {
    if (value.includes('$')) return true; // Not known here: assume the script means the sandbox user.
    return value.split(',').some((one) => (this.user ? one === this.user.name || one === String(this.user.uid) : one !== 'root' && one !== '0'));
  }

  /** `sh -c 'script'`, `su agent -c 'script'` and the like: the script is analysed as part of this command. */
  private nestedScript(command: SimpleCommand): CommandEvidence | undefined {
    const script = scriptArgument(command);
    if (!script) return undefined;
    const raw = this.source.slice(script.start, script.end);
    // Positions inside map back exactly only when the script is one plainly quoted word.
    const base = raw === `'${script.text}'` || raw === `"${script.text}"` ? script.start + 1 : raw === script.text ? script.start : undefined;
    let tree: CommandList;
    try {
      tree = parseShell(script.text, base ?? 0, this.depth + 1);
    } catch (error) {
      // A script this analyser cannot read stays an ordinary command.
      if (error instanceof ShellSyntaxError) return undefined;
      throw error;
    }
    // Outside the try: a walk that gives up must end the whole analysis, not just this script's.
    const inner = new Analysis(base === undefined ? script.text : this.source, this.user, this.budget, this.depth + 1).of(tree);
    return base === undefined ? spread(inner, script) : inner;
  }
}

function scriptArgument(command: SimpleCommand): Word | undefined {
  const first = basename(command.words[0]?.text ?? '');
  if (first === 'su' || first === 'runuser') {
    const flag = command.words.findIndex((word) => word.text === '-c' || word.text === '--command');
    if (flag !== -1) return command.words[flag + 1];
  }
  const { name, args } = resolve(command);
  if (name === undefined || !shells.has(name)) return undefined;
  const flag = args.findIndex((arg) => /^-[a-z]*c[a-z]*$/.test(arg.text));
  return flag === -1 ? undefined : args[flag + 1];
}

/** The command's name and arguments after wrappers such as sudo, env and timeout. */
function resolve(command: SimpleCommand): { name: string | undefined; args: readonly Word[] } {
  const words = command.words;
  let index = 0;
  while (index < words.length && wrappers.has(basename(words[index]!.text))) {
    const wrapper = basename(words[index]!.text);
    index++;
    // Skip the wrapper's options and operands (a duration, a user, VAR=value) up to the command.
    while (index < words.length) {
      const text = words[index]!.text;
      if (text === '--') {
        index++;
        break;
      }
      if (text.startsWith('-') || /^[A-Za-z_]\w*=/.test(text) || (wrapper === 'timeout' && /^\d/.test(text))) {
        if (['-u', '-g', '-n', '-s', '-k', '-c', '--user', '--group'].includes(text)) index++;
        index++;
        continue;
      }
      if (wrapper === 'chroot' && index + 1 < words.length) {
        index++; // the new root
        continue;
      }
      break;
    }
  }
  const name = words[index]?.text;
  return { name: name === undefined ? undefined : basename(name), args: words.slice(index + 1) };
}

/** Values given to -u, -U, --uid, --euid, --user (separate or attached). */
function userSelectors(args: readonly Word[]): string[] {
  const values: string[] = [];
  args.forEach((arg, index) => {
    const text = arg.text;
    const attached = /^(?:-[uU]|--(?:e?uid|user)=)(.+)$/.exec(text);
    if (attached) values.push(attached[1]!);
    else if (['-u', '-U', '--uid', '--euid', '--user'].includes(text) && args[index + 1]) values.push(args[index + 1]!.text);
  });
  return values;
}

function constantStatus(command: SimpleCommand): number | undefined {
  const { name, args } = resolve(command);
  if (name === 'true' || name === ':') return 0;
  if (name === 'false') return 1;
  if (name === 'exit' || name === 'return') {
    const value = args[0]?.text;
    if (value === undefined) return undefined;
    return /^\d+$/.test(value) ? Number(value) : undefined;
  }
  return undefined;
}

function isExitLike(command: SimpleCommand): boolean {
  const { name } = resolve(command);
  return name === 'exit' || name === 'return';
}

function flip(meaning: ZeroMeans): ZeroMeans {
  return meaning === 'quiescent' ? 'survivors' : meaning === 'survivors' ? 'quiescent' : 'unknown';
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

function spanOf(span: Span): Span {
  return { start: span.start, end: span.end };
}

/** Spans of a nested script that cannot be mapped exactly all become the span of its word. */
function spread(evidence: CommandEvidence, word: Word): CommandEvidence {
  const onWord = (spans: readonly Span[]) => spans.map(() => spanOf(word));
  return {
    ...evidence,
    events: evidence.events.map((event) => ({ ...event, span: spanOf(word) })),
    kills: onWord(evidence.kills),
    observations: onWord(evidence.observations),
    masking: onWord(evidence.masking),
  };
}

/**
 * What an exit status of the command, as recorded, says about the sandbox user's processes:
 * `quiescent` only when every way the command can end with that status went through an observation
 * that reported none; `conflated` when the status can also come from an observer that failed;
 * `survivors` / `unobservable` when it can only come from an observation that found processes or
 * could not look; `unknown` otherwise (masked, or not an observing command).
 */
export type StatusMeaning = 'quiescent' | 'survivors' | 'unobservable' | 'conflated' | 'unknown';

export function meaningOfStatus(evidence: CommandEvidence, status: number): StatusMeaning {
  if (evidence.observations.length === 0 || evidence.masking.length > 0 || evidence.zeroMeans === 'unknown') return 'unknown';
  if (status !== 0 && status !== 1) return 'unobservable';
  return (status === 0) === (evidence.zeroMeans === 'quiescent') ? 'quiescent' : 'survivors';
}
