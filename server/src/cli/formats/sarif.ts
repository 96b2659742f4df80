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
import type { RelatedEvidence, Severity, TextRange } from '../../engine/findings';
import { shippedReference } from '../../reference';
import { version } from '../../version';
import { limitNotice } from '../../engine/check/collector';
import { displayPath, exitStatusOf, runFailure, type CheckFailure, type CheckRun } from '../checkRun';
import { fingerprintKey, fingerprintsOf } from '../fingerprints';

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
    related.map((evidence, index) => ({
      id: index + 1,
      ...location(evidence.file, evidence.range),
      message: { text: evidence.message },
    }));

  const results = run.bundles.flatMap((bundle) => {
    const fingerprints = fingerprintsOf(bundle);
    const properties = {
      root: displayPath(cwd, bundle.root),
      loose: bundle.loose,
      verdict: bundle.evaluation?.verdict ?? null,
    };
    return bundle.listed.findings.map((finding) => ({
      ruleId: finding.code,
      ruleIndex: ruleIndex.get(finding.code)!,
      level: sarifLevel(finding.severity),
      message: { text: finding.message },
      locations: [location(finding.file, finding.range)],
      ...(finding.related?.length ? { relatedLocations: relatedLocations(finding.related) } : {}),
      partialFingerprints: { [fingerprintKey]: fingerprints.get(finding)! },
      properties,
    }));
  });

  const limitedFiles = run.bundles.flatMap(({ listed: { omitted } }) =>
    [...omitted].map(([path, count]) => ({ path: displayPath(cwd, path), omitted: count })),
  );
  const failure = runFailure(run);

  const log = {
    version: '2.1.0',
    runs: [
      {
        tool: { driver: driver() },
        originalUriBaseIds: { [sourceRoot]: { uri: directoryUri(cwd) } },
        invocations: [
          {
            executionSuccessful: failure === undefined,
            exitCode: exitStatusOf(run),
            toolExecutionNotifications: [
              ...(failure?.kind === 'checker-failed' ? [failureNotification(failure)] : []),
              ...run.ioErrors.map((message) => ({ level: 'error', message: { text: message } })),
              ...limitedFiles.map(({ path, omitted }) => ({
                level: 'note',
                message: { text: `${path}: ${limitNotice(omitted, run.request.maxProblems, '--max-problems')}` },
              })),
            ],
          },
        ],
        results,
        properties: { rollouts: run.totals.rollouts, verdicts: run.totals.verdicts },
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
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
