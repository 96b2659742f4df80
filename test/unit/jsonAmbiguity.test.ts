/**
 * What JSON.parse leaves unsaid (parse/ambiguity.ts): keys written twice and numbers not as a writer
 * writes them, found in one pass over text JSON.parse accepted, and placed exactly; and the check's
 * findings on them (check/ambiguityFindings.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ambiguousValue, isJsonObject } from '../../shared/src/jsonObject';
import { ArtifactChecker } from '../../server/src/engine/check/artifactChecker';
import {
  ambiguitiesIn,
  makeAmbiguousFieldsUnknown,
  pythonFloatRepr,
  writtenAsAWriterWrites,
} from '../../server/src/engine/parse/ambiguity';

const checker = new ArtifactChecker();

describe('keys written twice', () => {
  it('finds none where every key of each object is its own, whatever strings and nesting hold', () => {
    for (const text of [
      '{"a":1,"b":"x\\"y","c":[1,2,{"a":1}],"d":{"a":2}}',
      '{"t":"{\\"a\\":1,\\"a\\":2}","a":{"t":1}}',
      '{"a\\\\":1,"a":2}',
      '[{"a":1},{"a":2}]',
      '{"a":{},"b":[],"c":""}',
    ])
      assert.deepEqual(ambiguitiesIn(text), [], text);
  });

  it('finds a repeat on its key, with the field it makes unknown, nested or not', () => {
    const text = '{"x":[{"k":1,"j":0,"k":2}],"y":{"z":true}}';
    assert.deepEqual(ambiguitiesIn(text), [
      {
        kind: 'duplicate-key',
        path: ['x', 0, 'k'],
        offset: text.lastIndexOf('"k"'),
        length: 3,
        earlierOffset: text.indexOf('"k"'),
        valuesDiffer: true,
      },
    ]);
  });

  it('compares keys as they read, not as they are spelled: "\\u0061" is "a"', () => {
    const [found] = ambiguitiesIn('{"a":1,"\\u0061":1}');
    assert.equal(found?.kind, 'duplicate-key');
    assert.equal(found.kind === 'duplicate-key' && found.valuesDiffer, false);
  });

  it('finds the repeat in an object of many keys (looked up in a set past the first few)', () => {
    const keys = Array.from({ length: 40 }, (_, index) => `"k${index}":${index}`);
    const text = `{${keys.join(',')},"k33":33}`;
    const [found] = ambiguitiesIn(text);
    assert.equal(found?.kind === 'duplicate-key' && found.offset, text.lastIndexOf('"k33"'));
  });

  it('reads the same value written otherwise as the same (key order, spacing), and 1 against 1.0 as different', () => {
    const same = ambiguitiesIn('{"o":{"x":1,"y":[2]},"o":{ "y" : [ 2 ], "x" : 1 }}');
    assert.equal(same[0]?.kind === 'duplicate-key' && same[0].valuesDiffer, false);
    const differ = ambiguitiesIn('{"n":1,"n":1.0}');
    assert.equal(differ[0]?.kind === 'duplicate-key' && differ[0].valuesDiffer, true);
  });

  it('makes a field with two values unknown, leaves one with the same value as it is', () => {
    const text = '{"a":1,"a":0,"b":{"c":"x","c":"x"},"d":2}';
    const record = JSON.parse(text) as Record<string, unknown>;
    assert.equal(makeAmbiguousFieldsUnknown(record, ambiguitiesIn(text)), true);
    assert.equal(record['a'], ambiguousValue);
    assert.deepEqual(record['b'], { c: 'x' });
    assert.equal(record['d'], 2);
    assert.equal(isJsonObject(record['a']), false, 'an ambiguous value is no object to a reader');
  });

  it('makes every field unknown in a record too deep to say where', () => {
    const depth = 20_000;
    const text = `{"ok":1,"deep":${'{"a":'.repeat(depth)}{"k":1,"k":2}${'}'.repeat(depth)}}`;
    const found = ambiguitiesIn(text);
    assert.deepEqual(found, [{ kind: 'whole-record', found: 'duplicate-key' }]);
    const record = JSON.parse(text) as Record<string, unknown>;
    makeAmbiguousFieldsUnknown(record, found);
    assert.deepEqual(Object.values(record), [ambiguousValue, ambiguousValue]);
  });
});

describe('numbers as writers write them', () => {
  it("accepts what Python's json (int, float repr) and JSON.stringify write", () => {
    for (const text of [
      '0',
      '-1',
      '123456789012345',
      '9007199254740991',
      '1.0',
      '300.0',
      '0.1',
      '-2.5',
      '0.0001',
      '1e-05',
      '1e-7',
      '1e+16',
      '1.5e+300',
      '1e+21',
      '1000000000000000.0',
      '5e-324',
      '-0.0',
      '0.30000000000000004',
    ])
      assert.ok(writtenAsAWriterWrites(text), text);
  });

  it('refuses a number another reader takes otherwise: 1e-400, -0, beyond 2^53, 1.0e0, 1E5, 0.10, 1e400', () => {
    for (const text of ['1e-400', '-0', '9007199254740992', '9007199254740993', '1.0e0', '1E5', '1e5', '0.10', '1e400'])
      assert.ok(!writtenAsAWriterWrites(text), text);
  });

  it("spells a float as Python's repr does", () => {
    const reprs: [number, string][] = [
      [1, '1.0'],
      [0.0001, '0.0001'],
      [0.00001, '1e-05'],
      [1e15, '1000000000000000.0'],
      [1e16, '1e+16'],
      [123456.789, '123456.789'],
      [-2.5e-7, '-2.5e-07'],
      [1.5e300, '1.5e+300'],
      [5e-324, '5e-324'],
      [-0, '-0.0'],
    ];
    for (const [value, repr] of reprs) assert.equal(pythonFloatRepr(value), repr);
  });

  it('finds a number inside arrays, never one inside a string', () => {
    const text = '{"a":[1,{"b":-0}],"s":"1e-400 -0","c":2}';
    assert.deepEqual(ambiguitiesIn(text), [
      { kind: 'number-ambiguous', path: ['a', 1, 'b'], offset: text.indexOf('-0'), length: 2, text: '-0', parsed: -0 },
    ]);
  });
});

describe('the check of a file with an ambiguity', () => {
  it('marks a JSONL repeat on its second key, and reads the record as damaged only when the values differ', () => {
    const exec = '{"event_type":"SandboxExec","phase":"Harden","status":"ok","command_preview":"true","return_code":0';
    const differ = `${exec},"return_code":1}`;
    const same = `${exec},"return_code":0}`;
    const report = checker.checkText(`${differ}\n${same}\n`, 'action-records', { maxFindings: 100 });
    const repeats = report.findings.filter((finding) => finding.code === 'duplicate-key');
    const at = differ.lastIndexOf('"return_code"');
    assert.deepEqual(
      repeats.map((finding) => finding.range),
      [0, 1].map((line) => ({
        start: { line, character: at },
        end: { line, character: at + '"return_code"'.length },
      })),
    );
    assert.match(
      repeats[0]!.message,
      new RegExp(
        `"return_code" is written twice \\(before at column ${differ.indexOf('"return_code"') + 1}\\), with different values`,
      ),
    );
    assert.ok(report.facts?.kind === 'action-records');
    assert.deepEqual(
      report.facts.actions.map((action) => [action.record.damage, action.record.returnCode]),
      [
        ['is ambiguous', ambiguousValue],
        [undefined, 0],
      ],
    );
  });

  it('marks a JSON document repeat on its line, and makes the field unknown in its facts', () => {
    const text = '{\n  "sandbox_user": "agent",\n  "sandbox_user": null\n}\n';
    const report = checker.checkText(text, 'config', { maxFindings: 100 });
    const repeat = report.findings.find((finding) => finding.code === 'duplicate-key');
    assert.deepEqual(repeat?.range.start, { line: 2, character: 2 });
    assert.match(repeat.message, /before at line 2/);
    assert.ok(report.facts && 'value' in report.facts && report.facts.value?.['sandbox_user'] === ambiguousValue);
  });

  it('says what 1e-400 reads as, and is information', () => {
    const text = '{"return_code": 1e-400}';
    const report = checker.checkText(text, 'config', { maxFindings: 100 });
    const number = report.findings.find((finding) => finding.code === 'number-ambiguous');
    assert.equal(number?.severity, 'information');
    assert.match(number.message, /1e-400 .*too small for a double and reads as 0.*"return_code" is read as unknown/);
  });
});
