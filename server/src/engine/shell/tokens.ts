/**
 * Splits shell text into words and operators with their spans: quotes, escapes, line continuations,
 * `$(…)`, backticks, `${…}`, comments and here-documents are honoured; an unterminated quote or
 * substitution is a ShellSyntaxError at the place it opened. Tokens are produced as they are asked for.
 */
import { ShellSyntaxError, type CommandList, type Word } from './syntax';

export type Token =
  | { readonly type: 'word'; readonly word: Word }
  | { readonly type: 'operator'; readonly value: string; readonly start: number; readonly end: number };

const operators = ['&&', '||', ';;', '<<<', '<<-', '<<', '>>', '<&', '>&', '<>', '>|', '&>', ';', '&', '|', '(', ')', '<', '>', '\n'];
const metacharacters = new Set([' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>']);
const operatorStarts = new Set([';', '&', '|', '(', ')', '<', '>', '\n']);

/** Parses the text of a substitution; supplied by the parser to avoid a module cycle. */
export type SubstitutionParser = (source: string, base: number) => CommandList;

export function* tokenize(source: string, base: number, parseSubstitution: SubstitutionParser): Generator<Token, void, undefined> {
  const pendingHereDocuments: { delimiter: string; stripTabs: boolean }[] = [];
  let index = 0;
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
    const operator = operatorStarts.has(character) ? operators.find((candidate) => source.startsWith(candidate, index)) : undefined;
    if (operator) {
      yield { type: 'operator', value: operator, start: base + index, end: base + index + operator.length };
      index += operator.length;
      if (operator === '<<' || operator === '<<-') {
        // The delimiter is also the next token: read it once, as reading a word parses its substitutions.
        const delimiter = readWord(source, skipBlanks(source, index), base, parseSubstitution);
        if (delimiter) {
          pendingHereDocuments.push({ delimiter: delimiter.word.text, stripTabs: operator === '<<-' });
          yield { type: 'word', word: delimiter.word };
          index = delimiter.next;
        }
      }
      if (operator === '\n' && pendingHereDocuments.length > 0) {
        index = skipHereDocuments(source, index, pendingHereDocuments.splice(0), base);
      }
      continue;
    }
    const read = readWord(source, index, base, parseSubstitution)!;
    yield { type: 'word', word: read.word };
    index = read.next;
  }
}

function skipBlanks(source: string, index: number): number {
  while (source[index] === ' ' || source[index] === '\t') index++;
  return index;
}

function skipHereDocuments(source: string, index: number, documents: readonly { delimiter: string; stripTabs: boolean }[], base: number): number {
  for (const { delimiter, stripTabs } of documents) {
    for (;;) {
      if (index >= source.length) throw new ShellSyntaxError(`here-document not closed by "${delimiter}"`, base + index);
      const end = source.indexOf('\n', index);
      const line = source.slice(index, end === -1 ? source.length : end);
      index = end === -1 ? source.length : end + 1;
      if ((stripTabs ? line.replace(/^\t+/, '') : line) === delimiter) break;
    }
  }
  return index;
}

/** Reads one word starting at `start`; returns undefined when there is none there. */
function readWord(source: string, start: number, base: number, parseSubstitution: SubstitutionParser): { word: Word; next: number } | undefined {
  let index = start;
  let text = '';
  let quoted = false;
  const substitutions: CommandList[] = [];
  const substitute = (open: number, innerStart: number, innerEnd: number, after: number) => {
    substitutions.push(parseSubstitution(source.slice(innerStart, innerEnd), base + innerStart));
    text += source.slice(open, after);
    index = after;
  };
  /** Reads a command substitution, $(…) (not the arithmetic $((…))) or `…`, when one starts here, quoted or not. */
  const readsSubstitution = (): boolean => {
    if (source[index] === '$' && source[index + 1] === '(' && source[index + 2] !== '(') {
      const close = matchingParenthesis(source, index + 1, base);
      substitute(index, index + 2, close, close + 1);
      return true;
    }
    if (source[index] === '`') {
      const close = closingBacktick(source, index, base);
      substitute(index, index + 1, close, close + 1);
      return true;
    }
    return false;
  };

  while (index < source.length && !metacharacters.has(source[index]!)) {
    const character = source[index]!;
    if (character === '\\' && source[index + 1] === '\n') {
      // A line continuation: both characters go and the word carries on.
      index += 2;
    } else if (character === '\\' && index + 1 < source.length) {
      quoted = true;
      text += source[index + 1]!;
      index += 2;
    } else if (character === "'") {
      const close = source.indexOf("'", index + 1);
      if (close === -1) throw new ShellSyntaxError('unterminated single quote', base + index);
      quoted = true;
      text += source.slice(index + 1, close);
      index = close + 1;
    } else if (character === '"') {
      quoted = true;
      const open = index;
      index++;
      for (;;) {
        if (index >= source.length) throw new ShellSyntaxError('unterminated double quote', base + open);
        const inner = source[index]!;
        if (inner === '"') {
          index++;
          break;
        }
        const escaped = source[index + 1];
        if (inner === '\\' && escaped === '\n') {
          index += 2; // a line continuation, as outside quotes
        } else if (inner === '\\' && escaped !== undefined && '"\\$`'.includes(escaped)) {
          text += escaped;
          index += 2;
        } else if (!readsSubstitution()) {
          text += inner;
          index++;
        }
      }
    } else if (character === '$' && source[index + 1] === '(' && source[index + 2] === '(') {
      // Arithmetic expansion: no command runs inside.
      const close = matchingParenthesis(source, index + 1, base);
      text += source.slice(index, close + 1);
      index = close + 1;
    } else if (character === '$' && source[index + 1] === '{') {
      const close = source.indexOf('}', index + 2);
      if (close === -1) throw new ShellSyntaxError('unterminated ${', base + index);
      text += source.slice(index, close + 1);
      index = close + 1;
    } else if (!readsSubstitution()) {
      // Also a backslash that ends the text: it escapes nothing and stays as written.
      text += character;
      index++;
    }
  }
  if (index === start) return undefined;
  return { word: { text, quoted, substitutions, start: base + start, end: base + index }, next: index };
}

/** Index of the `)` closing the `(` at `open`, skipping quotes and nested parentheses. */
function matchingParenthesis(source: string, open: number, base: number): number {
  let depth = 0;
  for (let index = open; index < source.length; index++) {
    const character = source[index]!;
    if (character === '\\') index++;
    else if (character === "'") {
      const close = source.indexOf("'", index + 1);
      if (close === -1) throw new ShellSyntaxError('unterminated single quote', base + index);
      index = close;
    } else if (character === '"') {
      index = closingDoubleQuote(source, index, base);
    } else if (character === '(') depth++;
    else if (character === ')' && --depth === 0) return index;
  }
  throw new ShellSyntaxError('unterminated $(', base + open - 1);
}

function closingDoubleQuote(source: string, open: number, base: number): number {
  for (let index = open + 1; index < source.length; index++) {
    if (source[index] === '\\') index++;
    else if (source[index] === '"') return index;
  }
  throw new ShellSyntaxError('unterminated double quote', base + open);
}

function closingBacktick(source: string, open: number, base: number): number {
  for (let index = open + 1; index < source.length; index++) {
    if (source[index] === '\\') index++;
    else if (source[index] === '`') return index;
  }
  throw new ShellSyntaxError('unterminated backtick', base + open);
}
