#!/usr/bin/env node
// Runs every built test: the node suites (out/test/**/*.test.js) with node's test runner and its spec
// report, then the real-editor suites in VS Code (out/test/vscode/run.js). Ends with the closing line
// CI reads, over both: "N passed, N failed".
//   node scripts/test.mjs [substring ...]   only node test files whose path contains a substring
//                                           (the real-editor suites run when "vscode" is among them)
//   ROLLOUT_EVIDENCE_SKIP_EDITOR=1          skip the real-editor suites (they are on by default)
//   ROLLOUT_EVIDENCE_SKIP_CONTAINERS=1      do not start the private container engines: the container
//                                           tests then use the engine settings already in the
//                                           environment, or fail saying they are missing
// When a selected node test file has "container" in its path, or the real-editor suites run, real
// containers are set up first (a private dockerd, a private podman store, images built offline:
// scripts/testContainers.mjs), their settings are passed to the test processes in the environment, and
// all of it is torn down at the end.
// If the setup fails, ROLLOUT_EVIDENCE_CONTAINERS_ERROR carries the reason and those tests fail with it.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import { startContainerEnvironment } from './testContainers.mjs';

const root = new URL('..', import.meta.url).pathname;
const filters = process.argv.slice(2);
const editorTests = join(root, 'out/test/vscode');
const selected = (path) => filters.length === 0 || filters.some((filter) => relative(root, path).includes(filter));
const files = findTests(join(root, 'out/test')).filter(selected);
const withEditor = selected(join(editorTests, 'run.js')) && process.env.ROLLOUT_EVIDENCE_SKIP_EDITOR !== '1';
if (files.length === 0 && !withEditor) {
  console.error('No built test files found under out/test: run "npm test", which builds them first.');
  process.exit(2);
}

// The real-editor suites probe a container too.
const needsContainers = withEditor || files.some((path) => relative(root, path).includes('container'));
const { node, editor } = await withContainers(needsContainers, async () => ({
  node: files.length > 0 ? await runNodeTests(files) : { passed: 0, failed: 0 },
  editor: withEditor ? await runEditorTests() : { passed: 0, failed: 0 },
}));
const passed = node.passed + editor.passed;
const failed = node.failed + editor.failed;
if (withEditor)
  console.log(
    `\nnode suites: ${node.passed} passed, ${node.failed} failed; real-editor suites: ${editor.passed} passed, ${editor.failed} failed`,
  );
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;

/** Runs `action` with the container environment up when a test needs it. */
async function withContainers(needed, action) {
  if (!needed || process.env.ROLLOUT_EVIDENCE_SKIP_CONTAINERS === '1') return action();
  let containers;
  try {
    containers = await startContainerEnvironment();
  } catch (error) {
    // Not a skip: the container tests run and fail with this reason.
    process.env.ROLLOUT_EVIDENCE_CONTAINERS_ERROR = error instanceof Error ? error.message : String(error);
    console.error(`containers: setup failed: ${process.env.ROLLOUT_EVIDENCE_CONTAINERS_ERROR}`);
    return action();
  }
  // The test runner's processes inherit process.env as it is when each one starts.
  Object.assign(process.env, containers.env);
  // Interrupted runs tear down too: the daemon is detached and would outlive this process.
  const onSignal = (signal) => {
    containers.stop().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return await action();
  } finally {
    await containers.stop();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

function runNodeTests(testFiles) {
  return new Promise((resolve) => {
    const counts = { passed: 0, failed: 0 };
    const stream = run({ files: testFiles, concurrency: Math.max(1, availableParallelism()), timeout: 10 * 60 * 1000 });
    // Suites report too; count only tests, as the runner's own summary does.
    stream.on('test:pass', (event) => {
      if (event.details?.type !== 'suite' && !event.skip && !event.todo) counts.passed++;
    });
    stream.on('test:fail', (event) => {
      if (event.details?.type !== 'suite') counts.failed++;
    });
    const report = stream.compose(spec);
    report.pipe(process.stdout, { end: false });
    report.on('end', () => resolve(counts));
  });
}

/** The real-editor launcher prints its own "N passed, N failed" last; anything else counts as a failure. */
function runEditorTests() {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(editorTests, 'run.js')], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let last = '';
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      last = (last + chunk.toString()).slice(-4096);
    });
    child.on('close', (code) => {
      const match = /(\d+) passed, (\d+) failed\s*$/.exec(last);
      if (match && (code === 0) === (match[2] === '0')) resolve({ passed: Number(match[1]), failed: Number(match[2]) });
      else resolve({ passed: match ? Number(match[1]) : 0, failed: Math.max(1, match ? Number(match[2]) : 1) });
    });
  });
}
function findTests(folder) {
  if (folder === editorTests) return [];
  let entries;
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .flatMap((entry) => {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) return findTests(path);
      return entry.name.endsWith('.test.js') ? [path] : [];
    })
    .sort();
}
