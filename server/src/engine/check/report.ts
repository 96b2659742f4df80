import type { ArtifactKind } from '../../../../shared/src/layout';
import type { NotRead } from '../io/containment';
import { codeInfo } from '../codes';
import type { ArtifactFacts } from '../facts/facts';
import { rangeOnLine, type Finding, type SeverityCounts } from '../findings';

/** The outcome of checking one artifact file on its own. */
export interface FileReport {
  readonly kind: ArtifactKind;
  /** Findings in file order, at most the configured maximum. */
  readonly findings: readonly Finding[];
  /** Every finding counted by severity, including those left out. */
  readonly counts: Readonly<SeverityCounts>;
  /** Findings left out because of the maximum. */
  readonly omitted: number;
  /** Records read: non-blank JSONL lines, or 1 for a JSON document that parsed. */
  readonly records: number;
  /** The evidence the rules read; absent when the file yielded none (a file too large to read). */
  readonly facts?: ArtifactFacts;
}

export interface CheckOptions {
  readonly maxFindings: number;
}

/** Records larger than this are reported, not parsed: V8 cannot hold much larger strings anyway. */
export const maxRecordBytes = 64 * 1024 * 1024;

export function recordTooLarge(what: 'line' | 'file', bytes: number, line: number): Finding {
  return {
    code: 'record-too-large',
    severity: codeInfo('record-too-large').severity,
    message: `This ${what} is ${formatBytes(bytes)}; records over ${formatBytes(maxRecordBytes)} are not parsed.`,
    range: rangeOnLine(line, 0, 0),
  };
}

/**
 * Bytes of one artifact read at most. Reading keeps memory bounded whatever a file's size, but not time:
 * a sparse file of a terabyte costs nothing to make and hours to read. This is 80 times the 50 MB
 * trajectory the bench takes as large; reading this much costs about 2 s for bytes without newlines, and
 * tens of seconds for dense records, which the check of such a file would cost anyway.
 */
export const maxArtifactBytes = 4 * 1024 * 1024 * 1024;

/** A file read only up to `maxArtifactBytes`, placed on the line the reading stopped in. */
export function artifactTooLarge(line: number, sizeWhenOpened: number): Finding {
  const size =
    sizeWhenOpened > maxArtifactBytes
      ? `is ${formatBytes(sizeWhenOpened)}`
      : `grew past ${formatBytes(maxArtifactBytes)} while it was read`;
  return {
    code: 'artifact-too-large',
    severity: codeInfo('artifact-too-large').severity,
    message: `This file ${size}; only its first ${formatBytes(maxArtifactBytes)} are read, so nothing from this line on is checked or counts as evidence.`,
    range: rangeOnLine(line, 0, 0),
  };
}

/** The finding on a path that is there but was not read (containment.ts `NotRead`), at its start. */
export function notReadFinding(notRead: NotRead): Finding {
  if ('outside' in notRead)
    return {
      code: 'artifact-outside-bundle',
      severity: codeInfo('artifact-outside-bundle').severity,
      message:
        'This path resolves, through a symbolic link, outside its rollout folder, so it is not read: the evidence of a rollout is the files inside it.',
      range: rangeOnLine(0, 0, 0),
    };
  return {
    code: 'artifact-not-regular-file',
    severity: codeInfo('artifact-not-regular-file').severity,
    message: `This path is a ${notRead.notRegular}, not a regular file, so it is not read: the rules take it as present but unreadable, never as absent.`,
    range: rangeOnLine(0, 0, 0),
  };
}

const largeUnits = [
  ['TiB', 1024 ** 4],
  ['GiB', 1024 ** 3],
  ['MiB', 1024 ** 2],
] as const;

function formatBytes(bytes: number): string {
  for (const [unit, unitBytes] of largeUnits)
    if (bytes >= unitBytes) return `${(bytes / unitBytes).toFixed(bytes % unitBytes === 0 ? 0 : 1)} ${unit}`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}
