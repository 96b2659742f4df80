/**
 * Text made printable (engine/text/printable.ts): every character that could forge a line or rewrite a
 * terminal is written as its escape, and every other one is kept as it is.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { printable, printableLines } from '../../server/src/engine/text/printable';

describe('printable', () => {
  it('escapes line breaks, ESC and the other C0 controls, DEL and the C1 controls', () => {
    assert.equal(printable('a\nverdict trusted'), 'a\\nverdict trusted');
    assert.equal(printable('\r\t\u0000\u0007\u001b[31m'), '\\r\\t\\u0000\\u0007\\u001b[31m');
    assert.equal(printable('\u007f\u0085\u009b2J'), '\\u007f\\u0085\\u009b2J');
  });

  it('escapes the Unicode line separators and the bidirectional controls', () => {
    assert.equal(printable('a\u2028b\u2029c'), 'a\\u2028b\\u2029c');
    assert.equal(
      printable('\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c'),
      '\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069\\u200e\\u200f\\u061c',
    );
  });

  it('keeps every other character, backslashes, quotes and non-ASCII letters included, and is idempotent', () => {
    const ordinary = 'jobs/2026 run/héllo wörld ✓ 日本 \\n "quoted" €';
    assert.equal(printable(ordinary), ordinary);
    const escaped = printable('x\n\u001b\u202e');
    assert.equal(printable(escaped), escaped);
  });

  it('printableLines keeps the line breaks of text that is several lines on purpose', () => {
    assert.equal(printableLines('first \u001b[2J\nsecond\u2028\n'), 'first \\u001b[2J\nsecond\\u2028\n');
  });
});
