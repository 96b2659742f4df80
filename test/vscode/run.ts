/**
 * The real-editor tests: the integration suite with the extension from the repository, the smoke check
 * of the extension installed from its packaged .vsix, and one check of the Problems panel through the
 * workbench's own UI. Ends with "N passed, N failed" over all three.
 *
 * Where a desktop VS Code can run (a display, and a network to download it), @vscode/test-electron
 * downloads and drives it as usual. Elsewhere (CI, this kind of machine) runTests() is pointed at our
 * shim, which runs the real VS Code server of code-server in headless Chromium. The choice is printed;
 * ROLLOUT_EVIDENCE_VSCODE=desktop|server overrides it.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { downloadAndUnzipVSCode, resolveCliArgsFromVSCodeExecutablePath, runTests } from '@vscode/test-electron';
import { errorDetail, errorMessage } from '../../shared/src/errors';
import { examplesDir, repoRoot, temporaryFolder } from '../support/repo';
import { ensureVsCodeServerTools, MissingSystemPackage, type VsCodeServerTools } from './environment';
import type { SuiteCounts } from './mochaRunner';
import { checkProblemsPanel } from './uiCheck';

const startedAt = Date.now();
const say = (text: string) => console.log(`[real-editor] ${((Date.now() - startedAt) / 1000).toFixed(1)}s ${text}`);

type Editor = { readonly kind: 'desktop'; readonly executable: string } | { readonly kind: 'server'; readonly tools: VsCodeServerTools };

function chooseEditor(): 'desktop' | 'server' {
  const forced = process.env['ROLLOUT_EVIDENCE_VSCODE'];
  if (forced === 'desktop' || forced === 'server') {
    say(`using ${forced === 'desktop' ? 'a downloaded desktop VS Code' : 'the VS Code server in headless Chromium'}, as ROLLOUT_EVIDENCE_VSCODE says`);
    return forced;
  }
  if (process.platform === 'linux' && !process.env['DISPLAY'] && !process.env['WAYLAND_DISPLAY']) {
    say('no display: using the real VS Code server (code-server) in headless Chromium instead of a downloaded desktop VS Code');
    return 'server';
  }
  say('a display is available: @vscode/test-electron downloads and runs desktop VS Code (ROLLOUT_EVIDENCE_VSCODE=server to use the server instead)');
  return 'desktop';
}

async function prepareEditor(kind: 'desktop' | 'server'): Promise<Editor> {
  if (kind === 'desktop') return { kind, executable: await downloadAndUnzipVSCode('stable') };
  return { kind, tools: ensureVsCodeServerTools(say) };
}

/** The environment runTests() hands to the editor, and through it to the extension host. */
function editorEnvironment(editor: Editor, resultsFile: string, extra: Record<string, string> = {}): Record<string, string> {
  const server: Record<string, string> =
    editor.kind === 'server'
      ? {
          ROLLOUT_EVIDENCE_VSCODE_SERVER_DIR: editor.tools.serverDir,
          ROLLOUT_EVIDENCE_VSCODE_NODE: editor.tools.node,
          ROLLOUT_EVIDENCE_VSCODE_CHROMIUM: editor.tools.chromium,
        }
      : {};
  return { ...server, ROLLOUT_EVIDENCE_TEST_RESULTS: resultsFile, ...extra };
}

interface SuiteRun {
  readonly name: string;
  readonly extensionDevelopmentPath: string;
  readonly extensionTestsPath: string;
  readonly workspace: string;
  readonly extensionsDir: string;
  readonly env?: Record<string, string>;
}

async function runSuite(editor: Editor, suite: SuiteRun, scratch: string): Promise<SuiteCounts> {
  say(`suite: ${suite.name}`);
  const slug = suite.name.replace(/\W+/g, '-');
  const resultsFile = join(scratch, `${slug}.json`);
  try {
    await runTests({
      vscodeExecutablePath: editor.kind === 'desktop' ? editor.executable : join(__dirname, 'codeShim.js'),
      extensionDevelopmentPath: suite.extensionDevelopmentPath,
      extensionTestsPath: suite.extensionTestsPath,
      launchArgs: [suite.workspace, `--extensions-dir=${suite.extensionsDir}`, `--user-data-dir=${join(scratch, `user-data-${slug}`)}`],
      extensionTestsEnv: editorEnvironment(editor, resultsFile, suite.env),
    });
  } catch (error) {
    say(`suite ${suite.name} failed: ${errorMessage(error)}`);
  }
  if (!existsSync(resultsFile)) {
    say(`suite ${suite.name} ended before its tests reported: counted as one failure`);
    return { passed: 0, failed: 1 };
  }
  return JSON.parse(readFileSync(resultsFile, 'utf8')) as SuiteCounts;
}

/** Builds the .vsix the way a user does, and installs it into a fresh extensions folder. */
function installPackagedExtension(editor: Editor, extensionsDir: string): void {
  const packaged = spawnSync('npm', ['run', 'package'], { cwd: repoRoot, stdio: 'inherit' });
  if (packaged.status !== 0) throw new Error('npm run package failed');
  const vsix = join(repoRoot, 'rollout-evidence.vsix');
  const [command, ...args] =
    editor.kind === 'desktop'
      ? resolveCliArgsFromVSCodeExecutablePath(editor.executable)
      : [editor.tools.node, join(editor.tools.serverDir, 'out/server-main.js'), '--accept-server-license-terms'];
  const installed = spawnSync(command!, [...args, '--install-extension', vsix, `--extensions-dir=${extensionsDir}`], { encoding: 'utf8' });
  process.stdout.write(installed.stdout ?? '');
  if (installed.status !== 0 || !/successfully installed/.test(installed.stdout ?? '')) {
    throw new Error(`installing the .vsix failed: ${installed.stderr || installed.stdout}`);
  }
}

/** runTests() needs a development extension; for the installed copy's check, one that does nothing. */
function emptyHostExtension(folder: string): string {
  writeFileSync(
    join(folder, 'package.json'),
    JSON.stringify({ name: 'installed-check-host', publisher: 'rollout-evidence-tests', version: '0.0.0', engines: { vscode: '*' } }),
  );
  return folder;
}

/** The suites edit documents: each gets its own copy of the examples, never the repository's files. */
function copyOfExamples(scratch: string, name: string): string {
  const workspace = join(scratch, name);
  cpSync(examplesDir, workspace, { recursive: true });
  return workspace;
}

function integrationSuite(editor: Editor, scratch: string): Promise<SuiteCounts> {
  return runSuite(
    editor,
    {
      name: 'integration',
      extensionDevelopmentPath: repoRoot,
      extensionTestsPath: join(__dirname, 'suite/index.js'),
      workspace: copyOfExamples(scratch, 'workspace'),
      extensionsDir: join(scratch, 'no-extensions'),
    },
    scratch,
  );
}

async function installedSuite(editor: Editor, scratch: string): Promise<SuiteCounts> {
  const extensionsDir = join(scratch, 'installed-extensions');
  try {
    installPackagedExtension(editor, extensionsDir);
  } catch (error) {
    say(`the packaged extension could not be installed: ${errorMessage(error)}`);
    return { passed: 0, failed: 1 };
  }
  return runSuite(
    editor,
    {
      name: 'installed .vsix',
      extensionDevelopmentPath: emptyHostExtension(mkdtempSync(join(scratch, 'host-'))),
      extensionTestsPath: join(__dirname, 'installed/index.js'),
      workspace: copyOfExamples(scratch, 'workspace-installed'),
      extensionsDir,
      env: { ROLLOUT_EVIDENCE_EXTENSIONS_DIR: extensionsDir },
    },
    scratch,
  );
}

async function problemsPanelCheck(editor: Editor, scratch: string): Promise<SuiteCounts> {
  if (editor.kind !== 'server') {
    say('the Problems panel check drives the web workbench: it runs with the VS Code server only');
    return { passed: 0, failed: 0 };
  }
  const screenshot = join(repoRoot, 'test-output/problems-panel.png');
  try {
    await checkProblemsPanel({
      tools: editor.tools,
      extensionPath: repoRoot,
      workspace: copyOfExamples(scratch, 'workspace-ui'),
      file: 'jobs/2026-08-22__10-00-00/regex-log__bab1cbf6/trajectory/acp_trajectory.jsonl',
      expectedText: 'Trailing comma before',
      screenshot,
      log: say,
    });
    say(`✔ the Problems panel shows the diagnostic (screenshot: ${screenshot})`);
    return { passed: 1, failed: 0 };
  } catch (error) {
    say(`✖ the Problems panel check failed (screenshot: ${screenshot}): ${errorDetail(error)}`);
    return { passed: 0, failed: 1 };
  }
}

async function main(): Promise<number> {
  const scratch = temporaryFolder('rollout-evidence-real-editor-');
  const totals = { passed: 0, failed: 0 };
  try {
    const editor = await prepareEditor(chooseEditor());
    for (const suite of [integrationSuite, installedSuite, problemsPanelCheck]) {
      const counts = await suite(editor, scratch.path);
      totals.passed += counts.passed;
      totals.failed += counts.failed;
    }
  } catch (error) {
    say(error instanceof MissingSystemPackage ? error.message : `could not run the real-editor tests: ${errorDetail(error)}`);
    totals.failed++;
  } finally {
    scratch.remove();
  }
  console.log(`${totals.passed} passed, ${totals.failed} failed`);
  return totals.failed > 0 ? 1 : 0;
}

void main().then((code) => process.exit(code));
