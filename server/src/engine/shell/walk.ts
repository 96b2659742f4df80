/**
 * Walks a command tree for every simple command in the order it runs: substitutions before the command
 * that uses them, function bodies where they are called. What the command's exit status means is found
 * by running it (outcomes.ts), not by this walk.
 */
import {
  maximumCommands,
  maximumNesting,
  ShellBoundExceeded,
  type Command,
  type CommandList,
  type FunctionDefinition,
  type Loop,
  type SimpleCommand,
} from './syntax';

/**
 * What the walks of one analysis may spend. A function's body is walked again at every call, so calls
 * can repeat it exponentially (f1 calls f0 twice, f2 calls f1 twice, …) and nest deeper than the text:
 * the walks count the words they read and the commands they are inside, and give up with a
 * ShellBoundExceeded before they hang or run out of stack.
 */
/** Commands one analysis may visit, nested scripts and function calls included. */
const walkVisits = 20 * maximumCommands;

export class WalkBudget {
  /**
   * Two walks that repeat nothing read fewer words than the text has characters. Twice that leaves room
   * for nested scripts, whose text is read again, and the floor for a short script calling its functions.
   */
  private readonly words: number;
  private wordsLeft: number;
  /**
   * Commands visited, however few words each has: the parser bounds the commands of a text, so a walk
   * that repeats nothing visits at most that many per level of nested script, and a 1 MB text cannot buy
   * millions of visits of a one-word function call with its length.
   */
  private visitsLeft = walkVisits;
  private depth = 0;

  constructor(textLength: number) {
    this.words = Math.max(10_000, 2 * textLength);
    this.wordsLeft = this.words;
  }

  /** Walks one command with `walk`, counting its words and the level it adds. */
  visit<T>(command: Command, walk: () => T): T {
    if (--this.visitsLeft < 0)
      throw new ShellBoundExceeded(
        `too complex to analyse: function calls and nested scripts expand to more than ${walkVisits} commands`,
        command.start,
      );
    this.wordsLeft -= wordsOf(command);
    if (this.wordsLeft < 0) {
      throw new ShellBoundExceeded(
        `too complex to analyse: function calls and nested scripts expand to more than ${this.words} words`,
        command.start,
      );
    }
    // The parser keeps the text itself within the limit, so only calls can take a walk beyond it.
    if (this.depth >= maximumNesting)
      throw new ShellBoundExceeded(`function calls nested more than ${maximumNesting} levels deep`, command.start);
    this.depth++;
    try {
      return walk();
    } finally {
      this.depth--;
    }
  }
}

/** The words a walk reads at a command: a simple command's own, a loop's items, or a compound's keyword. */
function wordsOf(command: Command): number {
  switch (command.kind) {
    case 'simple':
      return command.assignments.length + command.words.length + command.redirections.length;
    case 'loop':
      return 1 + command.items.length;
    default:
      return 1;
  }
}

export interface RunCommand {
  readonly command: SimpleCommand;
  /** The innermost enclosing `for` loop, whose items may say what the command iterates over. */
  readonly loop?: Loop;
}

function functionsOf(list: CommandList): Map<string, FunctionDefinition> {
  const functions = new Map<string, FunctionDefinition>();
  const collect = (node: CommandList): void => {
    for (const command of commandsOf(node)) {
      if (command.kind === 'function') functions.set(command.name, command);
      for (const child of childLists(command)) collect(child);
    }
  };
  collect(list);
  return functions;
}

/** Every simple command that can run, in the order it runs when read top to bottom. */
export function runCommands(list: CommandList, budget = new WalkBudget(list.end)): RunCommand[] {
  const functions = functionsOf(list);
  const found: RunCommand[] = [];
  const visitList = (node: CommandList, expanding: ReadonlySet<string>, loop: Loop | undefined): void => {
    for (const command of commandsOf(node)) visitCommand(command, expanding, loop);
  };
  const visitCommand = (command: Command, expanding: ReadonlySet<string>, loop: Loop | undefined): void => {
    budget.visit(command, () => visitContents(command, expanding, loop));
  };
  const visitContents = (command: Command, expanding: ReadonlySet<string>, loop: Loop | undefined): void => {
    switch (command.kind) {
      case 'simple': {
        for (const word of [
          ...command.assignments,
          ...command.words,
          ...command.redirections.flatMap((r) => (r.target ? [r.target] : [])),
        ]) {
          for (const substitution of word.substitutions) visitList(substitution, expanding, loop);
        }
        found.push({ command, loop });
        const called = functions.get(command.words[0]?.text ?? '');
        if (called && !expanding.has(called.name))
          visitCommand(called.body, new Set([...expanding, called.name]), loop);
        return;
      }
      case 'function':
        return;
      case 'loop':
        for (const item of command.items)
          for (const substitution of item.substitutions) visitList(substitution, expanding, loop);
        for (const child of childLists(command))
          visitList(child, expanding, command.keyword === 'for' ? command : loop);
        return;
      default:
        for (const child of childLists(command)) visitList(child, expanding, loop);
    }
  };
  visitList(list, new Set(), undefined);
  return found;
}

function childLists(command: Command): CommandList[] {
  switch (command.kind) {
    case 'simple':
      return [];
    case 'function':
      return command.body.kind === 'simple' ? [] : childLists(command.body);
    case 'subshell':
    case 'group':
      return [command.body];
    case 'if':
      return [
        ...command.branches.flatMap((branch) => [branch.condition, branch.body]),
        ...(command.elseBody ? [command.elseBody] : []),
      ];
    case 'loop':
      return [...(command.condition ? [command.condition] : []), command.body];
    case 'case':
      return command.arms.map((arm) => arm.body);
  }
}

function commandsOf(list: CommandList): Command[] {
  return list.items.flatMap((item) => item.andOr.pipelines.flatMap((pipeline) => [...pipeline.commands]));
}

/** `target.push(...items)` would pass each item as an argument, and a long list overflows the stack. */
export function append<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item);
}
