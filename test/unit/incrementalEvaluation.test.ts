/**
 * The language server re-evaluates a rollout after each edit, reusing what did not change: the lines
 * of the edited document, the facts they became, and the timeline read from the action log. Whatever
 * it reuses, the findings and the verdict must be those of a fresh check of the same text.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { defaultSettings } from '../../shared/src/settings';
import { ArtifactClassifier } from '../../server/src/engine/artifacts/classify';
import { listedFindings } from '../../server/src/engine/checkRollout';
import { ArtifactChecker } from '../../server/src/engine/check/artifactChecker';
import { defaultRuleOptions } from '../../server/src/engine/rules/context';
import { ModelCaches } from '../../server/src/engine/model/caches';
import { RolloutEvaluator } from '../../server/src/lsp/rolloutEvaluator';
import { fixtures } from '../fixtures/definitions';
import { writeTree } from '../support/files';
import { seededRandom, type SeededRandom } from '../support/random';
import { temporaryFolder } from '../support/repo';
import { checkRollout } from '../support/rollout';

const folder = temporaryFolder();
after(() => folder.remove());
const checker = new ArtifactChecker();
const classifier = new ArtifactClassifier();

const editedFiles = ['benchguard/action_records.jsonl', 'trajectory/acp_trajectory.jsonl'];

/** Every line any fixture has in the file: kills, observations, verifier execs, tool calls, timeouts. */
function linePool(file: string): string[] {
  return [
    ...new Set(fixtures.flatMap((fixture) => (fixture.files[file] ?? '').split('\n').filter((line) => line !== ''))),
  ];
}

/** Replaces, deletes or inserts a line, or changes one character inside a line. */
function edit(lines: string[], pool: readonly string[], random: SeededRandom): string[] {
  const next = random.below;
  const at = next(lines.length + 1);
  switch (next(4)) {
    case 0:
      return [...lines.slice(0, at), pool[next(pool.length)]!, ...lines.slice(at + 1)];
    case 1:
      return [...lines.slice(0, at), ...lines.slice(at + 1)];
    case 2:
      return [...lines.slice(0, at), pool[next(pool.length)]!, ...lines.slice(at)];
    default: {
      const line = lines[at] ?? '';
      const column = next(line.length + 1);
      return [
        ...lines.slice(0, at),
        `${line.slice(0, column)}${'0x" '[next(4)]}${line.slice(column + 1)}`,
        ...lines.slice(at + 1),
      ];
    }
  }
}

/** Findings as comparable text, with paths relative to the rollout. */
function described(
  root: string,
  findings: readonly { file: string; code: string; range: unknown; message: string; related?: unknown }[],
): string[] {
  return findings.map((finding) =>
    JSON.stringify({ ...finding, file: finding.file.slice(root.length) })
      .split(root)
      .join('<root>'),
  );
}

describe('incremental re-evaluation', () => {
  for (const file of editedFiles) {
    it(`after any sequence of edits of ${file}, finds what a fresh check of the same text finds`, async () => {
      const pool = linePool(file);
      const subjects = fixtures.filter((fixture) => fixture.files[file] !== undefined);
      for (const [index, fixture] of subjects.entries()) {
        const root = join(folder.path, `${file.split('/')[0]}-${fixture.name}`);
        writeTree(root, fixture.files);
        const path = join(root, file);
        const evaluator = new RolloutEvaluator(checker, () => true);
        const random = seededRandom(index + 1);
        // CRLF for some, and a last line that sometimes has no newline: a run may still be writing it.
        const newline = index % 3 === 0 ? '\r\n' : '\n';
        const text = (rows: readonly string[]) => `${rows.join(newline)}${random.below(4) === 0 ? '' : newline}`;
        let lines = fixture.files[file]!.trimEnd().split('\n');
        let document = TextDocument.create(`file://${path}`, 'jsonl', 1, text(lines));
        const open = (candidate: string) => (candidate === path ? document : undefined);
        await evaluator.evaluate(root, defaultSettings, classifier, 0, open, () => false);

        for (let step = 0; step < 8; step++) {
          lines = edit(lines, pool, random);
          document = TextDocument.create(document.uri, 'jsonl', document.version + 1, text(lines));
          const incremental = (await evaluator.evaluate(root, defaultSettings, classifier, 0, open, () => false))!;

          writeFileSync(path, document.getText());
          const fresh = checkRollout(root, checker, {
            maxFindings: defaultSettings.maxNumberOfProblems,
            rules: defaultRuleOptions,
            caches: new ModelCaches(),
          });
          const where = `${fixture.name}, edit ${step}`;
          assert.equal(incremental.evaluation.verdict, fresh.evaluation!.verdict, where);
          assert.deepEqual(
            described(
              root,
              listedFindings(
                { root, loose: false, files: incremental.bundle.files, evaluation: incremental.evaluation },
                defaultSettings.maxNumberOfProblems,
              ).findings,
            ),
            described(root, listedFindings(fresh, defaultSettings.maxNumberOfProblems).findings),
            where,
          );
        }
      }
    });
  }
});

describe('rollouts kept by the language server', () => {
  it('keeps every rollout with an open document, and only the most recently used of the others', async () => {
    const roots = fixtures.slice(0, 4).map((fixture) => {
      const root = join(folder.path, `kept-${fixture.name}`);
      writeTree(root, fixture.files);
      return root;
    });
    const withOpenDocument = roots[0]!;
    const evaluator = new RolloutEvaluator(checker, (root) => root === withOpenDocument, 2);
    const evaluate = (root: string) =>
      evaluator.evaluate(
        root,
        defaultSettings,
        classifier,
        0,
        () => undefined,
        () => false,
      );
    for (const root of roots) assert.equal((await evaluate(root))!.fresh, true, root);
    // Kept: the open one, and the two used last; the second was evicted when the fourth came in.
    assert.equal((await evaluate(roots[0]!))!.fresh, false);
    assert.equal((await evaluate(roots[3]!))!.fresh, false);
    assert.equal((await evaluate(roots[2]!))!.fresh, false);
    assert.equal((await evaluate(roots[1]!))!.fresh, true);
  });
});
