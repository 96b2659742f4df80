#!/usr/bin/env node
// Runs every built test file (out/test/**/*.test.js) with node's test runner, prints the spec report,
// and ends with the closing line CI reads: "N passed, N failed".
//   node scripts/test.mjs [substring ...]   only files whose path contains one of the substrings
import { readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';

const root = new URL('..', import.meta.url).pathname;
const filters = process.argv.slice(2);
const files = findTests(join(root, 'out/test')).filter(
  (file) => filters.length === 0 || filters.some((filter) => relative(root, file).includes(filter)),
);
if (files.length === 0) {
  console.error('No built test files found under out/test: run "npm test", which builds them first.');
  process.exit(2);
}

let passed = 0;
let failed = 0;
const stream = run({ files, concurrency: Math.max(1, availableParallelism()), timeout: 10 * 60 * 1000 });
// Suites report too; count only tests, as the runner's own summary does.
stream.on('test:pass', (event) => {
  if (event.details?.type !== 'suite' && !event.skip && !event.todo) passed++;
});
stream.on('test:fail', (event) => {
  if (event.details?.type !== 'suite') failed++;
});
stream.compose(spec).pipe(process.stdout);
stream.on('end', () => {
  // After the spec reporter has flushed its own summary, so this stays the last line.
  setImmediate(() => {
    process.stdout.write(`${passed} passed, ${failed} failed\n`);
    process.exitCode = failed > 0 ? 1 : 0;
  });
});

function findTests(folder) {
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
