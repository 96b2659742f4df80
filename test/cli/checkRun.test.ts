/**
 * The CLI's error boundary per rollout, with a failure injected into the check of one bundle: that
 * rollout gets one `internal-error` finding and the verdict `incomplete`, every other one is reported in
 * full in text, JSON and SARIF, and the exit status is 2 only when nothing could be checked.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { checkBundle } from '../../server/src/engine/checkRollout';
import { defaultRuleOptions } from '../../server/src/engine/rules/context';
import { defaultSettings } from '../../shared/src/settings';
import { exitStatusOf, runCheck, type BundleChecker } from '../../server/src/cli/checkRun';
import type { CheckRequest } from '../../server/src/cli/report/run';
import { formatJson, type JsonReport } from '../../server/src/cli/formats/json';
import { formatSarif } from '../../server/src/cli/formats/sarif';
import { formatText } from '../../server/src/cli/formats/text';
import type { ProgressLine } from '../../server/src/cli/progress';
import { examplesDir, faultyRollout, healthyRollout, repoRoot } from '../support/repo';

const silent: ProgressLine = { update: () => {}, tick: () => {}, rollouts: () => {}, clear: () => {} };

function request(paths: readonly string[]): CheckRequest {
  return {
    paths,
    maxProblems: 1000,
    artifactMap: {},
    rules: defaultRuleOptions,
    fixtureFolders: defaultSettings.fixtureFolders,
    failOn: 'incomplete',
    cwd: repoRoot,
  };
}

/** Checks bundles as the CLI does, but throws for the rollout at `failing`, as a bug in the rules would. */
function failingAt(failing: string): BundleChecker {
  return (bundle, checker, options) => {
    if (bundle.root === failing) throw new RangeError('Maximum call stack size exceeded');
    return checkBundle(bundle, checker, options);
  };
}

describe('the CLI error boundary per rollout', () => {
  it('turns a failure in one rollout into internal-error and incomplete, and reports the others in full', () => {
    const healthy = runCheck(request([examplesDir]), silent);
    const run = runCheck(request([examplesDir]), silent, failingAt(healthyRollout));
    const failed = run.bundles.find((bundle) => bundle.root === healthyRollout)!;
    assert.equal(failed.evaluation?.verdict, 'incomplete');
    assert.deepEqual(
      failed.listed.findings.map((finding) => [finding.code, finding.file]),
      [['internal-error', join(healthyRollout, 'result.json')]],
    );
    assert.match(failed.listed.findings[0]!.message, /RangeError: Maximum call stack size exceeded/);
    // The others exactly as in a run where nothing failed.
    for (const root of [faultyRollout, join(examplesDir, 'jobs/2026-08-22__10-00-00')]) {
      const expected = healthy.bundles.find((bundle) => bundle.root === root)!;
      const actual = run.bundles.find((bundle) => bundle.root === root)!;
      assert.deepEqual(actual.listed.findings, expected.listed.findings, root);
      assert.equal(actual.evaluation?.verdict, expected.evaluation?.verdict, root);
    }
    assert.equal(exitStatusOf(run), 1, 'something was checked, and a verdict fails the run');

    const json = JSON.parse(formatJson(run)) as JsonReport;
    assert.deepEqual(
      json.rollouts.map((rollout) => [rollout.root, rollout.verdict]),
      [
        ['examples/jobs/2026-08-22__10-00-00', null],
        ['examples/jobs/2026-08-22__10-00-00/hello-world__1a2b3c4d', 'incomplete'],
        ['examples/jobs/2026-08-22__10-00-00/regex-log__bab1cbf6', 'untrusted'],
      ],
    );
    assert.deepEqual(
      json.rollouts[1]!.diagnostics.map((diagnostic) => [diagnostic.file, diagnostic.code]),
      [['result.json', 'internal-error']],
    );
    assert.deepEqual(
      json.rollouts[2]!.diagnostics,
      (JSON.parse(formatJson(healthy)) as JsonReport).rollouts[2]!.diagnostics,
    );

    const text = formatText(run);
    assert.match(
      text,
      /\n {2}examples\/jobs\/2026-08-22__10-00-00\/hello-world__1a2b3c4d\/result\.json:1:1: error internal-error The checker failed on this rollout/,
    );
    assert.match(text, /\nverdict incomplete {6}examples\/jobs\/2026-08-22__10-00-00\/hello-world__1a2b3c4d\n/);
    assert.match(text, /\nverdict untrusted {7}examples\/jobs\/2026-08-22__10-00-00\/regex-log__bab1cbf6\n/);

    const sarif = JSON.parse(formatSarif(run)) as { runs: { results: { ruleId: string }[] }[] };
    const ruleIds = sarif.runs[0]!.results.map((result) => result.ruleId);
    assert.equal(ruleIds.filter((id) => id === 'internal-error').length, 1);
    const healthyIds = (JSON.parse(formatSarif(healthy)) as typeof sarif).runs[0]!.results.map(
      (result) => result.ruleId,
    );
    assert.equal(
      ruleIds.length,
      healthyIds.length + 1,
      'every result of the run without the failure, and the internal error',
    );
  });

  it('exits 2 when the checker failed on every bundle, as nothing could be checked', () => {
    const everything: BundleChecker = () => {
      throw new Error('broken');
    };
    const run = runCheck(request([examplesDir]), silent, everything);
    assert.equal(run.bundles.length, 3);
    assert.ok(
      run.bundles.every((bundle) => bundle.listed.findings.some((finding) => finding.code === 'internal-error')),
    );
    assert.equal(exitStatusOf(run), 2);
    // The documents a CI step keeps say so, with the report of what there was.
    const json = JSON.parse(formatJson(run)) as JsonReport;
    assert.equal(json.error?.kind, 'checker-failed');
    assert.match(json.error!.message, /every one of the 3 bundles/);
    assert.equal(json.rollouts.length, 3);
    const sarif = JSON.parse(formatSarif(run)) as {
      runs: {
        invocations: {
          executionSuccessful: boolean;
          exitCode: number;
          toolExecutionNotifications: { level: string; message: { text: string } }[];
        }[];
      }[];
    };
    const [invocation] = sarif.runs[0]!.invocations;
    assert.deepEqual([invocation!.executionSuccessful, invocation!.exitCode], [false, 2]);
    assert.equal(invocation!.toolExecutionNotifications[0]!.message.text, json.error!.message);
  });

  it('raises no internal-error when nothing fails (its near miss)', () => {
    const run = runCheck(request([examplesDir]), silent);
    assert.ok(
      run.bundles.every((bundle) => bundle.listed.findings.every((finding) => finding.code !== 'internal-error')),
    );
    assert.equal(exitStatusOf(run), 1);
    assert.equal(
      (JSON.parse(formatJson(run)) as JsonReport).error,
      undefined,
      'an error object only with exit status 2',
    );
  });
});
