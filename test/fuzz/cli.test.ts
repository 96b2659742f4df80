/**
 * The fuzz property through the built CLI (dist/cli.js, spawned with argv): a few hundred seeded
 * mutated rollouts, checked in batches of one job folder each, in JSON and in SARIF. Every batch must
 * exit 0 or 1 (2 means the CLI could not check readable bundles: a crash), print a report that parses,
 * list every rollout, and give each the verdict the in-process engine gives the same input; one
 * hostile rollout must not spoil the others in its batch.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { Verdict } from '../../server/src/engine/verdict';
import { fixtureMarkerFile } from '../../shared/src/scaffold';
import { writeTree } from '../support/files';
import { builtCli, temporaryFolder } from '../support/repo';
import { loadCorpus } from './corpus';
import { FuzzWorkspace } from './engineRun';
import { drawInput } from './fuzzInput';
import { inputRandom, fuzzSettings } from './inputs';

/** Where the CLI's inputs are numbered from: apart from the in-process run's, so they are other inputs. */
const firstIndex = 1_000_000_000;
const batchSize = 25;

/** The job folder of the batch that input number `position` (of those checked with `options`) goes in. */
const batchFolder = (scratch: string, options: string, position: number) =>
  join(scratch, `batch-${options.replace(/\W+/g, '_')}-${Math.floor(position / batchSize)}`);

interface CliInput {
  readonly index: number;
  readonly fixture: string;
  readonly file: string;
  readonly mutation: string;
  readonly expected: Verdict | 'crash';
}

interface JsonReportShape {
  readonly rollouts: readonly { readonly root: string; readonly verdict: string | null }[];
}

describe('fuzz property, through the CLI', () => {
  const scratch = temporaryFolder('rollout-evidence-fuzz-cli-');
  const workspace = new FuzzWorkspace(loadCorpus());
  after(() => {
    workspace.remove();
    scratch.remove();
  });

  it(
    'mutated rollouts in batches: exit 0 or 1, a report that parses, and the in-process verdict for each',
    { timeout: 20 * 60 * 1000 },
    (t) => {
      const settings = fuzzSettings(0);
      const count = Number(process.env.ROLLOUT_EVIDENCE_FUZZ_CLI_INPUTS ?? 200);
      // Rollouts checked with the same options go in one batch, as one CLI run checks them all alike.
      const batches = new Map<string, { args: string[]; inputs: CliInput[] }>();
      for (let index = firstIndex; index < firstIndex + count; index++) {
        const { bundle, target, mutation } = drawInput(workspace, inputRandom(settings.seed, index), settings.operator);
        const outcome = workspace.check(bundle, target, mutation.bytes);
        const { rules, maxProblems } = bundle.corpus;
        const args = [
          `--max-problems`,
          String(maxProblems),
          ...(rules.allowOracleWithoutLlm ? ['--allow-oracle-without-llm'] : []),
          ...(rules.allowNativeSubscriptionWithoutLlm ? ['--allow-native-subscription-without-llm'] : []),
        ];
        const key = args.join(' ');
        const batch = batches.get(key) ?? batches.set(key, { args, inputs: [] }).get(key)!;
        const root = join(batchFolder(scratch.path, key, batch.inputs.length), String(index));
        writeTree(root, Object.fromEntries(bundle.corpus.files));
        writeFileSync(join(root, target.name), mutation.bytes);
        // A fixture judged as one in-process is made one out here by the scaffold's marker.
        if (bundle.corpus.rules.fixtureBundle) writeFileSync(join(root, fixtureMarkerFile), '{}\n');
        batch.inputs.push({
          index,
          fixture: bundle.corpus.name,
          file: target.name,
          mutation: `${mutation.operator}: ${mutation.description}`,
          expected: outcome.ok ? outcome.verdict : 'crash',
        });
      }

      const failures: string[] = [];
      let runs = 0;
      for (const [key, batch] of batches) {
        for (let start = 0; start < batch.inputs.length; start += batchSize) {
          const inputs = batch.inputs.slice(start, start + batchSize);
          const folder = batchFolder(scratch.path, key, start);
          const describeInput = (input: CliInput) =>
            `input ${input.index} (bundle ${input.fixture}, ${input.file}, ${input.mutation})`;
          for (const format of ['json', 'sarif'] as const) {
            runs++;
            const result = spawnSync(process.execPath, [builtCli, 'check', '.', '--format', format, ...batch.args], {
              cwd: folder,
              encoding: 'utf8',
              timeout: 300_000,
              maxBuffer: 1 << 30,
            });
            const batchName = `${format} batch of ${inputs.map((input) => input.index).join(', ')}`;
            if (result.error) {
              failures.push(`${batchName}: ${result.error.message}`);
              continue;
            }
            if (result.status !== 0 && result.status !== 1) {
              failures.push(
                `${batchName}: exit ${result.status ?? result.signal}: ${result.stderr.trim().slice(0, 500)}\n  inputs: ${inputs.map(describeInput).join('\n  ')}`,
              );
              continue;
            }
            let report: unknown;
            try {
              report = JSON.parse(result.stdout);
            } catch (error) {
              failures.push(`${batchName}: the report does not parse: ${String(error)}`);
              continue;
            }
            if (format === 'sarif') {
              const runsOf = (report as { runs?: unknown }).runs;
              if (!Array.isArray(runsOf) || runsOf.length === 0) failures.push(`${batchName}: SARIF without runs`);
              continue;
            }
            const verdicts = new Map(
              (report as JsonReportShape).rollouts
                .filter((rollout) => rollout.verdict !== null)
                .map((rollout) => [rollout.root, rollout.verdict]),
            );
            for (const input of inputs) {
              const verdict = verdicts.get(String(input.index));
              if (verdict === undefined) failures.push(`${describeInput(input)}: missing from the CLI's report`);
              else if (input.expected !== 'crash' && verdict !== input.expected)
                failures.push(`${describeInput(input)}: the CLI says ${verdict}, in-process ${input.expected}`);
            }
          }
        }
      }
      const summary = `fuzz (CLI): seed ${settings.seed}, ${count} inputs (ROLLOUT_EVIDENCE_FUZZ_CLI_INPUTS) from index ${firstIndex}, ${runs} CLI runs, ${failures.length} failure(s)`;
      t.diagnostic(summary);
      console.log(summary);
      assert.deepEqual(failures, [], failures.join('\n'));
    },
  );
});
