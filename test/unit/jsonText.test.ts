import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseJsonText } from '../../server/src/engine/parse/jsonText';

function failure(text: string) {
  const outcome = parseJsonText(text);
  assert.equal(outcome.ok, false, `expected ${JSON.stringify(text.slice(0, 40))} to fail`);
  return outcome as Extract<typeof outcome, { ok: false }>;
}

describe('JSON text parsing', () => {
  it('returns the value of valid JSON', () => {
    assert.deepEqual(parseJsonText(' {"a":[1,2]} '), { ok: true, value: { a: [1, 2] } });
  });

  it('places a missing comma on the token where the comma should be', () => {
    const error = failure('{"a":1 "b":2}');
    assert.equal(error.offset, 7);
    assert.match(error.message, /Expected ','/);
  });

  it('puts a trailing comma on the comma itself', () => {
    const text = '{"a":1, }';
    const error = failure(text);
    assert.equal(error.offset, text.indexOf(','));
    assert.equal(error.length, 1);
    assert.match(error.message, /Trailing comma before '}'/);
    assert.equal(failure('[1,2,]').offset, 4);
  });

  it('names an unterminated string and a missing value', () => {
    assert.match(failure('{"a":"x').message, /Unterminated string/);
    const missing = failure('{"a":}');
    assert.equal(missing.offset, 5);
    assert.match(missing.message, /Expected a value/);
  });

  it('says when the text holds NUL bytes', () => {
    const error = failure('{"a":1}\u0000\u0000');
    assert.match(error.message, /NUL bytes/);
    assert.equal(error.offset, 7);
  });

  it('rejects comments, which JSON does not have', () => {
    assert.match(failure('{"a":1} // note').message, /Comments are not allowed/);
  });

  it('points at the character that is wrong inside a string', () => {
    const control = failure('{"a":"tab\there"}');
    assert.equal(control.offset, 9);
    assert.equal(control.message, 'Control character U+0009 must be escaped inside a string.');
    const escape = failure('{"a":"x\\qy"}');
    assert.deepEqual([escape.offset, escape.length], [7, 2]);
    assert.match(escape.message, /Invalid escape sequence/);
    const unicode = failure('{"a":"\\u12"}');
    assert.equal(unicode.offset, 6);
    assert.match(unicode.message, /four hexadecimal digits/);
  });

  it('survives nesting deep enough to exhaust a recursive parser', () => {
    const deep = '['.repeat(200_000);
    const error = failure(deep);
    assert.equal(typeof error.message, 'string');
    assert.ok(error.offset >= 0 && error.offset + error.length <= deep.length);
  });
});
