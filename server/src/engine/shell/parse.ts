/**
 * A recursive-descent parser for the POSIX shell grammar, as permissive as dash and no more: reserved
 * words are recognised only where a command starts and only unquoted; compound commands need a
 * non-empty body; redirections may follow any compound command. Our own rather than mvdan/sh (the
 * sh-syntax package): on the real-shell corpus it agrees with `dash -n` where sh-syntax's POSIX mode
 * does not (a reserved word after a compound command's redirection), synchronously, and far faster.
 */
import {
  maximumCommands,
  maximumNesting,
  ShellBoundExceeded,
  ShellSyntaxError,
  type AndOr,
  type Command,
  type CommandList,
  type Pipeline,
  type Redirection,
  type SimpleCommand,
  type Word,
} from './syntax';
import { tokenize, type SubstitutionParsers, type Token } from './tokens';
import { shownPrefix } from '../parse/jsonKind';

const redirectionOperators = new Set(['<', '>', '>>', '<<', '<<-', '<&', '>&', '<>', '>|']);
const listTerminators = new Set(['then', 'elif', 'else', 'fi', 'do', 'done', 'esac', '}', 'in']);
const assignment = /^[A-Za-z_][A-Za-z0-9_]*=/;
const name = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Parses shell text; throws ShellSyntaxError with the offset of the fault, or ShellBoundExceeded where
 * the text goes beyond the analyser's bounds. `depth` is how many levels of nesting already enclose the
 * text, as they enclose the script of `sh -c`.
 */
export function parseShell(source: string, base = 0, depth = 0): CommandList {
  const parser = new Parser(source, 0, base, new Bounds(depth));
  const list = parser.list(false);
  parser.expectEnd();
  return list;
}

/**
 * What one text has spent of the bounds: shared by the parsers of its substitutions and by its
 * tokenizer, since a substitution is parsed (and a `${…}` word read) inside the parse of what holds it.
 */
class Bounds {
  private commands = 0;

  constructor(
    /** How many lists, function bodies and `${…}` words enclose the position being read. */
    private depth: number,
  ) {}

  /** Reads one level deeper; `at` is where the fault goes, known without reading on. */
  nested<T>(at: () => number, read: () => T): T {
    if (this.depth >= maximumNesting)
      throw new ShellBoundExceeded(`nested more than ${maximumNesting} levels deep`, at());
    this.depth++;
    const parsed = read();
    this.depth--;
    return parsed;
  }

  /** Counts a command as it starts, so a text of millions stops being read at the bound. */
  command(at: number): void {
    if (++this.commands > maximumCommands) throw new ShellBoundExceeded(`more than ${maximumCommands} commands`, at);
  }
}

class Parser {
  private position = 0;
  /** Tokens read so far; the rest are read as the parser reaches them. */
  private readonly tokens: Token[] = [];
  private readonly unread: Iterator<Token>;
  private readonly end: number;

  private readonly start: number;

  constructor(
    source: string,
    from: number,
    base: number,
    private readonly bounds: Bounds,
  ) {
    // Tokens are read as the parser needs them, so that a substitution is parsed at the depth where it sits.
    const parsers: SubstitutionParsers = {
      dollar: (text, innerFrom) => {
        const inner = new Parser(text, innerFrom, base, bounds);
        const list = inner.list(false);
        return { list, close: inner.expectClosingParenthesis() - base };
      },
      backtick: (text, innerBase) => new Parser(text, 0, innerBase, bounds).list(false),
      nested: (at, read) => bounds.nested(() => at, read),
    };
    this.unread = tokenize(source, from, base, parsers);
    this.start = base + from;
    this.end = base + source.length;
  }

  expectEnd(): void {
    this.skipNewlines();
    const token = this.peek();
    if (token) throw new ShellSyntaxError(`unexpected "${describe(token)}"`, start(token));
  }

  /** The `)` that closes a command substitution; returns its offset. */
  expectClosingParenthesis(): number {
    this.skipNewlines();
    const token = this.peek();
    if (token?.type === 'operator' && token.value === ')') return token.start;
    throw new ShellSyntaxError(
      token ? `unexpected "${describe(token)}" in $(` : 'unterminated $(',
      token ? start(token) : this.start - 2,
    );
  }

  /** A list; `required`: dash refuses an empty body where a compound command needs one. */
  list(required = true): CommandList {
    const list = this.nested(() => this.listItems());
    if (required && list.items.length === 0) {
      const token = this.peek();
      throw new ShellSyntaxError(
        token ? `unexpected "${describe(token)}": a command was expected` : 'a command was expected',
        token ? start(token) : this.end,
      );
    }
    return list;
  }

  private listItems(): CommandList {
    const items: { andOr: AndOr; background: boolean }[] = [];
    this.skipNewlines();
    while (this.startsCommand()) {
      const andOr = this.andOr();
      let background = false;
      const separator = this.peek();
      if (
        separator?.type === 'operator' &&
        (separator.value === ';' || separator.value === '&' || separator.value === '\n')
      ) {
        background = separator.value === '&';
        this.position++;
      }
      items.push({ andOr, background });
      this.skipNewlines();
      if (!separator || separator.type !== 'operator' || ![';', '&', '\n'].includes(separator.value)) break;
    }
    const first = items[0]?.andOr;
    const last = items.at(-1)?.andOr;
    const at = first ? first.start : this.currentStart();
    return { items, start: at, end: last?.end ?? at };
  }

  private andOr(): AndOr {
    const pipelines = [this.pipeline()];
    const operators: ('&&' | '||')[] = [];
    for (
      let token = this.peek();
      token?.type === 'operator' && (token.value === '&&' || token.value === '||');
      token = this.peek()
    ) {
      this.position++;
      operators.push(token.value);
      this.skipNewlines();
      pipelines.push(this.pipeline());
    }
    return { pipelines, operators, start: pipelines[0]!.start, end: pipelines.at(-1)!.end };
  }

  private pipeline(): Pipeline {
    let negation: { start: number; end: number } | undefined;
    const bang = this.peek();
    if (bang?.type === 'word' && !bang.word.quoted && bang.word.text === '!') {
      negation = { start: bang.word.start, end: bang.word.end };
      this.position++;
    }
    const commands = [this.command()];
    for (let token = this.peek(); token?.type === 'operator' && token.value === '|'; token = this.peek()) {
      this.position++;
      this.skipNewlines();
      commands.push(this.command());
    }
    return { negation, commands, start: negation?.start ?? commands[0]!.start, end: commands.at(-1)!.end };
  }

  /** One stage of a pipeline: dash takes `!` only before the first, and only once. */
  private command(): Command {
    const token = this.peek();
    if (!token) throw new ShellSyntaxError('a command was expected', this.end);
    this.bounds.command(start(token));
    if (token.type === 'word' && !token.word.quoted && token.word.text === '!')
      throw new ShellSyntaxError('unexpected "!"', token.word.start);
    if (token.type === 'operator' && token.value === '(') {
      this.position++;
      const body = this.list();
      const close = this.expectOperator(')');
      return this.withRedirections({ kind: 'subshell', body, start: token.start, end: close.end });
    }
    if (token.type === 'word' && !token.word.quoted) {
      switch (token.word.text) {
        case '{': {
          this.position++;
          const body = this.list();
          const close = this.expectReserved('}');
          return this.withRedirections({ kind: 'group', body, start: token.word.start, end: close.end });
        }
        case 'if':
          return this.ifClause(token.word);
        case 'while':
        case 'until':
          return this.conditionalLoop(token.word, token.word.text);
        case 'for':
          return this.forLoop(token.word);
        case 'case':
          return this.caseClause(token.word);
      }
      const next = this.lookAhead(1);
      if (next?.type === 'operator' && next.value === '(') {
        const after = this.lookAhead(2);
        if (after?.type !== 'operator' || after.value !== ')' || !name.test(token.word.text))
          throw new ShellSyntaxError('unexpected "("', next.start);
        this.position += 3;
        this.skipNewlines();
        const body = this.nested(() => this.command());
        return { kind: 'function', name: token.word.text, body, start: token.word.start, end: body.end };
      }
    }
    return this.simpleCommand();
  }

  private ifClause(keyword: Word): Command {
    this.position++;
    const branches: { condition: CommandList; body: CommandList }[] = [];
    for (;;) {
      const condition = this.list();
      this.expectReserved('then');
      const body = this.list();
      branches.push({ condition, body });
      const next = this.expectReserved('elif', 'else', 'fi');
      if (next.text === 'elif') continue;
      if (next.text === 'else') {
        const elseBody = this.list();
        const fi = this.expectReserved('fi');
        return this.withRedirections({ kind: 'if', branches, elseBody, start: keyword.start, end: fi.end });
      }
      return this.withRedirections({ kind: 'if', branches, start: keyword.start, end: next.end });
    }
  }

  private conditionalLoop(keyword: Word, loopKind: 'while' | 'until'): Command {
    this.position++;
    const condition = this.list();
    this.expectReserved('do');
    const body = this.list();
    const done = this.expectReserved('done');
    return this.withRedirections({
      kind: 'loop',
      keyword: loopKind,
      condition,
      items: [],
      body,
      start: keyword.start,
      end: done.end,
    });
  }

  private forLoop(keyword: Word): Command {
    this.position++;
    const variable = this.peek();
    if (variable?.type !== 'word' || variable.word.quoted || !name.test(variable.word.text)) {
      throw new ShellSyntaxError(
        'a loop variable name was expected after "for"',
        variable ? start(variable) : this.end,
      );
    }
    this.position++;
    const items: Word[] = [];
    this.skipNewlines();
    const maybeIn = this.peek();
    const hasIn = maybeIn?.type === 'word' && !maybeIn.word.quoted && maybeIn.word.text === 'in';
    if (hasIn) {
      this.position++;
      for (let token = this.peek(); token?.type === 'word'; token = this.peek()) {
        items.push(token.word);
        this.position++;
      }
      const separator = this.peek();
      if (separator?.type !== 'operator' || (separator.value !== ';' && separator.value !== '\n')) {
        throw new ShellSyntaxError(
          `";" or a newline was expected after the loop's words${separator ? `, found "${describe(separator)}"` : ''}`,
          separator ? start(separator) : this.end,
        );
      }
      this.position++;
    } else {
      const separator = this.peek();
      if (separator?.type === 'operator' && separator.value === ';') this.position++;
    }
    this.expectReserved('do');
    const body = this.list();
    const done = this.expectReserved('done');
    return this.withRedirections({
      kind: 'loop',
      keyword: 'for',
      variable: variable.word.text,
      overParameters: !hasIn,
      items,
      body,
      start: keyword.start,
      end: done.end,
    });
  }

  private caseClause(keyword: Word): Command {
    this.position++;
    const subject = this.expectWord('the word to match after "case"');
    this.skipNewlines();
    this.expectReserved('in');
    const arms: { patterns: Word[]; body: CommandList }[] = [];
    for (;;) {
      this.skipNewlines();
      const token = this.peek();
      if (!token) throw new ShellSyntaxError('"case" not closed by "esac"', keyword.start);
      if (token.type === 'word' && !token.word.quoted && token.word.text === 'esac') {
        this.position++;
        return this.withRedirections({ kind: 'case', subject, arms, start: keyword.start, end: token.word.end });
      }
      // A pattern list: [(] pattern [| pattern]… )
      if (token.type === 'operator' && token.value === '(') this.position++;
      const patterns: Word[] = [];
      for (;;) {
        patterns.push(this.expectWord('a case pattern'));
        const next = this.peek();
        if (next?.type === 'operator' && next.value === '|') this.position++;
        else break;
      }
      this.expectOperator(')');
      arms.push({ patterns, body: this.list(false) });
      const terminator = this.peek();
      if (terminator?.type === 'operator' && terminator.value === ';;') this.position++;
      else {
        // Without `;;` the arm must be the last one.
        this.skipNewlines();
        const last = this.peek();
        if (last?.type !== 'word' || last.word.quoted || last.word.text !== 'esac')
          throw new ShellSyntaxError('";;" or "esac" was expected', last ? start(last) : this.end);
      }
    }
  }

  private simpleCommand(): SimpleCommand {
    const assignments: Word[] = [];
    const words: Word[] = [];
    const redirections: Redirection[] = [];
    const first = this.peek();
    for (let token = this.peek(); token; token = this.peek()) {
      const redirection = this.redirection();
      if (redirection) {
        redirections.push(redirection);
        continue;
      }
      if (token.type === 'operator') break;
      if (words.length === 0 && !token.word.quoted && assignment.test(token.word.text)) assignments.push(token.word);
      else words.push(token.word);
      this.position++;
    }
    if (!first || (assignments.length === 0 && words.length === 0 && redirections.length === 0)) {
      throw new ShellSyntaxError(
        first ? `unexpected "${describe(first)}"` : 'a command was expected',
        first ? start(first) : this.end,
      );
    }
    // Redirections may come before, between or after the words: the span runs from the earliest part to the latest.
    const parts = [...assignments, ...words, ...redirections];
    return {
      kind: 'simple',
      assignments,
      words,
      redirections,
      start: parts.reduce((earliest, part) => Math.min(earliest, part.start), Infinity),
      end: parts.reduce((latest, part) => Math.max(latest, part.end), 0),
    };
  }

  /** A redirection at the parser's position (with its I/O number, as the 2 of `2>&1`), read; or none. */
  private redirection(): Redirection | undefined {
    let token = this.peek();
    let descriptor: { value: number; start: number } | undefined;
    if (token?.type === 'word') {
      const next = this.lookAhead(1);
      if (
        !/^\d+$/.test(token.word.text) ||
        token.word.quoted ||
        next?.type !== 'operator' ||
        next.start !== token.word.end ||
        !redirectionOperators.has(next.value)
      )
        return undefined;
      descriptor = { value: Number(token.word.text), start: token.word.start };
      this.position++;
      token = next;
    }
    if (token?.type !== 'operator' || !redirectionOperators.has(token.value)) return undefined;
    this.position++;
    const target = this.peek();
    if (target?.type !== 'word')
      throw new ShellSyntaxError(`a file name was expected after "${token.value}"`, token.end);
    this.position++;
    return {
      operator: token.value,
      ...(descriptor ? { descriptor: descriptor.value } : {}),
      target: target.word,
      start: descriptor?.start ?? token.start,
      end: target.word.end,
    };
  }

  /**
   * Parses a list or a function body, one level deeper. Each level is a level of recursion here and in
   * every walk of the tree, so deep nesting is refused before the stack runs out. The fault is placed
   * after what has been read, without reading on: reading on would parse the next substitution, one
   * level deeper still.
   */
  private nested<T>(parse: () => T): T {
    return this.bounds.nested(() => this.readSoFar(), parse);
  }

  private withRedirections<T extends { readonly end: number }>(
    command: T,
  ): T & { readonly redirections: readonly Redirection[] } {
    const redirections: Redirection[] = [];
    for (let redirection = this.redirection(); redirection; redirection = this.redirection())
      redirections.push(redirection);
    // dash reads the word after a redirection as a plain word, so a reserved word cannot close a list
    // there (`{ { :; } >/dev/null }` is refused) — but for `esac`, which it looks for by its text.
    const next = redirections.length > 0 ? this.peek() : undefined;
    if (
      next?.type === 'word' &&
      !next.word.quoted &&
      listTerminators.has(next.word.text) &&
      next.word.text !== 'esac'
    ) {
      throw new ShellSyntaxError(
        `unexpected "${describe(next)}" after a redirection: ";" or a newline was expected`,
        next.word.start,
      );
    }
    return { ...command, redirections, end: redirections.at(-1)?.end ?? command.end };
  }

  private startsCommand(): boolean {
    const token = this.peek();
    if (!token) return false;
    if (token.type === 'operator') return token.value === '(' || redirectionOperators.has(token.value);
    return token.word.quoted || !listTerminators.has(token.word.text);
  }

  private skipNewlines(): void {
    for (let token = this.peek(); token?.type === 'operator' && token.value === '\n'; token = this.peek())
      this.position++;
  }

  private expectReserved(...expected: string[]): Word {
    this.skipNewlines();
    const token = this.peek();
    if (token?.type === 'word' && !token.word.quoted && expected.includes(token.word.text)) {
      this.position++;
      return token.word;
    }
    throw new ShellSyntaxError(
      `"${expected.join('" or "')}" was expected${token ? `, found "${describe(token)}"` : ''}`,
      token ? start(token) : this.end,
    );
  }

  private expectOperator(value: string): { end: number } {
    this.skipNewlines();
    const token = this.peek();
    if (token?.type === 'operator' && token.value === value) {
      this.position++;
      return token;
    }
    throw new ShellSyntaxError(
      `"${value}" was expected${token ? `, found "${describe(token)}"` : ''}`,
      token ? start(token) : this.end,
    );
  }

  private expectWord(what: string): Word {
    const token = this.peek();
    if (token?.type === 'word') {
      this.position++;
      return token.word;
    }
    throw new ShellSyntaxError(`${what} was expected`, token ? start(token) : this.end);
  }

  private peek(): Token | undefined {
    return this.lookAhead(0);
  }

  private lookAhead(distance: number): Token | undefined {
    while (this.tokens.length <= this.position + distance) {
      const read = this.unread.next();
      if (read.done) return undefined;
      this.tokens.push(read.value);
    }
    return this.tokens[this.position + distance];
  }

  /** Where the next token starts when it has been read, else where the last one read ends. */
  private readSoFar(): number {
    const next = this.tokens[this.position];
    if (next) return start(next);
    const last = this.tokens.at(-1);
    return last ? (last.type === 'word' ? last.word.end : last.end) : this.start;
  }

  private currentStart(): number {
    const token = this.peek();
    return token ? start(token) : this.end;
  }
}

function start(token: Token): number {
  return token.type === 'word' ? token.word.start : token.start;
}

/** A token as a syntax error names it; a word only by its prefix, since it is bundle text. */
function describe(token: Token): string {
  return token.type === 'word' ? shownPrefix(token.word.text) : token.value === '\n' ? 'newline' : token.value;
}
