/**
 * SARIF 2.1.0, in the subset GitHub code scanning reads: one run, one rule per diagnostic code,
 * locations relative to the working directory (the repository root in CI), 1-based lines and columns.
 * Each result carries its rollout and that rollout's verdict, and a fingerprint that survives runs from
 * elsewhere and lines inserted above it; the run carries the verdict counts. When the check could not
 * run, or not in full, the invocation says so (`executionSuccessful: false` and why), so a CI step that
 * uploads the file uploads a reason, never an empty file.
 */
import { isAbsolute, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { allDiagnosticCodes, codeInfo, type DiagnosticCode, type Effect } from '../../engine/codes';
import type { Severity } from '../../engine/codeContract';
import { shippedReference } from '../../reference';
import { version } from '../../version';
import { limitNotice } from '../../engine/check/collector';
import { displayPath } from '../../../../shared/src/paths';
import type { CheckFailure, CheckRun } from '../report/run';
import { fingerprintKey } from '../report/fingerprints';
import { absolutePathOf } from '../report/rolloutReport';
import { renderRun } from '../report/renderRun';
import { memorySpool, type Output, type ReportWriter, type RunContext, type Spool } from '../report/reportWriter';

type SarifLevel = 'error' | 'warning' | 'note';

const sourceRoot = 'SRCROOT';

export function formatSarif(run: CheckRun): string {
  return renderRun(run, sarifWriter);
}

/**
 * The results go to `spool` as they come, since the document gives the invocation (the exit code, what
 * could not be read) before them: at the end the head is written, then the spooled results, then the tail.
 */
export function sarifWriter(context: RunContext, write: Output, spool: Spool = memorySpool()): ReportWriter {
  const { cwd } = context;
  const limitedFiles: string[] = [];
  let count = 0;
  return {
    rollout(report) {
      const properties = { root: report.root, loose: report.loose, verdict: report.verdict };
      const place = (file: string) => absolutePathOf(cwd, report, file);
      report.diagnostics.forEach((diagnostic, index) => {
        const detail = report.details[index]!;
        const result = {
          ruleId: diagnostic.code,
          ruleIndex: ruleIndex.get(diagnostic.code)!,
          level: sarifLevel(diagnostic.severity),
          message: { text: diagnostic.message },
          locations: [location(cwd, place(diagnostic.file), diagnostic)],
          ...(diagnostic.related.length > 0
            ? {
                relatedLocations: diagnostic.related.map((related, relatedIndex) => {
                  const [endLine, endColumn] = detail.relatedEnds[relatedIndex]!;
                  return {
                    id: relatedIndex + 1,
                    ...location(cwd, place(related.file), { ...related, endLine, endColumn }),
                    message: { text: related.message },
                  };
                }),
              }
            : {}),
          partialFingerprints: { [fingerprintKey]: detail.fingerprint },
          properties,
        };
        spool.write(
          `${count++ === 0 ? '' : ','}\n        ${JSON.stringify(result, null, 2).replaceAll('\n', '\n        ')}`,
        );
      });
      for (const { file, omitted } of report.limited)
        limitedFiles.push(
          `${displayPath(cwd, place(file))}: ${limitNotice(omitted, context.check.options.maxProblems, '--max-problems')}`,
        );
    },
    end(end) {
      const log = {
        version: '2.1.0',
        runs: [
          {
            tool: { driver: driver() },
            originalUriBaseIds: { [sourceRoot]: { uri: directoryUri(cwd) } },
            invocations: [
              {
                executionSuccessful: end.failure === undefined,
                exitCode: end.exitStatus,
                toolExecutionNotifications: [
                  ...(end.failure?.kind === 'checker-failed' ? [failureNotification(end.failure)] : []),
                  ...end.ioErrors.map((message) => ({ level: 'error', message: { text: message } })),
                  ...limitedFiles.map((text) => ({ level: 'note', message: { text } })),
                ],
              },
            ],
            results: resultsMark,
            properties: { rollouts: end.totals.rollouts, verdicts: end.totals.verdicts },
          },
        ],
      };
      const [head, tail] = `${JSON.stringify(log, null, 2)}\n`.split(JSON.stringify(resultsMark));
      write(`${head}[`);
      spool.drainTo(write);
      write(`${count > 0 ? '\n      ]' : ']'}${tail}`);
    },
  };
}

/** Stands in for the results in the document, to be replaced by them; a NUL never comes out of JSON.stringify as it is. */
const resultsMark = '\u0000results\u0000';

const ruleIndex = new Map<DiagnosticCode, number>(allDiagnosticCodes.map((code, index) => [code, index]));

interface Region {
  readonly line: number;
  readonly column: number;
  readonly endLine: number;
  readonly endColumn: number;
}

function location(cwd: string, path: string, region: Region) {
  return {
    physicalLocation: {
      artifactLocation: artifactLocation(cwd, path),
      region: {
        startLine: region.line,
        startColumn: region.column,
        endLine: region.endLine,
        endColumn: region.endColumn,
      },
    },
  };
}

/** The document when the check could not run at all (bad arguments, nothing to check): a run with no results that says why. */
export function formatSarifFailure(failure: CheckFailure): string {
  const log = {
    version: '2.1.0',
    runs: [
      {
        tool: { driver: driver() },
        invocations: [
          { executionSuccessful: false, exitCode: 2, toolExecutionNotifications: [failureNotification(failure)] },
        ],
        results: [],
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

function failureNotification(failure: CheckFailure) {
  return { level: 'error', message: { text: failure.message }, properties: { kind: failure.kind } };
}

function driver() {
  const readme = shippedReadme();
  return {
    name: 'rollout-evidence',
    semanticVersion: version,
    rules: allDiagnosticCodes.map((code) => {
      const { summary, description, severity, effect, anchor } = codeInfo(code);
      return {
        id: code,
        name: code,
        shortDescription: { text: summary },
        fullDescription: { text: plainText(description) },
        defaultConfiguration: { level: sarifLevel(severity) },
        help: {
          text: `${plainText(description)} ${effectSentence(effect)}`,
          markdown: `${description}\n\n${effectSentence(effect, '**')}`,
        },
        ...(readme ? { helpUri: `${readme}#${anchor}` } : {}),
        properties: { effect },
      };
    }),
  };
}

function effectSentence(effect: Effect, strong = ''): string {
  if (effect === 'untrusted') return `Effect: the rollout is ${strong}untrusted${strong}.`;
  if (effect === 'incomplete') return `Effect: the rollout is at best ${strong}incomplete${strong}.`;
  return 'Effect: none on the rollout\u2019s verdict.';
}

/** The description without its code-span backquotes, for places that show text as it is. */
function plainText(markdown: string): string {
  return markdown.replace(/`([^`]*)`/g, '$1');
}

/**
 * The code reference shipped beside this CLI: the only documentation that is real wherever the log is
 * read on the machine that wrote it, since the project has no public home to link to. A web viewer
 * cannot open it; the rule's help carries the same text for that.
 */
function shippedReadme(): string | undefined {
  const path = shippedReference();
  return path ? pathToFileURL(path).href : undefined;
}

function sarifLevel(severity: Severity): SarifLevel {
  if (severity === 'error') return 'error';
  if (severity === 'warning') return 'warning';
  return 'note';
}

/** Inside the working directory, relative to it (what code scanning expects); elsewhere, absolute. */
function artifactLocation(cwd: string, path: string): { uri: string; uriBaseId?: string } {
  const relativePath = relative(cwd, path);
  if (relativePath.startsWith('..') || isAbsolute(relativePath)) return { uri: pathToFileURL(path).href };
  return { uri: relativePath.split(sep).map(encodeURIComponent).join('/'), uriBaseId: sourceRoot };
}

function directoryUri(path: string): string {
  const url = pathToFileURL(path).href;
  return url.endsWith('/') ? url : `${url}/`;
}
