/**
 * The progress of a check on stderr: rollouts done of those found, the rate, the time left, and the file
 * being read. By default only a person at a terminal sees it (stderr is a TTY and `CI` is not set), as
 * one self-overwriting line once the check has run for a second, so quick checks, pipes and CI logs stay
 * clean. `--progress` shows it wherever stderr goes: on a terminal the same line; elsewhere (a CI log, a
 * file) a plain line every 5 seconds and a last one when the check ends, with no control characters.
 */
import { printable } from '../engine/text/printable';

export interface ProgressLine {
  /** What is being read now, shown after the counts. */
  update(text: string): void;
  /** Bytes were read: a chance to redraw while one large file takes long. */
  tick(): void;
  /** Rollouts checked so far, of all found. */
  rollouts(done: number, total: number): void;
  /** The check ended: the terminal line is erased; plain lines end with a last one. */
  clear(): void;
}

/** What progressLine writes to: stderr, or a test's stand-in. */
export interface ProgressStream {
  readonly isTTY?: boolean;
  readonly columns?: number;
  write(text: string): unknown;
}

export interface ProgressOptions {
  /** --progress: shown even when stderr is not a terminal, or in CI. */
  readonly forced: boolean;
  /** Running in CI (the `CI` environment variable): no progress unless forced. */
  readonly ci: boolean;
  /** Milliseconds; a test injects its own clock. */
  readonly now?: () => number;
}

export type ProgressMode = 'off' | 'terminal' | 'lines';

const terminalDelayMs = 1000;
const redrawEveryMs = 100;
const plainLineEveryMs = 5000;

export function progressMode(isTTY: boolean, { forced, ci }: Pick<ProgressOptions, 'forced' | 'ci'>): ProgressMode {
  if (forced) return isTTY ? 'terminal' : 'lines';
  return isTTY && !ci ? 'terminal' : 'off';
}

/** CI services set `CI` (GitHub Actions and GitLab to "true"); an empty, "0" or "false" value is not CI. */
export function isCi(env: NodeJS.ProcessEnv): boolean {
  const value = env['CI'];
  return value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false';
}

export interface ProgressState {
  readonly done: number;
  readonly total: number;
  readonly elapsedMs: number;
  /** What is being read now; empty when nothing is. */
  readonly current: string;
}

/** `12 of 100 rollouts, 3.4/s, ETA 26s, 4s elapsed · checking …`: the rate and ETA once a rollout is done. */
export function progressText({ done, total, elapsedMs, current }: ProgressState): string {
  const parts = [`${done} of ${total} rollout${total === 1 ? '' : 's'}`];
  const seconds = elapsedMs / 1000;
  if (done > 0 && seconds > 0) {
    const rate = done / seconds;
    parts.push(`${rate < 10 ? rate.toFixed(1) : rate.toFixed(0)}/s`);
    if (done < total) parts.push(`ETA ${duration((total - done) / rate)}`);
  }
  parts.push(`${duration(seconds)} elapsed`);
  const counts = parts.join(', ');
  return current === '' ? counts : `${counts} · ${current}`;
}

/** Whole seconds, as `45s`, `1m05s` or `2h03m`. */
function duration(seconds: number): string {
  const whole = Math.round(seconds);
  if (whole < 60) return `${whole}s`;
  const minutes = Math.floor(whole / 60);
  if (minutes < 60) return `${minutes}m${String(whole % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

export function progressLine(stream: ProgressStream, options: ProgressOptions): ProgressLine {
  const mode = progressMode(stream.isTTY === true, options);
  if (mode === 'off') return { update() {}, tick() {}, rollouts() {}, clear() {} };
  const now = options.now ?? Date.now;
  const startedAt = now();
  let current = '';
  let done = 0;
  let total = 0;
  let drawnAt = startedAt;
  let shown = false;
  const state = (): ProgressState => ({ done, total, elapsedMs: now() - startedAt, current });

  const drawTerminal = (): void => {
    const at = now();
    if (at - startedAt < terminalDelayMs || (shown && at - drawnAt < redrawEveryMs)) return;
    drawnAt = at;
    shown = true;
    // A terminal of unknown size (a pseudo-terminal reports 0 columns) is taken as 80 wide.
    const width = Math.max(20, (stream.columns || 80) - 1);
    // The file being read is a path from the bundle: it must not move the cursor or end the line.
    const line = printable(progressText(state()));
    stream.write(`\r\x1b[2K${line.length > width ? `${line.slice(0, width - 1)}…` : line}`);
  };
  const drawPlain = (): void => {
    const at = now();
    if (at - drawnAt < plainLineEveryMs) return;
    drawnAt = at;
    // Only the counts: a file's path would make every line of a CI log a different one to read.
    stream.write(`rollout-evidence: ${progressText({ ...state(), current: '' })}\n`);
  };
  const draw = mode === 'terminal' ? drawTerminal : drawPlain;
  return {
    update(text) {
      current = text;
      draw();
    },
    tick() {
      draw();
    },
    rollouts(count, of) {
      done = count;
      total = of;
      draw();
    },
    clear() {
      if (mode === 'terminal') {
        if (shown) stream.write('\r\x1b[2K');
      } else stream.write(`rollout-evidence: ${progressText({ ...state(), current: '' })}\n`);
    },
  };
}
