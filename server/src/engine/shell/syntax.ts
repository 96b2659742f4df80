/**
 * The syntax tree of a POSIX shell command, as far as the evidence rules need it: lists, and-or chains,
 * pipelines, subshells, brace groups, if/while/until/for/case, function definitions and simple commands.
 * Every node keeps its span (start inclusive, end exclusive) in the command text, so that a finding can
 * point at the exact characters that matter.
 */

export interface Span {
  readonly start: number;
  readonly end: number;
}

export interface Word extends Span {
  /** The word as the shell would see it after quote removal; substitutions stay as written. */
  readonly text: string;
  /** True when any part was quoted (quoted words are never reserved words). */
  readonly quoted: boolean;
  /** `$(…)` and backtick substitutions inside the word, parsed. */
  readonly substitutions: readonly CommandList[];
  /** The word's parts in order, for reading its value: literal text, parameters, substitutions. */
  readonly parts: readonly WordPart[];
}

export type WordPart =
  /** `quoted`: the text was quoted or escaped, so it is never a pattern character. */
  | { readonly kind: 'literal'; readonly text: string; readonly quoted: boolean }
  /** `$name`, `$?`, `${name}`; `operator` is whatever follows the name inside braces (`:-x`, `%%.*`). */
  | { readonly kind: 'parameter'; readonly name: string; readonly operator?: string; readonly quoted: boolean }
  | { readonly kind: 'command'; readonly list: CommandList; readonly quoted: boolean }
  | { readonly kind: 'arithmetic'; readonly text: string };

export interface Redirection extends Span {
  readonly operator: string;
  /** The file descriptor written before the operator, as the 2 of `2>&1`. */
  readonly descriptor?: number;
  readonly target?: Word;
}

/** Redirections written after a compound command apply to all of it. */
interface Redirected {
  readonly redirections: readonly Redirection[];
}

export interface SimpleCommand extends Span {
  readonly kind: 'simple';
  readonly assignments: readonly Word[];
  /** The command name and its arguments. Empty for a command made only of assignments or redirections. */
  readonly words: readonly Word[];
  readonly redirections: readonly Redirection[];
}

export interface Subshell extends Span, Redirected {
  readonly kind: 'subshell';
  readonly body: CommandList;
}

export interface BraceGroup extends Span, Redirected {
  readonly kind: 'group';
  readonly body: CommandList;
}

export interface IfClause extends Span, Redirected {
  readonly kind: 'if';
  readonly branches: readonly { readonly condition: CommandList; readonly body: CommandList }[];
  readonly elseBody?: CommandList;
}

export interface Loop extends Span, Redirected {
  readonly kind: 'loop';
  readonly keyword: 'while' | 'until' | 'for';
  /** The variable a `for` loop sets. */
  readonly variable?: string;
  /** A `for` loop without `in` iterates over the positional parameters. */
  readonly overParameters?: boolean;
  /** The loop condition (while/until), absent for `for`. */
  readonly condition?: CommandList;
  /** The words a `for` loop iterates over. */
  readonly items: readonly Word[];
  readonly body: CommandList;
}

export interface CaseClause extends Span, Redirected {
  readonly kind: 'case';
  readonly subject: Word;
  /** In order: the first arm with a matching pattern runs. */
  readonly arms: readonly { readonly patterns: readonly Word[]; readonly body: CommandList }[];
}

export interface FunctionDefinition extends Span {
  readonly kind: 'function';
  readonly name: string;
  readonly body: Command;
}

export type Command = SimpleCommand | Subshell | BraceGroup | IfClause | Loop | CaseClause | FunctionDefinition;

export interface Pipeline extends Span {
  /** Set when the pipeline starts with `!`, which inverts its status. */
  readonly negation?: Span;
  readonly commands: readonly Command[];
}

export interface AndOr extends Span {
  readonly pipelines: readonly Pipeline[];
  /** `operators[i]` joins `pipelines[i]` and `pipelines[i + 1]`. */
  readonly operators: readonly ('&&' | '||')[];
}

export interface CommandList extends Span {
  readonly items: readonly { readonly andOr: AndOr; readonly background: boolean }[];
}

/**
 * The analyser's bounds. Commands come from untrusted artifact files; beyond a bound the analysis stops
 * with a ShellBoundExceeded (reported as `command-too-complex`), never an exception or a stall. Real
 * BenchFlow commands are a few hundred bytes: the hand-written and generated corpus of the real-shell
 * test and the fixtures nest at most 9 levels, hold at most 54 commands and give at most 11 findings.
 *
 * How many commands may nest inside one another, counting substitutions, `${…}` words, nested scripts and
 * function calls. The parser and the walks recurse once per level; deeper text is refused before the
 * stack runs out.
 */
export const maximumNesting = 200;

/**
 * How many commands (simple and compound) one text may hold. Counted while parsing, so a 10 MB text
 * stops being read here; the run in three worlds (outcomes.ts) costs tens of microseconds per command.
 */
export const maximumCommands = 1_000;

/** How many masking or conflating commands one command reports; the first ones are listed, then one notice. */
export const maximumFindingsPerCommand = 32;

export class ShellSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

/**
 * Text beyond one of the bounds above: not a syntax error, so a nested script that exceeds one ends the
 * whole analysis instead of being read as an ordinary command.
 */
export class ShellBoundExceeded extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}
