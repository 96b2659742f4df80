/** Paths of the repository, found from the built test file wherever it sits under out/test. */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

function findRepoRoot(start: string): string {
  for (let folder = start; ; folder = dirname(folder)) {
    const manifest = join(folder, 'package.json');
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'rollout-evidence'
    )
      return folder;
    if (dirname(folder) === folder) throw new Error(`no rollout-evidence package.json above ${start}`);
  }
}

export const repoRoot = findRepoRoot(__dirname);
export const examplesDir = join(repoRoot, 'examples');
export const healthyRollout = join(examplesDir, 'jobs/2026-08-22__10-00-00/hello-world__1a2b3c4d');
export const faultyRollout = join(examplesDir, 'jobs/2026-08-22__10-00-00/regex-log__bab1cbf6');
export const builtServer = join(repoRoot, 'dist/server.js');
export const builtCli = join(repoRoot, 'dist/cli.js');

/** A fresh temporary folder, removed when the returned function is called. */
export function temporaryFolder(prefix = 'rollout-evidence-test-'): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
