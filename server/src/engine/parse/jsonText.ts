/**
 * Strict JSON parsing with an exact error location. `JSON.parse` is fast but its errors carry no
 * reliable position, so the scanner of jsonc-parser runs only on text that has already failed.
 */
import { ParseErrorCode, parse as parseTolerant, type ParseError } from 'jsonc-parser';
import { errorMessage } from '../../../../shared/src/errors';
import { quotedText } from './jsonKind';

export type JsonParseOutcome =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly offset: number; readonly length: number; readonly message: string };

export function parseJsonText(text: string): JsonParseOutcome {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, ...locateSyntaxError(text, error) };
  }
}

function locateSyntaxError(text: string, parseFailure: unknown): { offset: number; length: number; message: string } {
  const errors: ParseError[] = [];
  try {
    parseTolerant(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  } catch {
    // The tolerant parser recurses per nesting level; a pathologically deep value can exhaust the stack.
    errors.length = 0;
  }
  const nul = text.indexOf('\u0000');
  const nulNote = nul === -1 ? '' : ' The text contains NUL bytes: is this a binary file?';
  const first = errors[0];
  if (!first) {
    return { offset: 0, length: text.length, message: `Not valid JSON: ${errorMessage(parseFailure)}.${nulNote}` };
  }
  const trailingComma = trailingCommaBefore(text, first);
  if (trailingComma !== -1) {
    return {
      offset: trailingComma,
      length: 1,
      message: `Trailing comma before '${text[first.offset]}': JSON allows none.${nulNote}`,
    };
  }
  const inString = badCharacterInString(text, first);
  if (inString) return { ...inString, message: `${inString.message}${nulNote}` };
  const length = Math.max(1, Math.min(first.length, text.length - first.offset));
  const found = describeTextAt(text, first.offset);
  return { offset: first.offset, length, message: `${explainParseError(first.error)}, found ${found}.${nulNote}` };
}

/** The most common hand-editing slip gets its own message, placed on the comma itself. */
function trailingCommaBefore(text: string, error: ParseError): number {
  const closing = text[error.offset];
  if (closing !== '}' && closing !== ']') return -1;
  if (error.error !== ParseErrorCode.PropertyNameExpected && error.error !== ParseErrorCode.ValueExpected) return -1;
  let index = error.offset - 1;
  while (index >= 0 && /\s/.test(text[index]!)) index--;
  return text[index] === ',' ? index : -1;
}

/**
 * The scanner reports string faults on the whole string token; point at the character that is wrong.
 */
function badCharacterInString(
  text: string,
  error: ParseError,
): { offset: number; length: number; message: string } | undefined {
  const end = Math.min(text.length, error.offset + error.length);
  for (let index = error.offset + 1; index < end; index++) {
    const code = text.charCodeAt(index);
    if (error.error === ParseErrorCode.InvalidCharacter && code < 0x20) {
      return {
        offset: index,
        length: 1,
        message: `Control character ${codeUnitLabel(code)} must be escaped inside a string.`,
      };
    }
    if (text[index] !== '\\') continue;
    const escape = text.slice(index, index + 6);
    if (error.error === ParseErrorCode.InvalidEscapeCharacter && !/^\\["\\/bfnrtu]/.test(escape)) {
      return {
        offset: index,
        length: 2,
        message: `Invalid escape sequence ${JSON.stringify(escape.slice(0, 2))} in a string.`,
      };
    }
    if (error.error === ParseErrorCode.InvalidUnicode && escape[1] === 'u' && !/^\\u[0-9a-fA-F]{4}$/.test(escape)) {
      return { offset: index, length: escape.length, message: 'Invalid \\u escape: it needs four hexadecimal digits.' };
    }
    index++;
  }
  return undefined;
}

function describeTextAt(text: string, offset: number): string {
  if (offset >= text.length) return 'the end of the text';
  const character = text[offset]!;
  if (character === '\u0000') return 'a NUL byte';
  const code = character.charCodeAt(0);
  if (code < 0x20) return `control character ${codeUnitLabel(code)}`;
  // One character past what is shown, so that a longer word is marked as cut.
  const token = /^[A-Za-z0-9_.+-]{1,13}/.exec(text.slice(offset, offset + 13))?.[0] ?? character;
  return quotedText(token);
}

function explainParseError(code: ParseErrorCode): string {
  switch (code) {
    case ParseErrorCode.InvalidSymbol:
      return 'Unexpected symbol';
    case ParseErrorCode.InvalidNumberFormat:
      return 'Malformed number';
    case ParseErrorCode.PropertyNameExpected:
      return 'Expected a property name in double quotes';
    case ParseErrorCode.ValueExpected:
      return 'Expected a value';
    case ParseErrorCode.ColonExpected:
      return "Expected ':' after the property name";
    case ParseErrorCode.CommaExpected:
      return "Expected ','";
    case ParseErrorCode.CloseBraceExpected:
      return "Expected ',' or '}'";
    case ParseErrorCode.CloseBracketExpected:
      return "Expected ',' or ']'";
    case ParseErrorCode.EndOfFileExpected:
      return 'Expected the end of the value';
    case ParseErrorCode.InvalidCommentToken:
      return 'Comments are not allowed in JSON';
    case ParseErrorCode.UnexpectedEndOfComment:
      return 'Unterminated comment';
    case ParseErrorCode.UnexpectedEndOfString:
      return 'Unterminated string';
    case ParseErrorCode.UnexpectedEndOfNumber:
      return 'Unterminated number';
    case ParseErrorCode.InvalidUnicode:
      return 'Invalid \\u escape';
    case ParseErrorCode.InvalidEscapeCharacter:
      return 'Invalid escape sequence';
    case ParseErrorCode.InvalidCharacter:
      return 'Invalid character in a string (control characters must be escaped)';
    default:
      return 'Invalid JSON';
  }
}

/** U+000A and the like. */
function codeUnitLabel(code: number): string {
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}
