/**
 * Stands in for a desktop VS Code binary: @vscode/test-electron's runTests() spawns it with the usual
 * command line, and it runs the extension tests in the real VS Code server and its web workbench in
 * headless Chromium, then exits with the tests' result (0 passed, 1 failed or timed out, 2 could not
 * run). Configured by the launcher through ROLLOUT_EVIDENCE_VSCODE_* environment variables.
 */
import { resolve } from 'node:path';
import { errorDetail } from '../../shared/src/errors';
import { openWorkbench, type Workbench } from './workbench';

const startedAt = Date.now();
const say = (text: string) => process.stdout.write(`[shim] ${((Date.now() - startedAt) / 1000).toFixed(1)}s ${text}\n`);

interface ShimArguments {
  readonly extensionDevelopmentPaths: string[];
  readonly extensionTestsPath?: string;
  readonly extensionsDir?: string;
  readonly userDataDir?: string;
  readonly folder?: string;
}

function parseArguments(argv: readonly string[]): ShimArguments {
  const extensionDevelopmentPaths: string[] = [];
  let extensionTestsPath: string | undefined;
  let extensionsDir: string | undefined;
  let userDataDir: string | undefined;
  let folder: string | undefined;
  for (const argument of argv) {
    const [name, value] = argument.startsWith('--')
      ? [argument.slice(0, argument.indexOf('=')), argument.slice(argument.indexOf('=') + 1)]
      : ['', argument];
    if (name === '--extensionDevelopmentPath') extensionDevelopmentPaths.push(resolve(value));
    else if (name === '--extensionTestsPath') extensionTestsPath = resolve(value);
    else if (name === '--extensions-dir') extensionsDir = resolve(value);
    else if (name === '--user-data-dir') userDataDir = resolve(value);
    else if (name === '' && folder === undefined) folder = resolve(value);
    // Desktop-only flags (--no-sandbox, --disable-updates, …) mean nothing to the server.
  }
  return { extensionDevelopmentPaths, extensionTestsPath, extensionsDir, userDataDir, folder };
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the real-editor tests through out/test/vscode/run.js`);
  return value;
}

async function main(): Promise<number> {
  const args = parseArguments(process.argv.slice(2));
  const timeoutMs = Number(process.env['ROLLOUT_EVIDENCE_VSCODE_TIMEOUT_MS'] ?? 5 * 60 * 1000);
  let workbench: Workbench | undefined;
  try {
    workbench = await openWorkbench({
      tools: {
        serverDir: required('ROLLOUT_EVIDENCE_VSCODE_SERVER_DIR'),
        node: required('ROLLOUT_EVIDENCE_VSCODE_NODE'),
        chromium: required('ROLLOUT_EVIDENCE_VSCODE_CHROMIUM'),
      },
      ...args,
      log: say,
    });
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((done) => (timer = setTimeout(() => done('timeout'), timeoutMs)));
    const outcome = await Promise.race([workbench.testsFinished, timedOut]);
    clearTimeout(timer);
    if (outcome === 'timeout') {
      say(`the extension tests did not finish within ${timeoutMs / 1000} s: stopping everything`);
      return 1;
    }
    say(`extension tests finished: ${outcome}`);
    return outcome === 0 ? 0 : 1;
  } catch (error) {
    say(`FAILED: ${errorDetail(error)}`);
    return 2;
  } finally {
    await workbench?.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    say(`FAILED: ${errorDetail(error)}`);
    process.exit(2);
  },
);
