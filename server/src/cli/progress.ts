/**
 * A single self-overwriting progress line on stderr, shown only to a person at a terminal and only once
 * a check has taken longer than a second: quick checks and CI logs stay clean.
 */
export interface ProgressLine {
  update(text: string): void;
  tick(): void;
  clear(): void;
}

const delayMs = 1000;
const redrawEveryMs = 100;

export function progressLine(stream: NodeJS.WriteStream): ProgressLine {
  if (!stream.isTTY) return { update() {}, tick() {}, clear() {} };
  const startedAt = Date.now();
  let text = '';
  let drawnAt = 0;
  let shown = false;
  const draw = (): void => {
    const now = Date.now();
    if (now - startedAt < delayMs || now - drawnAt < redrawEveryMs) return;
    drawnAt = now;
    shown = true;
    const width = Math.max(20, (stream.columns ?? 80) - 1);
    const seconds = ((now - startedAt) / 1000).toFixed(0);
    const line = `${text} · ${seconds}s`;
    stream.write(`\r\x1b[2K${line.length > width ? `${line.slice(0, width - 1)}…` : line}`);
  };
  return {
    update(next) {
      text = next;
      draw();
    },
    tick() {
      draw();
    },
    clear() {
      if (shown) stream.write('\r\x1b[2K');
    },
  };
}
