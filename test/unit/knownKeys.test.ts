import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ArtifactChecker } from '../../server/src/engine/check/artifactChecker';
import type { Finding } from '../../server/src/engine/findings';
import { keyForFinding, shapedLike } from '../../server/src/engine/schema/knownKeys';

const checker = new ArtifactChecker();
const options = { maxFindings: 1000 };

/** The text each schema finding of `text` (one line) covers, with its message. */
function schemaFindingsOf(
  text: string,
  kind: 'result' | 'acp-trajectory' | 'results' | 'llm-trajectory',
): { covered: string; message: string }[] {
  const findings: readonly Finding[] = checker.checkText(text, kind, options).findings;
  return findings
    .filter((finding) => finding.code === 'schema')
    .map((finding) => ({
      covered: text.slice(finding.range.start.character, finding.range.end.character),
      message: finding.message,
    }));
}

describe('the look-alike test', () => {
  it('takes a flipped letter, a changed case or a dropped separator for the key it damaged', () => {
    for (const [key, name] of [
      ['task_nam%', 'task_name'],
      ['Ehase', 'phase'],
      ['erroU', 'error'],
      ['trahectory_summary', 'trajectory_summary'],
      ['go0d_solution', 'gold_solution'],
      ['ID', 'id'],
      ['verifier-environment-mode', 'verifier_environment_mode'],
      ['verifier_environment_mOde', 'verifier_environment_mode'],
    ] as const) {
      assert.ok(shapedLike(key, name), `${key} is shaped like ${name}`);
    }
  });

  it('does not take a key for one that names something else, however short', () => {
    for (const [key, name] of [
      ['text', 'type'],
      ['ix', 'id'],
      ['uid', 'id'],
      ['errors_seen', 'error'],
      ['verifier_environment_mode_declared', 'verifier_environment_mode'],
      ['task_notes', 'task_name'],
      ['task_name', 'task_name'],
    ] as const) {
      assert.ok(!shapedLike(key, name), `${key} is not shaped like ${name}`);
    }
  });
});

describe('damaged keys and row types', () => {
  it('reports a damaged key on the key, naming the key it resembles', () => {
    const findings = schemaFindingsOf('{"task_nam%": "hello-world", "n_tool_calls": 1}', 'result');
    assert.deepEqual(
      findings.map((finding) => finding.covered),
      ['"task_nam%"'],
    );
    assert.match(
      findings[0]!.message,
      /is shaped like "task_name", which this record lacks: a damaged key is not an absent one/,
    );
  });

  it('finds a damaged key inside a described object, and names where', () => {
    const findings = schemaFindingsOf(
      '{"trajectory_summary": {"tool_call_status_countz": {"completed": 1}}}',
      'result',
    );
    assert.deepEqual(
      findings.map((finding) => finding.covered),
      ['"tool_call_status_countz"'],
    );
    assert.match(findings[0]!.message, /^"trajectory_summary": the key/);
  });

  it('leaves alone a look-alike beside the real key, an unrelated unknown key, and keys of a free-form object', () => {
    assert.deepEqual(schemaFindingsOf('{"task_name": "a", "task_nam%": "b"}', 'result'), []);
    assert.deepEqual(schemaFindingsOf('{"task_name": "a", "harness_build": "2026.12"}', 'result'), []);
    // rewards takes any further metric, so no key of it can be told to be damaged.
    assert.deepEqual(schemaFindingsOf('{"rewards": {"rewarf": 1}}', 'result'), []);
  });

  it('reports a row type shaped like a known one, on its value, and accepts one shaped like none', () => {
    const findings = schemaFindingsOf(
      '{"type":"tool_caLL","tool_call_id":"call_01","status":"in_progress"}',
      'acp-trajectory',
    );
    assert.deepEqual(
      findings.map((finding) => finding.covered),
      ['"tool_caLL"'],
    );
    assert.match(findings[0]!.message, /"tool_caLL" is shaped like "tool_call"/);
    assert.deepEqual(schemaFindingsOf('{"type":"agent_plan","text":"x"}', 'acp-trajectory'), []);
    // The rules read a phase in any case: "Verifier" is the verifier phase, not damage; "V5rifier" is.
    assert.deepEqual(schemaFindingsOf('{"type":"agent_message","text":"x","phase":"Verifier"}', 'acp-trajectory'), []);
    assert.deepEqual(
      schemaFindingsOf('{"type":"agent_message","text":"x","phase":"V5rifier"}', 'acp-trajectory').map(
        (finding) => finding.covered,
      ),
      ['"V5rifier"'],
    );
  });

  it('does not follow a record deeper than its schema, however deep it nests', () => {
    const deep = `{"task_name":"a","rewards":{"reward":1,"rubric":${'['.repeat(50_000)}${']'.repeat(50_000)}}}`;
    const report = checker.checkText(deep, 'result', options);
    // The record is read (its task and reward), and nothing below the schema's depth is taken for a damaged key.
    assert.equal(report.records, 1);
    assert.deepEqual(
      report.findings.filter((finding) => finding.code === 'schema' && /shaped like/.test(finding.message)),
      [],
    );
    assert.ok(report.facts?.kind === 'result' && report.facts.value?.['task_name'] === 'a');
  });
});

describe('reading a damaged key for a finding against the reward', () => {
  it('reads the damaged copy only when the key itself is absent', () => {
    assert.equal(keyForFinding('result', [], { 'task_nam%': 'a' }, 'task_name'), 'task_nam%');
    assert.equal(keyForFinding('result', [], { task_name: 'a', 'task_nam%': 'b' }, 'task_name'), 'task_name');
    assert.equal(keyForFinding('result', [], { task_notes: 'a' }, 'task_name'), 'task_name');
  });

  it('reads a damaged banned key, which no schema names, as banned', () => {
    assert.equal(keyForFinding('results', [], { go0d_solution: 'x' }, 'gold_solution'), 'go0d_solution');
  });

  it('reads no damaged copy in a free-form object, and none of a key the schema knows', () => {
    assert.equal(keyForFinding('result', ['rewards'], { rewarf: 1 }, 'reward'), 'reward');
    // verifier_error is a key of its own, not a damaged error.
    assert.equal(keyForFinding('result', [], { verifier_error: 'x' }, 'error'), 'error');
  });
});
