/**
 * Splits shell text into words and operators with their spans: quotes, escapes, line continuations,
 * `$(…)`, backticks, `${…}`, `$((…))`, comments and here-documents are honoured, as dash reads them; an
 * unterminated quote or substitution is a ShellSyntaxError at the place it opened. Tokens are produced
 * as they are asked for, so a command substitution is parsed (by the parser, through `parseSubstitution`)
 * exactly where it stands, and its closing `)` is the one the parser finds, not a count of parentheses.
 */
import { ShellSyntaxError, type CommandList, type Word, type WordPart } from './syntax';

export type Token =
  | { readonly type: 'word'; readonly word: Word }
  | { readonly type: 'operator'; readonly value: string; readonly start: number; readonly end: number };

// POSIX operators only: dash reads `&>` as `&` then `>`, and has no `<<<`.
const operators = [
  '&&',
  '||',
  ';;',
  '<<-',
  '<<',
  '>>',
  '<&',
  '>&',
  '<>',
  '>|',
  ';',
  '&',
  '|',
  '(',
  ')',
  '<',
  '>',
  '\n',
];
const metacharacters = new Set([' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>']);
const operatorStarts = new Set([';', '&', '|', '(', ')', '<', '>', '\n']);
const nameCharacter = /[A-Za-z0-9_]/;
/** Characters that begin something other than themselves inside an unquoted word: escapes, quotes, expansions. */
const wordSpecials = new Set(['\\', "'", '"', '$', '`']);
const specialParameters = new Set([
  '?',
  '#',
  '@',
  '*',
  '$',
  '!',
  '-',
  '0',
  '1',
  '2',
  '3',
  '4',
  '5',
  '6',
  '7',
  '8',
  '9',
]);

/**
 * Parses the command substitution whose text starts at `from` (just after `$(`), up to its closing `)`;
 * returns the list and the index of that `)`. Supplied by the parser to avoid a module cycle.
 */
export type SubstitutionParser = (
  source: string,
  from: number,
) => { readonly list: CommandList; readonly close: number };

/**
 * Parses the text of a backtick substitution, already unescaped; its offsets are those of `base`. dash
 * reads a list there and stops at the first token that cannot continue it (`` `echo a )` `` runs `echo a`).
 */
export type BacktickParser = (text: string, base: number) => CommandList;

export interface SubstitutionParsers {
  readonly dollar: SubstitutionParser;
  readonly backtick: BacktickParser;
  /**
   * Reads a `${…}` word one level deeper, within the parser's nesting bound: its word may hold another,
   * and each is a level of recursion here. `at` is the offset of the `${`.
   */
  readonly nested: <T>(at: number, read: () => T) => T;
}

/** Tokens of `source` from `from` on; positions are `base` plus the index in `source`. */
export function* tokenize(
  source: string,
  from: number,
  base: number,
  parsers: SubstitutionParsers,
): Generator<Token, void, undefined> {
  const pendingHereDocuments: { delimiter: string; stripTabs: boolean; expands: boolean }[] = [];
  let index = from;
  while (index < source.length) {
    const character = source[index]!;
    if (character === ' ' || character === '\t' || (character === '\\' && source[index + 1] === '\n')) {
      index += character === '\\' ? 2 : 1;
      continue;
    }
    if (character === '#') {
      while (index < source.length && source[index] !== '\n') index++;
      continue;
    }
    const operator = operatorStarts.has(character)
      ? operators.find((candidate) => source.startsWith(candidate, index))
      : undefined;
    if (operator) {
      yield { type: 'operator', value: operator, start: base + index, end: base + index + operator.length };
      index += operator.length;
      if (operator === '<<' || operator === '<<-') {
        // The delimiter is also the next token: read it once, as reading a word parses its substitutions.
        const delimiter = readWord(source, skipBlanks(source, index), base, parsers);
        if (delimiter) {
          pendingHereDocuments.push({
            delimiter: delimiter.word.text,
            stripTabs: operator === '<<-',
            expands: !delimiter.word.quoted,
          });
          yield { type: 'word', word: delimiter.word };
          index = delimiter.next;
        }
      }
      if (operator === '\n' && pendingHereDocuments.length > 0) {
        index = skipHereDocuments(source, index, pendingHereDocuments.splice(0), base, parsers);
      }
      continue;
    }
    const read = readWord(source, index, base, parsers)!;
    yield { type: 'word', word: read.word };
    index = read.next;
  }
}

function skipBlanks(source: string, index: number): number {
  while (source[index] === ' ' || source[index] === '\t') index++;
  return index;
}

/**
 * Skips the bodies of the here-documents opened on the line just ended. dash accepts a body that the
 * text ends before its delimiter; an unquoted delimiter makes the body expand, so its substitutions must
 * be well formed.
 */
function skipHereDocuments(
  source: string,
  index: number,
  documents: readonly { delimiter: string; stripTabs: boolean; expands: boolean }[],
  base: number,
  parsers: SubstitutionParsers,
): number {
  for (const { delimiter, stripTabs, expands } of documents) {
    const bodyStart = index;
    let bodyEnd = source.length;
    while (index < source.length) {
      const end = source.indexOf('\n', index);
      const line = source.slice(index, end === -1 ? source.length : end);
      if ((stripTabs ? line.replace(/^\t+/, '') : line) === delimiter) {
        bodyEnd = index;
        index = end === -1 ? source.length : end + 1;
        break;
      }
      index = end === -1 ? source.length : end + 1;
    }
    if (expands) checkExpansions(source.slice(0, bodyEnd), bodyStart, base, parsers);
  }
  return index;
}

/** Reads the substitutions of an expanding here-document body, as inside double quotes, for their errors. */
function checkExpansions(source: string, from: number, base: number, parsers: SubstitutionParsers): void {
  const scanner = new WordScanner(source, from, base, parsers);
  while (scanner.index < source.length) {
    const character = source[scanner.index]!;
    if (character === '\\') scanner.index += 2;
    else if (!scanner.readsExpansion(true)) scanner.index++;
  }
}

/** Reads one word starting at `start`; returns undefined when there is none there. */
function readWord(
  source: string,
  start: number,
  base: number,
  parsers: SubstitutionParsers,
): { word: Word; next: number } | undefined {
  const scanner = new WordScanner(source, start, base, parsers);
  while (scanner.index < source.length && !metacharacters.has(source[scanner.index]!)) {
    if (!scanner.readsPlainRun()) scanner.readUnquoted();
  }
  if (scanner.index === start) return undefined;
  return { word: scanner.word(start), next: scanner.index };
}

/** The state of reading one word: its text, its parts, and where it has got to. */
class WordScanner {
  text = '';
  quoted = false;
  readonly substitutions: CommandList[] = [];
  readonly parts: WordPart[] = [];

  constructor(
    readonly source: string,
    public index: number,
    private readonly base: number,
    private readonly parsers: SubstitutionParsers,
  ) {}

  word(start: number): Word {
    return {
      text: this.text,
      quoted: this.quoted,
      substitutions: this.substitutions,
      parts: this.parts,
      start: this.base + start,
      end: this.base + this.index,
    };
  }

  /**
   * A run of characters that are only themselves in an unquoted word, read at once: one at a time, a
   * 1 MB word built its parts a million times over.
   */
  readsPlainRun(): boolean {
    const { source } = this;
    let end = this.index;
    while (end < source.length && !metacharacters.has(source[end]!) && !wordSpecials.has(source[end]!)) end++;
    if (end === this.index) return false;
    this.literal(source.slice(this.index, end), false);
    this.index = end;
    return true;
  }

  /** One piece of an unquoted word. */
  readUnquoted(): void {
    const { source } = this;
    const character = source[this.index]!;
    if (character === '\\' && source[this.index + 1] === '\n') {
      // A line continuation: both characters go and the word carries on.
      this.index += 2;
    } else if (character === '\\' && this.index + 1 < source.length) {
      this.quoted = true;
      this.literal(source[this.index + 1]!, true);
      this.index += 2;
    } else if (character === "'") {
      const close = source.indexOf("'", this.index + 1);
      if (close === -1) throw new ShellSyntaxError('unterminated single quote', this.base + this.index);
      this.quoted = true;
      this.literal(source.slice(this.index + 1, close), true);
      this.index = close + 1;
    } else if (character === '"') {
      this.readDoubleQuoted();
    } else if (!this.readsExpansion(false)) {
      // Also a backslash that ends the text: it escapes nothing and stays as written.
      this.literal(character, false);
      this.index++;
    }
  }

  private readDoubleQuoted(): void {
    const { source } = this;
    this.quoted = true;
    const open = this.index;
    this.index++;
    // An empty "" is still a part: the word exists, and is empty.
    this.literal('', true);
    for (;;) {
      if (this.index >= source.length) throw new ShellSyntaxError('unterminated double quote', this.base + open);
      const inner = source[this.index]!;
      if (inner === '"') {
        this.index++;
        return;
      }
      const escaped = source[this.index + 1];
      if (inner === '\\' && escaped === '\n') {
        this.index += 2; // a line continuation, as outside quotes
      } else if (inner === '\\' && escaped !== undefined && '"\\$`'.includes(escaped)) {
        this.literal(escaped, true);
        this.index += 2;
      } else if (!this.readsExpansion(true)) {
        this.literal(inner, true);
        this.index++;
      }
    }
  }

  /** Reads a parameter, arithmetic or command expansion when one starts here. */
  readsExpansion(quoted: boolean): boolean {
    const { source } = this;
    const start = this.index;
    const character = source[start];
    if (character === '`') {
      const { text, close } = backtickBody(source, start, this.base);
      this.command(this.parsers.backtick(text, this.base + start + 1), start, close + 1, quoted);
      return true;
    }
    if (character !== '$') return false;
    const next = source[start + 1];
    if (next === '(' && source[start + 2] === '(') {
      // Arithmetic expansion: no command runs inside (dash reads `$((` as arithmetic whenever it can).
      const close = arithmeticEnd(source, start + 3, this.base);
      this.parts.push({ kind: 'arithmetic', text: source.slice(start + 3, close - 1) });
      this.text += source.slice(start, close + 1);
      this.index = close + 1;
      return true;
    }
    if (next === '(') {
      const { list, close } = this.parsers.dollar(source, start + 2);
      this.command(list, start, close + 1, quoted);
      return true;
    }
    if (next === '{') {
      this.readBraced(quoted);
      return true;
    }
    if (next !== undefined && specialParameters.has(next)) {
      this.parts.push({ kind: 'parameter', name: next, quoted });
      this.text += source.slice(start, start + 2);
      this.index = start + 2;
      return true;
    }
    if (next !== undefined && /[A-Za-z_]/.test(next)) {
      let end = start + 2;
      while (end < source.length && nameCharacter.test(source[end]!)) end++;
      this.parts.push({ kind: 'parameter', name: source.slice(start + 1, end), quoted });
      this.text += source.slice(start, end);
      this.index = end;
      return true;
    }
    return false;
  }

  /** `${name}`, `${name:-word}`, `${#name}`: the word inside may hold quotes and substitutions of its own. */
  private readBraced(quoted: boolean): void {
    const { source } = this;
    const start = this.index;
    let index = start + 2;
    const nameStart = index;
    if (source[index] === '#' && source[index + 1] !== '}') index++; // ${#name}: the length
    if (source[index] !== undefined && specialParameters.has(source[index]!)) index++;
    else while (index < source.length && nameCharacter.test(source[index]!)) index++;
    const name = source.slice(nameStart, index);
    // The rest up to the matching brace is a word: read it with its own scanner for quotes and substitutions.
    const inner = new WordScanner(source, index, this.base, this.parsers);
    this.parsers.nested(this.base + start, () => {
      for (;;) {
        if (inner.index >= source.length) throw new ShellSyntaxError('unterminated ${', this.base + start);
        const character = source[inner.index]!;
        if (character === '}') return;
        if (character === '"' || character === "'" || character === '\\' || character === '$' || character === '`')
          inner.readUnquoted();
        else {
          inner.literal(character, false);
          inner.index++;
        }
      }
    });
    this.substitutions.push(...inner.substitutions);
    const operator = source.slice(index, inner.index);
    this.parts.push(
      operator === '' ? { kind: 'parameter', name, quoted } : { kind: 'parameter', name, operator, quoted },
    );
    this.text += source.slice(start, inner.index + 1);
    this.index = inner.index + 1;
  }

  private command(list: CommandList, open: number, after: number, quoted: boolean): void {
    this.substitutions.push(list);
    this.parts.push({ kind: 'command', list, quoted });
    this.text += this.source.slice(open, after);
    this.index = after;
  }

  literal(text: string, quoted: boolean): void {
    this.text += text;
    const last = this.parts.at(-1);
    if (last?.kind === 'literal' && last.quoted === quoted)
      this.parts[this.parts.length - 1] = { kind: 'literal', text: last.text + text, quoted };
    else this.parts.push({ kind: 'literal', text, quoted });
  }
}

/** The index of the second `)` closing `$((` whose text starts at `from`, skipping nested parentheses. */
function arithmeticEnd(source: string, from: number, base: number): number {
  let depth = 0;
  for (let index = from; index < source.length; index++) {
    const character = source[index]!;
    if (character === '\\') index++;
    else if (character === '(') depth++;
    else if (character === ')') {
      if (depth > 0) depth--;
      else if (source[index + 1] === ')') return index + 1;
      else throw new ShellSyntaxError('unterminated $((', base + from - 3);
    }
  }
  throw new ShellSyntaxError('unterminated $((', base + from - 3);
}

/** The text inside the backticks opening at `open`, with `\\`, `` \` `` and `\$` unescaped as the shell does. */
function backtickBody(source: string, open: number, base: number): { text: string; close: number } {
  let text = '';
  for (let index = open + 1; index < source.length; index++) {
    const character = source[index]!;
    if (character === '`') return { text, close: index };
    if (character === '\\' && index + 1 < source.length) {
      const escaped = source[index + 1]!;
      text += '\\$`'.includes(escaped) ? escaped : character + escaped;
      index++;
    } else text += character;
  }
  throw new ShellSyntaxError('unterminated backtick', base + open);
}
