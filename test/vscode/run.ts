/**
 * The real-editor tests: the integration suite with the extension from the repository, the smoke check
 * of the extension installed from its packaged .vsix, and checks through the workbench's own UI: the
 * Problems panel, the quiescence probe run against a real docker container, and the probe's refusal in
 * Restricted Mode. Ends with "N passed, N failed" over all of them.
 *
 * Where a desktop VS Code can run (a display, and a network to download it), @vscode/test-electron
 * downloads and drives it as usual. Elsewhere (CI, this kind of machine) runTests() is pointed at our
 * shim, which runs the real VS Code server of code-server in headless Chromium. The choice is printed;
 * ROLLOUT_EVIDENCE_VSCODE=desktop|server overrides it.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { downloadAndUnzipVSCode, resolveCliArgsFromVSCodeExecutablePath, runTests } from '@vscode/test-electron';
import { errorDetail, errorMessage } from '../../shared/src/errors';
import { examplesDir, repoRoot, temporaryFolder } from '../support/repo';
import { ensureVsCodeServerTools, MissingSystemPackage, type VsCodeServerTools } from './environment';
import type { SuiteCounts } from './mochaRunner';
import { checkProbeRefusedInRestrictedMode, checkProbeThroughUi, type StepTimings } from './probeCheck';
import { checkProblemsPanel } from './uiCheck';

const startedAt = Date.now();
const say = (text: string) => console.log(`[real-editor] ${((Date.now() - startedAt) / 1000).toFixed(1)}s ${text}`);

type Editor =
  | { readonly kind: 'desktop'; readonly executable: string }
  | { readonly kind: 'server'; readonly tools: VsCodeServerTools };

function chooseEditor(): 'desktop' | 'server' {
  const forced = process.env['ROLLOUT_EVIDENCE_VSCODE'];
  if (forced === 'desktop' || forced === 'server') {
    say(
      `using ${forced === 'desktop' ? 'a downloaded desktop VS Code' : 'the VS Code server in headless Chromium'}, as ROLLOUT_EVIDENCE_VSCODE says`,
    );
    return forced;
  }
  if (process.platform === 'linux' && !process.env['DISPLAY'] && !process.env['WAYLAND_DISPLAY']) {
    say(
      'no display: using the real VS Code server (code-server) in headless Chromium instead of a downloaded desktop VS Code',
    );
    return 'server';
  }
  say(
    'a display is available: @vscode/test-electron downloads and runs desktop VS Code (ROLLOUT_EVIDENCE_VSCODE=server to use the server instead)',
  );
  return 'desktop';
}

async function prepareEditor(kind: 'desktop' | 'server'): Promise<Editor> {
  if (kind === 'desktop') return { kind, executable: await downloadAndUnzipVSCode('stable') };
  return { kind, tools: ensureVsCodeServerTools(say) };
}

/** The environment runTests() hands to the editor, and through it to the extension host. */
function editorEnvironment(
  editor: Editor,
  resultsFile: string,
  extra: Record<string, string> = {},
): Record<string, string> {
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
      launchArgs: [
        suite.workspace,
        `--extensions-dir=${suite.extensionsDir}`,
        `--user-data-dir=${join(scratch, `user-data-${slug}`)}`,
      ],
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
  const installed = spawnSync(command!, [...args, '--install-extension', vsix, `--extensions-dir=${extensionsDir}`], {
    encoding: 'utf8',
  });
  process.stdout.write(installed.stdout ?? '');
  if (installed.status !== 0 || !/successfully installed/.test(installed.stdout ?? '')) {
    throw new Error(`installing the .vsix failed: ${installed.stderr || installed.stdout}`);
  }
}

/** runTests() needs a development extension; for the installed copy's check, one that does nothing. */
function emptyHostExtension(folder: string): string {
  writeFileSync(
    join(folder, 'package.json'),
    JSON.stringify({
      name: 'installed-check-host',
      publisher: 'rollout-evidence-tests',
      version: '0.0.0',
      engines: { vscode: '*' },
    }),
  );
  return folder;
}

/** The suites edit documents: each gets its own copy of the examples, never the repository's files. */
/** A budget no validation of a whole rollout meets, so the language status must warn. */
const uiTimeBudgetMs = 1;

function withSettings(workspace: string, settings: Record<string, unknown>): string {
  mkdirSync(join(workspace, '.vscode'), { recursive: true });
  writeFileSync(join(workspace, '.vscode', 'settings.json'), JSON.stringify(settings, null, 2));
  return workspace;
}

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

/** One check through the workbench UI, counted as one test; it drives the web workbench, so the server path only. */
async function uiCheck(
  editor: Editor,
  what: string,
  screenshotName: string,
  check: (tools: VsCodeServerTools, screenshot: string) => Promise<StepTimings | void>,
): Promise<SuiteCounts> {
  if (editor.kind !== 'server') {
    say(`the check that ${what} drives the web workbench: it runs with the VS Code server only`);
    return { passed: 0, failed: 0 };
  }
  const screenshot = join(repoRoot, 'test-output', screenshotName);
  const started = Date.now();
  say(`check: ${what}`);
  try {
    const timings = await check(editor.tools, screenshot);
    const steps = timings
      ? `, ${(Object.values(timings).reduce((sum, ms) => sum + ms, 0) / 1000).toFixed(1)} s in the workbench`
      : '';
    say(`✔ ${what} (${((Date.now() - started) / 1000).toFixed(1)} s in all${steps}; screenshot: ${screenshot})`);
    return { passed: 1, failed: 0 };
  } catch (error) {
    say(
      `✖ the check that ${what} failed after ${((Date.now() - started) / 1000).toFixed(1)} s (screenshot: ${screenshot}): ${errorDetail(error)}`,
    );
    return { passed: 0, failed: 1 };
  }
}

function problemsPanelCheck(editor: Editor, scratch: string): Promise<SuiteCounts> {
  return uiCheck(
    editor,
    'the Problems panel shows the diagnostic, and the language status the verdict, the validation time and its budget warning',
    'problems-panel.png',
    (tools, screenshot) =>
      checkProblemsPanel({
        tools,
        extensionPath: repoRoot,
        workspace: withSettings(copyOfExamples(scratch, 'workspace-ui'), {
          'rolloutEvidence.timeBudget.validationMs': uiTimeBudgetMs,
        }),
        timeBudgetMs: uiTimeBudgetMs,
        file: 'jobs/2026-08-22__10-00-00/regex-log__bab1cbf6/trajectory/acp_trajectory.jsonl',
        expectedText: 'Trailing comma before',
        expectedStatus: 'Rollout: untrusted',
        screenshot,
        log: say,
      }),
  );
}

function probeCheck(editor: Editor, scratch: string): Promise<SuiteCounts> {
  return uiCheck(
    editor,
    'the quiescence probe runs from the command palette against a docker container and records its evidence',
    'probe-quiescence.png',
    (tools, screenshot) => checkProbeThroughUi({ tools, extensionPath: repoRoot, scratch, screenshot, log: say }),
  );
}

function restrictedProbeCheck(editor: Editor, scratch: string): Promise<SuiteCounts> {
  return uiCheck(
    editor,
    'the quiescence probe refuses in Restricted Mode',
    'probe-restricted-mode.png',
    (tools, screenshot) =>
      checkProbeRefusedInRestrictedMode({ tools, extensionPath: repoRoot, scratch, screenshot, log: say }),
  );
}

async function main(): Promise<number> {
  const scratch = temporaryFolder('rollout-evidence-real-editor-');
  const totals = { passed: 0, failed: 0 };
  try {
    const editor = await prepareEditor(chooseEditor());
    for (const suite of [integrationSuite, installedSuite, problemsPanelCheck, probeCheck, restrictedProbeCheck]) {
      const counts = await suite(editor, scratch.path);
      totals.passed += counts.passed;
      totals.failed += counts.failed;
    }
  } catch (error) {
    say(
      error instanceof MissingSystemPackage
        ? error.message
        : `could not run the real-editor tests: ${errorDetail(error)}`,
    );
    totals.failed++;
  } finally {
    scratch.remove();
  }
  console.log(`${totals.passed} passed, ${totals.failed} failed`);
  return totals.failed > 0 ? 1 : 0;
}

void main().then((code) => process.exit(code));
