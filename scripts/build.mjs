#!/usr/bin/env node
// One esbuild script for everything that runs: the extension client (vscode external), the language
// server and the CLI (everything bundled), and, with --tests, the test and bench programs.
//   node scripts/build.mjs [--production] [--watch] [--tests]
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative } from 'node:path';
import * as esbuild from 'esbuild';
import { documentationSchemaText } from './documentationSchemas.mjs';

const root = new URL('..', import.meta.url).pathname;
const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const withTests = process.argv.includes('--tests');
// Outputs that are run as programs: the CLI, and the shim runTests() executes as it would a VS Code binary.
const executables = new Set([join(root, 'dist/cli.js'), join(root, 'out/test/vscode/codeShim.js')]);

const common = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  // jsonc-parser's UMD entry loads its parts through a require wrapper esbuild cannot follow.
  mainFields: ['module', 'main'],
  sourcemap: !production,
  sourcesContent: false,
  minify: production,
  logLevel: 'warning',
  // The probe script ships as text, passed to sh -c as an argument.
  loader: { '.sh': 'text' },
  // Others read these outputs while a build runs (the test files load dist/, `npm start` rebuilds it in
  // the middle of a test run): atomicWritePlugin replaces each file whole instead of writing it in place.
  write: false,
  plugins: [precompiledValidatorsPlugin(), atomicWritePlugin(), problemMatcherPlugin()],
};

const contexts = [
  { ...common, entryPoints: { client: 'client/src/extension.ts' }, outdir: 'dist', external: ['vscode'] },
  { ...common, entryPoints: { server: 'server/src/server.ts' }, outdir: 'dist' },
  { ...common, entryPoints: { cli: 'server/src/cli/bin.ts' }, outdir: 'dist', banner: { js: '#!/usr/bin/env node' } },
  // The worker thread of `check --jobs N`, which the CLI starts from beside itself.
  { ...common, entryPoints: { checkWorker: 'server/src/cli/pipeline/checkWorker.ts' }, outdir: 'dist' },
];

if (withTests) {
  const testsDir = join(root, 'test');
  const editorTestsDir = join(testsDir, 'vscode');
  const nodeEntries = await findFiles(
    testsDir,
    (path) => !path.startsWith(editorTestsDir) && (path.endsWith('.test.ts') || path.endsWith('.bench.ts')),
  );
  // Real-editor tests: a launcher and a shim that run on this Node, and suites that run inside the
  // VS Code extension host, which provides `vscode`; mocha and the browser driver stay in node_modules.
  const fixtureWriter = join(testsDir, 'fixtures/write.ts');
  const editorEntries = [
    join(editorTestsDir, 'run.ts'),
    join(editorTestsDir, 'codeShim.ts'),
    ...(await findFiles(editorTestsDir, (path) => /\/(suite|installed)\/[^/]+\.ts$/.test(path))),
  ];
  const outName = (file) => relative(testsDir, file).replace(/\.ts$/, '');
  contexts.push({
    ...common,
    sourcemap: true,
    minify: false,
    entryPoints: Object.fromEntries(
      [...nodeEntries, fixtureWriter, ...editorEntries].map((file) => [outName(file), file]),
    ),
    outdir: 'out/test',
    external: ['vscode', 'mocha', 'playwright-core', '@vscode/test-electron'],
    banner: { js: '#!/usr/bin/env node' },
  });
}

// VS Code's JSON support gets documentation-only copies of the schemas (see documentationSchemas.mjs).
const schemasDir = join(root, 'schemas');
for (const name of (await readdir(schemasDir)).filter((file) => file.endsWith('.schema.json'))) {
  await replaceFile(
    join(root, 'dist/schemas', name),
    documentationSchemaText(await readFile(join(schemasDir, name), 'utf8')),
  );
}

// The code reference the diagnostics and SARIF rules link to (server/src/reference.ts): the .vsix's own
// README is the short user one.
await replaceFile(join(root, 'dist/README.md'), await readFile(join(root, 'README.md')));

const built = await Promise.all(contexts.map((options) => esbuild.context(options)));
if (watch) {
  await Promise.all(built.map((context) => context.watch()));
} else {
  try {
    await Promise.all(built.map((context) => context.rebuild()));
  } catch {
    process.exitCode = 1;
  } finally {
    await Promise.all(built.map((context) => context.dispose()));
  }
}

async function findFiles(folder, accept) {
  const found = [];
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) found.push(...(await findFiles(path, accept)));
    else if (accept(path)) found.push(path);
  }
  return found;
}

// The schemas' validators compiled now rather than at each start: validatorsByKind.ts is bundled as ajv's
// standalone code for the same schemas and options (server/src/engine/schema/compileValidators.ts).
function precompiledValidatorsPlugin() {
  const module = join(root, 'server/src/engine/schema/validatorsByKind.ts');
  let source;
  return {
    name: 'precompiled-validators',
    setup(build) {
      // Made again for each build, so that watch mode follows the schemas.
      build.onStart(() => {
        source = undefined;
      });
      build.onLoad({ filter: /[\\/]validatorsByKind\.ts$/ }, async (args) => {
        if (args.path !== module) return undefined;
        source ??= standaloneValidatorsSource();
        return {
          contents: await source,
          loader: 'js',
          resolveDir: dirname(module),
          watchFiles: (await readdir(schemasDir)).map((name) => join(schemasDir, name)),
        };
      });
    },
  };
}

/** Runs compileValidators.ts's standaloneValidatorsSource(), bundled for the purpose. */
async function standaloneValidatorsSource() {
  const { outputFiles } = await esbuild.build({
    absWorkingDir: root,
    entryPoints: ['server/src/engine/schema/compileValidators.ts'],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    write: false,
    logLevel: 'warning',
  });
  const module = { exports: {} };
  new Function('module', 'exports', 'require', outputFiles[0].text)(
    module,
    module.exports,
    createRequire(import.meta.url),
  );
  return module.exports.standaloneValidatorsSource();
}

// Writes each output under a temporary name in its own folder, then renames it over the target: a
// reader sees the previous file or the new one, never a half-written one.
function atomicWritePlugin() {
  return {
    name: 'atomic-write',
    setup(build) {
      build.onEnd(async (result) => {
        await Promise.all((result.outputFiles ?? []).map((file) => replaceFile(file.path, file.contents)));
      });
    },
  };
}

async function replaceFile(path, contents) {
  // Unique per process and per write: two builds running at once each rename a file of their own.
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`);
  await mkdir(dirname(path), { recursive: true });
  try {
    await writeFile(temporary, contents);
    if (executables.has(path)) await chmod(temporary, 0o755);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

// Prints build start/end and errors as file:line:column, which VS Code's $esbuild-watch matcher reads.
function problemMatcherPlugin() {
  return {
    name: 'problem-matcher',
    setup(build) {
      build.onStart(() => {
        if (watch) console.log('[watch] build started');
      });
      build.onEnd((result) => {
        for (const { text, location } of result.errors) {
          console.error(`✘ [ERROR] ${text}`);
          if (location) console.error(`    ${location.file}:${location.line}:${location.column}:`);
        }
        if (watch) console.log('[watch] build finished');
      });
    },
  };
}
