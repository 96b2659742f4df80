/**
 * `rollout-evidence`: the headless checker for benchmark CI, on the same engine as the language server.
 *
 * Exit status: 0 no errors, 1 errors found, 2 a usage or I/O failure (with a one-line message on stderr).
 */
import { parseArgs } from 'node:util';
import { artifactKindNames, isArtifactKind, rolloutFiles, type ArtifactKind } from '../../../shared/src/layout';
import { defaultFixtureFolders, defaultSettings } from '../../../shared/src/settings';
import { DiscoveryUsageError } from '../engine/bundle/discover';
import { version } from '../version';
import { exitStatusOf, runCheck, type CheckFailure, type CheckRun, type ExitStatus } from './checkRun';
import { formatJson, formatJsonFailure } from './formats/json';
import { formatSarif, formatSarifFailure } from './formats/sarif';
import { formatText } from './formats/text';
import { formatSummary, formatSummaryFailure } from './formats/summary';
import { progressLine } from './progress';
import { probeCommand, probeUsage } from './probeCommand';
import { newFixtureCommand, newFixtureUsage } from './newFixtureCommand';
import { ScaffoldUsageError } from '../authoring/scaffold/scaffold';
import { ContainerEngineUnavailableError } from '../probe/containerEngines';
import { ProbeUsageError } from '../probe/validation';

interface Format {
  readonly report: (run: CheckRun, options: { readonly quiet: boolean }) => string;
  /** The document written on stdout when the check cannot run, for formats a CI step keeps as a file. */
  readonly failure?: (failure: CheckFailure) => string;
}

const formats = {
  text: { report: (run, options) => formatText(run, options) },
  json: { report: formatJson, failure: formatJsonFailure },
  sarif: { report: formatSarif, failure: formatSarifFailure },
  summary: { report: formatSummary, failure: formatSummaryFailure },
} as const satisfies Record<string, Format>;
type FormatName = keyof typeof formats;

const checkUsage = `Usage: rollout-evidence check [PATH ...] [options]

Checks BenchFlow rollout bundles: every JSONL line and JSON artifact against its schema, then
the evidence rules across each rollout's files, and gives each rollout a verdict: untrusted,
incomplete, trusted-timeout or trusted. PATH is a rollout folder, a ${rolloutFiles.result}, a folder
searched for rollouts, or one artifact file. With no PATH the current folder is searched.

Options:
  --format text|json|sarif|summary
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
  -h, --help                 show this help
  -v, --version              show the version

Exit status: 0 every rollout passes (and no loose file has errors), 1 a rollout fails its
verdict or a loose file has errors, 2 usage or I/O failure (with json and sarif, stdout then
holds a document that says what failed).`;

const usage = `${checkUsage}\n\n${probeUsage}\n\n${newFixtureUsage}`;

class UsageError extends Error {}

/** Nothing to check was found: a usage failure of its own kind in the JSON and SARIF documents. */
class NothingToCheckError extends UsageError {}

export async function main(argv: readonly string[]): Promise<ExitStatus> {
  try {
    if (argv[0] === 'probe') return await probeCommand(argv.slice(1));
    if (argv[0] === 'new-fixture') return newFixtureCommand(argv.slice(1));
    return check(argv);
  } catch (error) {
    if (isExpectedFailure(error)) {
      process.stderr.write(`rollout-evidence: ${error.message}\n`);
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
function check(argv: readonly string[]): ExitStatus {
  const requested = requestedFormat(argv);
  try {
    return checkAs(argv);
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

function checkAs(argv: readonly string[]): ExitStatus {
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
      'missing command: use "rollout-evidence check [PATH ...]", "rollout-evidence probe" or "rollout-evidence new-fixture"',
    );
  if (command === 'help') {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  if (command !== 'check')
    throw new UsageError(`unknown command "${command}": the commands are "check", "probe" and "new-fixture"`);

  const format = parseFormat(values.format);
  const quiet = values.quiet === true;
  if (quiet && format !== 'text') throw new UsageError(`--quiet applies to text output only, not --format ${format}`);
  const run = runCheck(
    {
      paths: paths.length > 0 ? paths : ['.'],
      maxProblems: parseMaxProblems(values['max-problems']),
      artifactMap: parseArtifactMap(values.map),
      rules: {
        allowOracleWithoutLlm: values['allow-oracle-without-llm'] === true,
        allowNativeSubscriptionWithoutLlm: values['allow-native-subscription-without-llm'] === true,
      },
      // Given, the globs replace the default; an empty one stands for none.
      fixtureFolders: values['fixture-folders']?.filter((glob) => glob.trim() !== '') ?? defaultFixtureFolders,
      failOn: parseFailOn(values['fail-on']),
      cwd: process.cwd(),
    },
    progressLine(process.stderr),
  );
  for (const message of run.ioErrors) process.stderr.write(`rollout-evidence: ${message}\n`);
  if (run.bundles.length === 0) {
    throw new NothingToCheckError(
      `no rollout or artifact found under ${paths.length > 0 ? paths.join(', ') : 'the current folder'}`,
    );
  }
  process.stdout.write(formats[format].report(run, { quiet }));
  return exitStatusOf(run);
}

function parseFormat(raw: string | undefined): FormatName {
  if (raw !== undefined && isFormatName(raw)) return raw;
  const names = Object.keys(formats);
  throw new UsageError(`--format must be ${names.slice(0, -1).join(', ')} or ${names.at(-1)}, not "${raw}"`);
}

/** Own keys only: `toString` and the like are not formats. */
function isFormatName(name: string): name is FormatName {
  return Object.hasOwn(formats, name);
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
