/**
 * Bad input for the evidence rules: missing files, broken JSON in any file, wrong types everywhere,
 * ids that point nowhere, a 1 MB command. Each yields diagnostics and a verdict, never an exception,
 * and the rest of the bundle is still analysed.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ArtifactClassifier } from '../../server/src/engine/artifacts/classify';
import { checkBundle, diagnosticsOf, type CheckedBundle } from '../../server/src/engine/bundle/checkBundle';
import { discoverBundles } from '../../server/src/engine/bundle/discover';
import { ArtifactChecker } from '../../server/src/engine/check/artifactChecker';
import { RuleCaches, defaultRuleOptions } from '../../server/src/engine/rules/context';
import { fixtures } from '../fixtures/definitions';
import { jsonl, writeTree } from '../support/files';
import { temporaryFolder } from '../support/repo';

const folder = temporaryFolder();
after(() => folder.remove());
const checker = new ArtifactChecker();
const caches = new RuleCaches();
const healthy = fixtures.find((fixture) => fixture.name === 'healthy')!;

function check(root: string): CheckedBundle {
  const [bundle] = discoverBundles([root], new ArtifactClassifier()).bundles;
  return checkBundle(bundle!, checker, { maxFindings: 1000, rules: defaultRuleOptions, caches });
}

function codes(checked: CheckedBundle): string[] {
  return diagnosticsOf(checked).map((finding) => finding.code);
}

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('evidence rules on bad input', () => {
  it('a rollout with nothing but an empty trajectory folder is incomplete, and says what is missing', () => {
    const root = join(folder.path, 'bare');
    writeTree(root, { 'trajectory/.keep': '' });
    const checked = check(root);
    assert.equal(checked.evaluation?.verdict, 'incomplete');
    assert.deepEqual(codes(checked).filter((code) => code === 'review-missing-artifact').length, 4);
    assert.ok(codes(checked).includes('quiescence-unproven'), 'no config.json: whether a sandbox user applies is unknown');
  });

  it('wrong types in every file are reported, and the rules still run', () => {
    const root = join(folder.path, 'types');
    writeTree(root, {
      'config.json': JSON.stringify({ sandbox_user: 5 }),
      'result.json': JSON.stringify({ rewards: 'all of them', agent_timeout_info: { pending_tool_call_ids: 'call_1' }, trajectory_summary: { tool_call_status_counts: [] } }),
      'trajectory/acp_trajectory.jsonl': jsonl({ type: 'tool_call', tool_call_id: 7, status: 'pending' }, { type: 'agent_timeout', pending_tool_call_ids: { a: 1 }, terminal_trajectory_complete: 'yes' }, { type: 'tool_call_lifecycle', tool_call_id: ['x'] }),
      'results.jsonl': jsonl({ info: 'none', reward: 'high' }),
      'benchguard/preflight.json': JSON.stringify({ report: { task_binding: { facts: { verifier_environment_mode: 42 } } } }),
      'benchguard/action_records.jsonl': jsonl({ event_type: 'SandboxExec', command_preview: 42, return_code: '0' }, { event_type: 'SandboxUserQuiescence', survivors: 'many', return_code: 'zero' }, { event_type: 7 }),
      'trajectory/llm_trajectory.jsonl': jsonl({ request: 'nothing', response: [] }),
    });
    const checked = check(root);
    assert.ok(codes(checked).filter((code) => code === 'schema').length >= 10, codes(checked).join(' '));
    assert.ok(codes(checked).includes('quiescence-unproven'));
    assert.ok(codes(checked).includes('review-llm-trajectory'));
    assert.ok(checked.evaluation && ['incomplete', 'untrusted'].includes(checked.evaluation.verdict));
  });

  it('ids referenced but never defined are findings', () => {
    const root = join(folder.path, 'dangling');
    writeTree(root, {
      ...healthy.files,
      'trajectory/acp_trajectory.jsonl': jsonl(
        { type: 'user_message', text: 'hi' },
        { type: 'agent_timeout', reason: 'wall_clock_timeout', timeout_sec: 1, pending_tool_call_ids: ['ghost'], terminal_trajectory_complete: false },
        { type: 'tool_call_lifecycle', tool_call_id: 'phantom', lifecycle: 'ended_by_framework', effects: 'unknown', source: 'benchflow', quiescence_ref: 'nowhere' },
      ),
    });
    const found = diagnosticsOf(check(root)).map((finding) => `${finding.code}: ${finding.message}`);
    assert.ok(found.some((line) => line.startsWith('timeout-pending-mismatch') && line.includes('"ghost"')), found.join('\n'));
    assert.ok(found.some((line) => line.startsWith('lifecycle-overclaims') && line.includes('"phantom"')));
    assert.ok(found.some((line) => line.startsWith('lifecycle-without-quiescence') && line.includes('"nowhere"')));
  });

  it('a 1 MB command_preview is classified, not a crash', () => {
    const root = join(folder.path, 'huge-command');
    const command = `${'echo padding; '.repeat(75_000)}pkill -u agent; ! pgrep -u agent; sleep 1`;
    writeTree(root, {
      ...healthy.files,
      'benchguard/action_records.jsonl': jsonl({ event_type: 'SandboxExec', phase: 'Harden', service: 'main', status: 'ok', command_preview: command, return_code: 0 }),
    });
    const masked = diagnosticsOf(check(root)).find((finding) => finding.code === 'masked-exit-status')!;
    assert.ok(masked, 'the trailing sleep masks the observation');
    // The range is the `sleep 1` at the very end of a 1 MB string value.
    const line = jsonl({ event_type: 'SandboxExec', phase: 'Harden', service: 'main', status: 'ok', command_preview: command, return_code: 0 }).split('\n')[0]!;
    assert.equal(line.slice(masked.range.start.character, masked.range.end.character), 'sleep 1');
  });

  it('every fixture survives a missing file, a broken line or a wrong type (200 mutations)', () => {
    const next = random(1079);
    for (let round = 0; round < 200; round++) {
      const fixture = fixtures[Math.floor(next() * fixtures.length)]!;
      const files = { ...fixture.files };
      const names = Object.keys(files);
      const target = names[Math.floor(next() * names.length)]!;
      const mutation = Math.floor(next() * 4);
      if (mutation === 0) delete files[target];
      else if (mutation === 1) {
        const lines = files[target]!.split('\n');
        lines[Math.floor(next() * lines.length)] = '{"broken": ';
        files[target] = lines.join('\n');
      } else if (mutation === 2) files[target] = files[target]!.replace(/"[a-z_]+":\s*("[^"]*"|[0-9.]+|true|false|null)/, (match) => `${match.slice(0, match.indexOf(':'))}: [[1], {"x": null}]`);
      else files[target] = files[target]!.slice(0, Math.floor(next() * files[target]!.length));
      const root = join(folder.path, `mutation-${round}`);
      writeTree(root, files);
      const checked = check(root);
      assert.ok(checked.evaluation, `${fixture.name}: ${target} (mutation ${mutation})`);
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('an unreadable artifact makes the rollout incomplete while the other files are still judged', () => {
    const root = join(folder.path, 'folder-not-file');
    const { ['benchguard/action_records.jsonl']: _actions, ...others } = healthy.files;
    writeTree(root, { ...others, 'benchguard/action_records.jsonl/oops': '' });
    const checked = check(root);
    assert.equal(checked.files.find((file) => file.path.endsWith('action_records.jsonl'))?.ioError, 'is a folder, not a file');
    assert.equal(checked.evaluation?.verdict, 'incomplete');
  });
});
