import assert from 'node:assert/strict';
import { readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ArtifactChecker } from '../../server/src/engine/check/artifactChecker';
import { faultyRollout, healthyRollout, temporaryFolder } from '../support/repo';

const checker = new ArtifactChecker();
const options = { maxFindings: 1000 };
const folder = temporaryFolder();
after(() => folder.remove());

describe('JSON artifact checks', () => {
  it('accepts the healthy example result.json and config.json', () => {
    for (const [file, kind] of [
      ['result.json', 'result'],
      ['config.json', 'config'],
      ['timing.json', 'timing'],
      ['benchguard/preflight.json', 'preflight'],
    ] as const) {
      const report = checker.checkFile(join(healthyRollout, file), kind, options);
      assert.deepEqual(report.findings, [], file);
      assert.equal(report.records, 1);
    }
  });

  it('places schema errors on their line and column in a multi-line document, in document order', () => {
    const path = join(faultyRollout, 'result.json');
    const lines = readFileSync(path, 'utf8').split('\n');
    const findings = checker.checkFile(path, 'result', options).findings;
    assert.deepEqual(
      findings.map((f) => [
        f.range.start.line,
        lines[f.range.start.line]!.slice(f.range.start.character, f.range.end.character),
      ]),
      [
        [7, '"2"'],
        [13, '"running"'],
      ],
    );
  });

  it('reports an empty document, a syntax error, and a value that is not an object', () => {
    const [empty] = checker.checkText('  \n', 'result', options).findings;
    assert.deepEqual([empty!.code, empty!.severity], ['artifact-empty', 'error']);
    assert.match(empty!.message, /must hold a JSON object/);
    const syntax = checker.checkText('{\n  "task_name": "x",\n  "rewards": {"reward": 1,}\n}\n', 'result', options)
      .findings[0]!;
    assert.equal(syntax.code, 'json-syntax');
    assert.deepEqual(syntax.range.start, { line: 2, character: 25 });
    const notObject = checker.checkText('\n[1, 2]\n', 'config', options).findings[0]!;
    assert.equal(notObject.code, 'record-not-object');
    assert.deepEqual(notObject.range, { start: { line: 1, character: 0 }, end: { line: 1, character: 6 } });
  });

  it('reads a document with a byte order mark and CRLF endings', () => {
    const report = checker.checkText('\uFEFF{\r\n  "sandbox_user": "Agent"\r\n}\r\n', 'config', options);
    assert.deepEqual(
      report.findings.map((f) => [f.code, f.range.start]),
      [['schema', { line: 1, character: 18 }]],
    );
  });

  it('places the first byte that is not UTF-8 where an editor shows it, and still checks the rest', () => {
    const path = join(folder.path, 'result.json');
    writeFileSync(
      path,
      Buffer.concat([
        Buffer.from('{\n  "task_name": "caf'),
        Buffer.from([0xe9]),
        Buffer.from('",\n  "n_prompts": "one"\n}\n'),
      ]),
    );
    const findings = checker.checkFile(path, 'result', options).findings;
    assert.deepEqual(
      findings.map((f) => [f.code, f.range.start]),
      [
        ['not-utf8', { line: 1, character: 19 }],
        ['schema', { line: 2, character: 15 }],
      ],
    );
  });

  it('throws the system error for a folder where a file is expected', () => {
    const path = join(folder.path, 'config.json');
    mkdirSync(path);
    assert.throws(() => checker.checkFile(path, 'config', options), { code: 'EISDIR' });
  });
});
