/**
 * The experiment summary request against the real server: on a jobs tree whose verdicts were counted by
 * hand, the counts of each job and of the whole tree are those, and the Markdown is character for
 * character the CLI's `check --format summary` for the same folder, run from the workspace folder.
 * Params outside the workspace are refused.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ErrorCodes } from 'vscode-languageserver-protocol/node';
import { experimentSummaryRequest } from '../../shared/src/protocol';
import type { ExperimentSummaryResult, RolloutVerdict } from '../../shared/src/rollouts';
import { cli } from '../support/cli';
import { LspTestClient } from '../support/lspClient';
import { repoRoot, temporaryFolder } from '../support/repo';

const tree = temporaryFolder();
const workspace = join(tree.path, 'workspace');
const elsewhere = join(tree.path, 'elsewhere');
const firstJob = join(workspace, 'jobs/2026-03-01__09-00-00');
const secondJob = join(workspace, 'jobs/2026-03-02__09-00-00');

/** Each rollout, the fixture it copies, and the verdict that fixture has outside a fixture folder. */
const rollouts: readonly (readonly [string, string, RolloutVerdict])[] = [
  [join(firstJob, 'hello__00000001'), 'healthy', 'trusted'],
  [join(firstJob, 'completed__00000002'), 'benchflow-completed', 'trusted'],
  [join(firstJob, 'idle__00000003'), 'benchflow-idle-timeout', 'trusted-timeout'],
  [join(firstJob, 'partial__00000004'), 'jsonl-partial-line', 'incomplete'],
  [join(firstJob, 'overclaims__00000005'), 'lifecycle-overclaims', 'untrusted'],
  [join(secondJob, 'hello__00000006'), 'healthy', 'trusted'],
  [join(secondJob, 'syntax__00000007'), 'json-syntax', 'incomplete'],
  [join(secondJob, 'masked__00000008'), 'masked-quiescence-probe', 'untrusted'],
];
for (const [root, fixture] of rollouts) {
  mkdirSync(root, { recursive: true });
  cpSync(join(repoRoot, 'test/fixtures/bundles', fixture), root, { recursive: true });
}
mkdirSync(elsewhere, { recursive: true });

interface Counts {
  readonly rollouts: number;
  readonly verdicts: Readonly<Record<RolloutVerdict, number>>;
  readonly countable: number;
}

/** Counted by hand from the list above, not computed from it, so that a slip in either shows. */
const cases: readonly (readonly [string, string, Counts])[] = [
  [
    'a job',
    firstJob,
    { rollouts: 5, verdicts: { untrusted: 1, incomplete: 1, 'trusted-timeout': 1, trusted: 2 }, countable: 3 },
  ],
  [
    'another job',
    secondJob,
    { rollouts: 3, verdicts: { untrusted: 1, incomplete: 1, 'trusted-timeout': 0, trusted: 1 }, countable: 1 },
  ],
  [
    'the whole workspace folder',
    workspace,
    { rollouts: 8, verdicts: { untrusted: 2, incomplete: 2, 'trusted-timeout': 1, trusted: 3 }, countable: 4 },
  ],
];

after(() => tree.remove());

describe('the experiment summary request', () => {
  let client: LspTestClient;
  const summary = (folder: string) => client.connection.sendRequest(experimentSummaryRequest, { folder });

  before(async () => {
    ({ client } = await LspTestClient.start({ pull: true, settings: {}, workspaceFolders: [workspace] }));
  });
  after(async () => client.stop());

  it('the hand count agrees with the fixtures’ verdicts', () => {
    for (const [, folder, counts] of cases) {
      const inFolder = rollouts.filter(([root]) => root.startsWith(`${folder}/`));
      assert.equal(inFolder.length, counts.rollouts, folder);
      for (const [verdict, count] of Object.entries(counts.verdicts))
        assert.equal(inFolder.filter(([, , shown]) => shown === verdict).length, count, `${folder}: ${verdict}`);
    }
  });

  for (const [what, folder, counts] of cases) {
    it(`counts the rollouts of ${what} as counted by hand, in the CLI's very words`, async () => {
      const result: ExperimentSummaryResult = await summary(folder);
      assert.equal(result.rollouts, counts.rollouts);
      assert.deepEqual(result.verdicts, counts.verdicts);
      assert.equal(result.relativeTo, workspace);
      assert.deepEqual(result.ioErrors, []);
      assert.match(
        result.markdown,
        new RegExp(`\\*\\*${counts.countable} of ${counts.rollouts} rollouts countable\\*\\*`),
        result.markdown,
      );
      for (const [verdict, count] of Object.entries(counts.verdicts))
        assert.match(result.markdown, new RegExp(`^\\| ${verdict} \\| ${count} \\|$`, 'm'), verdict);

      const target = relative(workspace, folder) || '.';
      const run = cli(['check', target, '--format', 'summary'], { cwd: workspace });
      assert.equal(run.status, 1, `the CLI finds untrusted rollouts: ${run.stderr}`);
      assert.equal(result.markdown, run.stdout, 'the editor’s summary is the CLI’s');
    });
  }

  it('refuses a folder outside the workspace, and params without a folder, naming the field', async () => {
    const outside = await client.sendRaw(experimentSummaryRequest.method, { folder: elsewhere });
    assert.equal(outside.error?.code, ErrorCodes.InvalidParams, JSON.stringify(outside));
    assert.match(outside.error.message, /"folder" must be inside a workspace folder/);
    for (const params of [{}, { folder: 3 }, { folder: 'jobs' }, null, [workspace]]) {
      const refused = await client.sendRaw(experimentSummaryRequest.method, params);
      assert.equal(refused.error?.code, ErrorCodes.InvalidParams, JSON.stringify(params));
    }
    // And the server answers well after.
    assert.equal((await summary(secondJob)).rollouts, 3);
  });
});
