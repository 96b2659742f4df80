import assert from 'node:assert/strict';
import { appendFileSync, closeSync, openSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  linesOfFile,
  linesOfText,
  type FileLineOptions,
  type FileReading,
  type SourceLine,
} from '../../server/src/engine/text/sourceLines';
import { temporaryFolder } from '../support/repo';

const folder = temporaryFolder();
after(() => folder.remove());

function plain(lines: Iterable<SourceLine>) {
  return [...lines].map(({ number, text, terminated }) => ({ number, text, terminated }));
}

/** No limit a test's file comes near. */
const unlimited = { maxLineBytes: 1 << 20, maxFileBytes: Number.MAX_SAFE_INTEGER };

function* linesOnly(readings: Iterable<FileReading>): Generator<SourceLine> {
  for (const reading of readings) if (!('read' in reading)) yield reading;
}

function newPath(): string {
  return join(folder.path, `f${Math.random().toString(36).slice(2)}.jsonl`);
}

/** Everything the reading of `content` yields, lines and the rest. */
function fileReadings(content: string | Buffer, options: Partial<FileLineOptions>): FileReading[] {
  const path = newPath();
  writeFileSync(path, content);
  const descriptor = openSync(path, 'r');
  try {
    return [...linesOfFile(descriptor, { ...unlimited, ...options })];
  } finally {
    closeSync(descriptor);
  }
}

function fileLines(content: string | Buffer, chunkBytes?: number, maxLineBytes = 1 << 20): SourceLine[] {
  return [...linesOnly(fileReadings(content, { maxLineBytes, ...(chunkBytes ? { chunkBytes } : {}) }))];
}

const samples: Record<string, string> = {
  'LF endings': '{"a":1}\n{"b":2}\n',
  'CRLF endings': '{"a":1}\r\n{"b":2}\r\n',
  'a byte order mark': '\uFEFF{"a":1}\n{"b":2}\n',
  'blank lines': '{"a":1}\n\n   \n{"b":2}\n',
  'no newline at the end': '{"a":1}\n{"b":2}',
  'multi-byte text': '{"t":"héllo – 世界 😀"}\n{"u":"ü"}\n',
  'an empty text': '',
  'a lone newline': '\n',
};

function openFile(content: string): number {
  const path = newPath();
  writeFileSync(path, content);
  return openSync(path, 'r');
}

describe('source lines', () => {
  it('keeps each read its own bytes when reads overlap, follow an abandoned read, or reuse a finished one', () => {
    // Reads share spare chunk buffers; a buffer handed to two live reads would mix their lines.
    const contents = ['{"a":1}\n{"a":2}\n{"a":3}', '{"bb":1}\n{"bb":2}\n', 'x'.repeat(5000) + '\ny\n'];
    const descriptors = contents.map(openFile);
    try {
      const abandoned = linesOnly(linesOfFile(openFile('{"gone":1}\n{"gone":2}\n'), unlimited));
      abandoned.next();
      const [first, second, third] = descriptors.map((descriptor) => linesOnly(linesOfFile(descriptor, unlimited)));
      const interleaved: string[][] = [[], [], []];
      for (let step = 0; step < 3; step++) {
        [first, second, third].forEach((lines, index) => {
          const next = lines!.next();
          if (!next.done) interleaved[index]!.push(next.value.text);
        });
      }
      abandoned.return(undefined);
      const later = plain(fileLines('{"c":1}\n'));
      assert.deepEqual(interleaved, [
        ['{"a":1}', '{"a":2}', '{"a":3}'],
        ['{"bb":1}', '{"bb":2}'],
        ['x'.repeat(5000), 'y'],
      ]);
      assert.deepEqual(later, [{ number: 0, text: '{"c":1}', terminated: true }]);
    } finally {
      descriptors.forEach((descriptor) => closeSync(descriptor));
    }
  });

  it('splits LF and CRLF the same way and drops the carriage return', () => {
    assert.deepEqual(plain(linesOfText(samples['CRLF endings']!)), plain(linesOfText(samples['LF endings']!)));
    assert.deepEqual(plain(linesOfText('{"a":1}\r\n{"b":2}\r\n')), [
      { number: 0, text: '{"a":1}', terminated: true },
      { number: 1, text: '{"b":2}', terminated: true },
    ]);
  });

  it('drops a leading byte order mark without shifting columns', () => {
    assert.equal([...linesOfText(samples['a byte order mark']!)][0]!.text, '{"a":1}');
  });

  it('keeps blank lines so that line numbers stay those of the file', () => {
    assert.deepEqual(
      plain(linesOfText(samples['blank lines']!)).map((line) => [line.number, line.text]),
      [
        [0, '{"a":1}'],
        [1, ''],
        [2, '   '],
        [3, '{"b":2}'],
      ],
    );
  });

  it('marks only an unterminated last line', () => {
    const lines = plain(linesOfText(samples['no newline at the end']!));
    assert.deepEqual(
      lines.map((line) => line.terminated),
      [true, false],
    );
    assert.deepEqual(plain(linesOfText('')), []);
    assert.deepEqual(plain(linesOfText('\n')), [{ number: 0, text: '', terminated: true }]);
  });

  for (const [name, text] of Object.entries(samples)) {
    it(`streams a file with ${name} into the same lines as the text, across tiny chunks`, () => {
      const expected = plain(linesOfText(text));
      assert.deepEqual(plain(fileLines(text)), expected);
      // Chunks of 1–3 bytes split CRLF pairs, the BOM and multi-byte characters across reads.
      for (const chunkBytes of [1, 2, 3])
        assert.deepEqual(plain(fileLines(text, chunkBytes)), expected, `chunk ${chunkBytes}`);
    });
  }

  it('places the first byte that is not UTF-8 at its exact column and file offset', () => {
    const prefix = Buffer.from('{"ok":1}\n{"t":"é', 'utf8');
    const content = Buffer.concat([prefix, Buffer.from([0xff, 0xfe]), Buffer.from('"}\n', 'utf8')]);
    const lines = fileLines(content, 4);
    assert.equal(lines[0]!.invalidUtf8, undefined);
    const bad = lines[1]!.invalidUtf8!;
    assert.equal(bad.character, '{"t":"é'.length);
    assert.match(bad.message, new RegExp(`byte offset ${prefix.length}\\b`));
    assert.match(bad.message, /ff fe/);
  });

  it('recognises a UTF-16 file by its byte order mark', () => {
    const lines = fileLines(Buffer.from('\uFEFF{"a":1}\n', 'utf16le'));
    assert.match(lines[0]!.invalidUtf8!.message, /UTF-16/);
  });

  it('reports a line over the size bound by size, and numbers the lines after it correctly', () => {
    const lines = fileLines(`{"a":1}\n{"big":"${'x'.repeat(100)}"}\n{"c":3}\n`, 16, 64);
    assert.equal(lines[1]!.oversizedBytes, '{"big":""}'.length + 100);
    assert.equal(lines[2]!.number, 2);
    assert.equal(lines[2]!.text, '{"c":3}');
  });

  it('counts the bytes of a line past the line limit instead of keeping them, and yields after every chunk', () => {
    // 64 MiB of NUL bytes with no newline (a sparse stretch: free to make), between two short lines.
    const path = newPath();
    const head = '{"a":1}\n';
    const longLineBytes = 64 * 1024 * 1024;
    writeFileSync(path, head);
    truncateSync(path, head.length + longLineBytes);
    appendFileSync(path, '\n{"b":2}\n');
    const chunkBytes = 64 * 1024;
    const descriptor = openSync(path, 'r');
    try {
      const readings = linesOfFile(descriptor, {
        maxLineBytes: 1024,
        maxFileBytes: Number.MAX_SAFE_INTEGER,
        chunkBytes,
      });
      const lines: SourceLine[] = [];
      let chunks = 0;
      const before = process.memoryUsage().arrayBuffers;
      let mostHeld = 0;
      for (const reading of readings) {
        if ('read' in reading) {
          chunks++;
          // Keeping the long line's bytes until its newline would hold all 64 MiB here at its end.
          mostHeld = Math.max(mostHeld, process.memoryUsage().arrayBuffers - before);
        } else lines.push(reading);
      }
      assert.deepEqual(
        lines.map(({ number, text, oversizedBytes }) => [number, text, oversizedBytes]),
        [
          [0, '{"a":1}', undefined],
          [1, '', longLineBytes],
          [2, '{"b":2}', undefined],
        ],
      );
      assert.equal(chunks, Math.ceil((head.length + longLineBytes + 9) / chunkBytes));
      assert.ok(mostHeld < 4 * 1024 * 1024, `held ${mostHeld} bytes of array buffers while reading the line`);
    } finally {
      closeSync(descriptor);
    }
  });

  const fourLines = '{"a":1}\n{"b":2}\n{"c":3}\n{"d":4}\n';

  it('stops at the file limit inside a line: that line is not yielded, and says where it stopped', () => {
    // The limit falls inside line 2 ({"c":3}): 8 + 8 + 3 bytes.
    for (const chunkBytes of [1, 2, 3, 7, 64]) {
      const readings = fileReadings(fourLines, { maxFileBytes: 19, chunkBytes });
      assert.deepEqual(
        readings.filter((reading) => !('read' in reading && reading.read === 'chunk')).map(plainReading),
        ['0 {"a":1}', '1 {"b":2}', 'limit at line 2 after 19 bytes'],
        `chunk ${chunkBytes}`,
      );
    }
  });

  it('stops at the file limit at the start of a line with that line, and reads a file of exactly the limit whole', () => {
    for (const chunkBytes of [1, 3, 64]) {
      assert.deepEqual(
        fileReadings(fourLines, { maxFileBytes: 16, chunkBytes }).filter(isNotChunk).map(plainReading),
        ['0 {"a":1}', '1 {"b":2}', 'limit at line 2 after 16 bytes'],
        `chunk ${chunkBytes}`,
      );
      assert.deepEqual(
        fileReadings(fourLines, { maxFileBytes: fourLines.length, chunkBytes }).filter(isNotChunk).map(plainReading),
        ['0 {"a":1}', '1 {"b":2}', '2 {"c":3}', '3 {"d":4}'],
        `chunk ${chunkBytes}`,
      );
    }
  });

  it('stops at the file limit when the file grows past it while it is read', () => {
    const path = newPath();
    writeFileSync(path, '{"a":1}\n');
    const descriptor = openSync(path, 'r');
    try {
      const yielded: string[] = [];
      for (const reading of linesOfFile(descriptor, { maxLineBytes: 1024, maxFileBytes: 100, chunkBytes: 64 })) {
        // The reading is lazy: the file grows after its first chunk was read, as a running harness's would.
        if ('read' in reading && reading.read === 'chunk' && reading.bytesRead === 8)
          appendFileSync(path, '{"b":2}\n' + 'x'.repeat(200));
        if (isNotChunk(reading)) yielded.push(plainReading(reading));
      }
      assert.deepEqual(yielded, ['0 {"a":1}', '1 {"b":2}', 'limit at line 2 after 100 bytes']);
    } finally {
      closeSync(descriptor);
    }
  });
});

function isNotChunk(reading: FileReading): boolean {
  return !('read' in reading && reading.read === 'chunk');
}

function plainReading(reading: FileReading): string {
  if (!('read' in reading)) return `${reading.number} ${reading.text}`;
  return `${reading.read} at line ${'line' in reading ? reading.line : '-'} after ${reading.bytesRead} bytes`;
}
