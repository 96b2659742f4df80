/**
 * A trajectory of 1 TB (a sparse file: free to make, hours to read) in one rollout, beside a normal one,
 * checked by the built CLI in its own process: the run ends, its peak memory stays far below the file,
 * the huge file's rollout is incomplete with artifact-too-large, and the other rollout is reported
 * exactly as when it is checked alone. Before, the CLI read until it was killed and printed nothing.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { JsonReport } from '../../server/src/cli/formats/json';
import type { JsonBundle } from '../../server/src/cli/report/reportTypes';
import { builtCli, healthyRollout, repoRoot, temporaryFolder } from '../support/repo';

const folder = temporaryFolder();
after(() => folder.remove());

const job = join(folder.path, 'jobs/2026-08-22__10-00-00');
const hugeRoot = join(job, 'huge__00000001');
const normalRoot = join(job, 'normal__00000002');
mkdirSync(job, { recursive: true });
cpSync(healthyRollout, hugeRoot, { recursive: true });
cpSync(healthyRollout, normalRoot, { recursive: true });
// Its records stay where they are; the file goes on with NUL bytes and no newline to 1 TB.
const hugeTrajectory = join(hugeRoot, 'trajectory/acp_trajectory.jsonl');
const recordLines = readFileSync(hugeTrajectory, 'utf8').split('\n').length - 1;
truncateSync(hugeTrajectory, 1024 ** 4);

/**
 * Loaded into the CLI's process before it starts (`--require`): writes the process's peak resident set
 * size, worker threads included, when it exits, which is what a user's machine pays.
 */
const peakReporter = join(folder.path, 'peakReporter.cjs');
const peakFile = join(folder.path, 'peak-kib.txt');
writeFileSync(
  peakReporter,
  `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(peakFile)}, String(process.resourceUsage().maxRSS)));\n`,
);

/** Generous guards, against a hang or a runaway that would take the machine's memory: not assertions of speed. */
const hangGuardMs = 120_000;
const runawayKiB = 2 * 1024 * 1024;

interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Why the guard stopped the run, if it did. */
  readonly stopped?: string;
}

function checkJson(paths: readonly string[], nodeArguments: readonly string[] = []): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArguments, builtCli, 'check', ...paths, '--format', 'json'], {
      cwd: repoRoot,
    });
    let stdout = '';
    let stderr = '';
    let stopped: string | undefined;
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    const stop = (why: string) => {
      stopped ??= why;
      child.kill('SIGKILL');
    };
    const hang = setTimeout(() => stop(`still running after ${hangGuardMs} ms`), hangGuardMs);
    const watch = setInterval(() => {
      const resident = residentKiB(child.pid);
      if (resident !== undefined && resident > runawayKiB) stop(`${resident} KiB resident`);
    }, 200);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(hang);
      clearInterval(watch);
      resolve({ status, stdout, stderr, ...(stopped ? { stopped } : {}) });
    });
  });
}

/** VmRSS of a running process, where /proc says it. */
function residentKiB(pid: number | undefined): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** A rollout's entry as a user reads it, without the path it was found by. */
function reported(bundle: JsonBundle | undefined) {
  assert.ok(bundle, 'the rollout is reported');
  const { root: _root, ...rest } = bundle;
  return rest;
}

describe('a 1 TB artifact beside a normal rollout', () => {
  it('ends with bounded memory, the huge rollout incomplete with artifact-too-large, the other in full', async () => {
    const alone = await checkJson([normalRoot]);
    const both = await checkJson([job], ['--require', peakReporter]);
    assert.equal(both.stopped, undefined, `the guard stopped the CLI: ${both.stopped}`);
    assert.equal(both.stderr, '');
    assert.equal(both.status, 1, 'an incomplete rollout fails the run; it is not an I/O failure (2)');

    // Memory: the CLI's own baseline and its worker, a chunk, and at most one 64 MiB line held, never the file.
    assert.ok(existsSync(peakFile), 'the CLI reported its peak');
    const peakKiB = Number(readFileSync(peakFile, 'utf8'));
    assert.ok(peakKiB < 512 * 1024, `peak RSS ${peakKiB} KiB`);

    const report = JSON.parse(both.stdout) as JsonReport;
    const huge = report.rollouts.find((bundle) => bundle.root.endsWith('huge__00000001'));
    assert.equal(huge?.verdict, 'incomplete');
    assert.deepEqual(
      huge.diagnostics
        .filter((diagnostic) => diagnostic.file === 'trajectory/acp_trajectory.jsonl')
        .map((diagnostic) => [diagnostic.code, diagnostic.line]),
      [['artifact-too-large', recordLines + 1]],
    );
    assert.ok(huge.causes.includes('artifact-too-large'), `causes: ${huge.causes.join(', ')}`);

    const normal = report.rollouts.find((bundle) => bundle.root.endsWith('normal__00000002'));
    const normalAlone = (JSON.parse(alone.stdout) as JsonReport).rollouts[0];
    assert.deepEqual(reported(normal), reported(normalAlone));
  });
});
