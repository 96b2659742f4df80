/**
 * A reward as BenchFlow reads and compares it, so that the bundle's statements of its reward are judged
 * by BenchFlow's own arithmetic:
 * - reward.txt is read by Python's `float()` (`task/verifier_core.py` `_parse_reward_text`): the text
 *   with whitespace around it, a sign, digits with single underscores between them, a fraction, an
 *   exponent, or inf, infinity and nan in any case. So "1", "1.0", "1.0\n" and "+1e0" are all 1.
 * - two statements of the reward agree when `math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)`: the test
 *   BenchFlow's verifier applies to reward.json against reward.txt before it accepts either.
 */

/** ASCII whitespace, which Python's float() strips; any other character around the number makes it unreadable here. */
const whitespace = /^[ \t\n\v\f\r]*/;
const trailingWhitespace = /[ \t\n\v\f\r]*$/;

const digits = String.raw`\d(?:_?\d)*`;
const exponent = String.raw`(?:[eE][+-]?${digits})`;
/** Python's float literal (ASCII digits only: a reward written in other digits is not read as one here). */
const pythonFloat = new RegExp(
  String.raw`^[+-]?(?:(?:${digits})?\.${digits}${exponent}?|${digits}\.?${exponent}?|inf(?:inity)?|nan)$`,
  'i',
);

/** The number in reward.txt as Python's float() reads it, with where it stands; undefined when float() would refuse it. */
export function rewardFromText(
  text: string,
): { readonly value: number; readonly start: number; readonly end: number } | undefined {
  const start = whitespace.exec(text)![0].length;
  const end = Math.max(start, text.length - trailingWhitespace.exec(text)![0].length);
  const literal = text.slice(start, end);
  if (!pythonFloat.test(literal)) return undefined;
  return { value: pythonFloatValue(literal), start, end };
}

function pythonFloatValue(literal: string): number {
  const sign = literal.startsWith('-') ? -1 : 1;
  const unsigned = literal.replace(/^[+-]/, '').toLowerCase();
  if (unsigned === 'nan') return Number.NaN;
  if (unsigned.startsWith('inf')) return sign * Number.POSITIVE_INFINITY;
  // Both read a decimal literal to the nearest double.
  return sign * Number(unsigned.replaceAll('_', ''));
}

const tolerance = 1e-9;

/** Python's math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9): NaN agrees with nothing, an infinity only with itself. */
export function rewardsAgree(a: number, b: number): boolean {
  if (a === b) return true;
  if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
  const difference = Math.abs(a - b);
  return difference <= tolerance * Math.max(Math.abs(a), Math.abs(b)) || difference <= tolerance;
}
