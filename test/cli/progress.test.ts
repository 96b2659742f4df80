/**
 * Progress on stderr: its text (rate and time left) under an injected clock, when it is shown (a
 * terminal outside CI, or --progress) and how (a self-overwriting line, or plain lines), and the built
 * CLI with pipes: no progress unless --progress is given.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isCi, progressLine, progressText, type ProgressStream } from '../../server/src/cli/progress';
import { cli } from '../support/cli';

class Stream implements ProgressStream {
  readonly written: string[] = [];
  constructor(
    readonly isTTY: boolean,
    readonly columns = 200,
  ) {}
  write(text: string): boolean {
    this.written.push(text);
    return true;
  }
}

/** A clock the test moves. */
function clock(): { now: () => number; advance: (ms: number) => void } {
  let time = 1_000_000;
  return { now: () => time, advance: (ms) => (time += ms) };
}

describe('the progress text', () => {
  it('gives done of total, and the rate and time left once a rollout is done', () => {
    assert.equal(progressText({ done: 0, total: 100, elapsedMs: 400, current: '' }), '0 of 100 rollouts, 0s elapsed');
    assert.equal(
      progressText({ done: 25, total: 100, elapsedMs: 10_000, current: 'checking a/result.json (file 3 of 9)' }),
      '25 of 100 rollouts, 2.5/s, ETA 30s, 10s elapsed · checking a/result.json (file 3 of 9)',
    );
    // 25 per second, 9,500 left: 380 s.
    assert.equal(
      progressText({ done: 500, total: 10_000, elapsedMs: 20_000, current: '' }),
      '500 of 10000 rollouts, 25/s, ETA 6m20s, 20s elapsed',
    );
    // 0.1 per second, 9,999 left: 99,990 s.
    assert.equal(
      progressText({ done: 1, total: 10_000, elapsedMs: 10_000, current: '' }),
      '1 of 10000 rollouts, 0.1/s, ETA 27h46m, 10s elapsed',
    );
    assert.equal(
      progressText({ done: 1, total: 1, elapsedMs: 2_000, current: '' }),
      '1 of 1 rollout, 0.5/s, 2s elapsed',
    );
  });
});

describe('the progress line', () => {
  it('on a terminal, waits a second, then redraws one line at most every 100 ms and erases it at the end', () => {
    const stream = new Stream(true);
    const time = clock();
    const progress = progressLine(stream, { forced: false, ci: false, now: time.now });
    progress.rollouts(0, 10);
    time.advance(900);
    progress.rollouts(1, 10);
    assert.deepEqual(stream.written, [], 'nothing in the first second');
    time.advance(600);
    progress.rollouts(3, 10);
    // 3 in 1.5 s: 2 per second, 7 left: 3.5 s.
    assert.deepEqual(stream.written, ['\r\x1b[2K3 of 10 rollouts, 2.0/s, ETA 4s, 2s elapsed']);
    time.advance(50);
    progress.update('checking x');
    assert.equal(stream.written.length, 1, 'no redraw within 100 ms');
    time.advance(50);
    progress.tick();
    assert.equal(stream.written.at(-1), '\r\x1b[2K3 of 10 rollouts, 1.9/s, ETA 4s, 2s elapsed · checking x');
    progress.clear();
    assert.equal(stream.written.at(-1), '\r\x1b[2K');
  });

  it('cuts the line to the terminal, taking one that reports 0 columns as 80 wide', () => {
    const stream = new Stream(true, 0);
    const time = clock();
    const progress = progressLine(stream, { forced: false, ci: false, now: time.now });
    time.advance(1_000);
    progress.update(`checking ${'x'.repeat(200)}`);
    const line = stream.written[0]!.slice('\r\x1b[2K'.length);
    assert.equal(line.length, 79);
    assert.ok(line.startsWith('0 of 0 rollouts, 1s elapsed · checking xxx') && line.endsWith('x…'), line);
  });

  it('on a terminal, shows the path being read escaped: it cannot end the line or send an escape sequence', () => {
    const stream = new Stream(true);
    const time = clock();
    const progress = progressLine(stream, { forced: false, ci: false, now: time.now });
    time.advance(1_000);
    progress.update('checking jobs/x\n\u001b[2J/result.json');
    assert.deepEqual(stream.written, [
      '\r\x1b[2K0 of 0 rollouts, 1s elapsed · checking jobs/x\\n\\u001b[2J/result.json',
    ]);
  });

  it('is off when stderr is not a terminal, or in CI, unless forced', () => {
    for (const [stream, ci] of [
      [new Stream(false), false],
      [new Stream(true), true],
    ] as const) {
      const time = clock();
      const progress = progressLine(stream, { forced: false, ci, now: time.now });
      progress.rollouts(0, 2);
      time.advance(60_000);
      progress.rollouts(1, 2);
      progress.update('checking x');
      progress.clear();
      assert.deepEqual(stream.written, []);
    }
  });

  it('forced without a terminal, writes a plain line every 5 seconds and one at the end', () => {
    const stream = new Stream(false);
    const time = clock();
    const progress = progressLine(stream, { forced: true, ci: true, now: time.now });
    progress.rollouts(0, 40);
    time.advance(4_000);
    progress.rollouts(8, 40);
    assert.deepEqual(stream.written, []);
    time.advance(1_000);
    progress.update('checking x');
    time.advance(5_000);
    progress.rollouts(30, 40);
    time.advance(1_000);
    progress.rollouts(40, 40);
    progress.clear();
    assert.deepEqual(stream.written, [
      'rollout-evidence: 8 of 40 rollouts, 1.6/s, ETA 20s, 5s elapsed\n',
      'rollout-evidence: 30 of 40 rollouts, 3.0/s, ETA 3s, 10s elapsed\n',
      'rollout-evidence: 40 of 40 rollouts, 3.6/s, 11s elapsed\n',
    ]);
  });

  it('reads CI from the environment as CI services set it', () => {
    assert.equal(isCi({ CI: 'true' }), true);
    assert.equal(isCi({ CI: '1' }), true);
    for (const CI of [undefined, '', '0', 'false', 'FALSE']) assert.equal(isCi({ CI }), false, String(CI));
  });
});

describe('rollout-evidence check and progress', () => {
  const { CI: _ci, ...outsideCi } = process.env;

  it('shows no progress when stderr is a pipe', () => {
    const { status, stderr } = cli(['check', 'examples'], { env: outsideCi });
    assert.equal(status, 1);
    assert.equal(stderr, '');
  });

  it('shows plain progress lines on a pipe with --progress, the last with every rollout done', () => {
    const { status, stdout, stderr } = cli(['check', 'examples', '--progress', '--format', 'json'], {
      env: { ...outsideCi, CI: 'true' },
    });
    assert.equal(status, 1);
    assert.doesNotThrow(() => JSON.parse(stdout), 'stdout holds only the report');
    assert.ok(!stderr.includes('\x1b'), 'no control characters in a log');
    assert.match(
      stderr.trimEnd().split('\n').at(-1)!,
      /^rollout-evidence: 2 of 2 rollouts, \d+(\.\d)?\/s, \d+s elapsed$/,
    );
  });
});
