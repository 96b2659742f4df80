/**
 * `npm run bench`: what the full check of a 50 MB trajectory costs against the floor for the same work,
 * measured in the same run, each measurement in a fresh process so that its peak memory is its own. The
 * floor reads the same bytes the same way as the check (streamed in 1 MiB chunks into one buffer) and
 * gives each line to JSON.parse. The CLI is also timed as a user runs it, a whole process (start-up
 * included, and printed without it; the schemas are compiled at build time), and the language server
 * with the file open in the editor (as the client sees it: from didOpen sent to the diagnostics
 * received; its peak RSS), then the outline the editor asks for next (printed, not in the target).
 * Targets: the check ≤ 2.0x the floor (aim 1.5x); peak RSS ≤ 3x the file size, for the CLI and the
 * server. Prints the numbers and "missed" where one is; never fails on them (machines differ).
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DocumentSymbolRequest } from 'vscode-languageserver-protocol/node';
import { ArtifactChecker } from '../../server/src/engine/check/artifactChecker';
import { LspTestClient } from '../support/lspClient';
import { builtCli, temporaryFolder } from '../support/repo';
import {
  benchmark,
  medianOf,
  medianRun,
  megabyte,
  streamedParse,
  stringHeavyRow,
  writeNodeWrapper,
  writeTrajectory,
  type Measured,
} from './support';

const targetBytes = 50 * megabyte;
const runs = 3;

type Mode = 'idle' | 'baseline' | 'check-file' | 'check-text' | 'check-text-kept';

interface Measurement extends Measured {
  readonly records: number;
  readonly problems: number;
}

// ---------------------------------------------------------------------------------------------------
// Child side: one measurement, reported to the parent.

async function measure(mode: string, path: string): Promise<Measurement> {
  if (mode === 'idle') return { milliseconds: 0, peakRssBytes: 0, records: 0, problems: 0 };
  if (mode === 'baseline') {
    const started = performance.now();
    const { records } = streamedParse(path);
    return { milliseconds: performance.now() - started, peakRssBytes: 0, records, problems: 0 };
  }
  // The schemas are compiled at build time; making a checker is timed apart (see checkerMilliseconds).
  const checker = new ArtifactChecker();
  const started = performance.now();
  const options = { maxFindings: 1000 };
  const report =
    mode === 'check-file'
      ? checker.checkFile(path, 'acp-trajectory', options)
      : mode === 'check-text'
        ? checker.checkText(readFileSync(path, 'utf8'), 'acp-trajectory', options)
        : // The language server's check: cancellable, keeping each line's outcome for the next edit.
          (await checker.checkTextCancellable(readFileSync(path, 'utf8'), 'acp-trajectory', options, () => false))!
            .report;
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

function checkerMilliseconds(): number {
  const started = performance.now();
  new ArtifactChecker();
  return performance.now() - started;
}

/** Peak RSS of a running process so far (VmHWM, Linux), or undefined where /proc does not tell. */
function peakRssOf(pid: number): number | undefined {
  try {
    const peak = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return peak ? Number(peak[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

interface ServerOpen {
  readonly milliseconds: number;
  readonly peakRssBytes: number | undefined;
  /** Then the outline, which VS Code asks for as soon as the file is shown: its time, size, and the peak RSS after it. */
  readonly outline: {
    readonly milliseconds: number;
    readonly symbols: number;
    readonly peakRssBytes: number | undefined;
  };
}

/**
 * The file open in the real language server, as the client sees it: from didOpen sent to the pulled
 * diagnostics received, and the server's peak RSS then; then the outline (documentSymbol), as the
 * editor asks for it next.
 */
async function serverOpen(path: string): Promise<ServerOpen> {
  const { client } = await LspTestClient.start({ pull: true, settings: {} });
  try {
    const text = readFileSync(path, 'utf8');
    const uri = pathToFileURL(path).href;
    let started = performance.now();
    await client.open(uri, text);
    await client.pull(uri);
    const milliseconds = performance.now() - started;
    const peakRssBytes = peakRssOf(client.process.pid!);
    started = performance.now();
    const symbols = await client.connection.sendRequest(DocumentSymbolRequest.type, { textDocument: { uri } });
    const outline = {
      milliseconds: performance.now() - started,
      symbols: symbols?.length ?? 0,
      peakRssBytes: peakRssOf(client.process.pid!),
    };
    return { milliseconds, peakRssBytes, outline };
  } finally {
    await client.stop();
  }
}

const median = (values: number[]): number => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const verdict = (met: boolean): string => (met ? 'met' : 'missed');

async function main(): Promise<void> {
  const folder = temporaryFolder('rollout-evidence-bench-');
  try {
    const wrapper = writeNodeWrapper(folder.path);
    // What every CLI run pays, whatever the file: start-up and loading (a one-line trajectory).
    const tiny = join(folder.path, 'tiny/trajectory/acp_trajectory.jsonl');
    mkdirSync(join(folder.path, 'tiny/trajectory'), { recursive: true });
    writeFileSync(tiny, `${JSON.stringify(stringHeavyRow(2))}\n`);
    const fixed = await medianRun(wrapper, [builtCli, 'check', tiny, '--format', 'json'], runs);
    const idle = await medianOf<Measurement>('idle' satisfies Mode, '', runs);
    console.log(`Node ${process.version}; each figure is the median of ${runs} runs, each in a fresh process.`);
    console.log(
      `Schemas compiled at build time; making a checker (not in the times below): ${checkerMilliseconds().toFixed(0)} ms`,
    );
    console.log(`Peak RSS of an idle Node process: ${(idle.peakRssBytes / megabyte).toFixed(0)} MB`);
    console.log(`A CLI run on a one-line trajectory (start-up, loading): ${fixed.milliseconds.toFixed(0)} ms\n`);

    const mixes = [
      ['string-heavy records (~1.4 KB/line)', stringHeavyRow],
      ['key/number-heavy records (~180 B/line)', keyHeavy],
    ] as const;
    for (const [name, record] of mixes) {
      mkdirSync(join(folder.path, record.name, 'trajectory'), { recursive: true });
      const path = join(folder.path, record.name, 'trajectory/acp_trajectory.jsonl');
      const lines = writeTrajectory(path, targetBytes, record);
      const size = statSync(path).size;
      console.log(`${name}: ${(size / megabyte).toFixed(1)} MB, ${lines} lines, ${(size / lines).toFixed(0)} B/line`);

      const baseline = await medianOf<Measurement>('baseline' satisfies Mode, path, runs);
      const rows: [string, Measurement][] = [
        ['floor: streamed 1 MiB reads, JSON.parse', baseline],
        [
          'check, streamed from disk (CLI engine)',
          await medianOf<Measurement>('check-file' satisfies Mode, path, runs),
        ],
        ['check of text in memory (editor)', await medianOf<Measurement>('check-text' satisfies Mode, path, runs)],
        [
          'same, kept for edits (language server)',
          await medianOf<Measurement>('check-text-kept' satisfies Mode, path, runs),
        ],
      ];
      for (const [label, result] of rows) {
        const ratio = result.milliseconds / baseline.milliseconds;
        const memory = result.peakRssBytes / size;
        console.log(
          `  ${label.padEnd(40)} ${result.milliseconds.toFixed(0).padStart(6)} ms  ${(size / megabyte / (result.milliseconds / 1000)).toFixed(0).padStart(4)} MB/s` +
            `  ${ratio.toFixed(2)}x floor  peak RSS ${(result.peakRssBytes / megabyte).toFixed(0).padStart(4)} MB = ${memory.toFixed(2)}x file` +
            `  (${result.records} records, ${result.problems} problems)`,
        );
      }
      // The CLI as a user runs it: a whole process, output to /dev/null.
      const cli = await medianRun(wrapper, [builtCli, 'check', path, '--format', 'json'], runs);
      const cliRatio = cli.milliseconds / baseline.milliseconds;
      const cliWithout = cli.milliseconds - fixed.milliseconds;
      const cliMemory = cli.peakRssBytes / size;
      console.log(
        `  ${'CLI process: check FILE --format json'.padEnd(40)} ${cli.milliseconds.toFixed(0).padStart(6)} ms  ${cliRatio.toFixed(2)}x floor` +
          ` (without start-up ${cliWithout.toFixed(0)} ms, ${(cliWithout / baseline.milliseconds).toFixed(2)}x)  peak RSS ${(cli.peakRssBytes / megabyte).toFixed(0)} MB = ${cliMemory.toFixed(2)}x file`,
      );
      // The language server, with the file open in the editor: one fresh server per run.
      const serverRuns: ServerOpen[] = [];
      for (let run = 0; run < runs; run++) serverRuns.push(await serverOpen(path));
      const serverMilliseconds = median(serverRuns.map((run) => run.milliseconds));
      const highest = (peaks: (number | undefined)[]): number | undefined => {
        const known = peaks.flatMap((peak) => (peak === undefined ? [] : [peak]));
        return known.length > 0 ? Math.max(...known) : undefined;
      };
      const peakText = (peak: number | undefined) =>
        peak === undefined
          ? 'n/a (no /proc)'
          : `${(peak / megabyte).toFixed(0)} MB = ${(peak / size).toFixed(2)}x file`;
      const serverPeak = highest(serverRuns.map((run) => run.peakRssBytes));
      console.log(
        `  ${'server: didOpen to diagnostics (client)'.padEnd(40)} ${serverMilliseconds.toFixed(0).padStart(6)} ms  ${(serverMilliseconds / baseline.milliseconds).toFixed(2)}x floor` +
          `  peak RSS ${peakText(serverPeak)}`,
      );
      // Not in the target: the editor asks for it next, and the server's peak so far includes it.
      const outlineMilliseconds = median(serverRuns.map((run) => run.outline.milliseconds));
      console.log(
        `  ${'server: then the outline (client)'.padEnd(40)} ${outlineMilliseconds.toFixed(0).padStart(6)} ms  ${serverRuns[0]!.outline.symbols} symbols` +
          `  peak RSS so far ${peakText(highest(serverRuns.map((run) => run.outline.peakRssBytes)))}`,
      );
      const [, streamed] = rows[1]!;
      const ratio = streamed.milliseconds / baseline.milliseconds;
      const memory = streamed.peakRssBytes / size;
      console.log(
        `  target: check ≤ 2.0x floor (aim 1.5x): ${ratio.toFixed(2)}x ${verdict(ratio <= 2)}${ratio <= 2 ? (ratio <= 1.5 ? ', aim met' : ', aim missed') : ''}` +
          `; CLI process ${cliRatio.toFixed(2)}x ${verdict(cliRatio <= 2)}`,
      );
      console.log(
        `  target: peak RSS ≤ 3x file: check ${memory.toFixed(2)}x ${verdict(memory <= 3)}; CLI ${cliMemory.toFixed(2)}x ${verdict(cliMemory <= 3)}` +
          `; server ${serverPeak === undefined ? 'not measured (no /proc)' : `${(serverPeak / size).toFixed(2)}x ${verdict(serverPeak / size <= 3)}`}\n`,
      );
    }
  } finally {
    folder.remove();
  }
}
