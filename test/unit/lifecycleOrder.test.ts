/**
 * A framework lifecycle annotation must come, in the trajectory's order, after the timeout marker and after
 * the call it ends (rules/trajectory/lifecycleOrder.ts): BenchFlow writes the trajectory in the order
 * things happen, and the annotation only after hardening observed quiescence. The rows of the
 * `tool-ended-by-framework` fixture (prompt, completed call, pending call, agent_timeout, annotation),
 * reordered.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { listedFindings, type CheckedBundle } from '../../server/src/engine/checkRollout';
import { ArtifactChecker } from '../../server/src/engine/check/artifactChecker';
import { ModelCaches } from '../../server/src/engine/model/caches';
import { defaultRuleOptions } from '../../server/src/engine/rules/context';
import { fixtures } from '../fixtures/definitions';
import { writeTree } from '../support/files';
import { temporaryFolder } from '../support/repo';
import { checkRollout } from '../support/rollout';

const folder = temporaryFolder();
after(() => folder.remove());
const checker = new ArtifactChecker();
const caches = new ModelCaches();
const trajectoryPath = 'trajectory/acp_trajectory.jsonl';
const genuine = fixtures.find((fixture) => fixture.name === 'tool-ended-by-framework')!.files;
const [prompt, completed, pending, marker, annotation] = genuine[trajectoryPath]!.trimEnd().split('\n');

let written = 0;
function check(rows: readonly (string | undefined)[]): CheckedBundle {
  const root = join(folder.path, `${written++}`, 'hello-world__00000001');
  writeTree(root, { ...genuine, [trajectoryPath]: `${rows.join('\n')}\n` });
  return checkRollout(root, checker, { maxFindings: 1000, rules: defaultRuleOptions, caches });
}

function outOfOrder(checked: CheckedBundle) {
  return listedFindings(checked, 1000).findings.filter((finding) => finding.code === 'lifecycle-out-of-order');
}

describe('a framework lifecycle annotation in the records order', () => {
  it('after the timeout marker, as the framework writes it: it ends the call, and the timeout counts', () => {
    const checked = check([prompt, completed, pending, marker, annotation]);
    assert.deepEqual(outOfOrder(checked), []);
    assert.equal(checked.evaluation?.verdict, 'trusted-timeout');
  });

  it('before the timeout marker: lifecycle-out-of-order, related to the marker, and the call stays unresolved', () => {
    const checked = check([prompt, completed, pending, annotation, marker]);
    const [finding, ...others] = outOfOrder(checked);
    assert.equal(others.length, 0);
    assert.equal(finding?.range.start.line, 3);
    assert.deepEqual(
      finding?.related?.map((related) => [related.range.start.line, related.message]),
      [[4, 'the agent_timeout marker']],
    );
    const codes = listedFindings(checked, 1000).findings.map((each) => each.code);
    assert.ok(codes.includes('tool-pending'), codes.join(' '));
    assert.equal(checked.evaluation?.verdict, 'untrusted');
  });

  it('before the call it ends, and the marker: both are named', () => {
    const [finding] = outOfOrder(check([prompt, completed, annotation, pending, marker]));
    assert.match(finding!.message, /before the agent_timeout marker \(line 5\) and the tool call it ends \(line 4\)/);
    assert.deepEqual(
      finding!.related?.map((related) => related.range.start.line),
      [4, 3],
    );
  });

  it('with no timeout marker, still after the call it ends', () => {
    const before = outOfOrder(check([prompt, completed, annotation, pending]));
    assert.deepEqual(
      before.map((finding) => finding.related?.map((related) => related.message)),
      [['the tool call it ends']],
    );
    assert.deepEqual(outOfOrder(check([prompt, completed, pending, annotation])), []);
  });

  it('before a row that may be the last timeout marker (a type no schema knows, carrying its keys): out of order when it is read so', () => {
    const maybeMarker = JSON.stringify({
      type: 'nnt_timeout',
      pending_tool_call_ids: ['call_02'],
      terminal_trajectory_complete: false,
    });
    const checked = check([prompt, completed, pending, marker, annotation, maybeMarker]);
    const [finding, ...others] = outOfOrder(checked);
    assert.equal(others.length, 0);
    assert.match(
      finding!.message,
      /before the agent_timeout marker \(line 6\).*\(This holds when the trajectory row on line 6, whose type cannot be taken at its word, is read as an agent_timeout row\.\)$/,
    );
    assert.equal(checked.evaluation?.verdict, 'untrusted');
    assert.deepEqual(outOfOrder(check([prompt, completed, pending, maybeMarker, marker, annotation])), []);
  });

  it("the prototype form changes the call's own row in place, so its place is not judged", () => {
    const prototype = fixtures.find((fixture) => fixture.name === 'prototype-lifecycle')!.files[trajectoryPath]!;
    assert.ok(prototype.split('\n')[2]!.includes('"terminal_source":"benchflow"'), 'the call row, before the marker');
    const root = join(folder.path, 'prototype', 'hello-world__00000001');
    writeTree(root, fixtures.find((fixture) => fixture.name === 'prototype-lifecycle')!.files);
    const checked = checkRollout(root, checker, { maxFindings: 1000, rules: defaultRuleOptions, caches });
    assert.deepEqual(outOfOrder(checked), []);
    assert.equal(checked.evaluation?.verdict, 'trusted-timeout');
  });
});
