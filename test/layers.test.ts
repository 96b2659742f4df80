/**
 * The linter that keeps the architecture (biome.json, its layers written by scripts/layers.mjs, run by
 * `npm test` over the whole tree): these tests
 * run the project's own Biome, with the project's own configuration, on small trees that break one rule
 * each, so a rule that stops catching what it names fails here rather than passing silently.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { repoRoot, temporaryFolder } from './support/repo';

const biome = join(repoRoot, 'node_modules/.bin/biome');
const folder = temporaryFolder('rollout-evidence-layers-');
after(() => folder.remove());

interface BiomeReport {
  readonly diagnostics: readonly { readonly category: string; readonly location: { readonly path: string } }[];
}

let trees = 0;
/** Lints `files` (path → text) as the project's tree would be: "category path" of each diagnostic. */
function lint(files: Readonly<Record<string, string>>): string[] {
  const root = join(folder.path, `tree-${trees++}`);
  const config = JSON.parse(readFileSync(join(repoRoot, 'biome.json'), 'utf8')) as Record<string, unknown>;
  delete config['$schema'];
  // Biome reads .gitignore through git: the tree is a repository of its own, with nothing ignored.
  mkdirSync(root, { recursive: true });
  spawnSync('git', ['init', '-q'], { cwd: root });
  writeFileSync(join(root, 'biome.json'), JSON.stringify(config));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const run = spawnSync(biome, ['lint', '--reporter=json'], { cwd: root, encoding: 'utf8' });
  const report = JSON.parse(run.stdout) as BiomeReport;
  return report.diagnostics.map((diagnostic) => `${diagnostic.category} ${diagnostic.location.path}`).sort();
}

describe('the architecture, as the linter enforces it', () => {
  it('biome.json holds the layers as scripts/layers.mjs writes them from its one table', () => {
    const run = spawnSync(process.execPath, [join(repoRoot, 'scripts/layers.mjs'), '--check'], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
  });

  it('the engine imports no vscode or LSP module, and nothing of the layers above it', () => {
    assert.deepEqual(
      lint({
        'server/src/engine/a.ts': "import { window } from 'vscode';\nexport const a = window;\n",
        'server/src/engine/b.ts':
          "import { createConnection } from 'vscode-languageserver/node';\nexport const b = createConnection;\n",
        'server/src/engine/rules/c.ts': "import { main } from '../../cli/main';\nexport const c = main;\n",
        'server/src/engine/d.ts':
          "import { rolloutsRequest } from '../../../shared/src/protocol';\nexport const d = rolloutsRequest;\n",
      }),
      [
        'lint/style/noRestrictedImports server/src/engine/a.ts',
        'lint/style/noRestrictedImports server/src/engine/b.ts',
        'lint/style/noRestrictedImports server/src/engine/d.ts',
        'lint/style/noRestrictedImports server/src/engine/rules/c.ts',
      ],
    );
  });

  it("the engine's own layers only import downward: reading, records, the per-file check, load, model, rules, views, the entry point", () => {
    assert.deepEqual(
      lint({
        'server/src/engine/check/a.ts': "import { b } from '../bundle/b';\nexport const a = b;\n",
        'server/src/engine/bundle/b.ts': "import { m } from '../model/m';\nexport const b = m;\n",
        'server/src/engine/model/m.ts': "import { r } from '../rules/quiescence/r';\nexport const m = r;\n",
        'server/src/engine/rules/quiescence/r.ts':
          "import { checkBundle } from '../../checkRollout';\nexport const r = checkBundle;\n",
        'server/src/engine/text/t.ts': "import { f } from '../facts/f';\nexport const t = f;\n",
        'server/src/engine/facts/f.ts': 'export const f = 1;\n',
        'server/src/engine/checkRollout.ts': 'export const checkBundle = 1;\n',
      }),
      [
        'lint/style/noRestrictedImports server/src/engine/bundle/b.ts',
        'lint/style/noRestrictedImports server/src/engine/check/a.ts',
        'lint/style/noRestrictedImports server/src/engine/model/m.ts',
        'lint/style/noRestrictedImports server/src/engine/rules/quiescence/r.ts',
        'lint/style/noRestrictedImports server/src/engine/text/t.ts',
      ],
    );
    assert.deepEqual(
      lint({
        'server/src/engine/rules/quiescence/r.ts':
          "import { m } from '../../model/m';\nimport { c } from '../context';\nexport const r = [m, c];\n",
        'server/src/engine/rules/context.ts': "import { f } from '../facts/f';\nexport const c = f;\n",
        'server/src/engine/model/m.ts': "import { b } from '../bundle/b';\nexport const m = b;\n",
        'server/src/engine/bundle/b.ts': "import { a } from '../check/a';\nexport const b = a;\n",
        'server/src/engine/check/a.ts': "import { f } from '../facts/f';\nexport const a = f;\n",
        'server/src/engine/facts/f.ts': "import { t } from '../text/t';\nexport const f = t;\n",
        'server/src/engine/text/t.ts': 'export const t = 1;\n',
        'server/src/engine/checkRollout.ts':
          "import { r } from './rules/quiescence/r';\nexport const checkBundle = r;\n",
      }),
      [],
      'near miss: each layer importing the one below',
    );
  });

  it('shared/ imports neither side, and the extension nothing of the server', () => {
    assert.deepEqual(
      lint({
        'shared/src/a.ts': "import { b } from '../../server/src/engine/b';\nexport const a = b;\n",
        'client/src/c.ts': "import { b } from '../../server/src/engine/b';\nexport const c = b;\n",
        'server/src/engine/b.ts': 'export const b = 1;\n',
      }),
      ['lint/style/noRestrictedImports client/src/c.ts', 'lint/style/noRestrictedImports shared/src/a.ts'],
    );
  });

  it('no import cycle, type-only ones included, and no floating promise', () => {
    assert.deepEqual(
      lint({
        'server/src/lsp/a.ts': "import { b } from './b';\nexport const a = (): number => b;\n",
        'server/src/lsp/b.ts': "import type { a } from './a';\nexport const b = 1;\nexport type A = typeof a;\n",
        'server/src/lsp/c.ts': 'async function f(): Promise<void> {}\nexport function g(): void {\n  f();\n}\n',
      }),
      [
        'lint/nursery/noFloatingPromises server/src/lsp/c.ts',
        'lint/suspicious/noImportCycles server/src/lsp/a.ts',
        'lint/suspicious/noImportCycles server/src/lsp/b.ts',
      ],
    );
  });

  it('near miss: what the layers may import passes', () => {
    assert.deepEqual(
      lint({
        'server/src/engine/a.ts':
          "import { readFileSync } from 'node:fs';\nimport { parse } from 'jsonc-parser';\nimport { layout } from '../../../shared/src/layout';\nexport const a = [readFileSync, parse, layout];\n",
        'server/src/lsp/b.ts':
          "import { a } from '../engine/a';\nimport { createConnection } from 'vscode-languageserver/node';\nexport const b = [a, createConnection];\n",
        'client/src/c.ts':
          "import { layout } from '../../shared/src/layout';\nimport { window } from 'vscode';\nexport const c = [layout, window];\nasync function f(): Promise<void> {}\nexport function g(): void {\n  void f();\n}\n",
        'shared/src/layout.ts': 'export const layout = 1;\n',
      }),
      [],
    );
  });
});
