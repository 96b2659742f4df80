/**
 * The one validator behind both pull and push diagnostics: classify the document, check it with the
 * engine (cancellable), convert the findings, and remember the result per document version so that an
 * unchanged document is answered from the cache.
 */
import { DiagnosticSeverity, type Diagnostic } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { artifactKindInfo } from '../../../shared/src/artifactKinds';
import type { ValidationReport } from '../../../shared/src/protocol';
import type { RolloutEvidenceSettings } from '../../../shared/src/settings';
import { ArtifactClassifier } from '../engine/artifacts/classify';
import type { ArtifactChecker } from '../engine/check/artifactChecker';
import { limitNotice } from '../engine/check/collector';
import type { DiagnosticCode } from '../engine/codes';
import type { SettingsCache } from './settingsCache';
import { diagnosticSource, toDiagnostic } from './toDiagnostic';
import { pathOfUri } from './uris';

export interface DocumentValidation {
  /** Changes whenever the document or the settings change; the pull model's `resultId`. */
  readonly resultId: string;
  readonly diagnostics: Diagnostic[];
  readonly report: ValidationReport;
}

/** What VS Code's own JSON support reports for the `.json` artifacts through `jsonValidation`. */
const codesOwnedByClientJsonSupport: ReadonlySet<DiagnosticCode> = new Set(['json-syntax', 'schema', 'record-not-object']);

export class DocumentValidator {
  private readonly cache = new Map<string, DocumentValidation>();
  private readonly classifiers = new WeakMap<RolloutEvidenceSettings, ArtifactClassifier>();
  private settingsGeneration = 0;

  constructor(
    private readonly checker: ArtifactChecker,
    private readonly settings: SettingsCache,
    private readonly jsonDocumentsValidatedByClient: boolean,
    private readonly onValidated: (report: ValidationReport) => void,
  ) {}

  /** Resolves to undefined when cancelled. */
  async validate(document: TextDocument, isCancelled: () => boolean): Promise<DocumentValidation | undefined> {
    const resultId = `${document.version}.${this.settingsGeneration}`;
    const cached = this.cache.get(document.uri);
    if (cached?.resultId === resultId) return cached;

    const settings = await this.settings.get(document.uri);
    const kind = this.classifierFor(settings).kindOf(pathOfUri(document.uri));
    const startedAt = performance.now();
    let diagnostics: Diagnostic[] = [];
    let problemCount = 0;
    let omitted = 0;
    if (kind) {
      const checked = await this.checker.checkTextCancellable(document.getText(), kind, { maxFindings: settings.maxNumberOfProblems }, isCancelled);
      if (!checked) return undefined;
      const fileReport = checked.report;
      const leaveToClient = this.jsonDocumentsValidatedByClient && artifactKindInfo(kind).format === 'json';
      diagnostics = fileReport.findings.filter((finding) => !(leaveToClient && codesOwnedByClientJsonSupport.has(finding.code))).map(toDiagnostic);
      problemCount = diagnostics.length;
      omitted = fileReport.omitted;
      if (omitted > 0) diagnostics.push(limitDiagnostic(omitted, settings.maxNumberOfProblems));
    }
    const report: ValidationReport = {
      uri: document.uri,
      version: document.version,
      kind: kind ?? null,
      durationMs: performance.now() - startedAt,
      problemCount,
      omittedCount: omitted,
    };
    const validation = { resultId, diagnostics, report };
    this.cache.set(document.uri, validation);
    this.onValidated(report);
    return validation;
  }

  forget(uri: string): void {
    this.cache.delete(uri);
    this.settings.evict(uri);
  }

  /** Settings changed: every cached result is stale and every result id must change. */
  settingsChanged(): void {
    this.settingsGeneration++;
    this.cache.clear();
    this.settings.clear();
  }

  private classifierFor(settings: RolloutEvidenceSettings): ArtifactClassifier {
    let classifier = this.classifiers.get(settings);
    if (!classifier) {
      classifier = new ArtifactClassifier(settings.artifacts);
      this.classifiers.set(settings, classifier);
    }
    return classifier;
  }
}

function limitDiagnostic(omitted: number, maxNumberOfProblems: number): Diagnostic {
  const code: DiagnosticCode = 'problems-limited';
  return {
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    severity: DiagnosticSeverity.Information,
    code,
    source: diagnosticSource,
    message: limitNotice(omitted, maxNumberOfProblems, 'rolloutEvidence.maxNumberOfProblems'),
  };
}
