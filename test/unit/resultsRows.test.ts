/**
 * Every results row that can be read is judged: a second row, or a line after the row that never ends,
 * fails the validator's one-row rule, and must not also take away what the first row shows against the
 * reward (it did: the row rules read a file of exactly one row only, so review-task-mismatch turned
 * untrusted into incomplete).
 */
import assert from 'node:assert/strict';
import { truncateSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { listedFindings, type CheckedBundle } from '../../server/src/engine/checkRollout';
import { ArtifactChecker } from '../../server/src/engine/check/artifactChecker';
import { maxRecordBytes } from '../../server/src/engine/check/report';
import { ModelCaches } from '../../server/src/engine/model/caches';
import { defaultRuleOptions } from '../../server/src/engine/rules/context';
import { rolloutFiles } from '../../shared/src/layout';
import { fixtures } from '../fixtures/definitions';
import { writeTree } from '../support/files';
import { temporaryFolder } from '../support/repo';
import { checkRollout } from '../support/rollout';

const folder = temporaryFolder();
after(() => folder.remove());
const checker = new ArtifactChecker();
let written = 0;

/** The fixture with its results.jsonl as `results` makes it, then `onDisk` done to the file. */
function check(name: string, results: (text: string) => string, onDisk?: (path: string) => void): CheckedBundle {
  const fixture = fixtures.find((candidate) => candidate.name === name)!;
  const root = join(folder.path, `${name}-${written++}`);
  const text = fixture.files[rolloutFiles.results]!;
  writeTree(root, { ...fixture.files, ...fixture.bytes, [rolloutFiles.results]: results(text) });
  onDisk?.(join(root, rolloutFiles.results));
  return checkRollout(root, checker, {
    maxFindings: 1000,
    rules: { ...defaultRuleOptions, ...fixture.options },
    caches: new ModelCaches(),
  });
}

const codesOf = (checked: CheckedBundle) => listedFindings(checked, 1000).findings.map((finding) => finding.code);

describe('every readable results row is judged', () => {
  it('a row for another task stays untrusted when a line that never ends follows it', () => {
    const checked = check(
      'review-task-mismatch',
      (text) => text,
      (path) => truncateSync(path, maxRecordBytes + 4096),
    );
    assert.equal(checked.evaluation?.verdict, 'untrusted', codesOf(checked).join(' '));
    assert.ok(codesOf(checked).includes('review-task-mismatch'));
    assert.ok(codesOf(checked).includes('record-too-large'));
  });

  it('a second row, a copy of the first with the right task, does not hide the first', () => {
    const checked = check('review-task-mismatch', (text) => {
      const row = JSON.parse(text) as { info: Record<string, unknown> };
      const healthyRow = fixtures.find((candidate) => candidate.name === 'healthy')!.files[rolloutFiles.results]!;
      const healthyInfo = (JSON.parse(healthyRow) as { info: Record<string, unknown> }).info;
      const fixed = {
        ...row,
        info: { ...row.info, task_name: healthyInfo['task_name'], task_id: healthyInfo['task_id'] },
      };
      return `${text.trimEnd()}\n${JSON.stringify(fixed)}\n`;
    });
    assert.equal(checked.evaluation?.verdict, 'untrusted', codesOf(checked).join(' '));
    assert.deepEqual(
      listedFindings(checked, 1000)
        .findings.filter((finding) => finding.code === 'review-task-mismatch')
        .map((finding) => finding.range.start.line),
      [0],
    );
  });

  it('a second row with another reward is a reward mismatch', () => {
    const healthyRow = fixtures.find((candidate) => candidate.name === 'healthy')!.files[rolloutFiles.results]!;
    const checked = check(
      'healthy',
      () => `${healthyRow.trimEnd()}\n${JSON.stringify({ ...JSON.parse(healthyRow), reward: 0 })}\n`,
    );
    assert.equal(checked.evaluation?.verdict, 'untrusted', codesOf(checked).join(' '));
    assert.ok(codesOf(checked).includes('reward-mismatch'));
  });
});
