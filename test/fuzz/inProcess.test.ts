/**
 * The fuzz property, in-process: ROLLOUT_EVIDENCE_FUZZ_INPUTS (100,000 by default) seeded mutations of
 * every fixture bundle and example rollout, over one worker process per core, from the fixed seed, then
 * 50,000 from a seed drawn afresh for each run (printed; ROLLOUT_EVIDENCE_FUZZ_SEED replays one seed alone). It fails on any crash
 * (an exception, or an `internal-error` finding), any input under 1 MB over 2 s of CPU, any RSS over
 * 1 GB, a worker that dies or hangs on an input, and any damaging mutation (damage.ts) that raises the
 * verdict (untrusted < incomplete < trusted-timeout = trusted), but one: untrusted → incomplete when the
 * record that showed the untrust is the one damaged past reading (fuzzInput.ts says why; those are
 * counted as "(its witness unreadable)"). Untrusted → incomplete with the damaged record still
 * readable fails it, told apart as `untrust-lost`. It prints the seed and the counts;
 * a failure prints each class once with a minimal reproducer and the command that replays it.
 *
 * Forked by itself as a worker: with ROLLOUT_EVIDENCE_FUZZ_WORKER set, this file runs inputs instead.
 */
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { relative } from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot, temporaryFolder } from '../support/repo';
import { fuzzRuns } from './inputs';
import { runPool, runWorker, workerEnvironment } from './pool';
import { countsReport, failuresReport } from './report';

if (process.env[workerEnvironment]) {
  runWorker();
} else {
  describe('fuzz property, in-process', () => {
    for (const { settings, seedKind } of fuzzRuns(100_000, 50_000)) {
      it(
        `no seeded mutation crashes the checker, exceeds its CPU or memory bound, or raises a verdict by damaging evidence (${seedKind})`,
        { timeout: 30 * 60 * 1000 },
        async (t) => {
          const indices = settings.only ?? Array.from({ length: settings.inputs }, (_, index) => index);
          const scratch = temporaryFolder('rollout-evidence-fuzz-status-');
          const started = process.hrtime.bigint();
          try {
            const result = await runPool(
              __filename,
              settings,
              indices,
              Math.min(availableParallelism(), indices.length),
              scratch.path,
            );
            const seconds = Number(process.hrtime.bigint() - started) / 1e9;
            const summary = countsReport('fuzz (in-process)', settings, result.counts, result.workers, seconds);
            t.diagnostic(summary);
            console.log(summary);
            assert.equal(result.counts.inputs, indices.length, 'every input ran');
            if (result.failures.length > 0) {
              const report = failuresReport(settings, result.failures, relative(repoRoot, __filename));
              console.log(report);
              assert.fail(report);
            }
          } finally {
            scratch.remove();
          }
        },
      );
    }
  });
}
