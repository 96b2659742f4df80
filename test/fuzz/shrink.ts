/**
 * Minimal reproducers: a failing mutation is one edit of the file (bytes removed, bytes inserted, at one
 * place, between the parts it shares with the original). Shrinking tries smaller edits, halves of the
 * inserted bytes and less of the removed ones, down to single bytes, keeping each that still fails the
 * same way; then the edit is shown as the lines it changed.
 */

/** Bounds on shrinking: a failure over the CPU bound costs seconds per try. */
const maxTries = 80;
const maxShrinkMs = 20_000;

interface Edit {
  readonly at: number;
  /** Bytes of the original removed at `at`. */
  readonly removed: number;
  readonly inserted: Buffer;
}

function editBetween(original: Buffer, mutated: Buffer): Edit {
  const shorter = Math.min(original.length, mutated.length);
  let prefix = 0;
  while (prefix < shorter && original[prefix] === mutated[prefix]) prefix++;
  let suffix = 0;
  while (suffix < shorter - prefix && original[original.length - 1 - suffix] === mutated[mutated.length - 1 - suffix])
    suffix++;
  return {
    at: prefix,
    removed: original.length - suffix - prefix,
    inserted: mutated.subarray(prefix, mutated.length - suffix),
  };
}

const applyEdit = (original: Buffer, edit: Edit): Buffer =>
  Buffer.concat([original.subarray(0, edit.at), edit.inserted, original.subarray(edit.at + edit.removed)]);

/** Smaller edits than `edit`: chunks of the insertion left out, and less of the original removed. */
function* smallerEdits(edit: Edit): Generator<Edit> {
  for (let chunk = edit.inserted.length >> 1; chunk >= 1; chunk >>= 1) {
    for (let start = 0; start + chunk <= edit.inserted.length; start += chunk) {
      yield {
        ...edit,
        inserted: Buffer.concat([edit.inserted.subarray(0, start), edit.inserted.subarray(start + chunk)]),
      };
    }
  }
  for (let chunk = edit.removed >> 1; chunk >= 1; chunk >>= 1) {
    yield { ...edit, removed: edit.removed - chunk };
    yield { at: edit.at + chunk, removed: edit.removed - chunk, inserted: edit.inserted };
  }
}

export function shrinkEdit(original: Buffer, mutated: Buffer, stillFails: (candidate: Buffer) => boolean): Buffer {
  let edit = editBetween(original, mutated);
  const started = Date.now();
  let tries = 0;
  for (let improved = true; improved;) {
    improved = false;
    for (const smaller of smallerEdits(edit)) {
      if (tries++ >= maxTries || Date.now() - started > maxShrinkMs) return applyEdit(original, edit);
      const candidate = applyEdit(original, smaller);
      if (candidate.equals(original) || !stillFails(candidate)) continue;
      edit = smaller;
      improved = true;
      break;
    }
  }
  return applyEdit(original, edit);
}

/** The 0-based lines of the original an edit touches. */
export function editedLines(original: Buffer, mutated: Buffer): { firstLine: number; lastLine: number } {
  const edit = editBetween(original, mutated);
  const linesBefore = (end: number) => original.subarray(0, end).toString('utf8').split('\n').length - 1;
  return { firstLine: linesBefore(edit.at), lastLine: linesBefore(edit.at + edit.removed) };
}

/** A line, cut to a window around `column` when it is long, with its length. */
function clip(line: string, column: number): string {
  const window = 70;
  const shown = JSON.stringify(
    line.length <= 2 * window
      ? line
      : `${column > window ? '…' : ''}${line.slice(Math.max(0, column - window), column + window)}${column + window < line.length ? '…' : ''}`,
  );
  return line.length <= 2 * window ? shown : `${shown} (${line.length} characters, change at column ${column + 1})`;
}

/** The lines `mutated` changed against `original`, as a diff of at most a few lines, with the edit in bytes. */
export function describeEdit(name: string, original: Buffer, mutated: Buffer): string {
  const edit = editBetween(original, mutated);
  const before = original.toString('utf8').split('\n');
  const after = mutated.toString('utf8').split('\n');
  const firstLine = original.subarray(0, edit.at).toString('utf8').split('\n').length - 1;
  const lastBefore =
    original
      .subarray(0, edit.at + edit.removed)
      .toString('utf8')
      .split('\n').length - 1;
  const lastAfter =
    mutated
      .subarray(0, edit.at + edit.inserted.length)
      .toString('utf8')
      .split('\n').length - 1;
  const column =
    edit.at -
    Buffer.byteLength(
      before
        .slice(0, firstLine)
        .map((line) => `${line}\n`)
        .join(''),
    );
  const hex = (bytes: Buffer) =>
    bytes.length <= 16 ? bytes.toString('hex').replace(/(..)/g, '$1 ').trim() : `${bytes.length} bytes`;
  const lines = [
    `--- ${name} (fixture)`,
    `+++ ${name} (mutated): at byte ${edit.at}, ${edit.removed} removed [${hex(original.subarray(edit.at, edit.at + edit.removed))}], ${edit.inserted.length} inserted [${hex(edit.inserted)}]`,
  ];
  const shownLines = 4;
  for (let line = firstLine; line <= Math.min(lastBefore, firstLine + shownLines); line++)
    if (before[line] !== undefined) lines.push(`-${line + 1}: ${clip(before[line]!, line === firstLine ? column : 0)}`);
  for (let line = firstLine; line <= Math.min(lastAfter, firstLine + shownLines); line++)
    if (after[line] !== undefined) lines.push(`+${line + 1}: ${clip(after[line]!, line === firstLine ? column : 0)}`);
  return lines.join('\n');
}
