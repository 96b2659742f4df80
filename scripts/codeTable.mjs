#!/usr/bin/env node
// Writes README's code table, rendered from the codes' contracts (server/src/codeTable.ts), between its
// <!-- codes:start --> and <!-- codes:end --> lines. The renderer is bundled here, in memory, from the
// sources, so the table follows them without a build first.
//   node scripts/codeTable.mjs    (npm run codes)
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as esbuild from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
const readmePath = join(root, 'README.md');

const bundled = await esbuild.build({
  absWorkingDir: root,
  entryPoints: ['server/src/codeTable.ts'],
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  write: false,
  logLevel: 'warning',
});
const { withCurrentCodeTable } = await import(
  `data:text/javascript;base64,${Buffer.from(bundled.outputFiles[0].contents).toString('base64')}`
);

const readme = await readFile(readmePath, 'utf8');
const current = withCurrentCodeTable(readme);
if (current === readme) {
  console.log('README.md: the code table is current.');
} else {
  await writeFile(readmePath, current);
  console.log("README.md: the code table is rewritten from the codes' contracts.");
}
