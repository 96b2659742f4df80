/**
 * The one validator behind both pull and push diagnostics. A document that belongs to a rollout gets
 * its own file's problems and every rule finding placed in it, from an evaluation of the whole rollout;
 * any other artifact is checked on its own. Results are remembered per document, so an unchanged
 * document is answered from the cache. A failure of the checker on one document is that document's
 * `internal-error` diagnostic: the others are validated as ever.
 */
import { createHash } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { DiagnosticSeverity, type Diagnostic } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { ArtifactKind } from '../../../shared/src/layout';
import { errorDetail } from '../../../shared/src/errors';
import type { ValidationReport } from '../../../shared/src/protocol';
import type { RolloutEvidenceSettings } from '../../../shared/src/settings';
import { ArtifactClassifier } from '../engine/artifacts/classify';
import { discoverRolloutOf, filesOfRollout, type DiscoveredRollout } from '../engine/bundle/discover';
import { limitNotice } from '../engine/check/collector';
import type { KeptCheck } from '../engine/check/artifactChecker';
import { codeInfo, type DiagnosticCode } from '../engine/codes';
import { listFindings, rangeOnLine, type Finding } from '../engine/findings';
import { RecentlyUsedCache } from '../engine/recentlyUsedCache';
import type { EvaluatedRollout, RolloutEvaluator } from './rolloutEvaluator';
import type { SettingsCache } from './settingsCache';
import { diagnosticSource, type DiagnosticConverter } from './toDiagnostic';
import { isFileUri, pathOfUri } from './uris';

export interface DocumentValidation {
  /** Changes whenever the document, its rollout or the settings change; the pull model's `resultId`. */
  readonly resultId: string;
  readonly diagnostics: Diagnostic[];
  readonly report: ValidationReport;
}

export interface ValidatorHooks {
  readonly openDocument: (path: string) => TextDocument | undefined;
  readonly onValidated: (report: ValidationReport) => void;
  /** A rollout was evaluated anew (while validating document `by`, if any): its other files may have new diagnostics. */
  readonly onRolloutChanged: (rollout: EvaluatedRollout, by: string | undefined) => void;
  /** For a developer: what failed, with its stack. */
  readonly logError: (message: string) => void;
}

/** A classifier compiled from a set of patterns never changes: one version of each. */
const compiled = 0;

export class DocumentValidator {
  /** By URI, for the result id; only open documents are validated, and each is forgotten on closing. */
  private readonly cache = new RecentlyUsedCache<DocumentValidation, string>({ maxEntries: Infinity });
  /**
   * Keyed by the user's artifact patterns in their order (the first that matches decides): each
   * resource gets settings of its own, but resources mostly share their patterns, and so a classifier.
   * A workspace with more sets of patterns than this recompiles the least recently used.
   */
  private readonly classifiers = new RecentlyUsedCache<ArtifactClassifier, typeof compiled>({ maxEntries: 16 });
  private settingsGeneration = 0;
  /** Makes each failed validation's result id new, so a pull never answers a failure "unchanged". */
  private failures = 0;

  constructor(
    private readonly evaluator: RolloutEvaluator,
    private readonly settings: SettingsCache,
    private readonly toDiagnostic: DiagnosticConverter,
    private readonly hooks: ValidatorHooks,
  ) {}

  /** Resolves to undefined when cancelled; never rejects. */
  async validate(document: TextDocument, isCancelled: () => boolean): Promise<DocumentValidation | undefined> {
    const startedAt = performance.now();
    try {
      return await this.validateChecked(document, isCancelled);
    } catch (error) {
      return this.failed(document, error, startedAt);
    }
  }

  private async validateChecked(
    document: TextDocument,
    isCancelled: () => boolean,
  ): Promise<DocumentValidation | undefined> {
    const settings = await this.settings.get(document.uri);
    const classifier = this.classifierFor(settings);
    const path = pathOfUri(document.uri);
    const kind = classifier.kindOf(path);
    const startedAt = performance.now();
    const discovered = kind ? this.rolloutOf(document.uri, classifier) : undefined;

    if (kind && discovered) {
      const rollout = await this.evaluate(discovered, settings, classifier, isCancelled, document.uri);
      if (!rollout) return undefined;
      const file = rollout.bundle.files.find((candidate) => candidate.path === path);
      if (file?.report) {
        const resultId = digest(rollout.key);
        const cached = this.cache.get(document.uri, resultId);
        if (cached) return cached;
        const rules = rollout.evaluation.findings.filter((finding) => finding.file === path);
        const { listed, omitted } = listFindings<Finding>(
          file.report.findings,
          file.report.omitted,
          rules,
          settings.maxNumberOfProblems,
        );
        return this.finish(document, kind, settings, listed, omitted, resultId, startedAt, {
          rollout: discovered.root,
          verdict: rollout.evaluation.verdict,
        });
      }
    }

    // Not part of a rollout (or not a file the rollout reads): the file on its own.
    const resultId = `${document.version}.${this.settingsGeneration}`;
    const cached = this.cache.get(document.uri, resultId);
    if (cached) return cached;
    if (!kind)
      return this.finish(document, null, settings, [], 0, resultId, startedAt, { rollout: null, verdict: null });
    const checked = await this.evaluator.checkDocument(document, kind, settings.maxNumberOfProblems, isCancelled);
    if (!checked) return undefined;
    return this.finish(document, kind, settings, checked.report.findings, checked.report.omitted, resultId, startedAt, {
      rollout: null,
      verdict: null,
    });
  }

  /**
   * The rollout in a folder (or as `rolloutKey` discovered it), evaluated as its documents' diagnostics
   * are: with its folder's settings and the editor's open documents. Resolves to undefined when cancelled.
   */
  async evaluateRollout(rollout: RolloutFolder, isCancelled: () => boolean): Promise<EvaluatedRollout | undefined> {
    const settings = await this.settings.get(pathToFileURL(rootOf(rollout)).href);
    return this.evaluate(rollout, settings, this.classifierFor(settings), isCancelled);
  }

  /**
   * The diagnostics of a file of an evaluated rollout that no editor holds (not opened, or over the 50 MB
   * VS Code hands to extensions), as validate() would give them.
   */
  async diagnosticsOnDisk(rollout: EvaluatedRollout, path: string): Promise<Diagnostic[]> {
    const settings = await this.settings.get(pathToFileURL(path).href);
    const report = rollout.bundle.files.find((candidate) => candidate.path === path)?.report;
    const rules = rollout.evaluation.findings.filter((finding) => finding.file === path);
    const { listed, omitted } = listFindings<Finding>(
      report?.findings ?? [],
      report?.omitted ?? 0,
      rules,
      settings.maxNumberOfProblems,
    );
    const diagnostics = listed.map((finding) => this.toDiagnostic(finding));
    if (omitted > 0) diagnostics.push(limitDiagnostic(omitted, settings.maxNumberOfProblems));
    return diagnostics;
  }

  /**
   * The key of the rollout's current state, as evaluateRollout would give it, without evaluating it; and
   * the rollout as discovered for it, for evaluateRollout not to look its files up again.
   */
  async rolloutKey(root: string): Promise<{ readonly key: string; readonly rollout: DiscoveredRollout }> {
    const settings = await this.settings.get(pathToFileURL(root).href);
    const classifier = this.classifierFor(settings);
    const rollout = { root, files: filesOfRollout(root, classifier) };
    return {
      key: this.evaluator.keyOf(
        root,
        settings,
        classifier,
        this.settingsGeneration,
        this.hooks.openDocument,
        rollout.files,
      ),
      rollout,
    };
  }

  /**
   * What a document is to the features beyond diagnostics: its artifact kind (undefined when it is none)
   * and, when it lies in a rollout, the rollout evaluated as for its diagnostics. Resolves to undefined
   * when cancelled.
   */
  async artifactOf(
    document: TextDocument,
    isCancelled: () => boolean,
  ): Promise<{ kind?: ArtifactKind; rollout?: EvaluatedRollout } | undefined> {
    const settings = await this.settings.get(document.uri);
    const classifier = this.classifierFor(settings);
    const kind = classifier.kindOf(pathOfUri(document.uri));
    const discovered = kind ? this.rolloutOf(document.uri, classifier) : undefined;
    if (!kind) return {};
    if (!discovered) {
      // Checked as its diagnostics are, so that the features read the same lines.
      const checked = await this.evaluator.checkDocument(document, kind, settings.maxNumberOfProblems, isCancelled);
      return checked ? { kind } : undefined;
    }
    const rollout = await this.evaluate(discovered, settings, classifier, isCancelled);
    return rollout ? { kind, rollout } : undefined;
  }

  /** The lines of the last check of this version of the document, named as its outline needs them. */
  checkedLinesOf(document: TextDocument, kind: ArtifactKind): KeptCheck | undefined {
    return this.evaluator.checkedLinesOf(document, kind);
  }

  /**
   * Every evaluation goes through here, whoever asked (diagnostics, the Rollouts view, the timeline, a
   * hover): the first to see a rollout's new state tells the other open documents of the rollout.
   * `by`: the document being validated, which needs no telling.
   */
  private async evaluate(
    rollout: RolloutFolder,
    settings: RolloutEvidenceSettings,
    classifier: ArtifactClassifier,
    isCancelled: () => boolean,
    by?: string,
  ): Promise<EvaluatedRollout | undefined> {
    const files = typeof rollout === 'string' ? undefined : rollout.files;
    const evaluated = await this.evaluator.evaluate(
      rootOf(rollout),
      settings,
      classifier,
      this.settingsGeneration,
      this.hooks.openDocument,
      isCancelled,
      files,
    );
    if (evaluated?.fresh) this.hooks.onRolloutChanged(evaluated, by);
    return evaluated;
  }

  /**
   * The rollout a document's file belongs to, with its files, found in one look that the evaluation
   * reuses. Only a file URI can have one: the rollout is read from disk.
   */
  private rolloutOf(uri: string, classifier: ArtifactClassifier): DiscoveredRollout | undefined {
    return isFileUri(uri) ? discoverRolloutOf(pathOfUri(uri), classifier) : undefined;
  }

  forget(uri: string): void {
    this.cache.delete(uri);
    this.evaluator.forgetDocument(uri);
    this.settings.evict(uri);
  }

  /** Settings changed: every cached result is stale and every result id must change. */
  settingsChanged(): void {
    this.settingsGeneration++;
    this.cache.clear();
    this.classifiers.clear();
    this.settings.clear();
  }

  /**
   * One `internal-error` on the document instead of what it would have had: no stale or partial
   * diagnostics, and a rollout verdict that cannot be better than incomplete. Not cached: the next
   * validation tries again.
   */
  private failed(document: TextDocument, error: unknown, startedAt: number): DocumentValidation {
    this.hooks.logError(`Validating ${document.uri} failed: ${errorDetail(error)}`);
    const code: DiagnosticCode = 'internal-error';
    const finding: Finding = {
      code,
      severity: codeInfo(code).severity,
      // The error's kind only: its message may quote the document, and the log has it whole.
      message: `The checker failed on this document (${error instanceof Error ? error.name : 'a thrown value'}), so what it proves is unknown and its rollout is incomplete. The output of Rollout Evidence has the details.`,
      range: rangeOnLine(0, 0, 0),
    };
    this.cache.delete(document.uri);
    const report: ValidationReport = {
      uri: document.uri,
      version: document.version,
      kind: null,
      durationMs: performance.now() - startedAt,
      problemCount: 1,
      omittedCount: 0,
      rollout: null,
      verdict: 'incomplete',
    };
    this.hooks.onValidated(report);
    return { resultId: `internal-error.${++this.failures}`, diagnostics: [this.toDiagnostic(finding)], report };
  }

  private finish(
    document: TextDocument,
    kind: ArtifactKind | null,
    settings: RolloutEvidenceSettings,
    findings: readonly Finding[],
    omitted: number,
    resultId: string,
    startedAt: number,
    rollout: Pick<ValidationReport, 'rollout' | 'verdict'>,
  ): DocumentValidation {
    const diagnostics = findings.map((finding) => this.toDiagnostic(finding));
    if (omitted > 0) diagnostics.push(limitDiagnostic(omitted, settings.maxNumberOfProblems));
    const report: ValidationReport = {
      uri: document.uri,
      version: document.version,
      kind,
      durationMs: performance.now() - startedAt,
      problemCount: findings.length,
      omittedCount: omitted,
      ...rollout,
    };
    const validation = { resultId, diagnostics, report };
    this.cache.set(document.uri, resultId, validation);
    this.hooks.onValidated(report);
    return validation;
  }

  private classifierFor(settings: RolloutEvidenceSettings): ArtifactClassifier {
    const patterns = JSON.stringify(Object.entries(settings.artifacts));
    let classifier = this.classifiers.get(patterns, compiled);
    if (!classifier) {
      classifier = new ArtifactClassifier(settings.artifacts);
      this.classifiers.set(patterns, compiled, classifier);
    }
    return classifier;
  }
}

/** A rollout folder, or a rollout discovered in it (its files listed), which is then not looked up again. */
export type RolloutFolder = string | DiscoveredRollout;

function rootOf(rollout: RolloutFolder): string {
  return typeof rollout === 'string' ? rollout : rollout.root;
}

function digest(key: string): string {
  return createHash('sha1').update(key).digest('base64');
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
