/**
 * The `partialFingerprints` of SARIF results, by which code scanning knows a finding again in the next
 * run instead of closing one alert and opening another.
 *
 * A fingerprint is made of: the code; the file's path relative to its rollout folder (or to the folder
 * of loose files); the text of the line the finding starts on, trimmed of surrounding blanks (a JSONL
 * line is a whole record, so this is the record's content; in a pretty-printed JSON file it is the key
 * and its value); and the finding's column counted from the first non-blank character of that line.
 * These are hashed (SHA-256, first 32 hex digits) and followed by `:n`, the finding's occurrence among
 * those of its file with the same hash, in position order, as GitHub's own primaryLocationLineHash counts
 * identical lines. Neither the working directory, an absolute path, the line number, the time nor the
 * order of the rollouts goes in: a run from another folder, or after lines were inserted above, gives the
 * same fingerprint, and an edit of the line itself a new one. A file that cannot be read again (it lies
 * outside its bundle, is unreadable or too large to hold) contributes its line number instead of its text.
 */
import { createHash } from 'node:crypto';
import { boundaryOf, readInside, readPrefixBytes } from '../../engine/io/containment';
import type { BundleFinding } from '../../engine/findings';
import { pathInBundle, type ListedBundle } from './run';

export const fingerprintKey = 'rolloutEvidenceFinding/v1';

/** Files larger than this are not read again: their findings are fingerprinted by line number. */
const maxBytesReread = 256 * 1024 * 1024;

/** The fingerprint of each listed finding of the bundle. */
export function fingerprintsOf(bundle: ListedBundle): Map<BundleFinding, string> {
  const lines = new FileLines(bundle.boundary ?? boundaryOf(bundle.root));
  const occurrences = new Map<string, number>();
  const fingerprints = new Map<BundleFinding, string>();
  for (const finding of bundle.listed.findings) {
    const file = pathInBundle(bundle, finding.file);
    const { line, character } = finding.range.start;
    const text = lines.lineOf(finding.file, line);
    const place =
      text === undefined
        ? `line ${line}`
        : `${text.trim()}\u0000${character - (text.length - text.trimStart().length)}`;
    const hash = createHash('sha256').update([finding.code, file, place].join('\u0000')).digest('hex').slice(0, 32);
    const key = `${file}\u0000${hash}`;
    const occurrence = (occurrences.get(key) ?? 0) + 1;
    occurrences.set(key, occurrence);
    fingerprints.set(finding, `${hash}:${occurrence}`);
  }
  return fingerprints;
}

/** Lines of a bundle's files, each file read once and only inside the bundle; a line is decoded only when asked for. */
class FileLines {
  private readonly files = new Map<string, LineReader | undefined>();

  constructor(private readonly boundary: string) {}

  lineOf(path: string, line: number): string | undefined {
    if (!this.files.has(path)) this.files.set(path, this.read(path));
    return this.files.get(path)?.line(line);
  }

  private read(path: string): LineReader | undefined {
    try {
      const bytes = readInside(path, this.boundary, (file) =>
        file.size <= maxBytesReread ? readPrefixBytes(file, file.size) : undefined,
      );
      return bytes instanceof Buffer ? new LineReader(bytes) : undefined;
    } catch {
      // Unreadable now (it may have been unreadable in the check too): the line number stands in.
      return undefined;
    }
  }
}

/** The lines of a file's bytes, found by their newlines as the checker counts them, without decoding the whole file. */
class LineReader {
  private readonly starts = [0];

  constructor(private readonly bytes: Buffer) {}

  line(index: number): string | undefined {
    while (this.starts.length <= index + 1) {
      const last = this.starts.at(-1)!;
      if (last > this.bytes.length) return undefined;
      const newline = this.bytes.indexOf(0x0a, last);
      this.starts.push(newline === -1 ? this.bytes.length + 1 : newline + 1);
    }
    const start = this.starts[index]!;
    if (start > this.bytes.length) return undefined;
    return this.bytes.toString('utf8', start, this.starts[index + 1]! - 1);
  }
}
