/**
 * The fuzz property's damage rule and its reproducers: which mutations count as damaged evidence, and
 * that shrinking finds the smallest failing edit.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { artifactKindInfo, type ArtifactKind } from '../../shared/src/layout';
import { SchemaRegistry } from '../../server/src/engine/schema/validators';
import { jsonl } from '../support/files';
import { DamageClassifier } from './damage';
import { inputRandom } from './inputs';
import { mutate } from './mutations';
import { describeEdit, shrinkEdit } from './shrink';

const schemas = new SchemaRegistry();
const classifier = (kind: ArtifactKind) =>
  new DamageClassifier(kind, artifactKindInfo(kind).format, schemas.validatorFor(kind));
const preflight = (facts: Record<string, unknown>) =>
  Buffer.from(`${JSON.stringify({ report: { task_binding: { facts } } }, null, 2)}\n`);
const exec = {
  event_type: 'SandboxExec',
  phase: 'Harden',
  service: 'main',
  status: 'ok',
  command_preview: 'pgrep -u agent',
  return_code: 1,
  started_at: '2026-08-22T10:00:05Z',
};
const actions = (...records: object[]) => Buffer.from(jsonl(...records));

function damaging(kind: ArtifactKind, original: Buffer, mutated: Buffer): boolean {
  return classifier(kind).classify(original, mutated).damaging;
}

describe('fuzz damage rule', () => {
  it('a flipped letter in a declaration key is damage; another known mode is a legitimate edit', () => {
    const original = preflight({ verifier_environment_mode: 'separate' });
    assert.equal(damaging('preflight', original, preflight({ verifier_environment_mOde: 'separate' })), true);
    assert.equal(damaging('preflight', original, preflight({ verifier_environment_mode: 'shared' })), false);
    assert.equal(
      damaging('preflight', original, preflight({ verifier_environment_mode: 'sepárate' })),
      true,
      'a mode outside the enum',
    );
  });

  it('an event_type or phase the schema does not name is damage; a return code 1 → 0 is not', () => {
    const original = actions(exec);
    assert.equal(damaging('action-records', original, actions({ ...exec, event_type: 'SandboxExeC' })), true);
    assert.equal(damaging('action-records', original, actions({ ...exec, phase: 'Verifz' })), true);
    assert.equal(damaging('action-records', original, actions({ ...exec, return_code: 0 })), false);
    assert.equal(
      damaging('action-records', original, actions({ ...exec, command_preview: 'true' })),
      false,
      'another command is another value',
    );
  });

  it('damage already in the original, changed again, adds none: an unknown kind for another, an unknown key renamed', () => {
    const damaged = actions({ ...exec, event_type: 'SandboxExeZ' });
    assert.equal(damaging('action-records', damaged, actions({ ...exec, event_type: 'Unknown' })), false);
    assert.equal(
      damaging('action-records', actions(exec), actions({ ...exec, event_type: 'Unknown' })),
      true,
      'near miss: a known kind made unknown',
    );
    const withCopy = actions({ ...exec, commanX_preview: 'pgrep -u agent' });
    assert.equal(damaging('action-records', withCopy, actions({ ...exec, comm2nX_preview: 'pgrep -u agent' })), false);
    assert.equal(
      damaging('action-records', actions(exec), actions({ ...exec, comm2nX_preview: 'pgrep -u agent' })),
      true,
      'near miss: a new unknown key',
    );
  });

  it('a key written twice or a number no writer writes is damage; removing one is a repair, whatever else the edit did', () => {
    const line = JSON.stringify(exec);
    const text = (record: string) => Buffer.from(`${record}\n`);
    const repeated = line.replace('"return_code":1', '"return_code":1,"return_code":0');
    const tiny = line.replace('"return_code":1', '"return_code":1e-400');
    assert.equal(damaging('action-records', text(line), text(repeated)), true, 'a repeated key added');
    assert.equal(damaging('action-records', text(line), text(tiny)), true, 'an exponent no writer writes');
    const damagedTime = (record: string) => record.replace('2026-08-22T10:00:05Z', 'x');
    assert.equal(
      damaging('action-records', text(repeated), text(damagedTime(line))),
      false,
      'the repeated key deleted: the repair counts, as a schema repair does',
    );
    assert.equal(damaging('action-records', text(tiny), text(damagedTime(line.replace(':1,', ':0,')))), false);
    assert.equal(
      damaging('action-records', text(repeated), text(line.replace('"service":"main"', '"service":{}'))),
      false,
      'the repeated key deleted and the schema broken: still a repair',
    );
    assert.equal(
      damaging('action-records', text(repeated), text(damagedTime(repeated))),
      true,
      'near miss: the repeated key kept, a timestamp damaged',
    );
  });

  it('truncated lines, split lines, changed types, unknown keys and bad bytes are damage', () => {
    const original = actions(exec, { ...exec, return_code: 0 });
    const text = original.toString();
    assert.equal(
      damaging(
        'action-records',
        original,
        Buffer.from(text.slice(0, text.indexOf('\n') - 5) + text.slice(text.indexOf('\n'))),
      ),
      true,
      'truncated line',
    );
    assert.equal(
      damaging('action-records', original, Buffer.from(text.replace('"phase"', '\n"phase"'))),
      true,
      'split line',
    );
    assert.equal(
      damaging('action-records', original, actions({ ...exec, return_code: '1' }, { ...exec, return_code: 0 })),
      true,
      'changed type',
    );
    assert.equal(
      damaging('action-records', original, actions({ ...exec, retrun_code: 1 }, { ...exec, return_code: 0 })),
      true,
      'unknown key',
    );
    assert.equal(
      damaging(
        'action-records',
        original,
        actions({ ...exec, started_at: '2026-0x-22T10:00:05Z' }, { ...exec, return_code: 0 }),
      ),
      true,
      'unreadable timestamp',
    );
    assert.equal(
      damaging(
        'action-records',
        original,
        Buffer.concat([original.subarray(0, 10), Buffer.from([0xff]), original.subarray(11)]),
      ),
      true,
      'not UTF-8',
    );
  });

  it('damage that leaves nothing of a record to read is told apart from damage a reader can still see through', () => {
    const original = actions(exec);
    const text = original.toString();
    const unreadable = (mutated: Buffer) =>
      classifier('action-records').classify(original, mutated).unreadable === true;
    assert.equal(unreadable(Buffer.from(text.slice(0, text.indexOf('\n') - 5) + '\n')), true, 'truncated line');
    assert.equal(
      unreadable(Buffer.concat([original.subarray(0, 10), Buffer.from([0xff]), original.subarray(11)])),
      true,
      'not UTF-8',
    );
    assert.equal(unreadable(actions({ ...exec, retrun_code: 1 })), false, 'a damaged key can still be read');
    assert.equal(unreadable(actions({ ...exec, phase: 'Verifz' })), false, 'a damaged kind can still be read');
  });

  it('a value changed to another type its schema allows, or a schema break repaired, is a legitimate edit', () => {
    const original = actions(exec);
    assert.equal(
      damaging('action-records', original, actions({ ...exec, return_code: null })),
      false,
      'integer or null',
    );
    assert.equal(damaging('action-records', actions({ ...exec, return_code: 'one' }), original), false, 'repaired');
    assert.equal(
      damaging('action-records', original, actions({ ...exec, return_code: true })),
      true,
      'not a type it allows',
    );
  });

  it('deleting a whole line or an optional key is a legitimate edit', () => {
    const original = actions(exec, { ...exec, return_code: 0 });
    assert.equal(damaging('action-records', original, actions({ ...exec, return_code: 0 })), false);
    const { started_at: _dropped, ...withoutStart } = exec;
    assert.equal(damaging('action-records', original, actions(withoutStart, { ...exec, return_code: 0 })), false);
  });

  it('free-form objects have no unknown keys', () => {
    const exchange = {
      request: { body: { model: 'm', messages: [] } },
      response: { status_code: 200, body: { usage: { input_tokens: 1 } } },
    };
    const original = Buffer.from(jsonl(exchange));
    assert.equal(
      damaging(
        'llm-trajectory',
        original,
        Buffer.from(jsonl({ ...exchange, request: { body: { ...exchange.request.body, temperature: 1 } } })),
      ),
      false,
    );
  });
});

describe('fuzz mutations and reproducers', () => {
  it('an input replays exactly from its seed and index', () => {
    const target = {
      kind: 'action-records' as const,
      format: 'jsonl' as const,
      bytes: actions(exec, { ...exec, return_code: 0 }),
    };
    for (let index = 0; index < 200; index++) {
      const first = mutate(inputRandom(7, index), target);
      const again = mutate(inputRandom(7, index), target);
      assert.equal(first.description, again.description);
      assert.ok(first.bytes.equals(again.bytes));
      assert.deepEqual(first.shape, again.shape);
      // A shape (a FIFO, a line that never ends) changes the file on disk, not its bytes.
      assert.ok(
        first.shape !== undefined || !first.bytes.equals(target.bytes),
        `input ${index} (${first.operator}) changed the file`,
      );
    }
  });

  it('shrinking keeps only what still fails: one bad byte among many inserted', () => {
    const original = Buffer.from('{"a": 1}\n{"b": 2}\n');
    const mutated = Buffer.from('{"a": 1}\n{"b": 2xxxxxx#xxxxxxxxxx}\n');
    const minimal = shrinkEdit(original, mutated, (candidate) => candidate.includes('#'));
    assert.equal(minimal.toString(), '{"a": 1}\n{"b": 2#}\n');
    assert.match(describeEdit('f.jsonl', original, minimal), /-2: "\{\\"b\\": 2\}"\n\+2: "\{\\"b\\": 2#\}"/);
  });
});
