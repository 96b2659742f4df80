/**
 * `rollout-evidence merge`: joins the JSON documents of `check --shard i/n` runs into the report one
 * run over the whole tree would have written, in any format. The documents must be version 1, made with
 * the same options, and together hold each shard of one split exactly once (or be one unsharded run).
 * Paths in them are relative to the working directory, as the shards wrote them: run the merge where the
 * shards ran (the repository root in CI).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ExitStatus } from './report/run';
import type { JsonReport } from './formats/json';
import type { JsonCheck } from './report/reportTypes';
import { formatNames, formats, parseFormat, takesQuiet } from './formats/formats';
import { fileSpool } from './pipeline/fileSpool';
import { stdoutSink } from './pipeline/streamCheck';
import type { RolloutReport } from './report/rolloutReport';
import type { RunContext } from './report/reportWriter';
import { RunTally } from './report/runTally';
import { UsageError } from './usageError';
import { writeStderrMessage } from './stderrMessage';
import { compareNames } from '../../../shared/src/order';

export const mergeUsage = `Usage: rollout-evidence merge SHARD.json ... [--format ${formatNames.join('|')}] [-q]

Joins the JSON outputs of "rollout-evidence check --shard I/N --format json" (all N of them, made
with the same options) into the report a single check of the whole tree writes, in the format
asked for (default: text), with its exit status. Run it in the folder the shards ran in.`;

interface ShardDocument {
  readonly name: string;
  readonly report: JsonReport;
}

export function mergeCommand(argv: readonly string[]): ExitStatus {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      format: { type: 'string', default: 'text' },
      quiet: { type: 'boolean', short: 'q', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${mergeUsage}\n`);
    return 0;
  }
  const format = parseFormat(values.format);
  const quiet = values.quiet === true;
  if (quiet && !takesQuiet(format)) throw new UsageError(`--quiet applies to text output only, not --format ${format}`);
  if (positionals.length === 0) throw new UsageError('merge needs the JSON documents of the shards to join');
  const documents = positionals.map(readDocument);
  const check = commonCheck(documents);
  const context: RunContext = { cwd: process.cwd(), quiet, check };
  const cwd = context.cwd;
  const sortKey = (report: RolloutReport) => resolve(cwd, report.root);
  const seen = new Map<string, string>();
  const reports = documents.flatMap(({ name, report }) =>
    report.rollouts.map((rollout) => {
      const key = `${rollout.loose ? 'loose' : 'rollout'}:${sortKey(rollout)}`;
      const other = seen.get(key);
      if (other !== undefined)
        throw new UsageError(`${rollout.root} is in both ${other} and ${name}: the shards overlap`);
      seen.set(key, name);
      return rollout;
    }),
  );
  // Discovery's order: by folder, a rollout before loose files of the same folder.
  reports.sort((a, b) => compareNames(sortKey(a), sortKey(b)) || Number(a.loose) - Number(b.loose));

  const sink = stdoutSink();
  const spool = fileSpool();
  try {
    const writer = formats[format].writer(context, (text) => void sink.write(text), spool);
    const tally = new RunTally(context);
    for (const report of reports) {
      tally.add(report);
      writer.rollout(report);
    }
    const end = tally.end();
    for (const message of end.ioErrors) writeStderrMessage(message);
    writer.end(end);
    return end.exitStatus;
  } finally {
    spool.dispose();
  }
}

function readDocument(name: string): ShardDocument {
  let text: string;
  try {
    text = readFileSync(name, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`${name} is not JSON: merge reads the output of "check --format json"`);
  }
  const report = value as Partial<JsonReport> | null;
  if (typeof report !== 'object' || report === null || report.version !== 1)
    throw new UsageError(`${name} is not a version 1 report of "rollout-evidence check --format json"`);
  if (!Array.isArray(report.rollouts)) {
    const why = report.error?.message;
    throw new UsageError(`${name} holds no rollouts${why ? `: its check could not run (${why})` : ''}`);
  }
  if (typeof report.check !== 'object' || report.check === null)
    throw new UsageError(
      `${name} does not say how it was made: write it with this version of "rollout-evidence check"`,
    );
  return { name, report: report as JsonReport };
}

/** The run the documents are shards of: the same options, and every shard of one split once (or one whole run). */
function commonCheck(documents: readonly ShardDocument[]): JsonCheck {
  const [first, ...rest] = documents;
  const options = JSON.stringify(first!.report.check.options);
  for (const { name, report } of rest) {
    if (JSON.stringify(report.check.options) !== options)
      throw new UsageError(
        `${name} was made with other options than ${first!.name} (${JSON.stringify(report.check.options)} against ${options}): shards merge only when made alike`,
      );
  }
  const shards = documents.map(({ name, report }) => ({ name, shard: report.check.shard }));
  const whole = shards.filter(({ shard }) => shard === null);
  if (whole.length > 0 && documents.length > 1)
    throw new UsageError(`${whole[0]!.name} is a whole run, not a shard: it cannot be merged with others`);
  if (whole.length === 0) {
    const count = first!.report.check.shard!.count;
    const byIndex = new Map<number, string>();
    for (const { name, shard } of shards) {
      if (shard!.count !== count)
        throw new UsageError(`${name} is shard ${shard!.index}/${shard!.count}, but ${first!.name} is of ${count}`);
      const other = byIndex.get(shard!.index);
      if (other !== undefined) throw new UsageError(`${other} and ${name} are both shard ${shard!.index}/${count}`);
      byIndex.set(shard!.index, name);
    }
    const missing = Array.from({ length: count }, (_, index) => index + 1).filter((index) => !byIndex.has(index));
    if (missing.length > 0)
      throw new UsageError(
        `shard${missing.length === 1 ? '' : 's'} ${missing.map((index) => `${index}/${count}`).join(', ')} missing`,
      );
  }
  // Every shard's discovery walked the whole tree: the folders it could not read are one list.
  const unreadableFolders = [...new Set(documents.flatMap(({ report }) => report.check.unreadableFolders))];
  return { options: first!.report.check.options, shard: null, unreadableFolders };
}
