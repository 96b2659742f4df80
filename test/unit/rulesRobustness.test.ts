/**
 * Bad input for the evidence rules: missing files, broken JSON in any file, wrong types everywhere,
 * ids that point nowhere, a 1 MB command. Each yields diagnostics and a verdict, never an exception,
 * and the rest of the bundle is still analysed.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { listedFindings, type CheckedBundle } from '../../server/src/engine/checkRollout';
import { ArtifactChecker } from '../../server/src/engine/check/artifactChecker';
import { comparePositions } from '../../server/src/engine/findings';
import { defaultRuleOptions } from '../../server/src/engine/rules/context';
import { ModelCaches } from '../../server/src/engine/model/caches';
import { verdicts } from '../../server/src/engine/verdict';
import { fixtures } from '../fixtures/definitions';
import { jsonl, writeTree } from '../support/files';
import { seededRandom } from '../support/random';
import { temporaryFolder } from '../support/repo';
import { checkRollout } from '../support/rollout';

const folder = temporaryFolder();
after(() => folder.remove());
const checker = new ArtifactChecker();
const caches = new ModelCaches();
const healthy = fixtures.find((fixture) => fixture.name === 'healthy')!;

function check(root: string): CheckedBundle {
  return checkRollout(root, checker, { maxFindings: 1000, rules: defaultRuleOptions, caches });
}

function codes(checked: CheckedBundle): string[] {
  return listedFindings(checked, 1000).findings.map((finding) => finding.code);
}

describe('evidence rules on bad input', () => {
  it('a rollout with nothing but an empty trajectory folder is incomplete, and says what is missing', () => {
    const root = join(folder.path, 'bare');
    writeTree(root, { 'trajectory/.keep': '' });
    const checked = check(root);
    assert.equal(checked.evaluation?.verdict, 'incomplete');
    assert.deepEqual(codes(checked).filter((code) => code === 'review-missing-artifact').length, 4);
    assert.ok(
      codes(checked).includes('quiescence-unproven'),
      'no config.json: whether a sandbox user applies is unknown',
    );
  });

  it('wrong types in every file are reported, and the rules still run', () => {
    const root = join(folder.path, 'types');
    writeTree(root, {
      'config.json': JSON.stringify({ sandbox_user: 5 }),
      'result.json': JSON.stringify({
        rewards: 'all of them',
        agent_timeout_info: { pending_tool_call_ids: 'call_1' },
        trajectory_summary: { tool_call_status_counts: [] },
      }),
      'trajectory/acp_trajectory.jsonl': jsonl(
        { type: 'tool_call', tool_call_id: 7, status: 'pending' },
        { type: 'agent_timeout', pending_tool_call_ids: { a: 1 }, terminal_trajectory_complete: 'yes' },
        { type: 'tool_call_lifecycle', tool_call_id: ['x'] },
      ),
      'results.jsonl': jsonl({ info: 'none', reward: 'high' }),
      'benchguard/preflight.json': JSON.stringify({
        report: { task_binding: { facts: { verifier_environment_mode: 42 } } },
      }),
      'benchguard/action_records.jsonl': jsonl(
        { event_type: 'SandboxExec', command_preview: 42, return_code: '0' },
        { event_type: 'SandboxUserQuiescence', survivors: 'many', return_code: 'zero' },
        { event_type: 7 },
      ),
      'trajectory/llm_trajectory.jsonl': jsonl({ request: 'nothing', response: [] }),
    });
    const checked = check(root);
    assert.ok(codes(checked).filter((code) => code === 'schema').length >= 10, codes(checked).join(' '));
    // Which quiescence finding depends on how the damaged records are read (stale when the last one is read as a kill).
    assert.ok(
      codes(checked).some((code) => code === 'quiescence-unproven' || code === 'quiescence-stale'),
      codes(checked).join(' '),
    );
    assert.ok(codes(checked).includes('review-llm-trajectory'));
    assert.ok(checked.evaluation && ['incomplete', 'untrusted'].includes(checked.evaluation.verdict));
  });

  it('ids referenced but never defined are findings', () => {
    const root = join(folder.path, 'dangling');
    writeTree(root, {
      ...healthy.files,
      'trajectory/acp_trajectory.jsonl': jsonl(
        { type: 'user_message', text: 'hi' },
        {
          type: 'agent_timeout',
          reason: 'wall_clock_timeout',
          timeout_sec: 1,
          pending_tool_call_ids: ['ghost'],
          terminal_trajectory_complete: false,
        },
        {
          type: 'tool_call_lifecycle',
          tool_call_id: 'phantom',
          lifecycle: 'ended_by_framework',
          effects: 'unknown',
          source: 'benchflow',
          quiescence_ref: 'nowhere',
        },
      ),
    });
    const found = listedFindings(check(root), 1000).findings.map((finding) => `${finding.code}: ${finding.message}`);
    assert.ok(
      found.some((line) => line.startsWith('timeout-pending-mismatch') && line.includes('"ghost"')),
      found.join('\n'),
    );
    assert.ok(found.some((line) => line.startsWith('lifecycle-overclaims') && line.includes('"phantom"')));
    assert.ok(found.some((line) => line.startsWith('lifecycle-without-quiescence') && line.includes('"nowhere"')));
  });

  it('a 1 MB command_preview is classified, not a crash', () => {
    const root = join(folder.path, 'huge-command');
    const command = `echo ${'padding '.repeat(130_000)}; pkill -u agent; ! pgrep -u agent; sleep 1`;
    writeTree(root, {
      ...healthy.files,
      'benchguard/action_records.jsonl': jsonl({
        event_type: 'SandboxExec',
        phase: 'Harden',
        service: 'main',
        status: 'ok',
        command_preview: command,
        return_code: 0,
      }),
    });
    const masked = listedFindings(check(root), 1000).findings.find((finding) => finding.code === 'masked-exit-status')!;
    assert.ok(masked, 'the trailing sleep masks the observation');
    // The range is the `sleep 1` at the very end of a 1 MB string value.
    const line = jsonl({
      event_type: 'SandboxExec',
      phase: 'Harden',
      service: 'main',
      status: 'ok',
      command_preview: command,
      return_code: 0,
    }).split('\n')[0]!;
    assert.equal(line.slice(masked.range.start.character, masked.range.end.character), 'sleep 1');
  });

  it('a command_preview of more commands than the bound is one command-too-complex, analysed in well under 2 s of CPU', () => {
    const root = join(folder.path, 'many-commands');
    writeTree(root, {
      ...healthy.files,
      'benchguard/action_records.jsonl': jsonl({
        event_type: 'SandboxExec',
        phase: 'Harden',
        service: 'main',
        status: 'ok',
        command_preview: 'pgrep -u agent; '.repeat(62_500),
        return_code: 0,
      }),
    });
    const before = process.cpuUsage();
    const checked = check(root);
    const cpu = process.cpuUsage(before);
    assert.deepEqual(
      codes(checked).filter((code) => code === 'command-too-complex'),
      ['command-too-complex'],
    );
    assert.equal(checked.evaluation?.verdict, 'incomplete');
    assert.ok(cpu.user + cpu.system < 2_000_000, `${(cpu.user + cpu.system) / 1000} ms of CPU`);
  });

  it("places each of a command's masking findings exactly, through escapes, and bounds how many there are", () => {
    const root = join(folder.path, 'many-masking');
    // Quotes and a control character are escaped in the JSON text (\" and \u0001), so decoded and raw offsets drift apart.
    const masker = 'a "x\u0001"';
    const command = `pgrep -u agent; ${`${masker} && `.repeat(40)}${masker}`;
    const record = {
      event_type: 'SandboxExec',
      phase: 'Harden',
      service: 'main',
      status: 'ok',
      command_preview: command,
      return_code: 0,
    };
    writeTree(root, { ...healthy.files, 'benchguard/action_records.jsonl': jsonl(record) });
    const findings = listedFindings(check(root), 1000).findings;
    const masked = findings.filter((finding) => finding.code === 'masked-exit-status');
    assert.equal(masked.length, 32);
    const line = jsonl(record).split('\n')[0]!;
    for (const finding of masked)
      assert.equal(
        line.slice(finding.range.start.character, finding.range.end.character),
        JSON.stringify(masker).slice(1, -1),
      );
    const notice = findings.filter((finding) => finding.code === 'command-too-complex');
    assert.equal(notice.length, 1);
    assert.match(
      notice[0]!.message,
      /^This command holds 9 more commands whose exit status cannot report the observation than the 32 reported on it/,
    );
  });

  it('values nested deeper than JSON.stringify can go, in the fields messages quote, are described, not a crash', () => {
    const root = join(folder.path, 'deep');
    // Written as text: JSON.stringify itself cannot write such a value, though JSON.parse reads it.
    const deep = (text: string) => text.split('"DEEP"').join(`${'['.repeat(20_000)}${']'.repeat(20_000)}`);
    const result = JSON.parse(healthy.files['result.json']!) as Record<string, unknown>;
    writeTree(root, {
      ...healthy.files,
      'result.json': deep(JSON.stringify({ ...result, error: 'DEEP' })),
      'trajectory/acp_trajectory.jsonl': deep(
        jsonl(
          { type: 'tool_call', tool_call_id: 'DEEP', status: 'pending' },
          { type: 'tool_call', tool_call_id: 'call_9', status: 'DEEP' },
        ),
      ),
      'trajectory/llm_trajectory.jsonl': deep(
        jsonl({
          request: { body: { messages: 'DEEP' } },
          response: { status_code: 200, body: { usage: { input_tokens: 1 } } },
        }),
      ),
      'benchguard/action_records.jsonl': deep(
        jsonl({
          event_type: 'SandboxExec',
          phase: 'Verify',
          service: 'main',
          status: 'DEEP',
          command_preview: 'pytest -q',
        }),
      ),
    });
    const findings = listedFindings(check(root), 1000).findings;
    assert.ok(
      findings.some((finding) => finding.code === 'tool-pending' && finding.message.includes('an array of 1 item')),
      findings.map((f) => f.message).join('\n'),
    );
    assert.ok(findings.some((finding) => finding.code === 'exec-outcome-missing'));
    for (const finding of findings)
      assert.ok(finding.message.length < 1000, `${finding.code}: ${finding.message.length} characters`);
  });

  it('a record whose started_at cannot be read is ordered by its finished_at', () => {
    const root = join(folder.path, 'unreadable-start');
    const exec = {
      event_type: 'SandboxExec',
      phase: 'Agent',
      service: 'main',
      status: 'ok',
      command_preview: 'ls',
      return_code: 0,
    };
    writeTree(root, {
      ...healthy.files,
      'benchguard/action_records.jsonl': jsonl(
        { ...exec, started_at: '2026-08-22T10:00:05Z' },
        { ...exec, started_at: null, finished_at: '2026-08-22T10:00:01Z' },
      ),
    });
    const order = listedFindings(check(root), 1000).findings.find((finding) => finding.code === 'timeline-order');
    assert.equal(order?.range.start.line, 1);
    assert.match(order!.message, /finished_at is earlier than the started_at/);
  });

  it('a lifecycle row that does not say ended_by_framework ends nothing', () => {
    const root = join(folder.path, 'other-lifecycle');
    const ended = fixtures.find((fixture) => fixture.name === 'tool-ended-by-framework')!;
    writeTree(root, {
      ...ended.files,
      'trajectory/acp_trajectory.jsonl': ended.files['trajectory/acp_trajectory.jsonl']!.replace(
        '"ended_by_framework"',
        '"resumed"',
      ),
    });
    const found = listedFindings(check(root), 1000).findings.map((finding) => finding.code);
    assert.ok(found.includes('schema'), found.join(' '));
    assert.ok(found.includes('tool-pending'), 'call_02 is still unresolved');
  });

  it('a reward recorded only in verifier/reward.json is flagged there', () => {
    const root = join(folder.path, 'reward-json');
    const survivors = fixtures.find((fixture) => fixture.name === 'survivors-with-reward')!;
    const { ['verifier/reward.txt']: _text, ['results.jsonl']: _results, ...others } = survivors.files;
    const result = JSON.parse(survivors.files['result.json']!) as Record<string, unknown>;
    writeTree(root, {
      ...others,
      'result.json': JSON.stringify({ ...result, rewards: null }),
      'verifier/reward.json': '{\n  "reward": 0.5\n}\n',
    });
    const flagged = listedFindings(check(root), 1000).findings.find((finding) => finding.code === 'untrusted-reward');
    assert.equal(flagged?.file, join(root, 'verifier/reward.json'));
    assert.deepEqual(flagged?.range.start, { line: 1, character: 12 });
    assert.match(flagged!.message, /This reward \(0\.5\)/);

    writeTree(root, { 'verifier/reward.json': '{"reward": ' });
    assert.equal(
      listedFindings(check(root), 1000).findings.find((finding) => finding.code === 'untrusted-reward'),
      undefined,
      'a cut-off reward.json names no reward',
    );

    // rewards.jsonl comes first: its terminal event is the scalar reward; step events are rubric items.
    writeTree(root, {
      'rewards.jsonl': jsonl(
        { space: 'output', granularity: 'step', value: 0.25 },
        { space: 'output', granularity: 'terminal', value: 1 },
      ),
    });
    const event = listedFindings(check(root), 1000).findings.find((finding) => finding.code === 'untrusted-reward');
    assert.deepEqual([event?.file, event?.range.start.line], [join(root, 'rewards.jsonl'), 1]);
    assert.match(event!.message, /This reward \(1\)/);
  });

  it('every fixture survives a missing file, a broken line, a wrong type, a deep or a huge value (200 mutations)', () => {
    const random = seededRandom(1079);
    const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    const huge = JSON.stringify('x'.repeat(1 << 20));
    const replaceValue = (text: string, by: string) =>
      text.replace(
        /"[a-z_]+":\s*("[^"]*"|[0-9.]+|true|false|null)/,
        (match) => `${match.slice(0, match.indexOf(':'))}: ${by}`,
      );
    for (let round = 0; round < 200; round++) {
      const fixture = fixtures[random.below(fixtures.length)]!;
      const files = { ...fixture.files };
      const names = Object.keys(files);
      const target = names[random.below(names.length)]!;
      const mutation = random.below(6);
      if (mutation === 0) delete files[target];
      else if (mutation === 1) {
        const lines = files[target]!.split('\n');
        lines[random.below(lines.length)] = '{"broken": ';
        files[target] = lines.join('\n');
      } else if (mutation === 2) files[target] = replaceValue(files[target]!, '[[1], {"x": null}]');
      else if (mutation === 3) files[target] = replaceValue(files[target]!, deep);
      else if (mutation === 4) files[target] = replaceValue(files[target]!, huge);
      else files[target] = files[target]!.slice(0, random.below(files[target]!.length));
      const root = join(folder.path, `mutation-${round}`);
      writeTree(root, files);
      const checked = check(root);
      const where = `${fixture.name}: ${target} (mutation ${mutation})`;
      assert.ok(checked.evaluation && verdicts.includes(checked.evaluation.verdict), where);
      for (const finding of listedFindings(checked, 1000).findings) {
        assert.ok(
          finding.message.length < 2000,
          `${where}: a ${finding.message.length}-character ${finding.code} message`,
        );
        assert.ok(
          finding.range.start.line >= 0 && comparePositions(finding.range.start, finding.range.end) <= 0,
          `${where}: ${finding.code} range`,
        );
      }
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('an unreadable artifact makes the rollout incomplete while the other files are still judged', () => {
    const root = join(folder.path, 'folder-not-file');
    const { ['benchguard/action_records.jsonl']: _actions, ...others } = healthy.files;
    writeTree(root, { ...others, 'benchguard/action_records.jsonl/oops': '' });
    const checked = check(root);
    assert.equal(
      checked.files.find((file) => file.path.endsWith('action_records.jsonl'))?.ioError,
      'is a folder, not a file',
    );
    assert.equal(checked.evaluation?.verdict, 'incomplete');
  });
});
