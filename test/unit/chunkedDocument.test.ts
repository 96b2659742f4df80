/**
 * The server's document store must read every edit exactly as LSP (and VS Code's own text document)
 * does, and its cost per edit must not grow with the document's length (issue 11: 62–65 ms per edit of
 * an 11 MB document inside vscode-languageserver-textdocument).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TextDocument, type Range, type TextDocumentContentChangeEvent } from 'vscode-languageserver-textdocument';
import { ChangeOutsideDocument, ChunkedDocument } from '../../server/src/lsp/chunkedDocument';
import { heapUsedAfterCollection } from '../support/gc';
import { seededRandom, type SeededRandom } from '../support/random';

const megabyte = 1024 * 1024;

const pieces = ['{"a":1}', 'x', '\r', '\n', '\r\n', '\r\r\n', 'é', '😀', '\ud83d', '  ', '{"c":[1,2]}'];

function randomText(random: SeededRandom, size: number): string {
  const parts: string[] = [];
  for (let index = 0; index < size; index++) parts.push(pieces[random.below(pieces.length)]!);
  return parts.join('');
}

/** A range anywhere in the document, now and then with a character past the end of its line. */
function randomRange(random: SeededRandom, reference: TextDocument): Range {
  const position = () => ({
    line: random.below(reference.lineCount),
    character: random.below(random.below(8) === 0 ? 200 : 12),
  });
  const start = position();
  const spread = random.below(6) === 0 ? random.below(reference.lineCount) : random.below(3);
  const end = { line: Math.min(reference.lineCount - 1, start.line + spread), character: random.below(30) };
  // Now and then backwards: LSP readers put the ends in order.
  return random.below(10) === 0 ? { start: end, end: start } : { start, end };
}

function assertSame(document: ChunkedDocument, reference: TextDocument, random: SeededRandom, what: string): void {
  assert.equal(document.getText(), reference.getText(), `${what}: text`);
  assert.equal(document.lineCount, reference.lineCount, `${what}: line count`);
  assert.equal(document.version, reference.version, `${what}: version`);
  const length = reference.getText().length;
  for (let probe = 0; probe < 20; probe++) {
    const offset = random.below(length + 3) - 1;
    assert.deepEqual(document.positionAt(offset), reference.positionAt(offset), `${what}: positionAt(${offset})`);
    const position = { line: random.below(reference.lineCount + 2), character: random.below(40) };
    assert.equal(
      document.offsetAt(position),
      reference.offsetAt(position),
      `${what}: offsetAt(${JSON.stringify(position)})`,
    );
    const line = random.below(reference.lineCount + 2) - 1;
    assert.deepEqual(document.getLineRange(line), reference.getLineRange(line), `${what}: getLineRange(${line})`);
    assert.equal(
      document.getEOLCharacters(line),
      reference.getEOLCharacters(line),
      `${what}: getEOLCharacters(${line})`,
    );
    const range = randomRange(random, reference);
    const ordered =
      reference.offsetAt(range.start) <= reference.offsetAt(range.end) ? range : { start: range.end, end: range.start };
    assert.equal(document.getText(ordered), reference.getText(ordered), `${what}: getText(${JSON.stringify(ordered)})`);
  }
}

describe('chunked document', () => {
  it('after any sequence of edits, reads as VS Code’s text document does: text, lines, positions, line endings', () => {
    for (let seed = 1; seed <= 12; seed++) {
      const random = seededRandom(seed);
      // Big enough for many chunks (of about 8,000 characters), so that edits meet chunk boundaries.
      const text = randomText(random, seed % 4 === 0 ? 0 : 6_000 + random.below(12_000));
      let document = ChunkedDocument.create('file:///r/a.jsonl', 'jsonl', 1, text);
      let reference = TextDocument.create('file:///r/a.jsonl', 'jsonl', 1, text);
      assertSame(document, reference, random, `seed ${seed}, opened`);
      for (let edit = 0; edit < 150; edit++) {
        const version = reference.version + 1;
        const changes: TextDocumentContentChangeEvent[] = [];
        if (random.below(60) === 0) changes.push({ text: randomText(random, random.below(3_000)) });
        else {
          for (let count = 1 + random.below(3); count > 0; count--) {
            // Each range is read against the text the changes before it left, so it is drawn from that text.
            const change = {
              range: randomRange(random, reference),
              text: randomText(random, random.below(random.below(20) === 0 ? 20_000 : 4)),
            };
            reference = TextDocument.update(reference, [change], reference.version);
            changes.push(change);
          }
        }
        if (changes.length === 1 && !('range' in changes[0]!))
          reference = TextDocument.update(reference, changes, version);
        reference = TextDocument.update(reference, [], version);
        const before = document;
        const beforeText = before.getText();
        document = document.withChanges(changes, version);
        assert.equal(
          before.getText(),
          beforeText,
          `seed ${seed}, edit ${edit}: the previous version is left as it was`,
        );
        assertSame(document, reference, random, `seed ${seed}, edit ${edit}`);
      }
    }
  });

  it('reads as VS Code’s text document does when edits come in runs between joins of the whole text', () => {
    // A version that never had its whole text asked for keeps chunks viewing the text of an older one:
    // each run of edits here mixes chunks of several joins, and of the text as opened.
    for (let seed = 21; seed <= 28; seed++) {
      const random = seededRandom(seed);
      const text = randomText(random, 6_000 + random.below(12_000));
      let document = ChunkedDocument.create('file:///r/a.jsonl', 'jsonl', 1, text);
      let reference = TextDocument.create('file:///r/a.jsonl', 'jsonl', 1, text);
      for (let edit = 0; edit < 120; edit++) {
        const change = {
          range: randomRange(random, reference),
          text: randomText(random, random.below(random.below(20) === 0 ? 20_000 : 4)),
        };
        reference = TextDocument.update(reference, [change], reference.version + 1);
        document = document.withChanges([change], reference.version);
        if (random.below(5) === 0) assertSame(document, reference, random, `seed ${seed}, edit ${edit}`);
      }
      assertSame(document, reference, random, `seed ${seed}, last edit`);
    }
  });

  it('holds its text once: as opened, and after an edit once joined, the text it was opened with let go', () => {
    const actionLog = (): string => {
      const rows: string[] = [];
      for (let index = 0; index < 200_000; index++)
        rows.push(JSON.stringify({ event_type: 'SandboxExec', action_id: `a-${index}`, command_preview: 'ls -la' }));
      return `${rows.join('\n')}\n`;
    };
    const before = heapUsedAfterCollection();
    let text: string | undefined = actionLog();
    const textBytes = text.length; // One byte a character: the text is ASCII.
    let document = ChunkedDocument.create('file:///r/a.jsonl', 'jsonl', 1, text);
    text = undefined;
    assert.equal(document.getText().length, textBytes);
    const opened = heapUsedAfterCollection() - before;
    const at = { line: 100_000, character: 3 };
    document = document.withChanges([{ range: { start: at, end: at }, text: 'x' }], 2);
    assert.equal(document.getText().length, textBytes + 1);
    const edited = heapUsedAfterCollection() - before;
    const copies = (bytes: number) => (bytes / textBytes).toFixed(2);
    // One copy and the table of chunks (its line breaks: about 0.15 of a copy here); a store that copied
    // its chunks and kept a joined text held two.
    assert.ok(
      opened < textBytes * 1.5,
      `${(textBytes / megabyte).toFixed(0)} MB opened and read whole: ${copies(opened)} copies held`,
    );
    assert.ok(
      edited < textBytes * 1.5,
      `${(textBytes / megabyte).toFixed(0)} MB edited and read whole: ${copies(edited)} copies held`,
    );
  });

  it('refuses a change on a line the document does not have, and changes nothing', () => {
    const document = ChunkedDocument.create('file:///r/a.jsonl', 'jsonl', 3, '{"a":1}\n{"b":2}\n');
    assert.throws(
      () =>
        document.withChanges(
          [{ range: { start: { line: 3, character: 0 }, end: { line: 3, character: 0 } }, text: 'x' }],
          4,
        ),
      ChangeOutsideDocument,
    );
    // The second change reads the text the first left: after deleting line 1, there is no line 2.
    const deleting = { range: { start: { line: 1, character: 0 }, end: { line: 2, character: 0 } }, text: '' };
    const onLineTwo = { range: { start: { line: 2, character: 0 }, end: { line: 2, character: 0 } }, text: 'x' };
    assert.throws(() => document.withChanges([deleting, onLineTwo], 4), ChangeOutsideDocument);
    assert.equal(document.getText(), '{"a":1}\n{"b":2}\n');
    assert.equal(document.version, 3);
  });

  it('an edit costs no more in a 300,000-line document than in a 3,000-line one', () => {
    // CPU time of the same 2,000 one-character edits: a store that rebuilds its text per edit costs 100x more on the larger.
    const costOf = (lines: number): number => {
      const row = `${JSON.stringify({ event_type: 'SandboxExec', phase: 'Agent', status: 'ok', command_preview: 'ls -la /app/src', return_code: 0 })}\n`;
      let document = ChunkedDocument.create('file:///r/a.jsonl', 'jsonl', 1, row.repeat(lines));
      const started = process.cpuUsage();
      for (let edit = 0; edit < 2_000; edit++) {
        const line = (edit * 7_919) % lines;
        document = document.withChanges(
          [{ range: { start: { line, character: 5 }, end: { line, character: 6 } }, text: edit % 2 === 0 ? 'y' : 'v' }],
          document.version + 1,
        );
      }
      const used = process.cpuUsage(started);
      assert.equal(document.lineCount, lines + 1);
      return used.user + used.system;
    };
    // The least of three runs, and a wide margin: the larger document's heap makes its collections and
    // cache misses dearer under a loaded suite (one run measured 10x), while a store that copies its
    // 30 MB text per edit spends seconds on these 2,000 edits, far past the bound either way.
    const leastOf = (lines: number) => Math.min(costOf(lines), costOf(lines), costOf(lines));
    const small = leastOf(3_000);
    const large = leastOf(300_000);
    assert.ok(
      large < small * 10 + 1_000_000,
      `2,000 edits: ${(small / 1000).toFixed(0)} ms of CPU at 3,000 lines, ${(large / 1000).toFixed(0)} ms at 300,000`,
    );
  });
});
