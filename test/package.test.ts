/** What the .vsix will hold: exactly what the extension needs at run time, and a page written for its users. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { artifactKinds } from '../shared/src/layout';
import { repoRoot } from './support/repo';

interface Manifest {
  main: string;
  icon: string;
  version: string;
  scripts: { package: string };
  contributes: {
    commands: { command: string; title: string; category: string }[];
    configuration: { properties: Record<string, unknown> };
  };
  [field: string]: unknown;
}

const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as Manifest;
/** The README the package script hands vsce, which stores it in the .vsix as readme.md. */
const readmePath = /--readme-path (\S+)/.exec(manifest.scripts.package)?.[1];

describe('the packaged extension', () => {
  // `vsce ls` applies .vscodeignore like `vsce package`, without rebuilding dist/ under the other tests.
  const listed = execFileSync(
    process.execPath,
    [
      join(repoRoot, 'node_modules/@vscode/vsce/vsce'),
      'ls',
      '--no-dependencies',
      ...(readmePath ? ['--readme-path', readmePath] : []),
    ],
    {
      cwd: repoRoot,
      encoding: 'utf8',
    },
  )
    .trim()
    .split('\n')
    .sort();

  it('contains the bundles, every schema, the icons, the timeline webview, the code reference and the documents, and nothing else', () => {
    const expected = [
      'package.json',
      // The user README (stored as readme.md); the repository's README.md would collide with it on a
      // case-insensitive file system, and travels as the code reference instead.
      'docs/marketplace/README.md',
      'CHANGELOG.md',
      'LICENSE',
      'media/icon.png',
      'media/rollouts.svg',
      'media/timeline.css',
      'media/timeline.js',
      'dist/client.js',
      'dist/server.js',
      // The copy of README.md whose code table the diagnostics' codes link to.
      'dist/README.md',
      // The documentation-only copies VS Code's JSON support reads; the server bundles the real schemas.
      ...artifactKinds.map((info) => `dist/schemas/${info.schemaFile}`),
    ].sort();
    assert.deepEqual(listed, expected);
  });

  it('starts from a packaged entry point that starts a packaged server', () => {
    assert.ok(listed.includes(manifest.main.replace(/^\.\//, '')), manifest.main);
    assert.ok(listed.includes(manifest.icon));
    assert.match(readFileSync(join(repoRoot, 'dist/client.js'), 'utf8'), /"dist\/server\.js"/);
  });

  it('carries the code reference the diagnostics link to: the repository README, anchors and all', () => {
    const reference = readFileSync(join(repoRoot, 'dist/README.md'), 'utf8');
    assert.equal(reference, readFileSync(join(repoRoot, 'README.md'), 'utf8'));
  });
});

describe('the packaged README', () => {
  const readme = readmePath ? readFileSync(join(repoRoot, readmePath), 'utf8') : '';

  it('is the short user README under docs/, not the repository README', () => {
    assert.equal(readmePath, 'docs/marketplace/README.md');
    const size = statSync(join(repoRoot, readmePath)).size;
    assert.ok(size < 15_000, `${readmePath} is ${size} bytes`);
    assert.doesNotMatch(readme, /<a id="/, 'the code table stays in README.md');
  });

  it('names every command and every setting the manifest contributes', () => {
    for (const command of manifest.contributes.commands)
      assert.ok(readme.includes(`${command.category}: ${command.title}`), command.command);
    for (const setting of Object.keys(manifest.contributes.configuration.properties))
      assert.ok(readme.includes(`\`${setting}\``), setting);
  });

  it('shows how the CLI runs in CI: check, SARIF, the exit statuses and a GitHub Actions step', () => {
    assert.match(readme, / check jobs\//);
    assert.match(readme, /--format sarif/);
    for (const status of ['`0`', '`1`', '`2`']) assert.ok(readme.includes(status), status);
    assert.match(readme, /uses: github\/codeql-action\/upload-sarif/);
  });

  it('leaves out the developer material', () => {
    const headings = [...readme.matchAll(/^#+ (.*)$/gm)].map(([, heading]) => heading);
    for (const developerHeading of [
      'Development',
      'Tests in a real VS Code',
      'Tests against real containers',
      'The fuzz property',
    ]) {
      assert.ok(!headings.includes(developerHeading), developerHeading);
    }
  });

  it('links only to absolute https addresses or its own headings, and embeds no image', () => {
    // vsce rejects a relative link or image without a repository to resolve it against, and VS Code's
    // extension page shows only https: and data: images; the screenshots live in the repository's README.
    assert.doesNotMatch(readme, /!\[|<img/i);
    for (const [, target] of readme.matchAll(/\]\(([^)]*)\)/g)) assert.match(target!, /^(https:\/\/|#)/, target);
  });
});

describe('the package documents', () => {
  it('ship a changelog with an entry for this version', () => {
    const changelog = readFileSync(join(repoRoot, 'CHANGELOG.md'), 'utf8');
    assert.match(changelog, new RegExp(`^## \\[${manifest.version.replace(/\./g, '\\.')}\\]`, 'm'));
  });

  it('name no public home: the project has none, and a made-up address would be worse than none', () => {
    for (const field of ['repository', 'bugs', 'homepage']) assert.equal(manifest[field], undefined, field);
  });
});
