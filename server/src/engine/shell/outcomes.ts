/**
 * Which exit statuses a command can end with, in each of three worlds: no process of the sandbox user
 * is left (`quiescent`), one survives every kill (`survivors`), or the observer itself fails
 * (`observer-fails`: pgrep exits 2 or 3, a /proc entry cannot be read). A recorded status proves
 * quiescence only when it can end the command in the first world and in neither of the others, so the
 * question "does this 0 mean none were found?" is answered by running the command, not by its shape.
 *
 * The run is abstract: every command the model does not know (and every kill, whose status says
 * nothing) may end with 0 or with a non-zero status, and both are followed; values the text computes
 * from unknown input are unknown, and a test of one goes both ways. So the statuses found for a world
 * include every status the real shell can end with there; a construct the model cannot follow (eval,
 * trap, `.`) makes the answer "anything", and more paths than the budget allows end the analysis as
 * beyond its bounds.
 *
 * The worlds match the real-shell tests (test/unit/realShells.test.ts), which run the same commands in
 * dash and busybox sh against stub observers and a fixture /proc, and check that no status the
 * analyser calls proof ends a command in the survivors or observer-fails world.
 */
import { basename, namesSandboxUser, resolve, scriptArgument, selectsSandboxUser } from './commands';
import type { SandboxUser } from './sandboxUser';
import { parseShell } from './parse';
import { append } from './walk';
import {
  ShellBoundExceeded,
  ShellSyntaxError,
  type AndOr,
  type Command,
  type CommandList,
  type FunctionDefinition,
  type Loop,
  type Pipeline,
  type Redirection,
  type SimpleCommand,
  type Span,
  type Word,
} from './syntax';

export type World = 'quiescent' | 'survivors' | 'observer-fails';
const worlds: readonly World[] = ['quiescent', 'survivors', 'observer-fails'];

/** An exit status: a number, or some non-zero status the model cannot name. */
export type Status = number | 'nonzero';

export interface Ending {
  readonly status: Status;
  /** The command whose status ended the run (an `exit`, the last command run), when one did. */
  readonly supplier?: Span;
}

export interface WorldOutcomes {
  /** False when the run could not be followed: then any status may end the command. */
  readonly complete: boolean;
  readonly endings: readonly Ending[];
}

export type Outcomes = Readonly<Record<World, WorldOutcomes>>;

/** The endings with `status` (an unnamed non-zero one counts for any non-zero); undefined when anything may end it. */
export function endsWith(outcomes: WorldOutcomes, status: number): Ending[] | undefined {
  if (!outcomes.complete) return undefined;
  return outcomes.endings.filter((ending) => ending.status === status || (ending.status === 'nonzero' && status !== 0));
}

/**
 * Work done in one world before the answer becomes "anything": a state entering a command costs one, and
 * one more per variable and function it carries, since comparing and copying states costs that much
 * (`v1=$(a); v2=$(a); …` grows every state). Fixed, not scaled by the text's length: the parser's
 * bound on commands keeps real work far below it (the real-shell corpus spends at most 800 states in a
 * world and 4,600 units in all three), and a fixed budget is a fixed bound on CPU time.
 */
const workBudget = 20_000;
const loopRounds = 12;
const callDepth = 24;

class TooComplex extends Error {}

const unknown = Symbol('unknown');
const unknownNonEmpty = Symbol('unknown, not empty');
/** A non-zero exit status, unnamed: `$?` after a command that failed in a way the model cannot name. */
const unknownNonZero = Symbol('a non-zero number');
/** Words the model cannot count, from an unquoted expansion of unknown text: any number of unknown words. */
const unknownWords = Symbol('unknown words');
type Value = string | typeof unknown | typeof unknownNonEmpty | typeof unknownNonZero | typeof unknownWords;

type Flow = 'normal' | 'exit' | 'return' | 'break' | 'continue';
type Sink = 'capture' | 'discard';
/** What `read` reads: known lines, nothing, or anything. */
type Input = { readonly lines: readonly string[]; readonly next: number } | 'unknown';

/**
 * The commands that may have supplied a state's status: one, or the union of two sets when states that
 * differ in nothing else are merged. Merging is what keeps `a || a || …` linear: a set is a tree, built
 * in constant time and read once at the end.
 */
type Suppliers = Span | { readonly left: Suppliers; readonly right: Suppliers };

interface State {
  readonly status: Status;
  readonly supplier: Suppliers | undefined;
  /** The status and suppliers of a loop's last body run, kept while its condition runs (innermost last). */
  readonly loopEndings: readonly { readonly status: Status; readonly supplier: Suppliers | undefined }[];
  readonly vars: ReadonlyMap<string, Value>;
  readonly functions: ReadonlyMap<string, FunctionDefinition>;
  readonly flow: Flow;
  /** Loops a break or continue still has to leave. */
  readonly levels: number;
  readonly errexit: boolean;
  /** What the command substitution being run has printed so far. */
  readonly output: Value;
  readonly stdout: Sink;
  readonly stderr: Sink;
  readonly stdin: Input;
  readonly depth: number;
}

/** The /proc of each world: a root process, and the sandbox user's survivor or an entry that cannot be read. */
interface ProcEntry {
  readonly pid: string;
  /** Its status file, or undefined when it cannot be read. */
  readonly status?: string;
}

export function runOutcomes(tree: CommandList, user: SandboxUser | undefined): Outcomes {
  const uid = user?.uid !== undefined ? String(user.uid) : placeholderUid;
  const result = {} as Record<World, WorldOutcomes>;
  let followed = true;
  const scripts = new Map<Word, CommandList | undefined>();
  for (const world of worlds) {
    // One world that cannot be followed makes the answer "anything": the others need not be run.
    if (!followed) {
      result[world] = { complete: false, endings: [] };
      continue;
    }
    const machine = new Machine(world, user, uid, workBudget, scripts);
    try {
      result[world] = { complete: true, endings: machine.run(tree) };
    } catch (error) {
      if (!(error instanceof TooComplex)) throw error;
      result[world] = { complete: false, endings: [] };
      followed = false;
    }
  }
  return result;
}

/**
 * The sandbox user's uid in the model when the bundle does not give it: what `id -u` prints there. A
 * command that compares with a uid written into it cannot then be shown to watch the right user.
 */
const placeholderUid = '4000000007';

function procOf(world: World, uid: string): readonly ProcEntry[] {
  const root: ProcEntry = { pid: '1', status: 'Name:\tinit\nState:\tS (sleeping)\nUid:\t0\t0\t0\t0\n' };
  if (world === 'survivors')
    return [
      root,
      { pid: '4242', status: `Name:\tsleep\nState:\tS (sleeping)\nUid:\t${uid}\t${uid}\t${uid}\t${uid}\n` },
    ];
  if (world === 'observer-fails') return [root, { pid: '77' }];
  return [root];
}

class Machine {
  private spent = 0;
  private readonly proc: readonly ProcEntry[];

  constructor(
    private readonly world: World,
    private readonly user: SandboxUser | undefined,
    private readonly uid: string,
    private readonly budget: number,
    /** Shared by the worlds of one analysis. */
    private readonly scripts: Map<Word, CommandList | undefined>,
  ) {
    this.proc = procOf(world, uid);
  }

  run(tree: CommandList): Ending[] {
    const start: State = {
      status: 0,
      supplier: undefined,
      loopEndings: [],
      vars: new Map(),
      functions: new Map(),
      flow: 'normal',
      levels: 0,
      errexit: false,
      output: '',
      stdout: 'discard',
      stderr: 'discard',
      stdin: 'unknown',
      depth: 0,
    };
    const seen = new Set<string>();
    const visited = new Set<Suppliers>();
    const endings: Ending[] = [];
    const add = (status: Status, supplier: Span | undefined) => {
      const key = `${status}:${supplier?.start ?? ''}:${supplier?.end ?? ''}`;
      if (seen.has(key)) return;
      seen.add(key);
      endings.push(supplier ? { status, supplier: { start: supplier.start, end: supplier.end } } : { status });
    };
    for (const state of this.list(tree, [start], false)) {
      if (!state.supplier) add(state.status, undefined);
      // Iteratively: a long chain of merges is deeper than the stack.
      const pending: Suppliers[] = state.supplier ? [state.supplier] : [];
      while (pending.length > 0) {
        const suppliers = pending.pop()!;
        if (visited.has(suppliers)) continue;
        visited.add(suppliers);
        if ('left' in suppliers) pending.push(suppliers.left, suppliers.right);
        else add(state.status, suppliers);
      }
      visited.clear();
    }
    return endings;
  }

  /** Beyond the budget the analysis stops as beyond a bound (command-too-complex), like the parser's. */
  private charge(count = 1): void {
    this.spent += count;
    if (this.spent > this.budget)
      throw new ShellBoundExceeded(
        `more paths than the analysis follows (${this.budget.toLocaleString('en')} units of work in one world)`,
        0,
      );
  }

  // ---- lists and control flow --------------------------------------------------------------------

  /** `exempt`: errexit does not apply (a condition, a command of an and-or list but the last). */
  private list(list: CommandList, states: readonly State[], exempt: boolean): State[] {
    let current = [...states];
    for (const item of list.items) {
      const allRunning = current.every((state) => state.flow === 'normal');
      const running = allRunning ? current : current.filter((state) => state.flow === 'normal');
      const stopped = allRunning ? [] : current.filter((state) => state.flow !== 'normal');
      let after: State[];
      if (item.background) {
        // `a &`: it runs on its own; here the status is 0 and nothing it does is seen.
        after = running.map((state) => ({ ...state, status: 0, supplier: item.andOr }));
      } else after = this.andOr(item.andOr, running, exempt);
      current = merge([...stopped, ...after]);
    }
    return current;
  }

  private andOr(andOr: AndOr, states: readonly State[], exempt: boolean): State[] {
    const last = andOr.pipelines.length - 1;
    let current = this.pipeline(andOr.pipelines[0]!, states, exempt || last > 0);
    for (let index = 1; index <= last; index++) {
      const operator = andOr.operators[index - 1];
      const goesOn = (state: State) =>
        state.flow === 'normal' && (operator === '&&' ? state.status === 0 : state.status !== 0);
      const next = current.filter(goesOn);
      const skipped = current.filter((state) => !goesOn(state));
      current = merge([...skipped, ...this.pipeline(andOr.pipelines[index]!, next, exempt || index < last)]);
    }
    return current;
  }

  private pipeline(pipeline: Pipeline, states: readonly State[], exempt: boolean): State[] {
    const negated = pipeline.negation !== undefined;
    let ended: State[];
    if (pipeline.commands.length === 1) ended = this.command(pipeline.commands[0]!, states, exempt || negated);
    else {
      // Every stage runs in a subshell of its own (dash has no lastpipe); only the last one's status
      // counts, and it reads what the others print.
      const last = pipeline.commands.at(-1)!;
      ended = states.flatMap((state) =>
        this.subshell(state, (inner) => this.command(last, [{ ...inner, stdin: 'unknown' }], exempt || negated)),
      );
    }
    if (negated)
      ended = ended.map((state) =>
        state.flow === 'normal' ? { ...state, status: state.status === 0 ? 1 : 0 } : state,
      );
    return exempt ? ended : ended.flatMap((state) => this.errexit(state));
  }

  /** With `set -e`, a failure outside a condition may end the shell; both are followed, as shells differ. */
  private errexit(state: State): State[] {
    if (!state.errexit || state.flow !== 'normal' || state.status === 0) return [state];
    return [state, { ...state, flow: 'exit' }];
  }

  /** Runs `body` in a subshell of `state`: what it changes is lost, what it prints is kept, `exit` ends only it. */
  private subshell(state: State, body: (inner: State) => State[]): State[] {
    return body({ ...state, flow: 'normal', levels: 0 }).map((inner) => ({
      ...state,
      status: inner.status,
      supplier: inner.supplier,
      output: inner.output,
      stdin: inner.stdin,
    }));
  }

  private command(command: Command, states: readonly State[], exempt: boolean): State[] {
    this.charge(states.reduce((work, state) => work + 1 + state.vars.size + state.functions.size, 0));
    switch (command.kind) {
      case 'simple':
        return states.flatMap((state) => this.simple(command, state, exempt));
      case 'function':
        return states.map((state) => ({
          ...state,
          functions: new Map(state.functions).set(command.name, command),
          status: 0,
          supplier: command,
        }));
      case 'subshell':
        return this.redirected(command.redirections, states, (state) =>
          this.subshell(state, (inner) => this.list(command.body, [inner], exempt)),
        );
      case 'group':
        return this.redirected(command.redirections, states, (state) => this.list(command.body, [state], exempt));
      case 'if':
        return this.redirected(command.redirections, states, (state) => this.ifClause(command, state, exempt));
      case 'loop':
        return this.redirected(command.redirections, states, (state) =>
          command.keyword === 'for'
            ? this.forLoop(command, state, exempt)
            : this.conditionalLoop(command, state, exempt),
        );
      case 'case':
        return this.redirected(command.redirections, states, (state) => this.caseClause(command, state, exempt));
    }
  }

  private ifClause(command: Extract<Command, { kind: 'if' }>, state: State, exempt: boolean): State[] {
    let pending = [state];
    const done: State[] = [];
    for (const branch of command.branches) {
      const tested = this.list(branch.condition, pending, true);
      const stopped = tested.filter((candidate) => candidate.flow !== 'normal');
      const taken = tested.filter((candidate) => candidate.flow === 'normal' && candidate.status === 0);
      pending = tested.filter((candidate) => candidate.flow === 'normal' && candidate.status !== 0);
      done.push(...stopped, ...this.list(branch.body, taken, exempt));
    }
    if (command.elseBody) done.push(...this.list(command.elseBody, pending, exempt));
    // No branch taken: status 0.
    else done.push(...pending.map((candidate) => ({ ...candidate, status: 0, supplier: command })));
    return done;
  }

  private conditionalLoop(loop: Loop, state: State, exempt: boolean): State[] {
    const runsWhile = loop.keyword === 'while';
    // The condition sets $?, but the loop ends with the status of the last body run: keep it aside.
    return this.loop(
      loop,
      state,
      (round, first) => {
        // Before the first body run the loop's own status would be 0; $? still holds the status before it.
        const kept = round.map((candidate) => ({
          ...candidate,
          loopEndings: [
            ...candidate.loopEndings,
            first ? { status: 0, supplier: loop } : { status: candidate.status, supplier: candidate.supplier },
          ],
        }));
        const tested = this.list(loop.condition!, kept, true).map((candidate) => ({
          candidate,
          ending: candidate.loopEndings.at(-1)!,
          loopEndings: candidate.loopEndings.slice(0, -1),
        }));
        const finished = tested.filter(
          ({ candidate }) => candidate.flow === 'normal' && (candidate.status === 0) !== runsWhile,
        );
        const restored = (entries: typeof tested) =>
          entries.map(({ candidate, loopEndings }) => ({ ...candidate, loopEndings }));
        return {
          stopped: restored(tested.filter(({ candidate }) => candidate.flow !== 'normal')),
          again: restored(
            tested.filter(({ candidate }) => candidate.flow === 'normal' && (candidate.status === 0) === runsWhile),
          ),
          finished: finished.map(({ candidate, ending, loopEndings }) => ({
            ...candidate,
            loopEndings,
            status: ending.status,
            supplier: ending.supplier,
          })),
        };
      },
      exempt,
    );
  }

  /**
   * Rounds of a loop until no state is new at its head. `head` splits the states at the head into those
   * that run the body again, those that leave, and those a condition ended. A loop's status is its last
   * body status, or 0 when the body never ran.
   */
  private loop(
    loop: Loop,
    state: State,
    head: (round: State[], first: boolean) => { stopped: State[]; again: State[]; finished: State[] },
    exempt: boolean,
  ): State[] {
    const ended: State[] = [];
    const seen = new Set<string>();
    let round: State[] = [state];
    for (let index = 0; round.length > 0; index++) {
      if (index > loopRounds) throw new TooComplex();
      const fresh = round.filter((candidate) => {
        const key = keyOf(candidate);
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
      const { stopped, again, finished } = head(fresh, index === 0);
      ended.push(...stopped, ...finished);
      round = [];
      for (const after of this.list(loop.body, again, exempt)) {
        if (after.flow === 'break')
          ended.push(
            after.levels > 1
              ? { ...after, levels: after.levels - 1 }
              : { ...after, flow: 'normal', levels: 0, status: 0 },
          );
        else if (after.flow === 'continue' && after.levels > 1)
          ended.push({ ...after, levels: after.levels - 1, flow: 'break' });
        else if (after.flow === 'continue' || after.flow === 'normal')
          round.push({ ...after, flow: 'normal', levels: 0 });
        else ended.push(after);
      }
    }
    return ended;
  }

  private forLoop(loop: Loop, state: State, exempt: boolean): State[] {
    const variable = loop.variable!;
    return this.expandFields(loop.items, state).flatMap(({ state: expanded, fields }) => {
      if (fields.includes(unknownWords) || loop.overParameters) {
        // An unknown list: any number of unknown items.
        return this.loop(
          loop,
          expanded,
          (round, first) => ({
            stopped: [],
            again: round.map((candidate) => withVar(candidate, variable, unknown)),
            finished: first ? round.map((candidate) => ({ ...candidate, status: 0, supplier: loop })) : round,
          }),
          exempt,
        );
      }
      // The body first sees $? as it was before the loop; a loop with no items ends with 0.
      if (fields.length === 0) return [{ ...expanded, status: 0, supplier: loop }];
      let current: State[] = [expanded];
      const ended: State[] = [];
      for (const field of fields) {
        const next: State[] = [];
        for (const after of this.list(
          loop.body,
          current.map((candidate) => withVar(candidate, variable, field)),
          exempt,
        )) {
          if (after.flow === 'break')
            ended.push(
              after.levels > 1
                ? { ...after, levels: after.levels - 1 }
                : { ...after, flow: 'normal', levels: 0, status: 0 },
            );
          else if (after.flow === 'continue' && after.levels > 1)
            ended.push({ ...after, levels: after.levels - 1, flow: 'break' });
          else if (after.flow === 'continue' || after.flow === 'normal')
            next.push({ ...after, flow: 'normal', levels: 0 });
          else ended.push(after);
        }
        current = merge(next);
      }
      return [...ended, ...current];
    });
  }

  private caseClause(command: Extract<Command, { kind: 'case' }>, state: State, exempt: boolean): State[] {
    return this.substitutions(command.subject, state).flatMap(({ state: expanded }) => {
      const value = this.literalValue(command.subject, expanded);
      let pending = [expanded];
      const done: State[] = [];
      for (const arm of command.arms) {
        const matched: State[] = [];
        const unmatched: State[] = [];
        for (const candidate of pending) {
          const verdicts = new Set(arm.patterns.map((pattern) => matchesPattern(value, pattern)));
          if (verdicts.has(true)) matched.push(candidate);
          else if (verdicts.has(undefined)) {
            matched.push(candidate);
            unmatched.push(candidate);
          } else unmatched.push(candidate);
        }
        // The arm sees $? as it was before `case`; an empty arm ends with 0.
        done.push(
          ...(arm.body.items.length === 0
            ? matched.map((candidate) => ({ ...candidate, status: 0, supplier: command }))
            : this.list(arm.body, matched, exempt)),
        );
        pending = unmatched;
      }
      return [...done, ...pending.map((candidate) => ({ ...candidate, status: 0, supplier: command as Span }))];
    });
  }

  // ---- redirections --------------------------------------------------------------------------------

  private redirected(
    redirections: readonly Redirection[],
    states: readonly State[],
    body: (state: State) => State[],
  ): State[] {
    if (redirections.length === 0) return states.flatMap(body);
    return states.flatMap((state) => {
      const applied = this.applyRedirections(redirections, state);
      if (applied === 'failed') return [{ ...state, status: 'nonzero' as Status, supplier: redirections[0] }];
      // The redirections last only for this command.
      return body(applied).map((after) => ({
        ...after,
        stdout: state.stdout,
        stderr: state.stderr,
        stdin: state.stdin,
      }));
    });
  }

  private applyRedirections(redirections: readonly Redirection[], state: State): State | 'failed' {
    let { stdout, stderr, stdin } = state;
    for (const redirection of redirections) {
      const target = redirection.target ? this.literalValue(redirection.target, state) : unknown;
      const descriptor = redirection.descriptor ?? (redirection.operator.startsWith('<') ? 0 : 1);
      switch (redirection.operator) {
        case '>&':
        case '<&': {
          const from = target === '1' ? stdout : target === '2' ? stderr : 'discard';
          if (descriptor === 1) stdout = from;
          else if (descriptor === 2) stderr = from;
          break;
        }
        case '<':
        case '<>': {
          if (descriptor !== 0) break;
          const file = typeof target === 'string' ? this.readFile(target) : 'unknown';
          if (file === 'missing') return 'failed';
          stdin = file === 'unknown' ? 'unknown' : { lines: linesOf(file), next: 0 };
          break;
        }
        case '<<':
        case '<<-':
          if (descriptor === 0) stdin = 'unknown';
          break;
        default:
          // Writing to a file: what is written is not captured.
          if (descriptor === 1) stdout = 'discard';
          else if (descriptor === 2) stderr = 'discard';
      }
    }
    return { ...state, stdout, stderr, stdin };
  }

  /** A file's text in the model: /proc entries of the world; anything else is unknown. */
  private readFile(path: string): string | 'missing' | 'unknown' {
    const match = /^\/proc\/([^/]+)\/status$/.exec(path);
    if (!match) return 'unknown';
    if (match[1] === 'self') return 'Name:\tsh\nState:\tR (running)\nUid:\t0\t0\t0\t0\n';
    const entry = this.proc.find((candidate) => candidate.pid === match[1]);
    return entry?.status ?? 'missing';
  }

  private isDirectory(path: string): boolean | undefined {
    const match = /^\/proc\/([^/]+)\/?$/.exec(path);
    if (!match) return path === '/proc' ? true : undefined;
    return match[1] === 'self' || this.proc.some((entry) => entry.pid === match[1]);
  }

  // ---- simple commands ---------------------------------------------------------------------------

  private simple(command: SimpleCommand, state: State, exempt: boolean): State[] {
    return this.expandCommand(command, state).flatMap(({ state: expanded, words, substitutionStatus }) => {
      const redirected = command.redirections.length > 0;
      const applied = redirected ? this.applyRedirections(command.redirections, expanded) : expanded;
      if (applied === 'failed') return [{ ...expanded, status: 'nonzero' as Status, supplier: command }];
      const readsFile = command.redirections.some((redirection) => redirection.operator.startsWith('<'));
      const restore = (after: State): State =>
        redirected
          ? {
              ...after,
              stdout: expanded.stdout,
              stderr: expanded.stderr,
              stdin: readsFile ? expanded.stdin : after.stdin,
            }
          : after;
      if (words.length === 0) {
        // Only assignments: the status is that of the last substitution, else 0.
        let assigned = applied;
        for (const word of command.assignments) {
          const equals = word.text.indexOf('=');
          assigned = withVar(assigned, word.text.slice(0, equals), this.assignedValue(word, expanded, equals));
        }
        return [restore({ ...assigned, status: substitutionStatus ?? 0, supplier: command })];
      }
      return this.invoke(command, words, applied, exempt).map(restore);
    });
  }

  /** Runs a command whose words are expanded; `words[0]` is its name. */
  private invoke(command: SimpleCommand, words: readonly Value[], state: State, exempt: boolean): State[] {
    const name = words[0];
    const ends = (status: Status, output?: Value, changes: Partial<State> = {}): State => ({
      ...this.print(state, output),
      ...changes,
      status,
      supplier: command,
    });
    if (typeof name !== 'string') return this.unknownCommand(command, state);
    // A test with arguments the model cannot count could be any test.
    if ((name === '[' || name === 'test') && words.includes(unknownWords)) return [ends(0), ends(1), ends(2)];
    const args = words.slice(1);
    const called = state.functions.get(name);
    if (called) return this.call(called, command, state, exempt);
    const { name: resolved, args: resolvedArgs } = resolve(command);
    switch (name) {
      case ':':
      case 'true':
        return [ends(0)];
      case 'false':
        return [ends(1)];
      case 'exit':
      case 'return': {
        const flow: Flow = name === 'return' && state.depth === 0 ? 'exit' : name;
        const value = args[0];
        if (value === undefined) return [{ ...state, flow, supplier: state.supplier }];
        return statusesOf(value).map((status) => ({ ...state, flow, status, supplier: command }));
      }
      case 'break':
      case 'continue': {
        const levels =
          args[0] === undefined
            ? 1
            : typeof args[0] === 'string' && /^[1-9]\d*$/.test(args[0])
              ? Number(args[0])
              : undefined;
        if (levels === undefined) throw new TooComplex();
        return [{ ...state, flow: name, levels, status: 0, supplier: command }];
      }
      case 'set': {
        let errexit = state.errexit;
        for (const arg of args) {
          if (typeof arg !== 'string') throw new TooComplex();
          if (/^-[a-z]*e/.test(arg)) errexit = true;
          if (/^\+[a-z]*e/.test(arg)) errexit = false;
        }
        if (args.includes('errexit')) errexit = args[args.indexOf('errexit') - 1] === '-o';
        return [ends(0, undefined, { errexit })];
      }
      case 'echo':
        return [ends(0, joinFields(args.filter((arg) => arg !== '-n' && arg !== '-e')))];
      case 'printf':
        return [
          ends(
            0,
            args.length > 1
              ? unknown
              : typeof args[0] === 'string' && !args[0].includes('%') && !args[0].includes('\\')
                ? args[0]
                : unknown,
          ),
        ];
      case '[':
      case 'test':
        return this.test(name === '[' ? args.slice(0, -1) : args, state).map((status) => ends(status));
      case 'read':
        return this.read(args, state).map((after) => ({ ...after, supplier: command }));
      case 'local':
      case 'export':
      case 'readonly': {
        let assigned = state;
        for (const arg of args) {
          if (typeof arg !== 'string') continue;
          const equals = arg.indexOf('=');
          if (equals > 0) assigned = withVar(assigned, arg.slice(0, equals), arg.slice(equals + 1));
          else if (name === 'local') assigned = withVar(assigned, arg, unknown);
        }
        return [{ ...assigned, status: 0, supplier: command }];
      }
      case 'unset': {
        let assigned = state;
        for (const arg of args) if (typeof arg === 'string') assigned = withVar(assigned, arg, '');
        return [{ ...assigned, status: 0, supplier: command }];
      }
      case 'sleep':
      case 'wait':
      case 'cd':
      case 'umask':
      case 'shift':
        return [ends(0), ends('nonzero')];
      case 'eval':
      case '.':
      case 'source':
      case 'trap':
      case 'exec':
        // They run text the model cannot follow, or change how the script ends.
        throw new TooComplex();
    }
    const program = resolved ?? basename(name);
    if (program === 'pgrep' && selectsSandboxUser(resolvedArgs, this.user))
      return this.observe(state, command, 'pgrep');
    if (program === 'ps' && selectsSandboxUser(resolvedArgs, this.user)) return this.observe(state, command, 'ps');
    if (
      program === 'id' &&
      args.length === 2 &&
      args[0] === '-u' &&
      typeof args[1] === 'string' &&
      namesSandboxUser(args[1], this.user) &&
      !args[1].includes('$')
    )
      return [ends(0, this.uid)];
    if (program === 'cat' && args.length === 1 && typeof args[0] === 'string') {
      const file = this.readFile(args[0]);
      if (file === 'missing') return [ends(1)];
      if (file !== 'unknown') return [ends(0, file.replace(/\n+$/, ''))];
    }
    const script = nestedScript(command);
    if (script) return this.nested(script, command, state);
    return this.unknownCommand(command, state);
  }

  /** pgrep or ps selecting the sandbox user, as it answers in this world. */
  private observe(state: State, command: SimpleCommand, program: 'pgrep' | 'ps'): State[] {
    const header = '  PID TTY          TIME CMD';
    const ends = (status: Status, output: Value, error?: Value): State => ({
      ...this.print(this.print(state, output), error, 'stderr'),
      status,
      supplier: command,
    });
    switch (this.world) {
      case 'quiescent':
        return [program === 'pgrep' ? ends(1, '') : ends(1, header)];
      case 'survivors':
        return [program === 'pgrep' ? ends(0, '4242') : ends(0, `${header}\n 4242 ?        00:00:00 sleep`)];
      case 'observer-fails': {
        // pgrep exits 2 (bad usage, unknown user) or 3 (fatal); ps exits 1 for both.
        const error = `${program}: cannot read the process table`;
        return program === 'pgrep' ? [ends(2, '', error), ends(3, '', error)] : [ends(1, '', error)];
      }
    }
  }

  /** A command the model does not know: it may succeed or fail, print anything and read its input. */
  private unknownCommand(command: SimpleCommand, state: State): State[] {
    const printed = {
      ...this.print(this.print(state, unknown), unknown, 'stderr'),
      stdin: 'unknown' as Input,
      supplier: command,
    };
    return [
      { ...printed, status: 0 },
      { ...printed, status: 'nonzero' },
    ];
  }

  private call(definition: FunctionDefinition, command: SimpleCommand, state: State, exempt: boolean): State[] {
    if (state.depth >= callDepth) throw new TooComplex();
    const inner = { ...state, depth: state.depth + 1 };
    return this.command(definition.body, [inner], exempt).map((after) => {
      const returned = after.flow === 'return' || after.flow === 'normal';
      return {
        ...after,
        depth: state.depth,
        flow: returned ? ('normal' as Flow) : after.flow,
        supplier: after.supplier ?? command,
      };
    });
  }

  /** `sh -c 'script'`: the script runs in a shell of its own, which sees none of this one's variables. */
  private nested(
    script: { readonly word: Word; readonly base: number | undefined },
    command: SimpleCommand,
    state: State,
  ): State[] {
    const tree = this.scriptTree(script);
    if (tree === undefined) return [{ ...state, status: 2, supplier: command }];
    const fresh: State = {
      ...state,
      vars: new Map(),
      functions: new Map(),
      flow: 'normal',
      levels: 0,
      errexit: false,
      depth: 0,
    };
    return this.list(tree, [fresh], false).map((after) => ({
      ...state,
      output: after.output,
      status: after.status,
      supplier: script.base === undefined ? command : (after.supplier ?? command),
    }));
  }

  /** A nested script's tree, parsed once for all worlds and paths; undefined when the shell could not read it. */
  private scriptTree(script: { readonly word: Word; readonly base: number | undefined }): CommandList | undefined {
    if (!this.scripts.has(script.word)) {
      try {
        this.scripts.set(script.word, parseShell(script.word.text, script.base ?? 0));
      } catch (error) {
        if (!(error instanceof ShellSyntaxError)) throw error;
        this.scripts.set(script.word, undefined);
      }
    }
    return this.scripts.get(script.word);
  }

  private read(args: readonly Value[], state: State): State[] {
    const names = args.filter((arg): arg is string => typeof arg === 'string' && !arg.startsWith('-'));
    const assign = (target: State, fields: readonly Value[]): State =>
      names.reduce((assigned, name, index) => withVar(assigned, name, fields[index] ?? ''), target);
    const input = state.stdin;
    if (input === 'unknown') {
      const unknownFields: Value[] = names.map(() => unknown);
      return [
        { ...assign(state, unknownFields), status: 0 },
        { ...assign(state, unknownFields), status: 'nonzero' },
      ];
    }
    const line = input.lines[input.next];
    if (line === undefined) return [{ ...assign(state, []), status: 1 }];
    const words = line.split(/[ \t]+/).filter((word) => word !== '');
    // The last name takes the rest of the line.
    const fields = names.map((_, index) =>
      index === names.length - 1 ? words.slice(index).join(' ') : (words[index] ?? ''),
    );
    return [{ ...assign(state, fields), status: 0, stdin: { lines: input.lines, next: input.next + 1 } }];
  }

  private print(state: State, output: Value | undefined, stream: 'stdout' | 'stderr' = 'stdout'): State {
    if (output === undefined || output === '' || state[stream] !== 'capture') return state;
    return { ...state, output: concatenate(state.output, output) };
  }

  // ---- tests -------------------------------------------------------------------------------------

  private test(args: readonly Value[], state: State): Status[] {
    const both: Status[] = [0, 1];
    const truth = (value: boolean | undefined): Status[] => (value === undefined ? both : [value ? 0 : 1]);
    if (args.length === 0) return [1];
    if (args[0] === '!' && args.length > 1)
      return this.test(args.slice(1), state).map((status) => (status === 0 ? 1 : status === 1 ? 0 : status));
    if (args.length === 1) return truth(nonEmpty(args[0]!));
    if (args.length === 2) {
      const [operator, operand] = args as [Value, Value];
      if (operator === '-n') return truth(nonEmpty(operand));
      if (operator === '-z') return truth(negate(nonEmpty(operand)));
      if (operator === '-d' || operator === '-e')
        return truth(
          typeof operand === 'string'
            ? (this.isDirectory(operand) ??
                (this.readFile(operand) === 'unknown' ? undefined : this.readFile(operand) !== 'missing'))
            : undefined,
        );
      if (operator === '-r' || operator === '-f' || operator === '-s') {
        const file = typeof operand === 'string' ? this.readFile(operand) : 'unknown';
        return truth(file === 'unknown' ? undefined : file !== 'missing');
      }
      return [0, 1, 2];
    }
    if (args.length === 3) {
      const [left, operator, right] = args as [Value, Value, Value];
      if (operator === '=' || operator === '!=') {
        const equal = sameText(left, right);
        return truth(operator === '=' ? equal : negate(equal));
      }
      if (typeof operator === 'string' && /^-(eq|ne|lt|le|gt|ge)$/.test(operator))
        return compareNumbers(left, operator, right);
    }
    return [0, 1, 2];
  }

  // ---- words -------------------------------------------------------------------------------------

  /** Expands every word of a command; substitutions run first and may branch. */
  private expandCommand(
    command: SimpleCommand,
    state: State,
  ): { state: State; words: Value[]; substitutionStatus: Status | undefined }[] {
    let alternatives: { state: State; substitutionStatus: Status | undefined }[] = [
      { state, substitutionStatus: undefined },
    ];
    for (const word of command.assignments) {
      // An assignment's value is expanded now; its substitutions' status is the command's.
      alternatives = alternatives.flatMap((alternative) =>
        this.substitutions(word, alternative.state).map(({ state: after, status }) => ({
          state: after,
          substitutionStatus: status ?? alternative.substitutionStatus,
        })),
      );
    }
    const expanded = alternatives.flatMap((alternative) =>
      this.expandFields(command.words, alternative.state).map(({ state: after, fields }) => ({
        state: after,
        words: fields,
        substitutionStatus: alternative.substitutionStatus,
      })),
    );
    this.charge(expanded.length);
    return expanded;
  }

  /** Runs the command substitutions of a word, in order, keeping what each printed in the state's vars. */
  private substitutions(word: Word, state: State): { state: State; status: Status | undefined }[] {
    let alternatives: { state: State; status: Status | undefined }[] = [{ state, status: undefined }];
    for (const part of word.parts) {
      if (part.kind !== 'command') continue;
      alternatives = alternatives.flatMap((alternative) =>
        this.substitute(part.list, alternative.state).map(({ state: after, output }) => ({
          state: withCaptured(after, part.list, output),
          status: after.status,
        })),
      );
    }
    return alternatives;
  }

  /** The states after running a substitution, each with what it printed. */
  private substitute(list: CommandList, state: State): { state: State; output: Value }[] {
    const inner: State = {
      ...state,
      flow: 'normal',
      levels: 0,
      output: '',
      stdout: 'capture',
      stderr: state.stderr === 'capture' ? 'capture' : 'discard',
      stdin: 'unknown',
    };
    return this.list(list, [inner], false).map((after) => ({
      state: { ...state, status: after.status, supplier: after.supplier },
      output: trimNewlines(after.output),
    }));
  }

  private assignedValue(word: Word, state: State, equals: number): Value {
    return this.valueOf(word, state, equals + 1);
  }

  /** A word's value as one field (quoted or assigned), or unknown. */
  private literalValue(word: Word, state: State): Value {
    return this.valueOf(word, state, 0);
  }

  /**
   * The value of a word from character `from` of its text on, once its substitutions have run (their
   * output is kept in the state under their list). Parameters are read from the state.
   */
  private valueOf(word: Word, state: State, from: number): Value {
    let value: Value = '';
    let consumed = 0;
    for (const part of word.parts) {
      let piece: Value;
      let length: number;
      switch (part.kind) {
        case 'literal':
          piece = part.text;
          length = part.text.length;
          break;
        case 'parameter':
          piece = this.parameter(part.name, part.operator, state);
          length = from > consumed ? Infinity : 0;
          break;
        case 'command':
          piece = capturedOf(state, part.list);
          length = from > consumed ? Infinity : 0;
          break;
        case 'arithmetic':
          piece = this.arithmetic(part.text, state);
          length = from > consumed ? Infinity : 0;
          break;
      }
      if (from > consumed) {
        // Still inside the assignment's name: only literal text can be there.
        if (length === Infinity) return unknown;
        const skip = Math.min(from - consumed, length);
        consumed += skip;
        if (typeof piece === 'string') piece = piece.slice(skip);
        if (skip === length) continue;
      }
      value = concatenateText(value, piece);
    }
    return value;
  }

  /**
   * Expands words into fields: unquoted expansions split on blanks, /proc globs list the world's
   * entries, and words the model cannot count become `unknownWords`. The fields are appended in place:
   * copying them at every word would make a long command quadratic.
   */
  private expandFields(words: readonly Word[], state: State): { state: State; fields: Value[] }[] {
    let alternatives: { state: State; fields: Value[] }[] = [{ state, fields: [] }];
    for (const word of words) {
      const next: { state: State; fields: Value[] }[] = [];
      for (const alternative of alternatives) {
        const substituted =
          word.substitutions.length === 0
            ? [{ state: alternative.state }]
            : this.substitutions(word, alternative.state);
        substituted.forEach(({ state: after }, index) => {
          // The last branch keeps the array; the others copy it.
          const fields = index === substituted.length - 1 ? alternative.fields : [...alternative.fields];
          append(fields, this.fieldsOf(word, after) ?? [unknownWords]);
          next.push({ state: after, fields });
        });
      }
      alternatives = next;
    }
    return alternatives;
  }

  private fieldsOf(word: Word, state: State): Value[] | undefined {
    const unquotedExpansion = word.parts.some(
      (part) => (part.kind === 'parameter' || part.kind === 'command') && !part.quoted,
    );
    const glob = word.parts.some((part) => part.kind === 'literal' && !part.quoted && /[*?]|\[.*\]/.test(part.text));
    const value = this.literalValue(word, state);
    if (glob) {
      if (typeof value !== 'string' || unquotedExpansion) return undefined;
      const proc = /^\/proc\/(\[0-9\]\*|\*|\[1-9\]\*|\[0-9\]\[0-9\]\*)$/.exec(value);
      if (proc) return [...this.proc.map((entry) => `/proc/${entry.pid}`), ...(proc[1] === '*' ? ['/proc/self'] : [])];
      return undefined;
    }
    if (!unquotedExpansion) return [value];
    if (typeof value !== 'string') return undefined;
    return value.split(/[ \t\n]+/).filter((field) => field !== '');
  }

  private parameter(name: string, operator: string | undefined, state: State): Value {
    const value: Value =
      name === '?'
        ? state.status === 'nonzero'
          ? unknownNonZero
          : String(state.status)
        : /^[A-Za-z_]\w*$/.test(name)
          ? (state.vars.get(name) ?? unknown)
          : unknown;
    if (operator === undefined) return value;
    const removal = /^(##?|%%?)(.*)$/.exec(operator);
    if (removal && typeof value === 'string' && !/[$`"'\\]/.test(removal[2]!))
      return removeAffix(value, removal[1]!, removal[2]!);
    const fallback = /^(:?)([-=+?])(.*)$/.exec(operator);
    if (fallback && !/[$`"'\\]/.test(fallback[3]!)) {
      const set = fallback[1] === ':' ? nonEmpty(value) : value === unknown ? undefined : true;
      if (set === undefined) return unknown;
      if (fallback[2] === '+') return set ? fallback[3]! : '';
      if (fallback[2] === '?') return set ? value : unknown;
      return set ? value : fallback[3]!;
    }
    return unknown;
  }

  private arithmetic(text: string, state: State): Value {
    const expression = text.trim();
    const term = (token: string): number | undefined => {
      if (/^\d+$/.test(token)) return Number(token);
      const name = /^\$?\{?([A-Za-z_]\w*)\}?$/.exec(token)?.[1];
      const value = name === undefined ? undefined : state.vars.get(name);
      return typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : undefined;
    };
    const sum = /^(\S+?)\s*([+-])\s*(\S+)$/.exec(expression);
    if (sum) {
      const left = term(sum[1]!);
      const right = term(sum[3]!);
      if (left === undefined || right === undefined) return unknown;
      return String(sum[2] === '+' ? left + right : left - right);
    }
    const single = term(expression);
    return single === undefined ? unknown : String(single);
  }
}

// ---- values ----------------------------------------------------------------------------------------

function withVar(state: State, name: string, value: Value): State {
  return { ...state, vars: new Map(state.vars).set(name, value) };
}

const capturedKey = (list: CommandList) => `\u0000$(${list.start}:${list.end}`;

function withCaptured(state: State, list: CommandList, output: Value): State {
  return withVar(state, capturedKey(list), output);
}

function capturedOf(state: State, list: CommandList): Value {
  return state.vars.get(capturedKey(list)) ?? unknown;
}

function nonEmpty(value: Value): boolean | undefined {
  if (typeof value === 'string') return value !== '';
  return value === unknownNonEmpty || value === unknownNonZero ? true : undefined;
}

function negate(value: boolean | undefined): boolean | undefined {
  return value === undefined ? undefined : !value;
}

function sameText(left: Value, right: Value): boolean | undefined {
  if (typeof left === 'string' && typeof right === 'string') return left === right;
  if (left === '' || right === '') return negate(nonEmpty(typeof left === 'string' ? right : left));
  if (left === unknownNonZero && right === '0') return false;
  if (right === unknownNonZero && left === '0') return false;
  return undefined;
}

/** A number's possible range: a known one, a non-zero status (1 to 255), or unknown. */
function rangeOf(value: Value): [number, number] | undefined | 'invalid' {
  if (value === unknownNonZero) return [1, 255];
  if (typeof value !== 'string') return undefined;
  if (!/^\s*-?\d+\s*$/.test(value)) return 'invalid';
  const number = Number(value);
  return [number, number];
}

function compareNumbers(left: Value, operator: string, right: Value): Status[] {
  const a = rangeOf(left);
  const b = rangeOf(right);
  if (a === 'invalid' || b === 'invalid') return [2];
  if (a === undefined || b === undefined) return [0, 1, 2];
  const holds = (x: number, y: number): boolean => {
    switch (operator) {
      case '-eq':
        return x === y;
      case '-ne':
        return x !== y;
      case '-lt':
        return x < y;
      case '-le':
        return x <= y;
      case '-gt':
        return x > y;
      default:
        return x >= y;
    }
  };
  const outcomes = new Set<Status>();
  // Ranges are small (at most 1..255) or single numbers: try every pair at the ends and inside.
  for (let x = a[0]; x <= a[1]; x++) for (let y = b[0]; y <= b[1]; y++) outcomes.add(holds(x, y) ? 0 : 1);
  return [...outcomes];
}

function statusesOf(value: Value): Status[] {
  if (value === unknownNonZero) return ['nonzero'];
  if (typeof value === 'string' && /^\d+$/.test(value)) return [Number(value) % 256];
  return [0, 'nonzero'];
}

function concatenateText(left: Value, right: Value): Value {
  if (typeof left === 'string' && typeof right === 'string') return left + right;
  if (left === '') return right === unknownNonZero ? unknownNonEmpty : right;
  if (right === '') return left === unknownNonZero ? unknownNonEmpty : left;
  return nonEmpty(left) || nonEmpty(right) ? unknownNonEmpty : unknown;
}

/** What a substitution captures after two writes: each write ends with a newline. */
function concatenate(previous: Value, output: Value): Value {
  if (previous === '') return typeof output === 'string' ? `${output}\n` : output;
  return concatenateText(concatenateText(previous, typeof output === 'string' ? output : output), '\n');
}

function trimNewlines(value: Value): Value {
  return typeof value === 'string' ? value.replace(/\n+$/, '') : value;
}

function joinFields(fields: readonly Value[]): Value {
  return fields.reduce<Value>(
    (joined, field, index) => concatenateText(index === 0 ? joined : concatenateText(joined, ' '), field),
    '',
  );
}

function linesOf(text: string): string[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

function removeAffix(value: string, operator: string, pattern: string): string {
  const matcher = globRegExp(pattern);
  if (operator.startsWith('#')) {
    const lengths = [...Array(value.length + 1).keys()];
    const order = operator === '##' ? lengths.reverse() : lengths;
    for (const length of order) if (matcher.test(value.slice(0, length))) return value.slice(length);
    return value;
  }
  const starts = [...Array(value.length + 1).keys()];
  const order = operator === '%%' ? starts : starts.reverse();
  for (const start of order) if (matcher.test(value.slice(start))) return value.slice(0, start);
  return value;
}

function globRegExp(pattern: string): RegExp {
  let source = '';
  for (let index = 0; index < pattern.length; index++) {
    const character = pattern[index]!;
    if (character === '*') source += '[\\s\\S]*';
    else if (character === '?') source += '[\\s\\S]';
    else if (character === '[') {
      const close = pattern.indexOf(']', index + 2);
      if (close === -1) source += '\\[';
      else {
        const body = pattern
          .slice(index + 1, close)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\');
        source += `[${body}]`;
        index = close;
      }
    } else source += character.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/** Whether a case pattern matches a value: known, or undefined when the value (or pattern) is unknown. */
function matchesPattern(value: Value, pattern: Word): boolean | undefined {
  if (pattern.parts.some((part) => part.kind !== 'literal')) return undefined;
  const source = pattern.parts
    .map((part) => (part.kind === 'literal' ? (part.quoted ? part.text.replace(/[*?[\]\\]/g, '\\$&') : part.text) : ''))
    .join('');
  if (typeof value !== 'string') {
    if (/^\*+$/.test(source)) return true;
    if (value === unknownNonZero && /^\d+$/.test(source)) return source === '0' ? false : undefined;
    if ((value === unknownNonEmpty || value === unknownNonZero) && source === '') return false;
    return undefined;
  }
  return globRegExp(
    source.replace(/\\(.)/g, (_, character: string) => `[${character === ']' ? '\\]' : character}]`),
  ).test(value);
}

function keyOf(state: State): string {
  const vars = [...state.vars]
    .map(([name, value]) => `${name}=${typeof value === 'string' ? JSON.stringify(value) : String(value.description)}`)
    .join(',');
  const functions = [...state.functions].map(([name, definition]) => `${name}@${definition.start}`).join(',');
  const stdin =
    state.stdin === 'unknown'
      ? '?'
      : `${state.stdin.next}/${state.stdin.lines.length}:${state.stdin.lines.join('\u0001')}`;
  const output = typeof state.output === 'string' ? JSON.stringify(state.output) : String(state.output.description);
  const loops = state.loopEndings.map((ending) => ending.status).join(',');
  return `${state.status}|${loops}|${state.flow}${state.levels}|${state.errexit}|${state.stdout}${state.stderr}|${state.depth}|${output}|${stdin}|${vars}|${functions}`;
}

/** States that differ only in what supplied their status become one, with both sets of suppliers. */
function merge(states: readonly State[]): State[] {
  if (states.length < 2) return [...states];
  const byKey = new Map<string, State>();
  for (const state of states) {
    const key = keyOf(state);
    const kept = byKey.get(key);
    if (!kept) byKey.set(key, state);
    else if (kept.supplier !== state.supplier) {
      byKey.set(key, {
        ...kept,
        supplier:
          kept.supplier && state.supplier
            ? { left: kept.supplier, right: state.supplier }
            : (kept.supplier ?? state.supplier),
        loopEndings: mergeLoopEndings(kept, state),
      });
    }
  }
  return [...byKey.values()];
}

function mergeLoopEndings(a: State, b: State): State['loopEndings'] {
  return a.loopEndings.map((ending, index) => {
    const other = b.loopEndings[index]!.supplier;
    return ending.supplier && other && ending.supplier !== other
      ? { status: ending.status, supplier: { left: ending.supplier, right: other } }
      : ending;
  });
}

/** The script of `sh -c 'script'`, and where it starts in the text when it maps exactly. */
function nestedScript(command: SimpleCommand): { word: Word; base: number | undefined } | undefined {
  const word = scriptArgument(command);
  if (!word || word.parts.some((part) => part.kind !== 'literal')) return undefined;
  const only = word.parts.length === 1 ? word.parts[0]! : undefined;
  return {
    word,
    base:
      only && only.kind === 'literal' && word.end - word.start === word.text.length + (only.quoted ? 2 : 0)
        ? word.start + (only.quoted ? 1 : 0)
        : undefined,
  };
}
