import type { ArtifactKind } from '../../../../shared/src/layout';
import { codeInfo } from '../codes';
import type { ArtifactFacts } from '../facts/facts';
import { rangeOnLine, type Finding } from '../findings';
import type { SeverityCounts } from './collector';

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

export function artifactOutsideBundle(): Finding {
  return {
    code: 'artifact-outside-bundle',
    severity: codeInfo('artifact-outside-bundle').severity,
    message:
      'This path resolves, through a symbolic link, outside its rollout folder, so it is not read: the evidence of a rollout is the files inside it.',
    range: rangeOnLine(0, 0, 0),
  };
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(bytes % (1024 * 1024) === 0 ? 0 : 1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}
