/**
 * `rollout-evidence`: the headless checker for benchmark CI, on the same engine as the language server.
 *
 * Exit status: 0 no errors, 1 errors found, 2 a usage or I/O failure (with a one-line message on stderr).
 */
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { artifactKindNames, isArtifactKind, rolloutFiles, type ArtifactKind } from '../../../shared/src/layout';
import { defaultFixtureFolders, defaultSettings } from '../../../shared/src/settings';
import { ArtifactClassifier } from '../engine/artifacts/classify';
import { discoverBundles, DiscoveryUsageError } from '../engine/bundle/discover';
import { version } from '../version';
import type { ExitStatus } from './report/run';
import {
  formatNames,
  formats,
  isFormatName,
  parseFormat,
  takesQuiet,
  type Format,
  type FormatName,
} from './formats/formats';
import { mergeCommand, mergeUsage } from './mergeCommand';
import { stdoutSink, streamCheck } from './pipeline/streamCheck';
import { parseShard } from './pipeline/shard';
import { isCi, progressLine } from './progress';
import { NothingToCheckError, UsageError } from './usageError';
import { probeCommand, probeUsage } from './probeCommand';
import { newFixtureCommand, newFixtureUsage } from './newFixtureCommand';
import { ScaffoldUsageError } from '../authoring/scaffold/scaffold';
import { ContainerEngineUnavailableError } from '../probe/containerEngines';
import { ProbeUsageError } from '../probe/validation';
import { writeStderrMessage } from './stderrMessage';

const checkUsage = `Usage: rollout-evidence check [PATH ...] [options]

Checks BenchFlow rollout bundles: every JSONL line and JSON artifact against its schema, then
the evidence rules across each rollout's files, and gives each rollout a verdict: untrusted,
incomplete, trusted-timeout or trusted. PATH is a rollout folder, a ${rolloutFiles.result}, a folder
searched for rollouts, or one artifact file. With no PATH the current folder is searched.

Options:
  --format ${formatNames.join('|')}
                             output format (default: text); summary is the experiment summary
                             alone, as Markdown (for $GITHUB_STEP_SUMMARY)
  --fail-on incomplete|untrusted
                             verdicts that fail the run (default: incomplete, i.e. incomplete
                             or untrusted)
  --allow-oracle-without-llm
                             an oracle rollout needs no LLM trajectory (as BenchFlow's validator)
  --allow-native-subscription-without-llm
                             a native ACP rollout needs no LLM trajectory (as BenchFlow's validator)
  -q, --quiet                with text: only one verdict line per rollout
  --max-problems N           problems listed per file before the rest are counted (default: ${defaultSettings.maxNumberOfProblems})
  --map GLOB=KIND            treat files matching GLOB as artifact KIND (repeatable)
                             KIND: ${artifactKindNames.join(', ')}
  --fixture-folders GLOB     rollouts under folders matching GLOB are fixture bundles, where
                             records authored by a quick fix or the scaffold count as evidence
                             (repeatable; default: ${defaultFixtureFolders.join(', ')}; "" for none).
                             A bundle New Fixture Bundle wrote is a fixture wherever it is.
  --jobs N                   check on N threads, the main one and N-1 workers (default: the
                             available parallelism, here ${availableParallelism()}); the output is the same for every N
  --shard I/N                check only shard I of N (1 ≤ I ≤ N): the bundles whose folder's path
                             relative to its PATH hashes (FNV-1a 32) to I-1 modulo N; join the
                             shards' JSON outputs with "rollout-evidence merge"
  --progress                 show progress on stderr (rollouts done of found, rate, time left)
                             even when stderr is not a terminal or CI is set; there it is a
                             plain line every 5 seconds and at the end (default: a terminal
                             line, on a terminal outside CI only)
  -h, --help                 show this help
  -v, --version              show the version

Exit status: 0 every rollout passes (and no loose file has errors), 1 a rollout fails its
verdict or a loose file has errors, 2 usage or I/O failure (with json and sarif, stdout then
holds a document that says what failed).`;

const usage = `${checkUsage}\n\n${mergeUsage}\n\n${probeUsage}\n\n${newFixtureUsage}`;

export async function main(argv: readonly string[]): Promise<ExitStatus> {
  try {
    if (argv[0] === 'probe') return await probeCommand(argv.slice(1));
    if (argv[0] === 'new-fixture') return newFixtureCommand(argv.slice(1));
    if (argv[0] === 'merge') return mergeCommand(argv.slice(1));
    return await check(argv);
  } catch (error) {
    if (isExpectedFailure(error)) {
      writeStderrMessage(error.message);
      return 2;
    }
    throw error;
  }
}

function isExpectedFailure(error: unknown): error is Error {
  return (
    error instanceof UsageError ||
    error instanceof DiscoveryUsageError ||
    error instanceof ProbeUsageError ||
    error instanceof ContainerEngineUnavailableError ||
    error instanceof ScaffoldUsageError ||
    isParseArgsError(error)
  );
}

/**
 * A check, and when it cannot run and the format asked for is one a CI step keeps as a file, that
 * format's failure document on stdout; the message still goes to stderr and the exit status is 2.
 */
async function check(argv: readonly string[]): Promise<ExitStatus> {
  const requested = requestedFormat(argv);
  try {
    return await checkAs(argv);
  } catch (error) {
    const format: Format | undefined = requested ? formats[requested] : undefined;
    if (format?.failure && isExpectedFailure(error)) {
      process.stdout.write(
        format.failure({
          kind: error instanceof NothingToCheckError ? 'nothing-to-check' : 'usage',
          message: error.message,
        }),
      );
    }
    throw error;
  }
}

/** The format the arguments ask for, read leniently so that it is known even when other arguments are wrong. */
function requestedFormat(argv: readonly string[]): FormatName | undefined {
  try {
    const { values } = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: false,
      options: { format: { type: 'string' } },
    });
    return typeof values.format === 'string' && isFormatName(values.format) ? values.format : undefined;
  } catch {
    return undefined;
  }
}

async function checkAs(argv: readonly string[]): Promise<ExitStatus> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      format: { type: 'string', default: 'text' },
      'fail-on': { type: 'string', default: 'incomplete' },
      'allow-oracle-without-llm': { type: 'boolean', default: false },
      'allow-native-subscription-without-llm': { type: 'boolean', default: false },
      quiet: { type: 'boolean', short: 'q', default: false },
      'max-problems': { type: 'string' },
      map: { type: 'string', multiple: true, default: [] },
      'fixture-folders': { type: 'string', multiple: true },
      jobs: { type: 'string' },
      shard: { type: 'string' },
      progress: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
      version: { type: 'boolean', short: 'v', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  if (values.version) {
    process.stdout.write(`${version}\n`);
    return 0;
  }
  const [command, ...paths] = positionals;
  if (command === undefined)
    throw new UsageError(
      'missing command: use "rollout-evidence check [PATH ...]", "rollout-evidence merge", "rollout-evidence probe" or "rollout-evidence new-fixture"',
    );
  if (command === 'help') {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  if (command !== 'check')
    throw new UsageError(`unknown command "${command}": the commands are "check", "merge", "probe" and "new-fixture"`);

  const format = parseFormat(values.format);
  const quiet = values.quiet === true;
  if (quiet && !takesQuiet(format)) throw new UsageError(`--quiet applies to text output only, not --format ${format}`);
  const shard = values.shard === undefined ? undefined : parseShard(values.shard);
  const jobs = parseJobs(values.jobs);
  const artifactMap = parseArtifactMap(values.map);
  const checked = paths.length > 0 ? paths : ['.'];
  const end = await streamCheck(
    {
      paths: checked,
      maxProblems: parseMaxProblems(values['max-problems']),
      artifactMap,
      rules: {
        allowOracleWithoutLlm: values['allow-oracle-without-llm'] === true,
        allowNativeSubscriptionWithoutLlm: values['allow-native-subscription-without-llm'] === true,
      },
      // Given, the globs replace the default; an empty one stands for none.
      fixtureFolders: values['fixture-folders']?.filter((glob) => glob.trim() !== '') ?? defaultFixtureFolders,
      failOn: parseFailOn(values['fail-on']),
      cwd: process.cwd(),
      shard,
      jobs,
      quiet,
    },
    (onBundleFound) => {
      const discovery = discoverBundles(checked, new ArtifactClassifier(artifactMap), Infinity, onBundleFound);
      if (discovery.bundles.length === 0) {
        for (const message of discovery.ioErrors) writeStderrMessage(message);
        throw new NothingToCheckError(
          `no rollout or artifact found under ${paths.length > 0 ? paths.join(', ') : 'the current folder'}`,
        );
      }
      return discovery;
    },
    formats[format],
    stdoutSink(),
    {
      progress: progressLine(process.stderr, { forced: values.progress === true, ci: isCi(process.env) }),
      onIoError: writeStderrMessage,
    },
  );
  return end.exitStatus;
}

function parseJobs(raw: string | undefined): number {
  if (raw === undefined) return availableParallelism();
  const count = Number(raw);
  if (!/^\d+$/.test(raw) || count < 1 || !Number.isSafeInteger(count))
    throw new UsageError(`--jobs must be a whole number of at least 1, not "${raw}"`);
  return count;
}

function parseFailOn(raw: string | undefined): 'incomplete' | 'untrusted' {
  if (raw === 'incomplete' || raw === 'untrusted') return raw;
  throw new UsageError(`--fail-on must be incomplete or untrusted, not "${raw}"`);
}

function parseMaxProblems(raw: string | undefined): number {
  if (raw === undefined) return defaultSettings.maxNumberOfProblems;
  const count = Number(raw);
  if (!/^\d+$/.test(raw) || count < 1)
    throw new UsageError(`--max-problems must be a whole number of at least 1, not "${raw}"`);
  return count;
}

function parseArtifactMap(entries: readonly string[] | undefined): Record<string, ArtifactKind> {
  const map: Record<string, ArtifactKind> = Object.create(null);
  for (const entry of entries ?? []) {
    const separator = entry.lastIndexOf('=');
    const glob = entry.slice(0, separator);
    const kind = entry.slice(separator + 1);
    if (separator <= 0 || !isArtifactKind(kind)) {
      throw new UsageError(`--map takes GLOB=KIND with KIND one of ${artifactKindNames.join(', ')}; got "${entry}"`);
    }
    map[glob] = kind;
  }
  return map;
}

function isParseArgsError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_');
}
