/**
 * `npm run bench`: what the full check of a 50 MB trajectory costs against the bare baseline (split
 * into lines, JSON.parse each), measured in the same run, each measurement in a fresh process so that
 * its peak memory is its own. Targets: the check costs at most 2x the baseline; peak memory stays
 * within 3x the file size. Prints the numbers; never fails on them (machines differ).
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ArtifactChecker } from '../../server/src/engine/check/artifactChecker';
import { temporaryFolder } from '../support/repo';
import { benchmark, medianOf, megabyte, stringHeavyRow, writeTrajectory, type Measured } from './support';

const targetBytes = 50 * megabyte;
const runs = 3;

type Mode = 'idle' | 'baseline' | 'check-file' | 'check-text';

interface Measurement extends Measured {
  readonly records: number;
  readonly problems: number;
}

// ---------------------------------------------------------------------------------------------------
// Child side: one measurement, reported to the parent.

function measure(mode: string, path: string): Measurement {
  if (mode === 'idle') return { milliseconds: 0, peakRssBytes: 0, records: 0, problems: 0 };
  if (mode === 'baseline') {
    const started = performance.now();
    let records = 0;
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      if (line.length === 0) continue;
      JSON.parse(line);
      records++;
    }
    return { milliseconds: performance.now() - started, peakRssBytes: 0, records, problems: 0 };
  }
  // Schema compilation happens once per process and is timed apart (see compileMilliseconds).
  const checker = new ArtifactChecker();
  const started = performance.now();
  const options = { maxFindings: 1000 };
  const report =
    mode === 'check-file'
      ? checker.checkFile(path, 'acp-trajectory', options)
      : checker.checkText(readFileSync(path, 'utf8'), 'acp-trajectory', options);
  return {
    milliseconds: performance.now() - started,
    peakRssBytes: 0,
    records: report.records,
    problems: report.counts.error + report.counts.warning,
  };
}

benchmark(measure, main);

// ---------------------------------------------------------------------------------------------------
// Parent side.

/** About 180 bytes a line: many short keys and numbers, the slow case for JSON.parse. */
function keyHeavy(index: number): unknown {
  return index % 2 === 0
    ? {
        type: 'tool_call',
        tool_call_id: `call_${index}`,
        kind: 'bash',
        title: `ls -la src/components/${index % 97}`,
        status: index % 10 === 0 ? 'in_progress' : 'completed',
        content: [{ type: 'diff', n: index, ok: true, ms: index % 1000 }],
      }
    : {
        type: 'agent_timeout',
        reason: 'wall_clock_timeout',
        timeout_sec: index % 300,
        pending_tool_call_ids: [`call_${index - 1}`, `call_${index - 3}`],
        terminal_trajectory_complete: false,
      };
}

function compileMilliseconds(): number {
  const started = performance.now();
  new ArtifactChecker();
  return performance.now() - started;
}

async function main(): Promise<void> {
  const folder = temporaryFolder('rollout-evidence-bench-');
  try {
    const idle = await medianOf<Measurement>('idle' satisfies Mode, '', runs);
    console.log(`Node ${process.version}; each figure is the median of ${runs} runs, each in a fresh process.`);
    console.log(
      `Schema compilation (once per process, not in the times below): ${compileMilliseconds().toFixed(0)} ms`,
    );
    console.log(`Peak RSS of an idle Node process: ${(idle.peakRssBytes / megabyte).toFixed(0)} MB\n`);

    const mixes = [
      ['string-heavy records (~1.4 KB/line)', stringHeavyRow],
      ['key/number-heavy records (~180 B/line)', keyHeavy],
    ] as const;
    for (const [name, record] of mixes) {
      const path = join(folder.path, `${record.name}.jsonl`);
      const lines = writeTrajectory(path, targetBytes, record);
      const size = statSync(path).size;
      console.log(`${name}: ${(size / megabyte).toFixed(1)} MB, ${lines} lines, ${(size / lines).toFixed(0)} B/line`);

      const baseline = await medianOf<Measurement>('baseline' satisfies Mode, path, runs);
      const rows: [string, Measurement][] = [
        ['baseline: read, split, JSON.parse', baseline],
        ['check, streamed from disk (CLI)', await medianOf<Measurement>('check-file' satisfies Mode, path, runs)],
        ['check of text in memory (editor)', await medianOf<Measurement>('check-text' satisfies Mode, path, runs)],
      ];
      for (const [label, result] of rows) {
        const ratio = result.milliseconds / baseline.milliseconds;
        const memory = result.peakRssBytes / size;
        console.log(
          `  ${label.padEnd(36)} ${result.milliseconds.toFixed(0).padStart(6)} ms  ${(size / megabyte / (result.milliseconds / 1000)).toFixed(0).padStart(4)} MB/s` +
            `  ${ratio.toFixed(2)}x baseline  peak RSS ${(result.peakRssBytes / megabyte).toFixed(0).padStart(4)} MB = ${memory.toFixed(2)}x file` +
            `  (${result.records} records, ${result.problems} problems)`,
        );
      }
      const [, streamed] = rows[1]!;
      const ratio = streamed.milliseconds / baseline.milliseconds;
      const memory = streamed.peakRssBytes / size;
      console.log(
        `  target (CLI check): time ≤ 2x baseline: ${ratio.toFixed(2)}x ${ratio <= 2 ? 'met' : 'MISSED'}; peak memory ≤ 3x file: ${memory.toFixed(2)}x ${memory <= 3 ? 'met' : 'MISSED'}\n`,
      );
    }
  } finally {
    folder.remove();
  }
}
