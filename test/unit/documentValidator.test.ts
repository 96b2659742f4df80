/**
 * The language server's per-document error boundary, in process: an evaluation made to throw (by
 * injecting an evaluator that does, since no input is meant to make the real one throw) gives that
 * document one internal-error diagnostic and a logged stack, and every other document its usual ones.
 * Pull and push diagnostics both come from DocumentValidator.validate, which this exercises.
 */
import assert from 'node:assert/strict';
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { ValidationReport } from '../../shared/src/protocol';
import type { RolloutEvidenceSettings } from '../../shared/src/settings';
import type { ArtifactClassifier } from '../../server/src/engine/artifacts/classify';
import { ArtifactChecker } from '../../server/src/engine/check/artifactChecker';
import { DocumentValidator } from '../../server/src/lsp/documentValidator';
import { summarise } from '../../server/src/lsp/experimentSummaryRequest';
import { RolloutEvaluator, type EvaluatedRollout } from '../../server/src/lsp/rolloutEvaluator';
import { SettingsCache } from '../../server/src/lsp/settingsCache';
import { diagnosticConverter } from '../../server/src/lsp/toDiagnostic';
import { repoRoot, temporaryFolder } from '../support/repo';

const folder = temporaryFolder();
after(() => folder.remove());

const checker = new ArtifactChecker();

/** Throws while evaluating the rollout in `failing`, as a checker bug would (a stack overflow, say). */
class FailingEvaluator extends RolloutEvaluator {
  failing: string | undefined;

  override evaluate(
    root: string,
    settings: RolloutEvidenceSettings,
    classifier: ArtifactClassifier,
    generation: number,
    open: (path: string) => TextDocument | undefined,
    isCancelled: () => boolean,
  ): Promise<EvaluatedRollout | undefined> {
    if (root === this.failing) throw new RangeError('Maximum call stack size exceeded');
    return super.evaluate(root, settings, classifier, generation, open, isCancelled);
  }
}

function validatorWith(evaluator: RolloutEvaluator, documents: readonly TextDocument[]) {
  const logged: string[] = [];
  const reports: ValidationReport[] = [];
  const settings = new SettingsCache({ getConfiguration: () => Promise.resolve({}) }, true, undefined, () => undefined);
  const validator = new DocumentValidator(evaluator, settings, diagnosticConverter(undefined), {
    openDocument: (path) => documents.find((document) => document.uri === pathToFileURL(path).href),
    onValidated: (report) => reports.push(report),
    onRolloutChanged: () => undefined,
    logError: (message) => logged.push(message),
  });
  return { validator, logged, reports };
}

function rolloutDocument(name: string): { root: string; document: TextDocument } {
  const root = join(folder.path, name);
  cpSync(join(repoRoot, 'test/fixtures/bundles/masked-quiescence-probe'), root, { recursive: true });
  const path = join(root, 'benchguard/action_records.jsonl');
  return { root, document: TextDocument.create(pathToFileURL(path).href, 'jsonl', 1, readFileSync(path, 'utf8')) };
}

describe('the language server validating documents', () => {
  it('turns an internal error in one document into one internal-error diagnostic on it, and leaves the others whole', async () => {
    const broken = rolloutDocument('broken');
    const sound = rolloutDocument('sound');
    const evaluator = new FailingEvaluator(checker, () => true);
    evaluator.failing = broken.root;
    const { validator, logged, reports } = validatorWith(evaluator, [broken.document, sound.document]);
    const notCancelled = () => false;

    const failed = (await validator.validate(broken.document, notCancelled))!;
    assert.deepEqual(
      failed.diagnostics.map((diagnostic) => diagnostic.code),
      ['internal-error'],
    );
    const message = failed.diagnostics[0]!.message;
    assert.ok(typeof message === 'string');
    assert.match(message, /RangeError.*incomplete/);
    assert.equal(reports.at(-1)?.verdict, 'incomplete');
    assert.equal(logged.length, 1);
    assert.match(
      logged[0]!,
      new RegExp(`Validating ${broken.document.uri} failed: RangeError: Maximum call stack size exceeded\\n\\s+at `),
    );

    // The other document: what a validator whose evaluation never fails gives it.
    const expected = (await validatorWith(new RolloutEvaluator(checker, () => true), [
      sound.document,
    ]).validator.validate(sound.document, notCancelled))!;
    const other = (await validator.validate(sound.document, notCancelled))!;
    assert.ok(expected.diagnostics.length > 0, 'the fixture has findings to compare');
    assert.deepEqual(other.diagnostics, expected.diagnostics);
    assert.equal(logged.length, 1);

    // A failure is not kept: asked again, it fails again with a new result id, and once the checker no
    // longer fails, the document gets its own diagnostics.
    const again = (await validator.validate(broken.document, notCancelled))!;
    assert.notEqual(again.resultId, failed.resultId);
    evaluator.failing = undefined;
    const recovered = (await validator.validate(broken.document, notCancelled))!;
    assert.deepEqual(
      recovered.diagnostics.map((diagnostic) => diagnostic.code),
      expected.diagnostics.map((diagnostic) => diagnostic.code),
    );
  });

  it('summarises an experiment with a rollout the checker fails on as the CLI does: that one incomplete for internal-error, the rest in full', async () => {
    const jobs = join(folder.path, 'summarised');
    const roots = ['a', 'b', 'c'].map((name) => {
      const root = join(jobs, name);
      cpSync(join(repoRoot, 'test/fixtures/bundles/healthy'), root, { recursive: true });
      return root;
    });
    const evaluator = new FailingEvaluator(checker, () => true);
    const { validator } = validatorWith(evaluator, []);
    const logged: string[] = [];
    const whole = await summarise(
      jobs,
      jobs,
      validator,
      () => false,
      (message) => logged.push(message),
    );
    evaluator.failing = roots[1];
    const failed = await summarise(
      jobs,
      jobs,
      validator,
      () => false,
      (message) => logged.push(message),
    );
    assert.ok(whole && failed);
    assert.equal(whole.verdicts.trusted, 3);
    assert.deepEqual(failed.verdicts, { ...whole.verdicts, trusted: 2, incomplete: 1 });
    assert.match(failed.markdown, /internal-error/);
    assert.equal(logged.length, 1);
    assert.match(logged[0]!, /Summarising .*b failed: RangeError: Maximum call stack/);
  });
});
