/**
 * One check through the user's eyes: in the real workbench, open the faulty example trajectory, open
 * the Problems panel and find our diagnostic's text there, then hover the language status and find the
 * rollout's verdict and the validation time. Leaves a screenshot for a person to look at.
 */
import * as assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { VsCodeServerTools } from './environment';
import { openWorkbench } from './workbench';

const stepTimeoutMs = 60_000;

export async function checkProblemsPanel(options: {
  readonly tools: VsCodeServerTools;
  readonly extensionPath: string;
  readonly workspace: string;
  readonly file: string;
  readonly expectedText: string;
  /** What the language status item says of the file's rollout, e.g. "Rollout: untrusted". */
  readonly expectedStatus: string;
  /** The workspace's `rolloutEvidence.timeBudget.validationMs`, which the validation is expected to exceed. */
  readonly timeBudgetMs: number;
  readonly screenshot: string;
  readonly log: (line: string) => void;
}): Promise<void> {
  const workbench = await openWorkbench({
    tools: options.tools,
    folder: options.workspace,
    extensionDevelopmentPaths: [options.extensionPath],
    log: options.log,
  });
  const page = workbench.page;
  try {
    await page.locator('.monaco-workbench').waitFor({ timeout: stepTimeoutMs });

    // Quick Open: the command palette without its ">" prefix searches files.
    await page.keyboard.press('F1');
    const quickInput = page.locator('.quick-input-widget input');
    await quickInput.waitFor({ timeout: stepTimeoutMs });
    await quickInput.fill(options.file);
    await page.locator('.quick-input-list .monaco-list-row').first().waitFor({ timeout: stepTimeoutMs });
    await page.keyboard.press('Enter');
    await page.locator('.tab.active', { hasText: options.file.split('/').pop()! }).waitFor({ timeout: stepTimeoutMs });

    await page.keyboard.press('Control+Shift+M');
    // The panel also lists the rollout's other files (their problems are pushed): filter to this one, by
    // a glob (plain text would also match the other files' related locations in it).
    // The panel title holds the filters of every panel view; only the Problems one is visible now.
    const filter = page.locator('.viewpane-filter-container input').filter({ visible: true }).first();
    await filter.click({ timeout: stepTimeoutMs });
    await filter.fill(`**/${options.file}`, { timeout: stepTimeoutMs });
    const panel = page.locator('.markers-panel');
    await panel.getByText(options.expectedText, { exact: false }).first().waitFor({ timeout: stepTimeoutMs });
    const shown = await panel.innerText();
    assert.ok(shown.includes(options.expectedText), `the Problems panel shows "${options.expectedText}"`);
    assert.ok(shown.includes('rollout-evidence'), 'the Problems panel names our source');

    // The language status lives behind the `{}` item of the status bar; its hover lists our item.
    await page.locator('[id="status.languageStatus"]').hover({ timeout: stepTimeoutMs });
    const status = page.locator('.monaco-hover', { hasText: options.expectedStatus });
    await status.first().waitFor({ timeout: stepTimeoutMs });
    const statusText = await status.first().innerText();
    assert.match(
      statusText,
      /validated in \d+(\.\d)? m?s/,
      `the language status says how long the validation took: ${statusText}`,
    );
    assert.ok(
      statusText.includes(`over the ${options.timeBudgetMs} ms budget (rolloutEvidence.timeBudget.validationMs)`),
      `the language status warns past the time budget: ${statusText}`,
    );
  } finally {
    mkdirSync(dirname(options.screenshot), { recursive: true });
    await page
      .screenshot({ path: options.screenshot })
      .catch((error: unknown) => options.log(`no screenshot: ${String(error)}`));
    await workbench.close();
  }
}
