/**
 * Every reward the bundle states is compared as BenchFlow compares it (model/reward.ts `statedRewards`,
 * rules/reward/consistency.ts): reward.txt read as Python's float() reads it, numbers equal within
 * math.isclose's 1e-9, and each statement held to what BenchFlow's writers put there. Variations of the
 * rollout BenchFlow's writers write (the `benchflow-completed` fixture).
 */
import assert from 'node:assert/strict';
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { listedFindings, type CheckedBundle } from '../../server/src/engine/checkRollout';
import { ArtifactChecker } from '../../server/src/engine/check/artifactChecker';
import { rewardFromText, rewardsAgree } from '../../server/src/engine/model/rewardNumber';
import { ModelCaches } from '../../server/src/engine/model/caches';
import { defaultRuleOptions } from '../../server/src/engine/rules/context';
import { fixtures } from '../fixtures/definitions';
import { cli } from '../support/cli';
import { writeTree } from '../support/files';
import { temporaryFolder } from '../support/repo';
import { checkRollout } from '../support/rollout';

const folder = temporaryFolder();
after(() => folder.remove());
const checker = new ArtifactChecker();
const caches = new ModelCaches();
const completed = fixtures.find((fixture) => fixture.name === 'benchflow-completed')!.files;

let written = 0;
/** The completed rollout with `changes` (a file's new text, or undefined to leave it out). */
function rollout(changes: Readonly<Record<string, string | Uint8Array | undefined>>): string {
  const root = join(folder.path, `${written++}`, 'hello-world__b0000001');
  const files = Object.fromEntries(
    Object.entries({ ...completed, ...changes }).filter(
      (entry): entry is [string, string | Uint8Array] => entry[1] !== undefined,
    ),
  );
  writeTree(root, files);
  return root;
}

function check(root: string): CheckedBundle {
  return checkRollout(root, checker, { maxFindings: 1000, rules: defaultRuleOptions, caches });
}

/** The reward findings, as "file:line code". */
function rewardFindings(checked: CheckedBundle): string[] {
  return listedFindings(checked, 1000)
    .findings.filter((finding) => finding.code.startsWith('reward-'))
    .map((finding) => `${finding.file.slice(checked.root.length + 1)}:${finding.range.start.line + 1} ${finding.code}`);
}

const resultWith = (rewards: unknown, extra: Record<string, unknown> = {}): string => {
  const result = JSON.parse(completed['result.json']!) as Record<string, unknown>;
  return JSON.stringify({ ...result, rewards, ...extra }, null, 2);
};

describe("reward.txt is read as Python's float() reads it", () => {
  // Each checked against python3 -c 'float(...)'.
  const read: [string, number][] = [
    ['1', 1],
    ['0', 0],
    ['1.0\n', 1],
    [' \t0.5 \r\n', 0.5],
    ['+1e0', 1],
    ['-0', -0],
    ['1_000', 1000],
    ['.5', 0.5],
    ['1.', 1],
    ['1.e1', 10],
    ['5E-1', 0.5],
    ['0.30000000000000004', 0.30000000000000004],
    ['inf', Infinity],
    ['-Infinity', -Infinity],
    ['1e999', Infinity],
  ];
  for (const [text, value] of read)
    it(`${JSON.stringify(text)} is ${value}`, () => assert.equal(rewardFromText(text)?.value, value));
  it('"nan" and "NaN" are NaN, which agrees with nothing', () => {
    assert.ok(Number.isNaN(rewardFromText('nan')?.value));
    assert.ok(Number.isNaN(rewardFromText('-NaN')?.value));
  });
  // float() refuses each (a Unicode digit it would read is refused here too: unreadable, never misread).
  for (const text of [
    '',
    '\n',
    'PASS',
    '1_',
    '_1',
    '1__0',
    '1._5',
    '1,0',
    '0x1',
    '1 0',
    '1\n2',
    '\ufeff1',
    '١',
    'infinit',
  ])
    it(`${JSON.stringify(text)} is not a number`, () => assert.equal(rewardFromText(text), undefined));
  it('says where the number stands, whitespace left out', () => {
    const number = rewardFromText('\n 1.0 \n');
    assert.deepEqual([number?.start, number?.end], [2, 5]);
  });
});

describe('rewards agree as math.isclose(rel_tol=1e-9, abs_tol=1e-9) says', () => {
  const cases: [number, number, boolean][] = [
    [1, 1, true],
    [1, 1 + 1e-10, true],
    [0, 1e-9, true],
    [0, 2e-9, false],
    [1e9, 1e9 + 0.5, true],
    [1e9, 1e9 + 2, false],
    [0, 1, false],
    [Infinity, Infinity, true],
    [Infinity, 1e308, false],
    [Number.NaN, Number.NaN, false],
  ];
  for (const [a, b, agree] of cases)
    it(`${a} and ${b}: ${agree ? 'agree' : 'differ'}`, () => {
      assert.equal(rewardsAgree(a, b), agree);
      assert.equal(rewardsAgree(b, a), agree);
    });
});

describe('the statements of the reward', () => {
  it('as BenchFlow writes them: no finding', () => {
    assert.deepEqual(rewardFindings(check(rollout({}))), []);
  });

  it('reward.json against reward.txt: BenchFlow refuses both when they differ', () => {
    const checked = check(rollout({ 'verifier/reward.json': '{\n  "reward": 0.0\n}' }));
    assert.deepEqual(rewardFindings(checked), ['result.json:5 reward-mismatch']);
    const mismatch = listedFindings(checked, 1000).findings.find((finding) => finding.code === 'reward-mismatch')!;
    assert.match(mismatch.message, /but as 0\.0 in verifier\/reward\.json reward\./);
    assert.equal(mismatch.related?.length, 6, 'every statement is a related place');
    assert.equal(checked.evaluation?.verdict, 'untrusted');
  });

  it('reward.json within 1e-9 of the others, written otherwise: no finding', () => {
    assert.deepEqual(rewardFindings(check(rollout({ 'verifier/reward.json': '{"reward": 0.9999999999}' }))), []);
  });

  it('result.json without a reward (a verifier error): the row says 0, the verifier files are not compared', () => {
    const results = completed['results.jsonl']!.replace('"reward": 1.0', '"reward": 0.0').replace(
      '"score": 1.0',
      '"score": 0.0',
    );
    const root = rollout({
      'result.json': resultWith(null, { verifier_error: 'verifier crashed: reward.json does not match reward.txt' }),
      'results.jsonl': results,
      'rewards.jsonl': undefined,
      'verifier/reward.txt': '1',
      'verifier/reward.json': '{"reward": 0.0}',
    });
    assert.deepEqual(rewardFindings(check(root)), []);
    writeFileSync(join(root, 'rewards.jsonl'), completed['rewards.jsonl']!);
    assert.deepEqual(rewardFindings(check(root)), ['rewards.jsonl:1 reward-mismatch'], 'no scalar event then');
  });

  it('without result.json, every other statement must agree: the row may not be a default', () => {
    const results = completed['results.jsonl']!.replace('"reward": 1.0', '"reward": 0.0');
    assert.deepEqual(rewardFindings(check(rollout({ 'result.json': undefined, 'results.jsonl': results }))), [
      'results.jsonl:1 reward-mismatch',
    ]);
  });

  it('a result.json that does not parse is no hub either', () => {
    const checked = check(rollout({ 'result.json': '{"rewards": {"reward": 1.0', 'verifier/reward.txt': '0' }));
    assert.deepEqual(rewardFindings(checked), ['results.jsonl:1 reward-mismatch']);
  });

  it('a rubric item that calls itself terminal is not the scalar event', () => {
    const item = JSON.stringify({ type: 'process', source: 'verifier_rubric', value: 0.5, granularity: 'terminal' });
    assert.deepEqual(rewardFindings(check(rollout({ 'rewards.jsonl': `${item}\n${completed['rewards.jsonl']}` }))), []);
  });

  it('a damaged key of the row is read as the key it resembles: the damage hides no disagreement', () => {
    const results = completed['results.jsonl']!.replace('"reward": 1.0', '"rewarx": 0.0');
    const checked = check(rollout({ 'results.jsonl': results }));
    assert.deepEqual(rewardFindings(checked), ['result.json:5 reward-mismatch']);
    const mismatch = listedFindings(checked, 1000).findings.find((finding) => finding.code === 'reward-mismatch')!;
    assert.match(mismatch.message, /but as 0\.0 in results\.jsonl reward \(line 1\)\./);
  });

  it('a result.json rewards that cannot be read may have been null: the row must then say 0', () => {
    const checked = check(rollout({ 'result.json': resultWith('none'), 'verifier/reward.txt': '1' }));
    assert.deepEqual(rewardFindings(checked), ['result.json:4 reward-unreadable', 'results.jsonl:1 reward-mismatch']);
    const mismatch = listedFindings(checked, 1000).findings.find((finding) => finding.code === 'reward-mismatch')!;
    assert.match(mismatch.message, /This holds when result\.json's reward, which cannot be read, was null\./);
    assert.equal(checked.evaluation?.verdict, 'untrusted');
    const inMap = check(rollout({ 'result.json': resultWith({ reward: 'one' }) }));
    assert.deepEqual(rewardFindings(inMap), ['result.json:5 reward-unreadable'], 'a rewards map always holds one');
  });

  it('the top-level reward of the validator fixtures is a statement too', () => {
    const checked = check(rollout({ 'result.json': resultWith({ reward: 1.0 }, { reward: 0 }) }));
    assert.deepEqual(rewardFindings(checked), ['result.json:5 reward-mismatch']);
  });
});

describe('a statement that cannot be read as a number', () => {
  const unreadable: [string, Record<string, string | Uint8Array>, string][] = [
    ['an empty reward.txt', { 'verifier/reward.txt': '' }, 'verifier/reward.txt:1'],
    [
      'reward.txt of bytes that are not UTF-8',
      { 'verifier/reward.txt': Uint8Array.of(0x31, 0xff) },
      'verifier/reward.txt:1',
    ],
    ['reward.txt over 1 MiB', { 'verifier/reward.txt': `1${' '.repeat(1024 * 1024)}` }, 'verifier/reward.txt:1'],
    ['reward.json that is not JSON', { 'verifier/reward.json': '{"reward": ' }, 'verifier/reward.json:1'],
    ['reward.json that is no object', { 'verifier/reward.json': '1.0' }, 'verifier/reward.json:1'],
    [
      'a reward.json reward that is a string',
      { 'verifier/reward.json': '{"reward": "1.0"}' },
      'verifier/reward.json:1',
    ],
    ['a result.json reward that is a boolean', { 'result.json': resultWith({ reward: true }) }, 'result.json:5'],
    [
      'a results row score that is a string',
      { 'results.jsonl': completed['results.jsonl']!.replace('"score": 1.0', '"score": "1.0"') },
      'results.jsonl:1',
    ],
    [
      'a results row reward that is null under a damaged key (what is left of it)',
      { 'results.jsonl': completed['results.jsonl']!.replace('"reward": 1.0', '"rewarx": null') },
      'results.jsonl:1',
    ],
    [
      'a rewards.jsonl scalar value that is a string',
      { 'rewards.jsonl': completed['rewards.jsonl']!.replace('"value": 1.0', '"value": "1.0"') },
      'rewards.jsonl:1',
    ],
  ];
  for (const [name, changes, at] of unreadable)
    it(`${name}: reward-unreadable, incomplete, and no mismatch`, () => {
      const checked = check(rollout(changes));
      assert.deepEqual(rewardFindings(checked), [`${at} reward-unreadable`]);
      assert.equal(checked.evaluation?.verdict, 'incomplete');
    });

  it('takes no part in the comparison: the readable ones still disagree', () => {
    const checked = check(rollout({ 'verifier/reward.json': '{"reward": "x"}', 'verifier/reward.txt': '0' }));
    assert.deepEqual(rewardFindings(checked), [
      'result.json:5 reward-mismatch',
      'verifier/reward.json:1 reward-unreadable',
    ]);
  });

  it('a reward.txt the checker may not read is unreadable, never absent', () => {
    const root = rollout({});
    chmodSync(join(root, 'verifier/reward.txt'), 0o000);
    chmodSync(folder.path, 0o755);
    // Root reads everything, so as root the check runs as nobody.
    const asUser = process.getuid?.() === 0 ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : [];
    const run = cli(['check', root], { prefix: asUser });
    assert.match(
      run.stdout,
      /verifier\/reward\.txt:1:1: information reward-unreadable verifier\/reward\.txt is there but cannot be read \(permission denied\)/,
    );
    assert.match(run.stdout, /^verdict incomplete/m);
    rmSync(join(root, 'verifier/reward.txt'));
    assert.match(cli(['check', root], { prefix: asUser }).stdout, /^verdict trusted/m, 'absent is no statement');
  });
});
