/**
 * A trusted rollout whose action log is long: the healthy fixture's hardening and verifier records
 * after many routine agent execs, as a long BenchFlow run writes them. For tests and benchmarks of
 * what the server does with a large open document.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixtures } from '../fixtures/definitions';
import { writeTree } from './files';

export const actionLogPath = 'benchguard/action_records.jsonl';

const commands = [
  'cd /app && python3 -m pytest -q tests/unit',
  'ls -la /app/src',
  'mkdir -p /app/build && chmod 755 /app/build',
  'bash -lc "make -C /app all"',
  'cat /app/README.md',
];

/** The text of the action log: `lines` records, the healthy fixture's own last (without times, which the routine execs lack). */
export function largeActionLog(lines: number): string {
  const healthy = fixtures.find((fixture) => fixture.name === 'healthy')!;
  const tail = healthy.files[actionLogPath]!.trimEnd().split('\n');
  const rows: string[] = [];
  for (let index = 0; index < lines - tail.length; index++) {
    rows.push(
      JSON.stringify({
        event_type: 'SandboxExec',
        action_id: `a-${index}`,
        phase: 'Agent',
        service: 'main',
        status: 'ok',
        command_preview: commands[index % commands.length],
        return_code: 0,
      }),
    );
  }
  for (const line of tail)
    rows.push(
      JSON.stringify({
        ...(JSON.parse(line) as Record<string, unknown>),
        started_at: undefined,
        finished_at: undefined,
      }),
    );
  return `${rows.join('\n')}\n`;
}

/** Where a routine exec's action id starts its number (`"a-` and then the digits) on each of its lines. */
export const actionIdDigitsColumn = '{"event_type":"SandboxExec","action_id":"a-'.length;

/** Writes the healthy fixture at `root` with an action log of `lines` records; returns the log's text. */
export function writeRolloutWithLargeActionLog(root: string, lines: number): string {
  const healthy = fixtures.find((fixture) => fixture.name === 'healthy')!;
  writeTree(root, healthy.files);
  const text = largeActionLog(lines);
  writeFileSync(join(root, actionLogPath), text);
  return text;
}
