/**
 * An artifact name that is there but is no regular file never helps a verdict (issue 22): a FIFO, a
 * dangling symbolic link or a link to /dev/null in place of a file of the rollout is present and
 * unreadable, judged exactly as a file the checker may not read (mode 000, an `ioError`), never as
 * absent. Each case takes a fixture bundle that is untrusted or incomplete because of that file and
 * replaces the file; the CLI's path (discovery, then the synchronous checks) and the language server's
 * (its own lookup of the rollout's files, the cancellable checks, the reward read without a listing)
 * must give the same verdict. A FIFO is never opened for reading, so none of this can block.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { defaultSettings } from '../../shared/src/settings';
import { rolloutFiles } from '../../shared/src/layout';
import { ArtifactClassifier } from '../../server/src/engine/artifacts/classify';
import { listedFindings, type CheckedBundle } from '../../server/src/engine/checkRollout';
import { ArtifactChecker } from '../../server/src/engine/check/artifactChecker';
import { diskSource, loadRollout, prepareLoad } from '../../server/src/engine/load';
import { defaultRuleOptions } from '../../server/src/engine/rules/context';
import { evaluateRollout } from '../../server/src/engine/rules/evaluate';
import { ModelCaches } from '../../server/src/engine/model/caches';
import { verdicts, type Verdict } from '../../server/src/engine/verdict';
import { RolloutEvaluator } from '../../server/src/lsp/rolloutEvaluator';
import { repoRoot, temporaryFolder } from '../support/repo';
import { checkRollout, discoverRollout } from '../support/rollout';

const folder = temporaryFolder();
after(() => folder.remove());
const checker = new ArtifactChecker();
const classifier = new ArtifactClassifier();
const caches = new ModelCaches();
const options = { maxFindings: 1000, rules: defaultRuleOptions, caches };
const bundles = join(repoRoot, 'test/fixtures/bundles');

/** Lower is worse: the order in which `verdicts` lists them. */
const rank = (verdict: Verdict) => verdicts.indexOf(verdict);

interface Case {
  /** A fixture bundle that is untrusted or incomplete because of `file` (or, for a reward file, trusted). */
  readonly fixture: string;
  readonly file: string;
  /** The same file readable but damaged: it no longer parses. */
  readonly damaged: string;
  /** The verdict with the file there but unreadable. */
  readonly expected: Verdict;
  /**
   * The untrust of the readable or the damaged file was read from its own rows (a masked probe, a tool-call
   * count that no row matches any more): the one raise allowed, as in the fuzz property, is then
   * untrusted → incomplete, since a file that cannot be read at all shows no row.
   */
  readonly untrustedByOwnRows?: true;
}

const cases: readonly Case[] = [
  { fixture: 'setup-only-verifier', file: rolloutFiles.preflight, damaged: '{"report":', expected: 'untrusted' },
  { fixture: 'verifier-evidence-missing', file: rolloutFiles.preflight, damaged: '{"report":', expected: 'incomplete' },
  { fixture: 'json-syntax', file: rolloutFiles.timing, damaged: '{"total":', expected: 'incomplete' },
  { fixture: 'artifact-empty', file: rolloutFiles.rewards, damaged: '{"value":\n', expected: 'incomplete' },
  {
    fixture: 'config-unreadable-grading-before-quiescence',
    file: rolloutFiles.config,
    damaged: '{"sandbox_user":',
    expected: 'untrusted',
  },
  {
    fixture: 'verifier-before-quiescence',
    file: rolloutFiles.config,
    damaged: '{"sandbox_user":',
    expected: 'untrusted',
  },
  { fixture: 'healthy', file: rolloutFiles.rewardText, damaged: 'not a number', expected: 'incomplete' },
  {
    fixture: 'masked-quiescence-probe',
    file: rolloutFiles.actionRecords,
    damaged: '{"event_type":\n',
    expected: 'incomplete',

    untrustedByOwnRows: true,
  },
  {
    fixture: 'exec-outcome-missing',
    file: rolloutFiles.actionRecords,
    damaged: '{"event_type":\n',
    expected: 'incomplete',
  },
  {
    fixture: 'terminal-claim-contradicted',
    file: rolloutFiles.acpTrajectory,
    damaged: '{"type":\n',
    expected: 'incomplete',
    untrustedByOwnRows: true,
  },
  {
    fixture: 'jsonl-syntax',
    file: rolloutFiles.acpTrajectory,
    damaged: '{"type":\n',
    expected: 'incomplete',
    untrustedByOwnRows: true,
  },
  {
    fixture: 'review-llm-usage',
    file: rolloutFiles.llmTrajectory,
    damaged: '{"request":\n',
    expected: 'incomplete',
    untrustedByOwnRows: true,
  },
];

/** What stands in the file's place, and the finding it must earn there. */
const replacements = {
  FIFO: { make: (path: string) => execFileSync('mkfifo', [path]), code: 'artifact-not-regular-file' },
  'dangling link': { make: (path: string) => symlinkSync('no-such-file', path), code: 'artifact-not-regular-file' },
  'link to /dev/null': { make: (path: string) => symlinkSync('/dev/null', path), code: 'artifact-outside-bundle' },
} as const;

let copies = 0;
/** A copy of the fixture bundle, outside every fixture folder, with `file` replaced by `make` (when given). */
function copyOf(fixture: string, file: string, make?: (path: string) => void): string {
  const root = join(folder.path, `${copies++}`, fixture);
  cpSync(join(bundles, fixture), root, { recursive: true });
  if (make) {
    rmSync(join(root, file), { force: true });
    make(join(root, file));
  }
  return root;
}

function verdictOf(checked: CheckedBundle): Verdict {
  assert.ok(checked.evaluation, 'the rollout was evaluated');
  return checked.evaluation.verdict;
}

/** The verdict with `file` present but read as the checker reads a file it may not open (mode 000). */
function verdictWithUnreadable(root: string, file: string): Verdict {
  const discovered = discoverRollout(root);
  const load = prepareLoad(root, discovered.files, diskSource, { listing: discovered.listing });
  const bundle = loadRollout(load, (each) =>
    each.path === join(root, file)
      ? { ioError: 'permission denied' }
      : { report: checker.checkFile(each.path, each.kind, { ...options, boundary: load.boundary }) },
  );
  assert.ok(
    bundle.files.some((each) => each.path === join(root, file)),
    `${file} is part of the rollout`,
  );
  return evaluateRollout(bundle, options.rules, caches).verdict;
}

async function verdictThroughServer(root: string): Promise<Verdict> {
  const evaluator = new RolloutEvaluator(checker, () => true);
  const evaluated = await evaluator.evaluate(
    root,
    { ...defaultSettings, fixtureFolders: [] },
    classifier,
    0,
    () => undefined,
    () => false,
  );
  assert.ok(evaluated, 'not cancelled');
  return evaluated.evaluation.verdict;
}

const isRewardFile = (file: string) => file === rolloutFiles.rewardText || file === rolloutFiles.rewardJson;

describe('an artifact name that is no regular file never helps a verdict', () => {
  for (const { fixture, file, damaged, expected, untrustedByOwnRows } of cases) {
    for (const [name, { make, code }] of Object.entries(replacements)) {
      it(`${file} as a ${name} in ${fixture}: ${expected}`, async () => {
        const original = verdictOf(checkRollout(copyOf(fixture, file), checker, options));
        const damagedRoot = copyOf(fixture, file, (path) => writeFileSync(path, damaged));
        const withDamage = verdictOf(checkRollout(damagedRoot, checker, options));
        const root = copyOf(fixture, file, make);
        const checked = checkRollout(root, checker, options);
        const verdict = verdictOf(checked);

        const onFile = listedFindings(checked, 1000).findings.filter((finding) => finding.file === join(root, file));
        assert.equal(onFile[0]?.code, code, `the ${name} is reported on ${file}`);
        const report = checked.files.find((each) => each.path === join(root, file))?.report;
        if (!isRewardFile(file)) {
          assert.deepEqual(
            report?.findings.map((finding) => finding.code),
            [code],
            'its own check says only that, having read nothing',
          );
          assert.equal(report?.records, 0);
        }
        assert.equal(verdict, expected);
        if (!isRewardFile(file))
          // A reward file is no artifact of the bundle, so it has no such twin: one the checker may not read
          // is reward-unreadable (rewardConsistency.test.ts).
          assert.equal(verdict, verdictWithUnreadable(damagedRoot, file), 'judged as a file it may not read');
        if (untrustedByOwnRows)
          assert.ok([original, withDamage].includes('untrusted'), 'the rows of the readable file showed the untrust');
        else
          for (const [readable, than] of [
            ['readable', original],
            ['damaged', withDamage],
          ] as const)
            assert.ok(rank(verdict) <= rank(than), `${verdict} is not above ${than} with ${file} ${readable}`);
        assert.equal(await verdictThroughServer(root), verdict, 'the language server gives the same verdict');
      });
    }
  }

  it('near miss: a link to a regular file inside the rollout is read as the file itself', async () => {
    const plain = copyOf('setup-only-verifier', rolloutFiles.preflight);
    const root = copyOf('setup-only-verifier', rolloutFiles.preflight, (path) => {
      cpSync(join(plain, rolloutFiles.preflight), join(dirname(path), '../preflight-copy.json'));
      symlinkSync('../preflight-copy.json', path);
    });
    const checked = checkRollout(root, checker, options);
    assert.equal(verdictOf(checked), 'untrusted');
    const codes = listedFindings(checked, 1000).findings.map((finding) => finding.code);
    assert.ok(!codes.includes('artifact-not-regular-file'), codes.join(' '));
    assert.deepEqual(
      codes,
      listedFindings(checkRollout(plain, checker, options), 1000).findings.map((finding) => finding.code),
    );
    assert.equal(await verdictThroughServer(root), 'untrusted');
  });
});
