/**
 * `record-too-large` and its near miss, which no committed fixture can hold: a trajectory line one byte
 * over the 64 MiB limit is reported by size on its line and not parsed, and the same line one byte
 * shorter than the limit is read as a record.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ArtifactChecker } from '../../server/src/engine/check/artifactChecker';
import { maxRecordBytes } from '../../server/src/engine/check/report';
import { temporaryFolder } from '../support/repo';

const checker = new ArtifactChecker();
const folder = temporaryFolder();
after(() => folder.remove());

/** A trajectory whose second line is an agent_message of exactly `bytes` bytes. */
function trajectoryWithLineOf(bytes: number): string {
  const head = '{"type":"agent_message","text":"';
  const tail = '"}';
  const path = join(folder.path, `trajectory-${bytes}.jsonl`);
  writeFileSync(
    path,
    `{"type":"user_message","text":"hi"}\n${head}${'x'.repeat(bytes - head.length - tail.length)}${tail}\n`,
  );
  return path;
}

describe('record-too-large', () => {
  it('is raised on a line one byte over the limit, which is not parsed', () => {
    const report = checker.checkFile(trajectoryWithLineOf(maxRecordBytes + 1), 'acp-trajectory', { maxFindings: 10 });
    assert.deepEqual(
      report.findings.map((finding) => [finding.code, finding.range.start.line]),
      [['record-too-large', 1]],
    );
    assert.match(report.findings[0]!.message, /^This line is 64\.0 MiB; records over 64 MiB are not parsed\.$/);
  });

  it('is not raised on a line one byte under the limit (its near miss), which is read as a record', () => {
    const report = checker.checkFile(trajectoryWithLineOf(maxRecordBytes - 1), 'acp-trajectory', { maxFindings: 10 });
    assert.deepEqual(report.findings, []);
    assert.equal(report.records, 2);
  });
});
