/**
 * What one shell command proves about the sandbox user's processes: the kill attempts and observations
 * it makes, in the order it makes them; whether it only prepares or cleans; and, when it observes,
 * what each exit status it can end with means, from a run of the command in three worlds (outcomes.ts).
 * A command that ends on `sleep 1` after its observation reports success whatever was observed: that
 * is the masking the evidence rules flag; one that also ends with 0 when the observer fails (`! pgrep`)
 * conflates a failure with quiet.
 */
import { parseShell } from './parse';
import {
  maximumFindingsPerCommand,
  ShellBoundExceeded,
  ShellSyntaxError,
  type CommandList,
  type Loop,
  type SimpleCommand,
  type Span,
  type Word,
} from './syntax';
import { basename, namesSandboxUser, resolve, scriptArgument, userSelectors } from './commands';
import type { SandboxUser } from './sandboxUser';
import { endsWith, runOutcomes, type Outcomes, type Status, type WorldOutcomes } from './outcomes';
import { append, runCommands, WalkBudget, type RunCommand } from './walk';

export interface CommandEvidence {
  /** Kill attempts and observations together, in run order. */
  readonly events: readonly { readonly kind: 'kill' | 'observation'; readonly span: Span }[];
  /**
   * Set when the text is not shell this analyser can read, or (`tooComplex`) is beyond one of its bounds
   * (syntax.ts); then nothing else is known.
   */
  readonly syntaxError?: { readonly message: string; readonly offset: number; readonly tooComplex?: true };
  /** Kill attempts against the sandbox user's processes, in run order. */
  readonly kills: readonly Span[];
  /** Observations listing the sandbox user's processes, in run order. */
  readonly observations: readonly Span[];
  /** Every command only prepares or cleans (mkdir, chmod, rm, …). */
  readonly setupOnly: boolean;
  /**
   * When the command observes: the commands that end it, with a status it also ends with when none of
   * the user's processes is left, while a survivor remains. Their status cannot carry the observation.
   */
  readonly masking: readonly Span[];
  /** Likewise, those that end it so while the observer itself fails (`! pgrep`: 0 for none, and for a failure). */
  readonly conflating: readonly Span[];
  /**
   * Masking and conflating commands beyond `maximumFindingsPerCommand`, not listed in the two above (the
   * first ones found are): a text of 12,000 `a &&` gives as many, and each would be a finding.
   */
  readonly findingsLeftOut: number;
  /** When the command observes: the statuses it can end with in each world. */
  readonly outcomes?: Outcomes;
}

type Kind = 'kill' | 'observation' | 'test' | 'setup' | 'other';

const setupCommands = new Set([
  'mkdir',
  'chmod',
  'chown',
  'chgrp',
  'rm',
  'rmdir',
  'touch',
  'true',
  ':',
  'cd',
  'umask',
  'export',
  'unset',
  'set',
  'ln',
]);
const procScan = /^\/proc\/(\*|\[[^\]]*\]\*?|\$)/;

export function analyseCommand(text: string, user: SandboxUser | undefined): CommandEvidence {
  try {
    // The walks can give up too, when function calls expand beyond what the text's size warrants.
    return new Analysis(text, user, new WalkBudget(text.length), 0).of(parseShell(text));
  } catch (error) {
    if (!(error instanceof ShellSyntaxError || error instanceof ShellBoundExceeded)) throw error;
    const syntaxError = {
      message: error.message,
      offset: error.offset,
      ...(error instanceof ShellBoundExceeded ? { tooComplex: true as const } : {}),
    };
    return {
      syntaxError,
      events: [],
      kills: [],
      observations: [],
      setupOnly: false,
      masking: [],
      conflating: [],
      findingsLeftOut: 0,
    };
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
    for (const run of runCommands(tree, this.budget)) {
      commands++;
      const inner = this.nestedScript(run.command);
      if (inner) {
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
    if (evidence.observations.length === 0 || this.depth > 0)
      return { ...evidence, masking: [], conflating: [], findingsLeftOut: 0 };
    let outcomes: Outcomes;
    try {
      outcomes = runOutcomes(tree, this.user);
    } catch (error) {
      // Beyond the run's budget: the kills and observations found stay known, what its status means does not.
      if (!(error instanceof ShellBoundExceeded)) throw error;
      return {
        ...evidence,
        masking: [],
        conflating: [],
        findingsLeftOut: 0,
        syntaxError: { message: error.message, offset: error.offset, tooComplex: true },
      };
    }
    const unfollowed = Object.values(outcomes).some((world) => !world.complete);
    // Failing closed: a command whose run cannot be followed proves nothing, and is reported as unreadable.
    if (unfollowed)
      return {
        ...evidence,
        masking: [],
        conflating: [],
        findingsLeftOut: 0,
        syntaxError: {
          message:
            'its exit status cannot be followed (eval, trap, `.`, exec, a loop or function call beyond what the analysis unrolls, or a computed break or set argument)',
          offset: 0,
        },
      };
    return { ...evidence, ...judged(outcomes) };
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
        return args.some((arg) => arg.substitutions.length > 0 || arg.text.startsWith('$'))
          ? 'test'
          : inProcLoop
            ? 'observation'
            : 'setup';
    }
    if (args.some((arg) => procScan.test(arg.text)) || inProcLoop) return 'observation';
    if (setupCommands.has(name)) return 'setup';
    if (name === 'wc' && args.some((arg) => /^-[clw]+$/.test(arg.text))) return 'setup';
    if (
      name === 'find' &&
      args.some(
        (arg, index) =>
          arg.text === '-delete' || (arg.text === '-exec' && basename(args[index + 1]?.text ?? '') === 'rm'),
      )
    )
      return 'setup';
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
    return namesSandboxUser(value, this.user);
  }

  /** `sh -c 'script'`, `su agent -c 'script'` and the like: the script is analysed as part of this command. */
  private nestedScript(command: SimpleCommand): CommandEvidence | undefined {
    const script = scriptArgument(command);
    if (!script) return undefined;
    const raw = this.source.slice(script.start, script.end);
    // Positions inside map back exactly only when the script is one plainly quoted word.
    const base =
      raw === `'${script.text}'` || raw === `"${script.text}"`
        ? script.start + 1
        : raw === script.text
          ? script.start
          : undefined;
    let tree: CommandList;
    try {
      tree = parseShell(script.text, base ?? 0, this.depth + 1);
    } catch (error) {
      // A script this analyser cannot read stays an ordinary command.
      if (error instanceof ShellSyntaxError) return undefined;
      throw error;
    }
    // Outside the try: a walk that gives up must end the whole analysis, not just this script's.
    const inner = new Analysis(
      base === undefined ? script.text : this.source,
      this.user,
      this.budget,
      this.depth + 1,
    ).of(tree);
    return base === undefined ? spread(inner, script) : inner;
  }
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
    conflating: onWord(evidence.conflating),
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
  const outcomes = evidence.outcomes;
  if (!outcomes || evidence.observations.length === 0) return 'unknown';
  const quiet = endsWith(outcomes.quiescent, status);
  const survivors = endsWith(outcomes.survivors, status);
  const failure = endsWith(outcomes['observer-fails'], status);
  if (!quiet || !survivors || !failure) return 'unknown';
  const inQuiet = quiet.length > 0;
  if (inQuiet && survivors.length > 0) return 'unknown';
  if (inQuiet) return failure.length > 0 ? 'conflated' : 'quiescent';
  if (failure.length > 0) return 'unobservable';
  if (survivors.length > 0) return 'survivors';
  // A status no world ends with (127: the observer is missing): nothing was observed as the command meant.
  return 'unobservable';
}

/** The commands whose status, in a world where it misleads, is one the command also ends with when all is quiet. */
function judged(outcomes: Outcomes): Pick<CommandEvidence, 'masking' | 'conflating' | 'findingsLeftOut' | 'outcomes'> {
  const quietStatuses = new Set(outcomes.quiescent.endings.map((ending) => ending.status));
  const alsoQuiet = (status: Status) => [...quietStatuses].some((quiet) => overlaps(quiet, status));
  const misleading = (world: WorldOutcomes): Span[] =>
    unique(
      world.endings
        .filter((ending) => ending.supplier && alsoQuiet(ending.status))
        .map((ending) => spanOf(ending.supplier!)),
    );
  const masking = misleading(outcomes.survivors);
  const masked = new Set(masking.map((span) => `${span.start}:${span.end}`));
  const conflating = misleading(outcomes['observer-fails']).filter((span) => !masked.has(`${span.start}:${span.end}`));
  // Masking first: it is what the rules report when both are found.
  const listedMasking = masking.slice(0, maximumFindingsPerCommand);
  const listedConflating = conflating.slice(0, maximumFindingsPerCommand - listedMasking.length);
  return {
    masking: listedMasking,
    conflating: listedConflating,
    findingsLeftOut: masking.length + conflating.length - listedMasking.length - listedConflating.length,
    outcomes,
  };
}

function overlaps(a: Status, b: Status): boolean {
  return a === b || (a === 'nonzero' && b !== 0) || (b === 'nonzero' && a !== 0);
}

function unique(spans: readonly Span[]): Span[] {
  const seen = new Set<string>();
  return spans.filter((span) => {
    const key = `${span.start}:${span.end}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
