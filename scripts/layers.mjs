#!/usr/bin/env node
// The layers of the code, as Biome enforces them: writes the `overrides` of biome.json (restricted imports
// per layer) from the one table below, so that the order lives in one place and biome.json, which cannot
// share a pattern list between overrides, repeats it faithfully. docs/architecture.md draws the same order.
//   node scripts/layers.mjs           (npm run layers) writes biome.json
//   node scripts/layers.mjs --check   exits 1 when biome.json is not what the table gives (test/layers.test.ts)
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as prettier from 'prettier';

const root = new URL('..', import.meta.url).pathname;
const configPath = join(root, 'biome.json');

/** The engine's layers, lowest first: each imports only its own and lower ones (folders, and top-level files). */
const engineLayers = [
  { name: 'reading', folders: ['text', 'parse', 'io'], files: [] },
  { name: 'records', folders: ['schema', 'facts', 'shell', 'artifacts'], files: [] },
  { name: 'per-file check', folders: ['check'], files: [] },
  { name: 'load', folders: ['bundle'], files: ['load.ts'] },
  { name: 'model', folders: ['model'], files: [] },
  { name: 'rules', folders: ['rules'], files: ['verdict.ts'] },
  { name: 'views', folders: ['experiment', 'inspect', 'picture'], files: [] },
];
/** Above every layer: the engine's one entry point. */
const entryPoint = 'checkRollout.ts';

const outsideModules = {
  group: ['vscode', 'vscode-*', 'vscode-*/**'],
  message: 'The evidence engine is shared by the server, the CLI and the tests: it imports no vscode or LSP module.',
};
const aboveEngine = {
  group: [
    '**/shared/src/protocol',
    '**/server/src/lsp/**',
    '../lsp/**',
    '../../lsp/**',
    '../cli/**',
    '../../cli/**',
    '../probe/**',
    '../../probe/**',
    '../authoring/**',
    '../../authoring/**',
    '**/client/src/**',
  ],
  message:
    'The evidence engine is the lowest layer of the server: the language server, the CLI, the probe and authoring import it, never the other way round.',
};
const sides = [
  {
    includes: ['shared/src/**'],
    group: ['**/server/src/**', '**/client/src/**'],
    message: 'shared/ holds what the client and the server share (protocol, settings, layout): it imports neither.',
  },
  {
    includes: ['client/src/**'],
    group: ['**/server/src/**'],
    message:
      "The extension is thin: it talks to the server over the protocol in shared/, and imports nothing of the server's.",
  },
];

/** How an import of a folder's module, or of a top-level file, is spelled from anywhere in the engine. */
const importsOf = (folders, files) => [
  ...folders.map((folder) => `**/${folder}/**`),
  ...files.flatMap((file) => ['./', '../', '../../'].map((up) => `${up}${file.replace(/\.ts$/, '')}`)),
];

const restricted = (includes, patterns) => ({
  includes,
  linter: { rules: { style: { noRestrictedImports: { level: 'error', options: { patterns } } } } },
});

function overrides() {
  const engine = [restricted(['server/src/engine/**'], [outsideModules, aboveEngine])];
  engineLayers.forEach((layer, index) => {
    const above = engineLayers.slice(index + 1);
    const group = [...above.flatMap(({ folders, files }) => importsOf(folders, files)), ...importsOf([], [entryPoint])];
    const message = `The engine's layers only import downward: the ${layer.name} layer imports nothing above it (docs/architecture.md).`;
    // Biome replaces, not merges, a rule's options between overrides: each layer repeats the engine's own.
    engine.push(
      restricted(
        [
          ...layer.folders.map((folder) => `server/src/engine/${folder}/**`),
          ...layer.files.map((file) => `server/src/engine/${file}`),
        ],
        [outsideModules, aboveEngine, { group, message }],
      ),
    );
  });
  return [...engine, ...sides.map(({ includes, group, message }) => restricted(includes, [{ group, message }]))];
}

const current = await readFile(configPath, 'utf8');
const config = JSON.parse(current);
config.overrides = overrides();
const options = (await prettier.resolveConfig(configPath)) ?? {};
const wanted = await prettier.format(JSON.stringify(config), { ...options, filepath: configPath });
if (process.argv.includes('--check')) {
  if (wanted !== current) {
    console.error('biome.json is not what scripts/layers.mjs writes: run npm run layers.');
    process.exit(1);
  }
  console.log('biome.json: the layers are current.');
} else if (wanted === current) {
  console.log('biome.json: the layers are current.');
} else {
  await writeFile(configPath, wanted);
  console.log('biome.json: the layers are rewritten from scripts/layers.mjs.');
}
