/**
 * The timeline picture, built from fixture rollouts and generated ones: the elements and their order as
 * the files say, the fallback to line order without timestamps, the reward wherever the reward rule
 * finds it, and the bound on what is drawn for a 100,000-row trajectory, which never bins a lane's
 * landmarks.
 */
import assert from 'node:assert/strict';
import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { TimelineElement, TimelinePicture } from '../../shared/src/timelinePicture';
import { ArtifactChecker } from '../../server/src/engine/check/artifactChecker';
import type { PictureOptions } from '../../server/src/engine/picture/buildPicture';
import { jsonl, writeTree } from '../support/files';
import { repoRoot, temporaryFolder } from '../support/repo';
import { pictureOfRollout } from '../webview/picture';

const bundles = join(repoRoot, 'test/fixtures/bundles');
const checker = new ArtifactChecker();
const scratch = temporaryFolder('rollout-evidence-timeline-');
after(() => scratch.remove());

function pictureOf(root: string, options: PictureOptions = {}): TimelinePicture {
  return pictureOfRollout(root, checker, options);
}

function linesOf(path: string): string[] {
  return readFileSync(path, 'utf8').split('\n');
}

const brief = (element: TimelineElement) => `${element.lane}/${element.kind}@${element.line}`;
/** Python's str(datetime) in UTC, to the microsecond, as milliseconds. */
function milliseconds(text: string): number {
  const [, whole, fraction = '0'] = /^(.*?)(?:\.(\d+))?$/.exec(text)!;
  return Date.parse(`${whole!.replace(' ', 'T')}Z`) + Number(`0.${fraction}`) * 1000;
}

describe('timeline picture', () => {
  it('draws a timed-out rollout as its files say: lanes, elements, lines and times', () => {
    const root = join(bundles, 'native-timeout-pending-tool');
    const picture = pictureOf(root);
    const trajectory = join(root, 'trajectory/acp_trajectory.jsonl');
    const actions = join(root, 'benchguard/action_records.jsonl');
    const result = join(root, 'result.json');
    assert.equal(picture.axis, 'time');
    assert.deepEqual(
      picture.lanes.map((lane) => lane.id),
      ['agent', 'tools', 'hardening', 'verifier', 'reward'],
    );
    assert.equal(picture.summarised, false);

    const rewardLine = linesOf(result).findIndex((line) => line.includes('"reward":'));
    assert.deepEqual(picture.elements.map(brief), [
      'agent/prompt@0',
      'agent/timeout@3',
      'tools/tool-call@1',
      'tools/tool-call@2',
      'hardening/kill@0',
      'hardening/kill@1',
      'hardening/observation@1',
      'verifier/sidecar-start@2',
      'verifier/setup@3',
      'verifier/grading@4',
      `reward/reward@${rewardLine}`,
    ]);
    const byBrief = new Map(picture.elements.map((element) => [brief(element), element]));
    assert.equal(byBrief.get('tools/tool-call@2')?.status, 'unresolved', 'the call left in_progress is marked');
    assert.equal(byBrief.get('tools/tool-call@1')?.status, 'ok');
    assert.equal(byBrief.get('hardening/observation@1')?.status, 'quiescent');
    assert.match(byBrief.get('agent/timeout@3')!.label, /call_02/);
    assert.equal(
      byBrief.get(`reward/reward@${rewardLine}`)?.label,
      '0',
      'the value alone: the kind is named by the view',
    );
    // The same record killed and observed: each label says the record, neither names its kind or status.
    assert.equal(byBrief.get('hardening/kill@1')?.label, 'Quiescence record (harden)');
    assert.equal(byBrief.get('hardening/observation@1')?.label, 'Quiescence record (harden) → 0');
    for (const element of picture.elements)
      assert.doesNotMatch(
        element.label,
        /^(Prompt|Kill attempt|Observation|Grading|Setup|Exec|Reward|Agent timeout|Verifier service)\b/,
        brief(element),
      );
    for (const element of picture.elements) {
      const file =
        element.lane === 'hardening' || element.lane === 'verifier'
          ? actions
          : element.lane === 'reward'
            ? result
            : trajectory;
      assert.equal(element.file, file, brief(element));
    }

    // Times from the rollout's start: action records by their own timestamps, trajectory rows within the agent's 40 s.
    const start = milliseconds(JSON.parse(readFileSync(result, 'utf8')).started_at as string);
    const records = linesOf(actions)
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { started_at: string; finished_at: string });
    assert.equal(byBrief.get('hardening/kill@0')?.start, Date.parse(records[0]!.started_at) - start);
    assert.equal(byBrief.get('hardening/kill@0')?.end, Date.parse(records[0]!.finished_at) - start);
    assert.equal(byBrief.get('verifier/grading@4')?.start, Date.parse(records[4]!.started_at) - start);
    for (const element of picture.elements.filter(
      (candidate) => candidate.lane === 'tools' || candidate.lane === 'agent',
    )) {
      assert.ok(
        element.start >= 0 && (element.end ?? element.start) <= 40_000,
        `${brief(element)} lies in the agent's execution window`,
      );
    }
    assert.ok(picture.lanes.find((lane) => lane.id === 'tools')?.approximate);
    assert.ok(picture.notices.some((notice) => /spread in line order/.test(notice)));
  });

  it('carries the codes the rules placed on an element line', () => {
    const picture = pictureOf(join(bundles, 'tool-pending-after-timeout'));
    const pending = picture.elements.find((element) => element.kind === 'tool-call' && element.status === 'unresolved');
    assert.ok(pending);
    assert.ok(pending.findings.includes('tool-pending'), pending.findings.join(', '));
  });

  it('keeps each lane in axis order, and every element points at a line of its file, in every fixture', () => {
    for (const name of readdirSync(bundles)) {
      const picture = pictureOf(join(bundles, name));
      for (const lane of picture.lanes) {
        const starts = picture.elements.filter((element) => element.lane === lane.id).map((element) => element.start);
        assert.deepEqual(
          starts,
          [...starts].sort((a, b) => a - b),
          `${name}: ${lane.id}`,
        );
      }
      for (const element of picture.elements) {
        assert.ok(
          element.line < linesOf(element.file).length,
          `${name}: ${brief(element)} is a line of ${element.file}`,
        );
        assert.ok(
          element.start >= picture.extent.from && (element.end ?? element.start) <= picture.extent.to,
          `${name}: ${brief(element)} lies in the extent`,
        );
      }
    }
  });

  it("starts the axis at the rollout's start as the elapsed-time hints read it: the config's started_at first", () => {
    const root = join(scratch.path, 'config-start');
    cpSync(join(bundles, 'native-timeout-pending-tool'), root, { recursive: true });
    const config = JSON.parse(readFileSync(join(root, 'config.json'), 'utf8')) as Record<string, unknown>;
    config['started_at'] = '2026-08-22 09:59:00.000001';
    writeFileSync(join(root, 'config.json'), JSON.stringify(config, null, 2));
    const picture = pictureOf(root);
    const kill = picture.elements.find((element) => brief(element) === 'hardening/kill@0');
    const record = JSON.parse(linesOf(join(root, 'benchguard/action_records.jsonl'))[0]!) as { started_at: string };
    assert.equal(kill?.start, Date.parse(record.started_at) - milliseconds(config['started_at'] as string));
  });

  it('falls back to line order, and says so, when the bundle has no timestamps', () => {
    const root = join(scratch.path, 'untimed');
    cpSync(join(bundles, 'native-timeout-pending-tool'), root, { recursive: true });
    const actions = join(root, 'benchguard/action_records.jsonl');
    const untimed = linesOf(actions)
      .filter(Boolean)
      .map((line) => {
        const {
          started_at: _started,
          finished_at: _finished,
          observed_at: _observed,
          ...record
        } = JSON.parse(line) as Record<string, unknown>;
        return record;
      });
    writeFileSync(actions, jsonl(...untimed));
    const result = JSON.parse(readFileSync(join(root, 'result.json'), 'utf8')) as Record<string, unknown>;
    delete result['started_at'];
    writeFileSync(join(root, 'result.json'), JSON.stringify(result, null, 2));

    const picture = pictureOf(root);
    assert.equal(picture.axis, 'order');
    assert.ok(
      picture.notices.some((notice) => /^Line order, not time/.test(notice)),
      picture.notices.join('\n'),
    );
    const trajectoryRows = linesOf(join(root, 'trajectory/acp_trajectory.jsonl')).filter(Boolean).length;
    for (const element of picture.elements) {
      if (element.lane === 'agent' || element.lane === 'tools')
        assert.equal(element.start, element.line, brief(element));
      if (element.lane === 'hardening' || element.lane === 'verifier')
        assert.equal(element.start, trajectoryRows + element.line, brief(element));
    }
    const reward = picture.elements.find((element) => element.kind === 'reward')!;
    assert.ok(
      picture.elements.every((element) => element.start <= reward.start),
      'the reward comes last',
    );
  });

  it('summarises a 100,000-row trajectory within the bound, keeping every rare element, and zooms into detail', () => {
    const root = join(scratch.path, 'huge');
    const rows = 100_000;
    const records: unknown[] = [];
    const unresolved = new Set<number>();
    for (let index = 0; index < rows - 1; index++) {
      if (index % 10 === 0) records.push({ type: 'user_message', text: `step ${index}` });
      else {
        const pending = index % 997 === 0;
        if (pending) unresolved.add(index);
        records.push({
          type: 'tool_call',
          tool_call_id: `call_${index}`,
          kind: 'execute',
          title: `ls ${index}`,
          status: pending ? 'in_progress' : 'completed',
          content: [],
        });
      }
    }
    records.push({
      type: 'agent_timeout',
      reason: 'wall_clock_timeout',
      timeout_sec: 300,
      pending_tool_call_ids: [...unresolved].map((index) => `call_${index}`),
      terminal_trajectory_complete: false,
    });
    writeTree(root, {
      'trajectory/acp_trajectory.jsonl': jsonl(...records),
      'result.json': JSON.stringify({
        rewards: { reward: 1 },
        started_at: '2026-08-22T10:00:00Z',
        finished_at: '2026-08-22T11:00:00Z',
        timing: { agent_execution: 3000 },
      }),
    });

    const picture = pictureOf(root);
    const drawn = picture.elements.length + picture.bins.length;
    assert.ok(drawn <= 3000, `${drawn} drawn elements`);
    assert.equal(picture.summarised, true);
    assert.ok(picture.notices.some((notice) => /zoom in/.test(notice)));
    const kept = new Set(
      picture.elements
        .filter((element) => element.status === 'unresolved' && element.kind === 'tool-call')
        .map((element) => element.line),
    );
    assert.deepEqual(
      [...kept].sort((a, b) => a - b),
      [...unresolved].sort((a, b) => a - b),
      'every unresolved call is drawn',
    );
    assert.ok(picture.elements.some((element) => element.kind === 'timeout'));
    assert.ok(picture.elements.some((element) => element.kind === 'reward'));
    const counted = picture.bins.reduce(
      (sum, bin) => sum + Object.values(bin.counts).reduce((a, b) => a + (b ?? 0), 0),
      0,
    );
    assert.equal(counted + picture.elements.length, rows + 1, 'every row and the reward is drawn or counted');

    // A range of 500 rows of the agent's 3,000 s is drawn in detail.
    const row = 3_000_000 / rows;
    const from = row * 40_000;
    const to = from + row * 500;
    const zoomed = pictureOf(root, { range: { from, to } });
    assert.equal(zoomed.summarised, false);
    assert.deepEqual(zoomed.range, { from, to });
    assert.ok(zoomed.elements.length >= 500 && zoomed.elements.length <= 502, `${zoomed.elements.length} elements`);
    for (const element of zoomed.elements) assert.ok(element.start <= to && (element.end ?? element.start) >= from);
  });
  it('draws a reward that only verifier/reward.json records, on its line', () => {
    const root = join(scratch.path, 'reward-json-only');
    cpSync(join(bundles, 'native-timeout-pending-tool'), root, { recursive: true });
    const resultPath = join(root, 'result.json');
    const result = JSON.parse(readFileSync(resultPath, 'utf8')) as Record<string, unknown>;
    delete result['rewards'];
    writeFileSync(resultPath, JSON.stringify(result, null, 2));
    rmSync(join(root, 'results.jsonl'));
    rmSync(join(root, 'verifier/reward.txt'));
    const rewardJson = join(root, 'verifier/reward.json');
    writeFileSync(rewardJson, JSON.stringify({ verifier: 'pytest', reward: 0.75 }, null, 2));

    const rewards = pictureOf(root).elements.filter((element) => element.kind === 'reward');
    assert.deepEqual(
      rewards.map((element) => [element.file, element.line, element.label]),
      [[rewardJson, linesOf(rewardJson).findIndex((line) => line.includes('"reward"')), '0.75']],
    );
  });

  it('keeps the timeout, kills, observations, verifier start, grading and the reward drawn past 2,000 failed and unresolved tool calls', () => {
    const root = join(scratch.path, 'many-failed-calls');
    cpSync(join(bundles, 'native-timeout-pending-tool'), root, { recursive: true });
    const trajectoryPath = join(root, 'trajectory/acp_trajectory.jsonl');
    const [prompt, ...rest] = linesOf(trajectoryPath).filter(Boolean);
    const calls = Array.from({ length: 2500 }, (_, index) =>
      JSON.stringify({
        type: 'tool_call',
        tool_call_id: `many_${index}`,
        kind: 'execute',
        title: `false ${index}`,
        status: index % 2 === 0 ? 'failed' : 'pending',
        content: [],
      }),
    );
    writeFileSync(trajectoryPath, `${[prompt, ...calls, ...rest].join('\n')}\n`);
    const whole = pictureOf(root, { limits: { maxElements: 1_000_000, binsPerLane: 200 } });
    // What the README promises stays drawn (a successful setup exec is routine, and may be counted).
    const promised = new Set(['timeout', 'kill', 'observation', 'sidecar-start', 'grading', 'reward']);
    const landmarks = whole.elements.filter((element) => promised.has(element.kind)).map(brief);
    assert.equal(landmarks.length, 7, landmarks.join(', '));

    const bounded = pictureOf(root);
    assert.equal(bounded.summarised, true);
    assert.ok(bounded.elements.length <= 2000, `${bounded.elements.length} elements`);
    const drawn = new Set(bounded.elements.map(brief));
    for (const landmark of landmarks) assert.ok(drawn.has(landmark), `${landmark} is drawn, not binned`);
    for (const lane of bounded.lanes) {
      const starts = bounded.elements.filter((element) => element.lane === lane.id).map((element) => element.start);
      assert.deepEqual(
        starts,
        [...starts].sort((a, b) => a - b),
        `${lane.id} stays in axis order`,
      );
    }
  });
});
