/**
 * "Probe Sandbox-User Quiescence…" through the user's eyes, against a real docker container: in the
 * real workbench, open a rollout's action records, run the command from the command palette, answer
 * its quick picks, input box and modal dialog as a user would, record the result as evidence, and check
 * the file on disk and the container. A second check runs the command in Restricted Mode, where it must
 * refuse. Each leaves a screenshot for a person to look at, and every wait is bounded.
 */
import * as assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { engineEnv, processStatuses, requireEngine, startContainer, waitFor } from '../support/containers';
import { jsonl, writeTree } from '../support/files';
import { isSandbox, sandboxUid, startProcess } from '../support/probe';
import type { VsCodeServerTools } from './environment';
import { openWorkbench, type Workbench } from './workbench';

/** The bound on each UI step; the probe itself is bounded by its own 60 s default timeout, well within. */
const stepTimeoutMs = 60_000;
/** The bound on the container's process table to show the sleeper gone, once the probe said so. */
const goneTimeoutMs = 10_000;

const rolloutFolder = 'probe-demo__t';
const actionRecords = `${rolloutFolder}/benchguard/action_records.jsonl`;
const killRecord = {
  event_type: 'SandboxExec',
  phase: 'Harden',
  service: 'main',
  status: 'ok',
  command_preview: 'pkill -9 -u sandbox',
  return_code: 0,
};
/** The start of the message of the quiescence-unproven finding the kill record draws until proof is recorded. */
const unprovenText = 'no checked observation after this kill attempt';

export interface ProbeCheckOptions {
  readonly tools: VsCodeServerTools;
  readonly extensionPath: string;
  /** A folder for the check's workspace (the caller removes it). */
  readonly scratch: string;
  readonly screenshot: string;
  readonly log: (line: string) => void;
}

/** How long the steps took, in milliseconds, for the launcher to print. */
export type StepTimings = Record<string, number>;

/** A workspace with one rollout whose sandbox user was sent a kill, with nothing yet to show it worked. */
function writeWorkspace(folder: string): string {
  writeTree(folder, {
    [`${rolloutFolder}/result.json`]: JSON.stringify({
      task_name: 'probe-demo',
      trial_name: 't',
      rewards: { reward: 1 },
    }),
    [`${rolloutFolder}/config.json`]: JSON.stringify({ sandbox_user: 'sandbox' }),
    [actionRecords]: jsonl(killRecord),
  });
  return folder;
}

/**
 * The engines' settings (DOCKER_HOST and podman's files), handed to the server explicitly: openWorkbench
 * passes its own environment through as well, but the check must not depend on that.
 */
function engineSettings(): Record<string, string> {
  const env = engineEnv();
  return Object.fromEntries(
    ['DOCKER_HOST', 'CONTAINERS_CONF', 'CONTAINERS_STORAGE_CONF'].flatMap((name) =>
      env[name] ? [[name, env[name]!] as const] : [],
    ),
  );
}

/** Runs `action` as one named step: logs its duration, and on failure says what the workbench showed. */
class Steps {
  readonly timings: StepTimings = {};
  constructor(
    private readonly page: Page,
    private readonly log: (line: string) => void,
  ) {}

  async run<T>(name: string, action: () => Promise<T>): Promise<T> {
    const started = Date.now();
    try {
      const result = await action();
      this.timings[name] = Date.now() - started;
      this.log(`  ${name}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
      return result;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(
        `step "${name}" failed after ${((Date.now() - started) / 1000).toFixed(1)} s: ${message}\n  the workbench showed: ${await visibleState(this.page)}`,
        { cause: error },
      );
    }
  }
}

/** The quick input's title and value, the dialog and the notifications on screen: for failure messages. */
async function visibleState(page: Page): Promise<string> {
  const texts = async (selector: string) =>
    (
      await page
        .locator(selector)
        .allInnerTexts()
        .catch(() => [] as string[])
    ).map((text) => JSON.stringify(text.replace(/\s+/g, ' ').trim().slice(0, 300)));
  const quickInput = page.locator('.quick-input-widget');
  const quick = (await quickInput.isVisible().catch(() => false))
    ? `quick input ${(await texts('.quick-input-widget .quick-input-title')).join(' ')} value ${JSON.stringify(
        await quickInput
          .locator('input')
          .first()
          .inputValue({ timeout: 1000 })
          .catch(() => '?'),
      )}, rows ${(await texts('.quick-input-widget .quick-input-list .monaco-list-row')).slice(0, 5).join(', ')}`
    : 'no quick input';
  return `${quick}; dialogs [${(await texts('.monaco-dialog-box')).join(', ')}]; notifications [${(await texts('.notifications-center .notification-list-item')).join(', ')}]`;
}

const quickInputTitle = (page: Page, title: string) =>
  page.locator('.quick-input-widget .quick-input-title', { hasText: title });
const quickInputBox = (page: Page) => page.locator('.quick-input-widget .quick-input-box input');
const firstRow = (page: Page) => page.locator('.quick-input-widget .quick-input-list .monaco-list-row').first();

/**
 * Waits for the notification holding `text`, in the Notifications Center. The server runs with the
 * smoke-test driver (openWorkbench needs it to load the extension under development), and in that mode
 * the workbench shows no toasts: every notification, with its buttons, goes only to the center, which a
 * user opens with the bell in the status bar. The center closes by itself when it empties (a finished
 * progress notification can do that), so the bell is clicked again whenever it is closed.
 */
async function waitForNotification(page: Page, text: string, timeoutMs = stepTimeoutMs): Promise<Locator> {
  const item = page.locator('.notifications-center .notification-list-item', { hasText: text }).first();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await item.isVisible()) return item;
    if (Date.now() > deadline) throw new Error(`no notification "${text}" within ${timeoutMs / 1000} s`);
    if ((await page.locator('.notifications-center.visible').count()) === 0)
      await page.locator('[id="status.notifications"]').click({ timeout: stepTimeoutMs });
    await page.waitForTimeout(200);
  }
}

/** Quick Open (the command palette without its ">" prefix) on a workspace file, and waits for its tab. */
async function quickOpen(page: Page, file: string): Promise<void> {
  await page.keyboard.press('F1');
  await quickInputBox(page).waitFor({ timeout: stepTimeoutMs });
  await quickInputBox(page).fill(file);
  await firstRow(page)
    .filter({ hasText: file.split('/').pop()! })
    .waitFor({ timeout: stepTimeoutMs });
  await page.keyboard.press('Enter');
  await page.locator('.tab.active', { hasText: file.split('/').pop()! }).waitFor({ timeout: stepTimeoutMs });
}

/** F1, the command's title, Enter: as a user runs a command. */
async function runFromPalette(page: Page, commandTitle: string): Promise<void> {
  // The palette lists the commands known when it opens; a workbench still registering the extension's
  // contributions (nothing waited for them in Restricted Mode) lists them only when opened again.
  const deadline = Date.now() + stepTimeoutMs;
  for (;;) {
    await page.keyboard.press('F1');
    await quickInputBox(page).waitFor({ timeout: stepTimeoutMs });
    await quickInputBox(page).fill(`>${commandTitle}`);
    const found = await firstRow(page)
      .filter({ hasText: commandTitle })
      .waitFor({ timeout: 5_000 })
      .then(
        () => true,
        () => false,
      );
    if (found) break;
    if (Date.now() > deadline)
      throw new Error(`the command palette did not list "${commandTitle}" within ${stepTimeoutMs / 1000} s`);
    await page.keyboard.press('Escape');
  }
  await page.keyboard.press('Enter');
}

/** Types `filter` into the quick pick titled `title` and waits until the first row matches it; returns that row. */
async function filterQuickPick(page: Page, title: string, filter: string): Promise<Locator> {
  await quickInputTitle(page, title).waitFor({ timeout: stepTimeoutMs });
  await quickInputBox(page).fill(filter);
  const row = firstRow(page).filter({ hasText: filter });
  await row.waitFor({ timeout: stepTimeoutMs });
  return row;
}

async function saveScreenshot(workbench: Workbench, path: string, log: (line: string) => void): Promise<void> {
  mkdirSync(dirname(path), { recursive: true });
  await workbench.page.screenshot({ path }).catch((error: unknown) => log(`no screenshot: ${String(error)}`));
}

/**
 * The whole flow against a real docker container: target, user, mode harden, "Kill and Observe", the
 * result notification, "Record as Evidence", the file pick; then the file on disk and the container.
 */
export async function checkProbeThroughUi(options: ProbeCheckOptions): Promise<StepTimings> {
  requireEngine('docker');
  const container = await startContainer('docker');
  try {
    const sleeper = await startProcess(container, 'sandbox', 'exec sleep 100030', isSandbox('sleep'));
    const { workspace, workbench, steps } = await openOnRollout(options, 'workspace-probe', false);
    const recordsPath = join(workspace, actionRecords);
    const originalText = readFileSync(recordsPath, 'utf8');
    const page = workbench.page;
    try {
      await steps.run('workbench ready', () => page.locator('.monaco-workbench').waitFor({ timeout: stepTimeoutMs }));
      await steps.run('action records opened', () => quickOpen(page, actionRecords));
      // The finding the probe's record is to answer; seeing it also shows the language server is running.
      await steps.run('quiescence-unproven in the Problems panel', async () => {
        await page.keyboard.press('Control+Shift+M');
        await page
          .locator('.markers-panel')
          .getByText(unprovenText, { exact: false })
          .first()
          .waitFor({ timeout: stepTimeoutMs });
        // Back to the editor, so that the records stay the active editor whatever the panel did to focus.
        await page.locator('.tab.active', { hasText: 'action_records.jsonl' }).click({ timeout: stepTimeoutMs });
      });

      await steps.run('command run from the palette', () => runFromPalette(page, 'Probe Sandbox-User Quiescence'));
      await steps.run('target picked', async () => {
        const row = await filterQuickPick(page, '(1/3): target', container.name);
        const shown = await row.innerText();
        assert.ok(
          shown.includes('rollout-evidence-probe:busybox'),
          `the container's row shows its image: ${JSON.stringify(shown)}`,
        );
        await page.keyboard.press('Enter');
      });
      await steps.run('prefilled user accepted', async () => {
        await quickInputTitle(page, '(2/3): sandbox user').waitFor({ timeout: stepTimeoutMs });
        assert.equal(
          await quickInputBox(page).inputValue(),
          'sandbox',
          "the user comes from the rollout's config.json",
        );
        await page.keyboard.press('Enter');
      });
      await steps.run('mode harden picked', async () => {
        await filterQuickPick(page, '(3/3): mode', 'harden');
        await page.keyboard.press('Enter');
      });
      await steps.run('"Kill and Observe" clicked', async () => {
        const dialog = page.locator('.monaco-dialog-box');
        await dialog.waitFor({ timeout: stepTimeoutMs });
        const asked = await dialog.innerText();
        assert.ok(
          asked.includes(`Kill every process of sandbox user "sandbox" in docker container "${container.name}"?`),
          `the dialog names user and target: ${JSON.stringify(asked)}`,
        );
        await dialog.getByRole('button', { name: 'Kill and Observe' }).click({ timeout: stepTimeoutMs });
        await dialog.waitFor({ state: 'detached', timeout: stepTimeoutMs });
      });
      const expected = `Quiescent: no live process of sandbox user "sandbox" (uid ${sandboxUid}) in docker container "${container.name}".`;
      const result = await steps.run('probe ran (result notification)', () => waitForNotification(page, expected));
      await steps.run('"Record as Evidence" clicked', () =>
        result.getByRole('button', { name: 'Record as Evidence' }).click({ timeout: stepTimeoutMs }),
      );
      await steps.run('action records picked', async () => {
        await quickInputTitle(page, 'Record the observation as evidence').waitFor({ timeout: stepTimeoutMs });
        const row = firstRow(page);
        await row.waitFor({ timeout: stepTimeoutMs });
        const label = await row.locator('.label-name').first().innerText({ timeout: stepTimeoutMs });
        const description = await row.locator('.label-description').first().innerText({ timeout: stepTimeoutMs });
        assert.equal(label, actionRecords, "the first file offered is the rollout's action records");
        assert.equal(description, 'the active rollout');
        await page.keyboard.press('Enter');
      });
      await steps.run('recorded (notification)', () =>
        waitForNotification(page, `recorded the observation in ${actionRecords}, line 2.`),
      );

      await steps.run('file on disk checked', async () => {
        const text = readFileSync(recordsPath, 'utf8');
        assert.ok(text.startsWith(originalText), `the original line is unchanged and first: ${JSON.stringify(text)}`);
        const added = text.slice(originalText.length);
        assert.ok(
          added.endsWith('\n') && added.indexOf('\n') === added.length - 1,
          `exactly one line was appended: ${JSON.stringify(added)}`,
        );
        const record = JSON.parse(added) as Record<string, unknown>;
        assert.equal(record['event_type'], 'SandboxUserQuiescence');
        assert.equal(record['return_code'], 0);
        assert.equal(record['mode'], 'harden');
        assert.equal(record['uid'], sandboxUid);
        assert.equal(record['final'], true);
        assert.deepEqual(record['target'], { kind: 'docker', name: container.name });
        const signals = record['signals_sent'] as { signal: string; pid: number }[];
        assert.ok(
          signals.some((sent) => sent.signal === 'TERM' && sent.pid === sleeper.pid),
          `TERM went to the sleeper (pid ${sleeper.pid}): ${JSON.stringify(signals)}`,
        );
      });
      await steps.run('sleeper gone from the container', async () => {
        const alive = async () =>
          (await processStatuses(container)).some((status) => status.pid === sleeper.pid && status.state !== 'Z');
        const gone = await waitFor(async () => ((await alive()) ? undefined : true), goneTimeoutMs);
        assert.ok(gone, `the sleeper (pid ${sleeper.pid}) still runs in ${container.name}`);
      });
      // The recorded line is the proof the finding asked for: the language server takes it back.
      await steps.run('quiescence-unproven gone from the Problems panel', async () => {
        const panel = page.locator('.markers-panel');
        await panel
          .getByText(unprovenText, { exact: false })
          .first()
          .waitFor({ state: 'detached', timeout: stepTimeoutMs });
        assert.ok(await panel.isVisible(), 'the Problems panel is still open: the finding left it, not the panel');
      });
      return steps.timings;
    } finally {
      await saveScreenshot(workbench, options.screenshot, options.log);
      await workbench.close();
    }
  } finally {
    await container.remove();
  }
}

/** The workbench on a fresh copy of the one-rollout workspace; with workspace trust on, it opens in Restricted Mode. */
async function openOnRollout(
  options: ProbeCheckOptions,
  name: string,
  workspaceTrust: boolean,
): Promise<{ workspace: string; workbench: Workbench; steps: Steps }> {
  const workspace = writeWorkspace(join(options.scratch, name));
  const workbench = await openWorkbench({
    tools: options.tools,
    workspaceTrust,
    folder: workspace,
    extensionDevelopmentPaths: [options.extensionPath],
    env: engineSettings(),
    log: options.log,
  });
  return { workspace, workbench, steps: new Steps(workbench.page, options.log) };
}

/** In Restricted Mode the command refuses, saying why, before it asks anything or runs anything. */
export async function checkProbeRefusedInRestrictedMode(options: ProbeCheckOptions): Promise<StepTimings> {
  const { workbench, steps } = await openOnRollout(options, 'workspace-restricted', true);
  const page = workbench.page;
  try {
    await steps.run('workbench ready', () => page.locator('.monaco-workbench').waitFor({ timeout: stepTimeoutMs }));
    // The web workbench opens a folder it has not been told to trust in Restricted Mode, without asking.
    await steps.run('Restricted Mode shown', () =>
      page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).first().waitFor({ timeout: stepTimeoutMs }),
    );
    await steps.run('command run from the palette', () => runFromPalette(page, 'Probe Sandbox-User Quiescence'));
    await steps.run('refusal shown', async () => {
      const refusal = await waitForNotification(page, 'Rollout Evidence: probing runs commands as root');
      const shown = await refusal.innerText();
      assert.ok(shown.includes('it is off in Restricted Mode'), `the message says why: ${JSON.stringify(shown)}`);
      await refusal.getByRole('button', { name: 'Manage Workspace Trust' }).waitFor({ timeout: stepTimeoutMs });
      assert.equal(await quickInputTitle(page, '(1/3): target').count(), 0, 'no target is asked for');
    });
    return steps.timings;
  } finally {
    await saveScreenshot(workbench, options.screenshot, options.log);
    await workbench.close();
  }
}
