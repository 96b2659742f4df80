/**
 * Walks a command tree two ways: every simple command in the order it runs (substitutions before the
 * command that uses them, function bodies where they are called), and the commands whose status can
 * become the status of the whole — the last command run on each path, with `exit` ending every path it
 * is on — each with the nearest command whose outcome decided that the path was taken.
 */
import { maximumNesting, ShellSyntaxError, type AndOr, type Command, type CommandList, type FunctionDefinition, type Loop, type Pipeline, type SimpleCommand, type Span } from './syntax';

/**
 * What the walks of one analysis may spend. A function's body is walked again at every call, so calls
 * can repeat it exponentially (f1 calls f0 twice, f2 calls f1 twice, …) and nest deeper than the text:
 * the walks count the words they read and the commands they are inside, and give up with a
 * ShellSyntaxError before they hang or run out of stack.
 */
export class WalkBudget {
  /**
   * Two walks that repeat nothing read fewer words than the text has characters. Twice that leaves room
   * for nested scripts, whose text is read again, and the floor for a short script calling its functions.
   */
  private readonly words: number;
  private wordsLeft: number;
  private depth = 0;

  constructor(textLength: number) {
    this.words = Math.max(10_000, 2 * textLength);
    this.wordsLeft = this.words;
  }

  /** Walks one command with `walk`, counting its words and the level it adds. */
  visit<T>(command: Command, walk: () => T): T {
    this.wordsLeft -= wordsOf(command);
    if (this.wordsLeft < 0) {
      throw new ShellSyntaxError(`too complex to analyse: function calls and nested scripts expand to more than ${this.words} words`, command.start);
    }
    // The parser keeps the text itself within the limit, so only calls can take a walk beyond it.
    if (this.depth >= maximumNesting) throw new ShellSyntaxError(`function calls nested more than ${maximumNesting} levels deep`, command.start);
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

/** The command whose outcome decided that a path was taken, and which outcome that was. */
export interface Guard {
  readonly command: SimpleCommand;
  /** An odd number of `!` applies to the guard's own status. */
  readonly negated: boolean;
  /** The path runs when the guard's (negated) status was 0: `g && x`, `if g; then x`. */
  readonly ranWhenSucceeded: boolean;
}

export interface Supplier {
  /** The command whose status is taken; undefined for a compound that ran none (status 0). */
  readonly command?: SimpleCommand;
  /** Where to point: the command, or the `if`/loop/list that can end without running one. */
  readonly span: Span;
  /** An odd number of `!` applies to this status. */
  readonly negated: boolean;
  readonly guard?: Guard;
}

export interface RunCommand {
  readonly command: SimpleCommand;
  /** The innermost enclosing `for` loop, whose items may say what the command iterates over. */
  readonly loop?: Loop;
}

interface Context {
  readonly negated: boolean;
  readonly guard?: Guard;
  readonly functions: ReadonlyMap<string, FunctionDefinition>;
  /** Functions being expanded, so that recursion terminates. */
  readonly expanding: ReadonlySet<string>;
  /** Inside a function body, `return` ends the path as `exit` does. */
  readonly inFunction: boolean;
  readonly budget: WalkBudget;
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
        for (const word of [...command.assignments, ...command.words, ...command.redirections.flatMap((r) => (r.target ? [r.target] : []))]) {
          for (const substitution of word.substitutions) visitList(substitution, expanding, loop);
        }
        found.push({ command, loop });
        const called = functions.get(command.words[0]?.text ?? '');
        if (called && !expanding.has(called.name)) visitCommand(called.body, new Set([...expanding, called.name]), loop);
        return;
      }
      case 'function':
        return;
      case 'loop':
        for (const item of command.items) for (const substitution of item.substitutions) visitList(substitution, expanding, loop);
        for (const child of childLists(command)) visitList(child, expanding, command.keyword === 'for' ? command : loop);
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
      return [...command.branches.flatMap((branch) => [branch.condition, branch.body]), ...(command.elseBody ? [command.elseBody] : [])];
    case 'loop':
      return [...(command.condition ? [command.condition] : []), command.body];
    case 'case':
      return command.arms.map((arm) => arm.body);
  }
}

function commandsOf(list: CommandList): Command[] {
  return list.items.flatMap((item) => item.andOr.pipelines.flatMap((pipeline) => [...pipeline.commands]));
}

export function statusSuppliers(list: CommandList, budget = new WalkBudget(list.end)): Supplier[] {
  const context: Context = { negated: false, functions: functionsOf(list), expanding: new Set(), inFunction: false, budget };
  const seen = new Set<string>();
  return ofList(list, context, true).filter((supplier) => {
    const key = `${supplier.span.start}:${supplier.span.end}:${supplier.negated}:${supplier.guard?.command.start ?? ''}:${supplier.guard?.ranWhenSucceeded ?? ''}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * `final`: the list's own status can be the status of the whole. Exits are collected wherever they
 * are, since `exit` ends the script on whatever path reaches it.
 */
function ofList(list: CommandList, context: Context, final: boolean): Supplier[] {
  if (list.items.length === 0) return final ? [{ span: list, negated: context.negated, guard: context.guard }] : [];
  const suppliers: Supplier[] = [];
  let itemContext = context;
  list.items.forEach((item, index) => {
    const isLast = index === list.items.length - 1;
    const found = ofAndOr(item.andOr, itemContext, final && isLast && !item.background);
    append(suppliers, found);
    // After `g && exit 1`, the rest of the list runs only when g failed: it is guarded by that outcome.
    const guardedExit = found.find((supplier) => supplier.command && isExit(supplier.command, context) && supplier.guard);
    if (guardedExit?.guard) itemContext = { ...itemContext, guard: { ...guardedExit.guard, ranWhenSucceeded: !guardedExit.guard.ranWhenSucceeded } };
  });
  return suppliers;
}

function ofAndOr(andOr: AndOr, context: Context, final: boolean): Supplier[] {
  const suppliers: Supplier[] = [];
  andOr.pipelines.forEach((pipeline, index) => {
    const previous = andOr.pipelines[index - 1];
    const decider = previous ? deciding(previous) : undefined;
    const guard = previous && decider ? { ...decider, ranWhenSucceeded: andOr.operators[index - 1] === '&&' } : context.guard;
    // Any pipeline of a chain can be the last to run: `a || b` ends with a when a succeeds.
    append(suppliers, ofPipeline(pipeline, { ...context, guard }, final));
  });
  return suppliers;
}

function ofPipeline(pipeline: Pipeline, context: Context, final: boolean): Supplier[] {
  const negated = pipeline.negation ? !context.negated : context.negated;
  const last = pipeline.commands.at(-1)!;
  // Earlier stages run in subshells of their own: their exits end only themselves.
  return ofCommand(last, { ...context, negated }, final, pipeline.commands.length > 1);
}

function ofCommand(command: Command, context: Context, final: boolean, inSubshell: boolean): Supplier[] {
  return context.budget.visit(command, () => suppliersOf(command, context, final, inSubshell));
}

function suppliersOf(command: Command, context: Context, final: boolean, inSubshell: boolean): Supplier[] {
  switch (command.kind) {
    case 'simple': {
      const called = context.functions.get(command.words[0]?.text ?? '');
      if (called && !context.expanding.has(called.name)) {
        return ofCommand(called.body, { ...context, expanding: new Set([...context.expanding, called.name]), inFunction: true }, final, inSubshell);
      }
      const ends = final || (!inSubshell && isExit(command, context));
      return ends ? [{ command, span: command, negated: context.negated, guard: context.guard }] : [];
    }
    case 'function':
      return final ? [{ span: command, negated: context.negated, guard: context.guard }] : [];
    case 'subshell':
      // An exit inside a subshell ends only the subshell, so nothing inside matters unless it is last.
      return final ? ofList(command.body, context, true) : [];
    case 'group':
      return ofList(command.body, context, final);
    case 'if': {
      const suppliers: Supplier[] = [];
      let guard = context.guard;
      for (const branch of command.branches) {
        append(suppliers, ofList(branch.condition, { ...context, guard }, false));
        const decider = deciding(lastPipeline(branch.condition));
        append(suppliers, ofList(branch.body, { ...context, guard: decider ? { ...decider, ranWhenSucceeded: true } : guard }, final));
        guard = decider ? { ...decider, ranWhenSucceeded: false } : guard;
      }
      if (command.elseBody) append(suppliers, ofList(command.elseBody, { ...context, guard }, final));
      // No branch taken: status 0, decided by the last condition failing.
      else if (final) suppliers.push({ span: command, negated: context.negated, guard });
      return suppliers;
    }
    case 'loop': {
      const decider = command.condition ? deciding(lastPipeline(command.condition)) : undefined;
      const whileTrue = command.keyword !== 'until';
      const bodyGuard = decider ? { ...decider, ranWhenSucceeded: whileTrue } : context.guard;
      const suppliers = [...(command.condition ? ofList(command.condition, context, false) : []), ...ofList(command.body, { ...context, guard: bodyGuard }, final)];
      // A loop ends with its last body status, or 0 when the body never ran.
      if (final) suppliers.push({ span: command, negated: context.negated, guard: decider ? { ...decider, ranWhenSucceeded: !whileTrue } : context.guard });
      return suppliers;
    }
    case 'case':
      return [...command.arms.flatMap((arm) => ofList(arm.body, context, final)), ...(final ? [{ span: command, negated: context.negated, guard: context.guard }] : [])];
  }
}

/** `target.push(...items)` would pass each item as an argument, and a long list overflows the stack. */
export function append<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item);
}

function isExit(command: SimpleCommand, context: Pick<Context, 'inFunction'>): boolean {
  const name = command.words[0]?.text;
  return name === 'exit' || (context.inFunction && name === 'return');
}

function lastPipeline(list: CommandList): Pipeline | undefined {
  return list.items.at(-1)?.andOr.pipelines.at(-1);
}

/** The simple command whose status a pipeline (or compound) reports, with the pipeline's negation. */
function deciding(pipeline: Pipeline | undefined): Omit<Guard, 'ranWhenSucceeded'> | undefined {
  if (!pipeline) return undefined;
  const last = pipeline.commands.at(-1)!;
  const inner = last.kind === 'simple' ? { command: last, negated: false } : last.kind === 'subshell' || last.kind === 'group' ? deciding(lastPipeline(last.body)) : undefined;
  return inner ? { command: inner.command, negated: pipeline.negation ? !inner.negated : inner.negated } : undefined;
}
