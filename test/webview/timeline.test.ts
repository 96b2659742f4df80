/**
 * The timeline webview (media/timeline.js and timeline.css) in headless Chromium, in the extension's own
 * page and content security policy, drawing pictures the real builder made from fixture rollouts: its
 * lanes and markers, a screenshot under test-output/, and the jump and zoom messages that clicks and
 * keys post.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TimelinePicture } from '../../shared/src/timelinePicture';
import { ArtifactChecker } from '../../server/src/engine/check/artifactChecker';
import { jsonl, writeTree } from '../support/files';
import { repoRoot, temporaryFolder } from '../support/repo';
import { pictureOfRollout } from './picture';
import { openTimelinePage, type TimelinePage } from './timelinePage';

const fixture = join(repoRoot, 'test/fixtures/bundles/native-timeout-pending-tool');
const trajectory = join(fixture, 'trajectory/acp_trajectory.jsonl');
const outputFolder = join(repoRoot, 'test-output');
const checker = new ArtifactChecker();

/** The 0-based line of the first row of `file` that contains `text`. */
function lineWith(file: string, text: string): number {
  const line = readFileSync(file, 'utf8').split('\n').findIndex((row) => row.includes(text));
  assert.ok(line >= 0, `${text} in ${file}`);
  return line;
}

describe('timeline webview', () => {
  let view: TimelinePage;
  let picture: TimelinePicture;
  before(async () => {
    view = await openTimelinePage();
    picture = pictureOfRollout(fixture, checker);
    await view.show(picture);
  });
  after(async () => view?.close());

  it('draws the lanes, the timeout marker, the unresolved call and the reward, and saves a screenshot', async () => {
    const { page } = view;
    assert.deepEqual(await page.locator('.lane').evaluateAll((lanes) => lanes.map((lane) => lane.getAttribute('data-lane'))), picture.lanes.map((lane) => lane.id));
    assert.equal(await page.locator('.element').count(), picture.elements.length);
    assert.equal(await page.locator('#title').textContent(), 'Timeline: native-timeout-pending-tool');

    const timeout = page.locator('.lane[data-lane="agent"] .element.kind-timeout');
    assert.equal(await timeout.count(), 1);
    assert.match((await timeout.getAttribute('aria-label')) ?? '', /Timeout marker.*call_02/);

    const unresolved = page.locator('.lane[data-lane="tools"] .element.status-unresolved');
    assert.equal(await unresolved.count(), 1, 'one call is marked unresolved');
    assert.match((await unresolved.getAttribute('aria-label')) ?? '', /unresolved: sleep 9999 \(in_progress\)/);
    assert.equal(await page.locator('.lane[data-lane="tools"] .element.status-ok').count(), 1);

    const reward = page.locator('.lane[data-lane="reward"] .element.kind-reward');
    assert.match((await reward.getAttribute('aria-label')) ?? '', /Reward 0/);
    for (const kind of ['kill', 'observation']) assert.ok((await page.locator(`.lane[data-lane="hardening"] .kind-${kind}`).count()) >= 1, kind);
    for (const kind of ['sidecar-start', 'setup', 'grading']) assert.equal(await page.locator(`.lane[data-lane="verifier"] .kind-${kind}`).count(), 1, kind);
    assert.match((await page.locator('#notices').textContent()) ?? '', /spread in line order/);
    assert.ok((await page.locator('#legend li').count()) >= 10, 'a legend');

    // Drawn within the track, and visibly: a marker has width, and the picture has the theme's colours.
    const box = await unresolved.boundingBox();
    assert.ok(box && box.width >= 4 && box.height > 0, JSON.stringify(box));
    mkdirSync(outputFolder, { recursive: true });
    await page.screenshot({ path: join(outputFolder, 'timeline.png'), fullPage: true });
    assert.deepEqual(await view.violations(), [], 'nothing was refused by the content security policy');
  });

  it('posts a jump to the line of the element clicked', async () => {
    await view.page.locator('.element.status-unresolved').click();
    const posted = await view.posted();
    assert.deepEqual(posted.at(-1), { type: 'jump', file: trajectory, line: lineWith(trajectory, '"in_progress"') });
  });

  it('moves with the arrow keys and jumps with Enter', async () => {
    const { page } = view;
    await page.locator('.lane[data-lane="agent"] .element.kind-prompt').focus();
    await page.keyboard.press('Enter');
    assert.deepEqual((await view.posted()).at(-1), { type: 'jump', file: trajectory, line: lineWith(trajectory, '"user_message"') });

    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Enter');
    assert.deepEqual((await view.posted()).at(-1), { type: 'jump', file: trajectory, line: lineWith(trajectory, '"agent_timeout"') });

    // Down from the timeout marker to the tool call nearest it: the last one, left in progress.
    await page.keyboard.press('ArrowDown');
    assert.match(await page.evaluate<string>('document.activeElement.className'), /status-unresolved/);
    await page.keyboard.press('Enter');
    assert.deepEqual((await view.posted()).at(-1), { type: 'jump', file: trajectory, line: lineWith(trajectory, '"in_progress"') });

    const focusRing = await page.evaluate<string>('getComputedStyle(document.activeElement).outlineStyle');
    assert.equal(focusRing, 'solid', 'the focused element shows a focus ring');
  });

  it('asks for a narrower range around the focused element with +, on the axis shown, and for the whole rollout with 0 and the button', async () => {
    const { page } = view;
    const focused = picture.elements.find((element) => element.status === 'unresolved')!;
    await page.locator('.element.status-unresolved').focus();
    await page.keyboard.press('+');
    const zoom = (await view.posted()).at(-1);
    assert.equal(zoom?.type, 'zoom');
    if (zoom?.type !== 'zoom') return;
    assert.equal(zoom.axis, picture.axis);
    const span = picture.range.to - picture.range.from;
    assert.ok(Math.abs(zoom.to - zoom.from - span / 2) < 1e-6, 'half the span');
    assert.ok(zoom.from <= focused.start && zoom.to >= focused.end!, 'around the focused element');
    // A reset, not the extent as a range: a live run's later activity would fall outside it.
    await page.keyboard.press('0');
    assert.deepEqual((await view.posted()).at(-1), { type: 'reset' });
    await page.keyboard.press('+');
    assert.equal((await view.posted()).at(-1)?.type, 'zoom');
    await page.locator('#zoom-reset').click();
    assert.deepEqual((await view.posted()).at(-1), { type: 'reset' });
  });

  it('draws a 100,000-row trajectory as a summary of a few thousand elements, and a bin click zooms into it', async () => {
    const scratch = temporaryFolder('rollout-evidence-timeline-view-');
    try {
      const rows = Array.from({ length: 100_000 }, (_, index) =>
        index % 10 === 0 ? { type: 'user_message', text: `step ${index}` } : { type: 'tool_call', tool_call_id: `call_${index}`, title: `ls ${index}`, status: index % 5000 === 1 ? 'pending' : 'completed', content: [] },
      );
      writeTree(scratch.path, { 'trajectory/acp_trajectory.jsonl': jsonl(...rows), 'result.json': JSON.stringify({ rewards: { reward: 1 } }) });
      const huge = pictureOfRollout(scratch.path, checker);
      const { drawn } = await view.show(huge);
      const nodes = await view.page.locator('.element, .bin').count();
      assert.equal(nodes, drawn);
      assert.ok(nodes <= 3000, `${nodes} nodes drawn`);
      assert.equal(await view.page.locator('.element.status-unresolved').count(), 20);
      assert.match((await view.page.locator('#notices').textContent()) ?? '', /Line order, not time.*zoom in/s);

      const bin = huge.bins[10]!;
      await view.page.locator('.bin').nth(10).click();
      assert.deepEqual((await view.posted()).at(-1), { type: 'zoom', from: bin.start, to: bin.end, axis: huge.axis });
    } finally {
      scratch.remove();
      await view.show(picture);
    }
  });
});
