import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  isTerminated,
  layoutOf,
  lineCount,
  lineText,
  relayout,
  type LineLayout,
} from '../../server/src/engine/text/lineLayout';
import { seededRandom, type SeededRandom } from '../support/random';

function lines(layout: LineLayout): { text: string; terminated: boolean }[] {
  return Array.from({ length: lineCount(layout) }, (_, index) => ({
    text: lineText(layout, index),
    terminated: isTerminated(layout, index),
  }));
}

const pieces = ['{"a":1}', '{"b":"x\\ny"}', '', '  ', '\r', '\n', '\r\n', 'é', '😀', '\uFEFF', '{"c":[1,2]}'];

function randomText(random: SeededRandom, size: number): string {
  let text = random.fraction() < 0.2 ? '\uFEFF' : '';
  for (let index = 0; index < size; index++)
    text += pieces[random.below(pieces.length)]! + (random.fraction() < 0.7 ? '\n' : '');
  return text;
}

/** Replaces a random span of `text` with random pieces: inside a line, across lines, at either end. */
function randomEdit(random: SeededRandom, text: string): string {
  const start = random.below(text.length + 1);
  const end = Math.min(text.length, start + random.below(12));
  return text.slice(0, start) + randomText(random, random.below(3)).replace(/^\uFEFF/, '') + text.slice(end);
}

describe('line layout', () => {
  it('splits as the JSONL rules say: LF and CRLF, a leading byte order mark, an unterminated last line', () => {
    assert.deepEqual(lines(layoutOf('{"a":1}\r\n\n{"b":2}')), [
      { text: '{"a":1}', terminated: true },
      { text: '', terminated: true },
      { text: '{"b":2}', terminated: false },
    ]);
    assert.deepEqual(lines(layoutOf('\uFEFF{"a":1}\n')), [{ text: '{"a":1}', terminated: true }]);
    assert.deepEqual(lines(layoutOf('')), []);
    assert.deepEqual(lines(layoutOf('\uFEFF')), []);
    assert.deepEqual(lines(layoutOf('\n')), [{ text: '', terminated: true }]);
  });

  it('keeps a byte order mark that is not at the start of the text', () => {
    assert.deepEqual(
      lines(layoutOf('{}\n\uFEFF{}\n')).map((line) => line.text),
      ['{}', '\uFEFF{}'],
    );
  });

  it('after any edit, lays the text out exactly as from scratch, and maps only lines that are truly unchanged', () => {
    for (let seed = 1; seed <= 400; seed++) {
      const random = seededRandom(seed);
      let layout = layoutOf(randomText(random, random.below(30)));
      for (let edit = 0; edit < 5; edit++) {
        const text = randomEdit(random, layout.text);
        const relaid = relayout(layout, text);
        const fresh = layoutOf(text);
        assert.deepEqual(
          relaid.layout.starts,
          fresh.starts,
          `seed ${seed}, edit ${edit}: ${JSON.stringify(layout.text)} → ${JSON.stringify(text)}`,
        );
        for (let index = 0; index < lineCount(fresh); index++) {
          const before =
            index < relaid.unchangedBefore ? index : index >= relaid.unchangedFrom ? index - relaid.shift : -1;
          if (before === -1) continue;
          assert.equal(lineText(layout, before), lineText(fresh, index), `seed ${seed}, edit ${edit}, line ${index}`);
          assert.equal(
            isTerminated(layout, before),
            isTerminated(fresh, index),
            `seed ${seed}, edit ${edit}, line ${index}`,
          );
        }
        layout = relaid.layout;
      }
    }
  });

  it('after a one-line edit of a long text, takes over every other line', () => {
    const rows = Array.from({ length: 10_000 }, (_, index) => `{"n":${index}}`);
    const layout = layoutOf(`${rows.join('\n')}\n`);
    const edited = [...rows];
    edited[6000] = '{"n":"changed"}';
    const relaid = relayout(layout, `${edited.join('\n')}\n`);
    assert.equal(relaid.unchangedBefore, 6000);
    assert.equal(relaid.unchangedFrom, 6001);
    assert.equal(relaid.shift, 0);

    const inserted = [...rows.slice(0, 100), '{"new":1}', '{"new":2}', ...rows.slice(100)];
    const grown = relayout(layout, `${inserted.join('\n')}\n`);
    assert.equal(grown.unchangedBefore, 100);
    assert.equal(grown.unchangedFrom, 102);
    assert.equal(grown.shift, 2);
  });
});
