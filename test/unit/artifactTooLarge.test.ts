/**
 * `artifact-too-large` and its near miss, which no committed fixture can hold: a trajectory of 1 TB (a
 * sparse file, free to make) is read up to 4 GiB, the lines before the limit are checked as usual and the
 * rest counts for nothing; a trajectory of exactly 4 GiB is read whole. The language server's check of
 * such a file gives way inside a line that never ends, and stops when it is cancelled.
 */
import assert from 'node:assert/strict';
import { truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ArtifactChecker } from '../../server/src/engine/check/artifactChecker';
import { maxArtifactBytes } from '../../server/src/engine/check/report';
import { temporaryFolder } from '../support/repo';

const checker = new ArtifactChecker();
const folder = temporaryFolder();
after(() => folder.remove());

const firstLines = '{"type":"user_message","text":"hi"}\n{"type":"agent_message","text":"hello"}\n';

/** A trajectory of `bytes` bytes: two records, then NUL bytes with no newline (a sparse stretch). */
function sparseTrajectoryOf(bytes: number): string {
  const path = join(folder.path, `trajectory-${bytes}.jsonl`);
  writeFileSync(path, firstLines);
  truncateSync(path, bytes);
  return path;
}

describe('artifact-too-large', () => {
  it('is raised on a 1 TB file, read up to 4 GiB: the lines before are checked, the line it stops in is not', () => {
    const report = checker.checkFile(sparseTrajectoryOf(1024 ** 4), 'acp-trajectory', { maxFindings: 10 });
    assert.deepEqual(
      report.findings.map((finding) => [finding.code, finding.range.start.line]),
      [['artifact-too-large', 2]],
    );
    assert.equal(
      report.findings[0]!.message,
      'This file is 1 TiB; only its first 4 GiB are read, so nothing from this line on is checked or counts as evidence.',
    );
    assert.equal(report.records, 2);
    // The line cut at the limit is a row that holds no usable record.
    assert.equal(report.facts?.kind === 'acp-trajectory' && report.facts.rows, 3);
  });

  it('is listed even when the findings before it fill the maximum', () => {
    const path = join(folder.path, 'broken-then-huge.jsonl');
    writeFileSync(path, '{broken\n' + firstLines);
    truncateSync(path, 1024 ** 4);
    const report = checker.checkFile(path, 'acp-trajectory', { maxFindings: 1 });
    assert.deepEqual(
      report.findings.map((finding) => [finding.code, finding.range.start.line]),
      [['artifact-too-large', 3]],
    );
    assert.equal(report.omitted, 1);
    assert.equal(report.counts.error, 2);
  });

  it('is not raised on a file of exactly 4 GiB (its near miss), which is read whole', () => {
    const report = checker.checkFile(sparseTrajectoryOf(maxArtifactBytes), 'acp-trajectory', { maxFindings: 10 });
    assert.deepEqual(
      report.findings.map((finding) => [finding.code, finding.range.start.line]),
      [['record-too-large', 2]],
    );
    assert.match(report.findings[0]!.message, /^This line is 4\.0 GiB; records over 64 MiB are not parsed\.$/);
  });

  it('gives the event loop a turn inside a line that never ends, and stops reading when it is cancelled', async () => {
    let cancelled = false;
    let bytesRead = 0;
    // Without a turn inside the line nothing else runs until 4 GiB are read: the cancellation would come too late.
    setImmediate(() => (cancelled = true));
    const report = await checker.checkFileCancellable(
      sparseTrajectoryOf(1024 ** 4 + 2),
      'acp-trajectory',
      { maxFindings: 10, onBytesRead: (bytes) => (bytesRead = bytes) },
      () => cancelled,
    );
    assert.equal(report, undefined);
    assert.equal(bytesRead, 1024 * 1024, 'one chunk is read before the first turn');
  });
});
