/**
 * The output formats of `check` and `merge`, by the name --format takes. A format is a writer of the
 * rollouts' reports (report/reportWriter.ts); adding one here adds it to both commands.
 */
import type { CheckFailure } from '../report/run';
import { UsageError } from '../usageError';
import type { WriterFactory } from '../report/reportWriter';
import { formatJsonFailure, jsonWriter } from './json';
import { formatSarifFailure, sarifWriter } from './sarif';
import { formatSummaryFailure, summaryWriter } from './summary';
import { textWriter } from './text';

export interface Format {
  readonly writer: WriterFactory;
  /** Whether its reports need SARIF's fingerprints, which read the files with findings again. */
  readonly fingerprints: boolean;
  /** Whether --quiet applies to it. */
  readonly quiet?: boolean;
  /** The document written on stdout when the check cannot run, for formats a CI step keeps as a file. */
  readonly failure?: (failure: CheckFailure) => string;
}

export const formats = {
  text: { writer: textWriter, fingerprints: false, quiet: true },
  // The JSON document carries the fingerprints so that `merge` can write SARIF from it.
  json: { writer: jsonWriter, fingerprints: true, failure: formatJsonFailure },
  sarif: { writer: sarifWriter, fingerprints: true, failure: formatSarifFailure },
  // The experiment summary alone, as Markdown: written from the run's counts at its end.
  summary: { writer: summaryWriter, fingerprints: false, failure: formatSummaryFailure },
} as const satisfies Record<string, Format>;

export type FormatName = keyof typeof formats;

/** Own keys only: `toString` and the like are not formats. */
export function isFormatName(name: string): name is FormatName {
  return Object.hasOwn(formats, name);
}

export const formatNames = Object.keys(formats) as FormatName[];

export function parseFormat(raw: string | undefined): FormatName {
  if (raw !== undefined && isFormatName(raw)) return raw;
  throw new UsageError(
    `--format must be ${formatNames.slice(0, -1).join(', ')} or ${formatNames.at(-1)}, not "${raw}"`,
  );
}

export function takesQuiet(name: FormatName): boolean {
  const format: Format = formats[name];
  return format.quiet === true;
}
