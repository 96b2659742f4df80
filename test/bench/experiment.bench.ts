/**
 * `npm run bench`, the experiment: a generated BenchFlow jobs tree of 1,000 and of 10,000 rollouts
 * (test/support/experimentTree.ts), checked by the built CLI as a reviewer runs it
 * (`rollout-evidence check <tree> --format json`, output to /dev/null), with `--jobs 1` and with the
 * default, against the floor for the same work measured in the same run: every file of the tree read
 * in Node, single-threaded, streamed in the check's 1 MiB chunks, and each line given to JSON.parse.
 * Prints time per rollout, CPU time and the cores kept busy (CPU / wall), peak RSS and the ratio to that
 * floor, and how time grows from 1,000 to 10,000 (linear is 1.00). Target: the default run ≤ 1.5x the floor. Never fails on the numbers.
 *   node out/test/bench/experiment.bench.js [SIZE ...]   tree sizes (1000 10000 by default)
 * With ROLLOUT_EVIDENCE_VALIDATOR=/path/to/validator.py, BenchFlow's experiment-review validator is
 * timed on the same trees too (`python3 <path> <tree>`); its code is not part of this repository.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeExperimentTree } from '../support/experimentTree';
import { builtCli, temporaryFolder } from '../support/repo';
import {
  benchmark,
  medianOf,
  medianRun,
  megabyte,
  streamedParseOfTree,
  writeNodeWrapper,
  type Measured,
  type ProcessRun,
} from './support';

const sizes = process.argv.length > 2 ? process.argv.slice(2).map(Number) : [1_000, 10_000];
const runs = 3;
const target = 1.5;

interface Baseline extends Measured {
  readonly files: number;
  readonly records: number;
  readonly rejected: number;
  readonly bytes: number;
  readonly cpuMilliseconds: number;
}

/** Child side: the floor, timed inside a fresh process. */
function measure(_mode: string, root: string): Baseline {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const parsed = streamedParseOfTree(root);
  const used = process.cpuUsage(cpu);
  return {
    milliseconds: performance.now() - started,
    cpuMilliseconds: (used.user + used.system) / 1000,
    peakRssBytes: 0,
    ...parsed,
  };
}

benchmark(measure, main);

/** A Python program's peak RSS, from the kernel's accounting of the children of a tiny wrapper (Linux/macOS). */
function pythonWrapper(): string {
  return [
    'import resource, subprocess, sys',
    'status = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode',
    'usage = resource.getrusage(resource.RUSAGE_CHILDREN)',
    'report = \'{"maxRSS": %d, "userCPUTime": %d, "systemCPUTime": %d}\'',
    'open(3, "w", closefd=False).write(report % (usage.ru_maxrss, usage.ru_utime * 1e6, usage.ru_stime * 1e6))',
    'sys.exit(status)',
  ].join('\n');
}

/** Whether the built CLI's check takes `--jobs` (it comes with the worker-thread runner). */
function cliAcceptsJobs(): boolean {
  const help = spawnSync(process.execPath, [builtCli, '--help'], { encoding: 'utf8' });
  return /--jobs\b/.test(`${help.stdout}${help.stderr}`);
}

interface Row {
  readonly label: string;
  readonly run: ProcessRun | undefined;
}

async function main(): Promise<void> {
  const folder = temporaryFolder('rollout-evidence-experiment-bench-');
  try {
    const nodeWrapper = writeNodeWrapper(folder.path);
    const pyWrapper = join(folder.path, 'measure.py');
    writeFileSync(pyWrapper, pythonWrapper());
    const validator = process.env['ROLLOUT_EVIDENCE_VALIDATOR'];
    const jobs = cliAcceptsJobs();

    // What every CLI run pays whatever the tree: Node's start-up and loading the CLI (the schemas are compiled at build time).
    const single = join(folder.path, 'single');
    writeExperimentTree(single, { rollouts: 1 });
    const fixed = await medianRun(nodeWrapper, [builtCli, 'check', single, '--format', 'json'], runs);
    const nothing = join(folder.path, 'nothing.js');
    writeFileSync(nothing, '');
    const bareNode = await medianRun(nodeWrapper, [nothing], runs);
    console.log(
      `Experiment bench: Node ${process.version}, ${runs} runs each (median time, highest peak RSS). A CLI run on a one-rollout tree (start-up; the schemas are compiled at build time) takes ${fixed.milliseconds.toFixed(0)} ms.\n`,
    );

    /** Per rollout, without what every run pays: wall and CPU milliseconds, by row and size. */
    const perRollout = new Map<string, { wall: number; cpu: number }[]>();
    for (const size of sizes) {
      const root = join(folder.path, `tree-${size}`);
      const tree = writeExperimentTree(root, { rollouts: size });
      const baseline = await medianOf<Baseline>('baseline', root, runs);
      console.log(
        `${size.toLocaleString('en')} rollouts: ${baseline.files.toLocaleString('en')} files, ${(tree.bytes / megabyte).toFixed(1)} MB`,
      );
      const check = (extra: readonly string[]) =>
        medianRun(nodeWrapper, [builtCli, 'check', root, '--format', 'json', ...extra], runs);
      const rows: Row[] = [
        { label: 'CLI, --jobs 1', run: jobs ? await check(['--jobs', '1']) : undefined },
        { label: 'CLI, default', run: await check([]) },
      ];
      if (validator)
        rows.push({
          label: "BenchFlow's validator (python3)",
          run: await medianRun(pyWrapper, ['python3', validator, root], runs, 'python3'),
        });

      const floor = baseline.milliseconds;
      console.log(
        `  floor: streamed read + JSON.parse per line, in process   ${floor.toFixed(0).padStart(7)} ms  ${(floor / size).toFixed(2)} ms/rollout  CPU ${baseline.cpuMilliseconds.toFixed(0)} ms` +
          `  peak RSS ${(baseline.peakRssBytes / megabyte).toFixed(0)} MB  (${baseline.records.toLocaleString('en')} records parsed, ${baseline.rejected} rejected)`,
      );
      console.log(
        `         the same with a bare Node process's start-up (${bareNode.milliseconds.toFixed(0)} ms)     ${(floor + bareNode.milliseconds).toFixed(0).padStart(7)} ms  CPU ${(baseline.cpuMilliseconds + bareNode.cpuMilliseconds).toFixed(0)} ms`,
      );
      for (const { label, run } of rows) {
        if (!run) {
          console.log(`  ${label.padEnd(54)} --jobs not available (the CLI's --help does not list it)`);
          continue;
        }
        const whole = run.milliseconds;
        const withoutFixed = whole - fixed.milliseconds;
        const isCli = label.startsWith('CLI');
        const ratio = whole / (floor + bareNode.milliseconds);
        console.log(
          `  ${label.padEnd(54)} ${whole.toFixed(0).padStart(7)} ms  ${(whole / size).toFixed(2)} ms/rollout  CPU ${run.cpuMilliseconds.toFixed(0)} ms (${(run.cpuMilliseconds / whole).toFixed(2)} cores)  peak RSS ${(run.peakRssBytes / megabyte).toFixed(0)} MB` +
            `  ${ratio.toFixed(2)}x floor (whole processes; CPU ${(run.cpuMilliseconds / (baseline.cpuMilliseconds + bareNode.cpuMilliseconds)).toFixed(2)}x)` +
            (isCli
              ? `; without start-up ${withoutFixed.toFixed(0)} ms = ${(withoutFixed / size).toFixed(2)} ms/rollout, ${(withoutFixed / floor).toFixed(2)}x floor`
              : '') +
            (run.status !== 0 && run.status !== 1 ? `  (exit status ${run.status})` : ''),
        );
        if (isCli)
          perRollout.set(label, [
            ...(perRollout.get(label) ?? []),
            { wall: withoutFixed / size, cpu: (run.cpuMilliseconds - fixed.cpuMilliseconds) / size },
          ]);
        if (label === 'CLI, default')
          console.log(
            `  target: default run ≤ ${target}x floor (whole processes): ${ratio.toFixed(2)}x ${ratio <= target ? 'met' : 'missed'}`,
          );
      }
      console.log('');
    }
    const [small, large] = [sizes[0], sizes.at(-1)];
    if (small !== undefined && large !== undefined && large > small)
      for (const [label, times] of perRollout)
        if (times.length === sizes.length)
          console.log(
            `Growth ${small.toLocaleString('en')} → ${large.toLocaleString('en')}, ${label} (without start-up; 1.00 is linear): ` +
              `time ratio / ${large / small} = ${(times.at(-1)!.wall / times[0]!.wall).toFixed(2)}, CPU ratio / ${large / small} = ${(times.at(-1)!.cpu / times[0]!.cpu).toFixed(2)}`,
          );
  } finally {
    folder.remove();
  }
}
