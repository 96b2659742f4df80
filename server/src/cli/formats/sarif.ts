/**
 * SARIF 2.1.0, in the subset GitHub code scanning reads: one run, one rule per diagnostic code,
 * locations relative to the working directory (the repository root in CI), 1-based lines and columns.
 */
import { isAbsolute, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { allDiagnosticCodes, diagnosticCodes, type DiagnosticCode } from '../../engine/codes';
import type { RelatedEvidence, Severity, TextRange } from '../../engine/findings';
import { version } from '../../version';
import { limitNotice } from '../../engine/check/collector';
import { displayPath, type CheckRun } from '../checkRun';

type SarifLevel = 'error' | 'warning' | 'note';

const sourceRoot = 'SRCROOT';

export function formatSarif(run: CheckRun): string {
  const { cwd } = run.request;
  const ruleIndex = new Map<DiagnosticCode, number>(allDiagnosticCodes.map((code, index) => [code, index]));
  const location = (path: string, range: TextRange) => ({
    physicalLocation: {
      artifactLocation: artifactLocation(cwd, path),
      region: sarifRegion(range),
    },
  });
  const relatedLocations = (related: readonly RelatedEvidence[]) =>
    related.map((evidence, index) => ({ id: index + 1, ...location(evidence.file, evidence.range), message: { text: evidence.message } }));

  const results = run.bundles.flatMap(({ listed: { findings } }) =>
    findings.map((finding) => ({
      ruleId: finding.code,
      ruleIndex: ruleIndex.get(finding.code)!,
      level: sarifLevel(finding.severity),
      message: { text: finding.message },
      locations: [location(finding.file, finding.range)],
      ...(finding.related?.length ? { relatedLocations: relatedLocations(finding.related) } : {}),
    })),
  );

  const limitedFiles = run.bundles.flatMap(({ listed: { omitted } }) => [...omitted].map(([path, count]) => ({ path: displayPath(cwd, path), omitted: count })));

  const log = {
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'rollout-evidence',
            semanticVersion: version,
            rules: allDiagnosticCodes.map((code) => ({
              id: code,
              name: code,
              shortDescription: { text: diagnosticCodes[code].summary },
              defaultConfiguration: { level: sarifLevel(diagnosticCodes[code].severity) },
            })),
          },
        },
        originalUriBaseIds: { [sourceRoot]: { uri: directoryUri(cwd) } },
        invocations: [
          {
            executionSuccessful: run.ioErrors.length === 0,
            toolExecutionNotifications: [
              ...run.ioErrors.map((message) => ({ level: 'error', message: { text: message } })),
              ...limitedFiles.map(({ path, omitted }) => ({
                level: 'note',
                message: { text: `${path}: ${limitNotice(omitted, run.request.maxProblems, '--max-problems')}` },
              })),
            ],
          },
        ],
        results,
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

function sarifLevel(severity: Severity): SarifLevel {
  if (severity === 'error') return 'error';
  if (severity === 'warning') return 'warning';
  return 'note';
}

/** SARIF columns are 1-based and the end column is the one after the region, like our exclusive end. */
function sarifRegion(range: TextRange) {
  return {
    startLine: range.start.line + 1,
    startColumn: range.start.character + 1,
    endLine: range.end.line + 1,
    endColumn: range.end.character + 1,
  };
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
