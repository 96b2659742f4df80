/** What the .vsix will hold: exactly what the extension needs at run time. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { artifactKinds } from '../shared/src/artifactKinds';
import { repoRoot } from './support/repo';

describe('the packaged extension', () => {
  // `vsce ls` applies .vscodeignore like `vsce package`, without rebuilding dist/ under the other tests.
  const listed = execFileSync(process.execPath, [join(repoRoot, 'node_modules/@vscode/vsce/vsce'), 'ls', '--no-dependencies'], {
    cwd: repoRoot,
    encoding: 'utf8',
  })
    .trim()
    .split('\n')
    .sort();

  it('contains the bundles, every schema, the icons, the timeline webview and the documents, and nothing else', () => {
    const expected = [
      'package.json',
      'README.md',
      'LICENSE',
      'media/icon.png',
      'media/rollouts.svg',
      'media/timeline.css',
      'media/timeline.js',
      'dist/client.js',
      'dist/server.js',
      // The documentation-only copies VS Code's JSON support reads; the server bundles the real schemas.
      ...artifactKinds.map((info) => `dist/schemas/${info.schemaFile}`),
    ].sort();
    assert.deepEqual(listed, expected);
  });

  it('starts from a packaged entry point that starts a packaged server', () => {
    const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { main: string; icon: string };
    assert.ok(listed.includes(manifest.main.replace(/^\.\//, '')), manifest.main);
    assert.ok(listed.includes(manifest.icon));
    assert.match(readFileSync(join(repoRoot, 'dist/client.js'), 'utf8'), /"dist\/server\.js"/);
  });
});
