/**
 * The CLI's pipeline: the same output whatever the number of worker threads, shards joined by `merge`
 * into what one run writes, a worker that dies turned into its rollout's internal-error, and a run that
 * keeps nothing of a rollout once it is written.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ArtifactClassifier } from '../../server/src/engine/artifacts/classify';
import { checkBundle } from '../../server/src/engine/checkRollout';
import { discoverBundles } from '../../server/src/engine/bundle/discover';
import type { BundleChecker } from '../../server/src/cli/checkRun';
import { formats, type Format } from '../../server/src/cli/formats/formats';
import type { JsonReport } from '../../server/src/cli/formats/json';
import { bundlesOfShard, fnv1a32, parseShard } from '../../server/src/cli/pipeline/shard';
import { streamCheck, type StreamRequest } from '../../server/src/cli/pipeline/streamCheck';
import { WorkerPool } from '../../server/src/cli/pipeline/workerPool';
import type { ProgressLine } from '../../server/src/cli/progress';
import type { RolloutReport } from '../../server/src/cli/report/rolloutReport';
import { summaryMarkdown, summaryText } from '../../server/src/engine/experiment/summary';
import { defaultSettings } from '../../shared/src/settings';
import { writeExperimentTree } from '../support/experimentTree';
import { heapUsedAfterCollection } from '../support/gc';
import { builtCli, repoRoot, temporaryFolder } from '../support/repo';

const fixtureBundles = join(repoRoot, 'test/fixtures/bundles');
const noProgress: ProgressLine = { update() {}, tick() {}, rollouts() {}, clear() {} };

interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The CLI's request for a run over `root` with default options, for streamCheck in this process. */
function streamRequest(root: string, jobs: number): StreamRequest {
  return {
    paths: [root],
    maxProblems: defaultSettings.maxNumberOfProblems,
    artifactMap: {},
    rules: { allowOracleWithoutLlm: false, allowNativeSubscriptionWithoutLlm: false },
    fixtureFolders: [],
    failOn: 'incomplete',
    cwd: folder.path,
    shard: undefined,
    jobs,
    quiet: false,
  };
}

/** The built CLI; its output may be many megabytes. */
function run(args: readonly string[], cwd: string): Run {
  const result = spawnSync(process.execPath, [builtCli, ...args], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 512 * 1024 * 1024,
    timeout: 600_000,
  });
  assert.equal(result.error, undefined, String(result.error));
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The trees the equalities are shown on: the fixture bundles (every code), a generated experiment, and the examples. */
const folder = temporaryFolder('rollout-evidence-pipeline-');
const trees: { name: string; cwd: string; args: string[] }[] = [
  { name: 'test/fixtures/bundles', cwd: fixtureBundles, args: ['.', '--fixture-folders', ''] },
  { name: 'a generated tree of 240 rollouts', cwd: folder.path, args: ['experiment'] },
  // A job-level results.jsonl: loose files, sharded like rollouts.
  { name: 'examples', cwd: repoRoot, args: ['examples'] },
];
before(() => writeExperimentTree(join(folder.path, 'experiment'), { rollouts: 240, jobs: 3 }));
after(() => folder.remove());

describe('check --jobs', () => {
  for (const tree of trees) {
    for (const format of ['json', 'text', 'sarif', 'summary'] as const) {
      it(`writes the same ${format} with 1 and 4 jobs, on ${tree.name}`, () => {
        const one = run(['check', ...tree.args, '--format', format, '--jobs', '1'], tree.cwd);
        const four = run(['check', ...tree.args, '--format', format, '--jobs', '4'], tree.cwd);
        assert.equal(one.stderr, '');
        assert.ok(one.stdout.length > 0);
        assert.equal(four.stdout, one.stdout);
        assert.equal(four.stderr, one.stderr);
        assert.equal(four.status, one.status);
      });
    }
  }

  it('stops the worker threads it started during discovery when a later path turns out not to exist', () => {
    const started = performance.now();
    const result = spawnSync(
      process.execPath,
      [builtCli, 'check', 'experiment', 'no-such-folder', '--jobs', '2', '--format', 'json'],
      { cwd: folder.path, encoding: 'utf8', timeout: 60_000 },
    );
    assert.equal(result.error, undefined, `the CLI did not exit after ${performance.now() - started} ms`);
    assert.equal(result.status, 2);
    assert.equal(JSON.parse(result.stdout).error.kind, 'usage');
    assert.match(result.stdout, /cannot check no-such-folder/);
  });

  it('summarises the experiment on worker threads: summary.experiment in JSON, the end of the text, --format summary', () => {
    const tree = trees[1]!;
    const output = (format: string) => run(['check', ...tree.args, '--format', format, '--jobs', '4'], tree.cwd).stdout;
    const json = JSON.parse(output('json')) as JsonReport;
    const { experiment } = json.summary;
    assert.equal(experiment.rollouts, json.rollouts.filter((rollout) => !rollout.loose).length);
    assert.ok(experiment.rollouts > 1);
    assert.deepEqual(experiment.verdicts, json.summary.verdicts);
    assert.ok(experiment.byAgent.length >= 3, 'the generated tree has several agents');
    assert.equal(output('summary'), summaryMarkdown(experiment));
    // The plain-text summary, then the totals line, last.
    const text = output('text').trimEnd().split('\n');
    const summary = summaryText(experiment).trimEnd().split('\n');
    assert.deepEqual(text.slice(-summary.length - 1, -1), summary);
    assert.match(text.at(-1)!, /rollout/);
  });

  for (const bad of ['0', '-1', '1.5', 'many', '']) {
    it(`refuses --jobs "${bad}" as a usage error`, () => {
      const { status, stdout, stderr } = run(['check', '.', `--jobs=${bad}`], fixtureBundles);
      assert.equal(status, 2);
      assert.equal(stdout, '');
      assert.match(stderr, /--jobs must be a whole number of at least 1/);
    });
  }
});

describe('check --shard and merge', () => {
  for (const tree of trees) {
    const whole = new Map<string, Run>();
    for (const count of [1, 2, 3, 4]) {
      it(`joins ${count} shard${count === 1 ? '' : 's'} of ${tree.name} into what one run writes, as json, text, sarif and summary`, () => {
        const documents: string[] = [];
        const sizes: number[] = [];
        for (let index = 1; index <= count; index++) {
          const shard = run(['check', ...tree.args, '--format', 'json', '--shard', `${index}/${count}`], tree.cwd);
          assert.equal(shard.stderr, '');
          const report = JSON.parse(shard.stdout) as JsonReport;
          assert.deepEqual(report.check.shard, { index, count });
          sizes.push(report.rollouts.length);
          const path = join(folder.path, `${tree.name.replace(/\W+/g, '-')}-${index}-of-${count}.json`);
          writeFileSync(path, shard.stdout);
          documents.push(path);
        }
        for (const format of ['json', 'text', 'sarif', 'summary']) {
          const single = whole.get(format) ?? run(['check', ...tree.args, '--format', format], tree.cwd);
          whole.set(format, single);
          // In reverse order: the merge sorts as discovery does, whatever order it is given.
          const merged = run(['merge', ...documents.reverse(), '--format', format], tree.cwd);
          assert.equal(merged.stderr, single.stderr);
          assert.equal(merged.stdout, single.stdout, `${format}, ${count} shards`);
          assert.equal(merged.status, single.status);
        }
        const singleJson = JSON.parse(whole.get('json')!.stdout) as JsonReport;
        assert.equal(
          sizes.reduce((a, b) => a + b),
          singleJson.rollouts.length,
          'every bundle is in exactly one shard',
        );
        if (count > 1 && singleJson.rollouts.length >= 2 * count)
          assert.ok(sizes.filter((size) => size > 0).length > 1, `the tree is split for real: ${sizes.join(', ')}`);
      });
    }
  }

  it('gives each shard a share, and the same bundles on every run (a stable hash of the relative path)', () => {
    const discovery = discoverBundles([join(folder.path, 'experiment')], new ArtifactClassifier());
    const shards = [1, 2, 3, 4].map(
      (index) => bundlesOfShard(discovery.bundles, [join(folder.path, 'experiment')], { index, count: 4 }).length,
    );
    assert.equal(
      shards.reduce((a, b) => a + b),
      discovery.bundles.length,
    );
    for (const size of shards) assert.ok(size > discovery.bundles.length / 8, `a shard of ${size}`);
    // FNV-1a 32's published test vectors: the hash is the documented one, not one of this run.
    assert.equal(fnv1a32(''), 0x811c9dc5);
    assert.equal(fnv1a32('a'), 0xe40c292c);
    assert.equal(fnv1a32('foobar'), 0xbf9cf968);
  });

  for (const bad of ['0/4', '5/4', '1/0', '1', 'a/b', '1/2/3', '-1/2']) {
    it(`refuses --shard "${bad}" as a usage error`, () => {
      assert.throws(() => parseShard(bad), /--shard takes i\/n/);
      const { status, stderr } = run(['check', '.', `--shard=${bad}`], fixtureBundles);
      assert.equal(status, 2);
      assert.match(stderr, /--shard takes i\/n/);
    });
  }

  it('refuses documents it cannot join: not JSON, another version, overlapping, missing or made with other options', () => {
    const write = (name: string, text: string) => {
      const path = join(folder.path, name);
      writeFileSync(path, text);
      return path;
    };
    const shard = (index: number, count: number, extra: string[] = []) =>
      write(
        `bad-${index}-${count}-${extra.length}.json`,
        run(
          ['check', '.', '--fixture-folders', '', '--format', 'json', '--shard', `${index}/${count}`, ...extra],
          fixtureBundles,
        ).stdout,
      );
    const one = shard(1, 2);
    const two = shard(2, 2);
    const other = shard(2, 2, ['--max-problems', '5']);
    const versionTwo = write(
      'version-2.json',
      JSON.stringify({ ...JSON.parse(run(['check', '.', '--format', 'json'], fixtureBundles).stdout), version: 2 }),
    );
    const cases: [string[], RegExp][] = [
      [[write('not-json.json', 'verdict trusted .'), two], /not JSON/],
      [[versionTwo], /not a version 1 report/],
      [[one, one], /both shard 1\/2/],
      [[one], /shard 2\/2 missing/],
      [[one, other], /other options/],
      [[one, shard(1, 3)], /is of 2|but .* is of/],
      [[join(folder.path, 'absent.json')], /cannot read/],
    ];
    for (const [documents, message] of cases) {
      const merged = run(['merge', ...documents, '--format', 'json'], fixtureBundles);
      assert.equal(merged.status, 2, merged.stderr);
      assert.match(merged.stderr, message);
      assert.equal(merged.stdout, '');
    }
    // The same rollout in two documents (two whole runs disguised as shards).
    const whole = JSON.parse(
      run(['check', '.', '--fixture-folders', '', '--format', 'json'], fixtureBundles).stdout,
    ) as JsonReport;
    const asShard = (index: number) =>
      write(
        `overlap-${index}.json`,
        JSON.stringify({ ...whole, check: { ...whole.check, shard: { index, count: 2 } } }),
      );
    const overlapping = run(['merge', asShard(1), asShard(2)], fixtureBundles);
    assert.equal(overlapping.status, 2);
    assert.match(overlapping.stderr, /the shards overlap/);
  });
});

describe('worker threads', () => {
  it("turn a worker that dies on a rollout into that rollout's internal-error, and go on with the others", async () => {
    // A worker that answers with a minimal report, throws on one bundle and exits on another.
    const script = join(folder.path, 'dyingWorker.js');
    writeFileSync(
      script,
      `const { parentPort } = require('node:worker_threads');
parentPort.on('message', ({ id, bundle }) => {
  if (bundle.root.endsWith('throws')) throw new Error('the worker broke');
  if (bundle.root.endsWith('exits')) process.exit(7);
  parentPort.postMessage({ id, report: { root: bundle.root, diagnostics: [] } });
});`,
    );
    const pool = new WorkerPool(2, script, {
      check: {
        maxProblems: 10,
        rules: { allowOracleWithoutLlm: false, allowNativeSubscriptionWithoutLlm: false },
        fixtureFolders: [],
      },
      report: { cwd: folder.path, fingerprints: true },
    });
    try {
      const roots = ['a', 'throws', 'b', 'exits', 'c'].map((name) => join(folder.path, 'pool', name));
      const reports = await Promise.all(roots.map((root) => pool.check({ root, loose: false, files: [] })));
      assert.deepEqual(
        reports.map((report) => report.diagnostics.map((diagnostic) => diagnostic.code)),
        [[], ['internal-error'], [], ['internal-error'], []],
      );
      assert.match(reports[1]!.diagnostics[0]!.message, /Error: the worker broke/);
      assert.match(reports[3]!.diagnostics[0]!.message, /exited with code 7/);
      assert.deepEqual([reports[1]!.verdict, reports[3]!.verdict], ['incomplete', 'incomplete']);
    } finally {
      await pool.close();
    }
  });
});

describe('the main thread while the workers load', () => {
  // Bounded: a run that waited on these workers would never end.
  it(
    'checks the rollouts itself until a worker says it has loaded, with the output of --jobs 1',
    { timeout: 60_000 },
    async () => {
      const root = join(folder.path, 'loading');
      writeExperimentTree(root, { rollouts: 12 });
      // Workers that never finish loading: every rollout must be checked on the main thread.
      const neverReady = join(folder.path, 'neverReadyWorker.js');
      writeFileSync(neverReady, `setInterval(() => {}, 1000);`);
      const runWith = async (jobs: number): Promise<string> => {
        let text = '';
        await streamCheck(
          streamRequest(root, jobs),
          (onBundleFound) => discoverBundles([root], new ArtifactClassifier(), Infinity, onBundleFound),
          { fingerprints: true, writer: formats.json.writer },
          { write: (chunk) => ((text += chunk), true), drained: () => Promise.resolve() },
          { progress: noProgress, onIoError() {}, workerScript: neverReady },
        );
        return text;
      };
      const one = await runWith(1);
      assert.match(one, /"rollouts": \[/);
      assert.equal(await runWith(2), one);
    },
  );
});

describe('the streamed run', () => {
  it('keeps nothing of a rollout once its output is written', async () => {
    const root = join(folder.path, 'memory');
    writeExperimentTree(root, { rollouts: 24 });
    const discovery = discoverBundles([root], new ArtifactClassifier());
    // Every checked bundle and every report, weakly: a run that kept them (a list of results, a
    // cache keyed by rollout) keeps them reachable.
    const checked: WeakRef<object>[] = [];
    const reports: WeakRef<RolloutReport>[] = [];
    const stillHeld: number[] = [];
    const check: BundleChecker = (bundle, checker, options) => {
      // Before checking bundle k: every bundle before k - 1 written and let go.
      heapUsedAfterCollection();
      stillHeld.push(
        checked.slice(0, -1).filter((ref) => ref.deref() !== undefined).length +
          reports.slice(0, -1).filter((ref) => ref.deref() !== undefined).length,
      );
      const result = checkBundle(bundle, checker, options);
      checked.push(new WeakRef(result));
      return result;
    };
    const json: Format = formats.json;
    let written = 0;
    await streamCheck(
      streamRequest(root, 1),
      () => discovery,
      {
        fingerprints: true,
        writer: (context, write, spool) => {
          const inner = json.writer(context, write, spool);
          return {
            rollout(report) {
              reports.push(new WeakRef(report));
              inner.rollout(report);
            },
            end: (end) => inner.end(end),
          };
        },
      },
      // A reader that is always behind: the run waits for it after every rollout, a turn of the event
      // loop in which objects only weakly held may go (a WeakRef keeps its target for the current turn).
      {
        write: (text) => ((written += text.length), false),
        drained: () => new Promise((resolve) => setImmediate(resolve)),
      },
      { progress: noProgress, onIoError() {}, check },
    );
    assert.equal(checked.length, discovery.bundles.length);
    assert.ok(written > 0);
    assert.deepEqual(
      stillHeld,
      stillHeld.map(() => 0),
      'no earlier rollout is still reachable while the next is checked',
    );
  });
});
