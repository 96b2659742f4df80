/**
 * The timeline webview (media/timeline.js and timeline.css) in headless Chromium, in the extension's own
 * page and content security policy, drawing pictures the real builder made from fixture rollouts: its
 * lanes and markers, a screenshot under test-output/, and the jump and zoom messages that clicks and
 * keys post; and, for a busy rollout on both axes at three panel widths, a legend of distinct colours
 * that the elements use, evenly spaced round ticks, and no box drawn over another.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { TimelineElementKind, TimelinePicture } from '../../shared/src/timelinePicture';
import { ArtifactChecker } from '../../server/src/engine/check/artifactChecker';
import { jsonl, writeTree } from '../support/files';
import { repoRoot, temporaryFolder } from '../support/repo';
import { pictureOfRollout } from './picture';
import { openTimelinePage, themes, type TimelinePage } from './timelinePage';

const fixture = join(repoRoot, 'test/fixtures/bundles/native-timeout-pending-tool');
const trajectory = join(fixture, 'trajectory/acp_trajectory.jsonl');
const outputFolder = join(repoRoot, 'test-output');
const checker = new ArtifactChecker();

/** The 0-based line of the first row of `file` that contains `text`. */
function lineWith(file: string, text: string): number {
  const line = readFileSync(file, 'utf8')
    .split('\n')
    .findIndex((row) => row.includes(text));
  assert.ok(line >= 0, `${text} in ${file}`);
  return line;
}

/** What the view calls each kind: written here, not read from the view, so a repeat is caught. */
const kindNames: Readonly<Record<TimelineElementKind, string>> = {
  prompt: 'Prompt',
  'tool-call': 'Tool call',
  timeout: 'Timeout marker',
  kill: 'Kill attempt',
  observation: 'Observation',
  'sidecar-start': 'Verifier start',
  setup: 'Setup exec',
  grading: 'Grading exec',
  exec: 'Other exec',
  reward: 'Reward',
};

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
    assert.deepEqual(
      await page.locator('.lane').evaluateAll((lanes) => lanes.map((lane) => lane.getAttribute('data-lane'))),
      picture.lanes.map((lane) => lane.id),
    );
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
    assert.match((await reward.getAttribute('aria-label')) ?? '', /^Reward: 0\. result\.json line \d+$/);
    for (const kind of ['kill', 'observation'])
      assert.ok((await page.locator(`.lane[data-lane="hardening"] .kind-${kind}`).count()) >= 1, kind);
    for (const kind of ['sidecar-start', 'setup', 'grading'])
      assert.equal(await page.locator(`.lane[data-lane="verifier"] .kind-${kind}`).count(), 1, kind);
    assert.match((await page.locator('#notices').textContent()) ?? '', /spread in line order/);
    assert.ok((await page.locator('#legend li').count()) >= 10, 'a legend');

    // Drawn within the track, and visibly: a marker has width, and the picture has the theme's colours.
    const box = await unresolved.boundingBox();
    assert.ok(box && box.width >= 4 && box.height > 0, JSON.stringify(box));
    mkdirSync(outputFolder, { recursive: true });
    await page.screenshot({ path: join(outputFolder, 'timeline.png'), fullPage: true });
    assert.deepEqual(await view.violations(), [], 'nothing was refused by the content security policy');
  });

  it("names each element's kind once in what a screen reader says, and its status at most once", async () => {
    const labels = await view.page.locator('.element').evaluateAll((nodes) =>
      nodes.map((node) => ({
        kind: node.className
          .split(' ')
          .find((name: string) => name.startsWith('kind-'))
          .slice(5) as string,
        aria: node.getAttribute('aria-label') as string,
      })),
    );
    assert.equal(labels.length, picture.elements.length);
    for (const { kind, aria } of labels) {
      const name = kindNames[kind as TimelineElementKind];
      assert.ok(aria.startsWith(`${name}`), aria);
      assert.equal(aria.split(name).length, 2, `"${name}" once in: ${aria}`);
    }
    const observation = labels.find((label) => label.kind === 'observation')!.aria;
    assert.equal(observation.split('quiescent').length, 2, observation);
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
    assert.deepEqual((await view.posted()).at(-1), {
      type: 'jump',
      file: trajectory,
      line: lineWith(trajectory, '"user_message"'),
    });

    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Enter');
    assert.deepEqual((await view.posted()).at(-1), {
      type: 'jump',
      file: trajectory,
      line: lineWith(trajectory, '"agent_timeout"'),
    });

    // Down from the timeout marker to the tool call nearest it: the last one, left in progress.
    await page.keyboard.press('ArrowDown');
    assert.match(await page.evaluate<string>('document.activeElement.className'), /status-unresolved/);
    await page.keyboard.press('Enter');
    assert.deepEqual((await view.posted()).at(-1), {
      type: 'jump',
      file: trajectory,
      line: lineWith(trajectory, '"in_progress"'),
    });

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
        index % 10 === 0
          ? { type: 'user_message', text: `step ${index}` }
          : {
              type: 'tool_call',
              tool_call_id: `call_${index}`,
              title: `ls ${index}`,
              status: index % 5000 === 1 ? 'pending' : 'completed',
              content: [],
            },
      );
      writeTree(scratch.path, {
        'trajectory/acp_trajectory.jsonl': jsonl(...rows),
        'result.json': JSON.stringify({ rewards: { reward: 1 } }),
      });
      const huge = pictureOfRollout(scratch.path, checker);
      const { drawn } = await view.show(huge);
      const nodes = await view.page.locator('.element, .bin').count();
      assert.equal(nodes, drawn);
      assert.ok(nodes <= 3000, `${nodes} nodes drawn`);
      assert.equal(await view.page.locator('.element.status-unresolved').count(), 20);
      assert.match((await view.page.locator('#notices').textContent()) ?? '', /Line order, not time.*zoom in/s);
      await view.page.screenshot({ path: join(outputFolder, 'timeline-summary.png'), fullPage: true });

      const bin = huge.bins[10]!;
      await view.page.locator('.bin').nth(10).click();
      assert.deepEqual((await view.posted()).at(-1), { type: 'zoom', from: bin.start, to: bin.end, axis: huge.axis });
    } finally {
      scratch.remove();
      await view.show(picture);
    }
  });
});

// The page side of the layout checks: the test project has no DOM library.
interface Box {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}
interface PageNode {
  readonly className: string;
  readonly textContent: string | null;
  getBoundingClientRect(): Box;
  closest(selectors: string): PageNode | null;
  getAttribute(name: string): string | null;
}
interface PageStyle {
  readonly backgroundColor: string;
  readonly backgroundImage: string;
  readonly borderTopColor: string;
  readonly borderTopStyle: string;
  readonly borderTopWidth: string;
  readonly display: string;
  getPropertyValue(name: string): string;
}
declare const document: { querySelectorAll(selectors: string): ArrayLike<PageNode> };
declare function getComputedStyle(node: PageNode): PageStyle;
declare function requestAnimationFrame(callback: () => void): number;

interface Look {
  readonly classes: string;
  /** The fill, or the outline of a hollow kind. */
  readonly colour: string;
  readonly hollow: boolean;
  readonly swatch: string;
  readonly borderStyle: string;
  readonly pattern: string;
}
interface Layout {
  readonly legend: readonly Look[];
  readonly elements: readonly (Look & {
    readonly lane: string;
    readonly box: Box;
    readonly text: Box | undefined;
    readonly aria: string;
  })[];
  readonly bins: readonly { readonly lane: string; readonly box: Box }[];
  readonly ticks: readonly { readonly x: number; readonly label: string; readonly box: Box }[];
  readonly gridlines: readonly (readonly number[])[];
  readonly scale: Box;
  readonly tracks: readonly Box[];
  readonly labels: readonly { readonly what: string; readonly box: Box }[];
}

function measureLayout(): Layout {
  const all = (selectors: string) => Array.from(document.querySelectorAll(selectors));
  const boxOf = (node: PageNode): Box => {
    const { x, y, width, height } = node.getBoundingClientRect();
    return { x, y, width, height };
  };
  const lookOf = (node: PageNode): Look => {
    const style = getComputedStyle(node);
    // Hollow: no fill but an outline. Neither is a kind left without a colour, which the checks catch.
    const hollow = /^rgba\(\d+, \d+, \d+, 0\)$/.test(style.backgroundColor) && parseFloat(style.borderTopWidth) > 0;
    return {
      classes: node.className,
      colour: hollow ? style.borderTopColor : style.backgroundColor,
      hollow,
      swatch: style.getPropertyValue('--swatch').trim(),
      borderStyle: style.borderTopStyle,
      pattern: style.backgroundImage,
    };
  };
  const shown = (node: PageNode) => getComputedStyle(node).display !== 'none';
  const labels = [
    ...all('.tick-label').map((node) => ({ what: `tick ${node.textContent}`, box: boxOf(node) })),
    ...all('.lane-label').map((node) => ({ what: `lane ${node.textContent}`, box: boxOf(node) })),
    ...all('.element-text')
      .filter(shown)
      .map((node) => ({ what: `element ${node.textContent}`, box: boxOf(node) })),
    ...all('#legend li').map((node) => ({ what: `legend ${node.textContent}`, box: boxOf(node) })),
  ];
  return {
    legend: all('#legend .swatch').map(lookOf),
    elements: all('.element').map((node) => {
      const text = all('.element-text').find((candidate) => candidate.closest('.element') === node);
      return {
        ...lookOf(node),
        lane: node.closest('.lane')?.getAttribute('data-lane') ?? '',
        box: boxOf(node),
        text: text && shown(text) ? boxOf(text) : undefined,
        aria: node.getAttribute('aria-label') ?? '',
      };
    }),
    bins: all('.bin').map((node) => ({
      lane: node.closest('.lane')?.getAttribute('data-lane') ?? '',
      box: boxOf(node),
    })),
    ticks: all('.tick').map((node, index) => ({
      x: boxOf(node).x,
      label: all('.tick-label')[index]?.textContent ?? '',
      box: boxOf(all('.tick-label')[index]!),
    })),
    gridlines: all('.track').map((track) =>
      all('.gridline')
        .filter((line) => line.closest('.track') === track)
        .map((line) => boxOf(line).x),
    ),
    scale: boxOf(all('#scale')[0]!),
    tracks: all('.track').map(boxOf),
    labels,
  };
}

/** A computed colour (`rgb()`, `rgba()` or `color(srgb …)`) as seen over `background`: red, green and blue from 0 to 255. */
function seenOver(colour: string, background: readonly number[]): number[] {
  const srgb = /^color\(srgb ([\d.e-]+) ([\d.e-]+) ([\d.e-]+)(?: \/ ([\d.]+))?\)$/.exec(colour);
  const rgb = /^rgba?\((\d+), (\d+), (\d+)(?:, ([\d.]+))?\)$/.exec(colour);
  assert.ok(srgb || rgb, `a colour: ${colour}`);
  const channels = srgb ? srgb.slice(1, 4).map((value) => Number(value) * 255) : rgb!.slice(1, 4).map(Number);
  const alpha = Number((srgb ?? rgb)![4] ?? 1);
  return channels.map((value, index) => value * alpha + background[index]! * (1 - alpha));
}

function overlaps(a: Box, b: Box): boolean {
  // Half a pixel either way: boxes that only touch, rounded, do not overlap.
  return (
    Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x) > 0.5 &&
    Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y) > 0.5
  );
}

/** The first pair of boxes that overlap, named, or undefined. */
function overlapping<T>(items: readonly T[], boxOf: (item: T) => Box, name: (item: T) => string): string | undefined {
  for (let first = 0; first < items.length; first++) {
    for (let second = first + 1; second < items.length; second++) {
      if (overlaps(boxOf(items[first]!), boxOf(items[second]!)))
        return `${name(items[first]!)} ${JSON.stringify(boxOf(items[first]!))} and ${name(items[second]!)} ${JSON.stringify(boxOf(items[second]!))}`;
    }
  }
  return undefined;
}

/** A tick label's number, whatever its unit or `#`. */
function tickValue(label: string): number {
  const value = Number(/-?[\d.]+/.exec(label)?.[0]);
  assert.ok(Number.isFinite(value), label);
  return value;
}

/**
 * The timed-out fixture made busy as a long run is: its prompt and tool calls repeated over six turns
 * (some failed), more kill attempts and an intermediate observation that found survivors before its own
 * hardening, a setup exec that failed, and its own ending (the call left in progress, the timeout). On
 * the line-order axis when `timed` is false: the action records lose their times.
 */
function busyRollout(root: string, timed: boolean): void {
  cpSync(fixture, root, { recursive: true });
  const trajectoryPath = join(root, 'trajectory/acp_trajectory.jsonl');
  const [prompt, completed, inProgress, timeout] = readFileSync(trajectoryPath, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const commands = [
    'ls -la',
    'cat README.md',
    'python3 -m pytest -q tests/test_hello.py',
    'grep -rn "Hello" .',
    'printf "Hello, world!" > hello.txt',
    'git status --short',
    'make build',
    'cat hello.txt',
  ];
  const rows: unknown[] = [];
  for (let turn = 0; turn < 6; turn++) {
    rows.push({ ...prompt, text: `Step ${turn + 1}: ${String(prompt!['text'])}` });
    commands.forEach((command, index) =>
      rows.push({
        ...completed,
        tool_call_id: `call_${turn}_${index}`,
        title: command,
        status: (turn * commands.length + index) % 7 === 3 ? 'failed' : 'completed',
      }),
    );
  }
  rows.push(inProgress, timeout);
  writeFileSync(trajectoryPath, jsonl(...rows));

  const actionsPath = join(root, 'benchguard/action_records.jsonl');
  const records = readFileSync(actionsPath, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const [kill, observation, sidecar, setup, ...rest] = records;
  const at = (second: number) => `2026-08-22T10:00:${String(second).padStart(2, '0')}Z`;
  const extra = [
    ...['pkill -u agent', 'pkill -9 -u agent || true', 'kill -9 -1 || true'].map((command, index) => ({
      ...kill,
      action_id: `b-${index}`,
      command_preview: command,
      started_at: at(41 + index),
      finished_at: at(42 + index),
    })),
    {
      ...observation,
      action_id: 'b-3',
      mode: 'observe',
      final: false,
      return_code: 1,
      survivors: [{ pid: 1234, state: 'S', ruid: 1001, euid: 1001, name: 'python3' }],
      started_at: at(45),
      finished_at: at(46),
      observed_at: at(46),
    },
  ];
  const failedSetup = {
    ...setup,
    action_id: 'b-4',
    command_preview: 'mkdir -p /logs/verifier/extra',
    return_code: 1,
    started_at: at(53),
    finished_at: at(53),
  };
  const all = [...extra, kill, observation, sidecar, setup, failedSetup, ...rest].map((record) => {
    if (timed) return record;
    const {
      started_at: _started,
      finished_at: _finished,
      observed_at: _observed,
      ...untimed
    } = record as Record<string, unknown>;
    return untimed;
  });
  writeFileSync(actionsPath, jsonl(...all));
}

describe('timeline webview layout', () => {
  const widths = [400, 800, 1400];
  const scratch = temporaryFolder('rollout-evidence-timeline-layout-');
  let view: TimelinePage;
  before(async () => {
    view = await openTimelinePage();
  });
  after(async () => {
    await view?.close();
    scratch.remove();
  });

  it('gives every kind and the bins a colour of their own, defined and far apart, in dark, light and both high-contrast themes', async () => {
    const root = join(scratch.path, 'themed');
    busyRollout(root, true);
    await view.page.setViewportSize({ width: 800, height: 900 });
    await view.show(pictureOfRollout(root, checker));
    mkdirSync(outputFolder, { recursive: true });
    try {
      for (const [name, theme] of Object.entries(themes)) {
        await view.setTheme(theme);
        const layout = await view.page.evaluate(measureLayout);
        const background = seenOver(
          await view.page.evaluate(() => getComputedStyle(document.querySelectorAll('body')[0]!).backgroundColor),
          [0, 0, 0],
        );
        const looks = layout.legend.filter((look) => !look.classes.includes('pattern'));
        assert.equal(looks.length, Object.keys(kindNames).length + 1, name);
        for (const look of looks)
          assert.ok(
            !/^rgba\(\d+, \d+, \d+, 0\)$/.test(look.colour),
            `${name}: ${look.classes} has a colour (${look.swatch || 'none'})`,
          );
        const seen = looks.map((look) => ({ classes: look.classes, rgb: seenOver(look.colour, background) }));
        // Apart by a distance an eye tells at a glance, not just unequal: 40 of the 441 from black to white.
        for (const [index, first] of seen.entries()) {
          for (const second of seen.slice(index + 1)) {
            const distance = Math.hypot(...first.rgb.map((value, channel) => value - second.rgb[channel]!));
            assert.ok(
              distance >= 40,
              `${name}: ${first.classes} and ${second.classes} are ${distance.toFixed(0)} apart`,
            );
          }
        }
        await view.page.screenshot({ path: join(outputFolder, `timeline-theme-${name}.png`), fullPage: true });
      }
    } finally {
      await view.setTheme(themes.darkModern);
    }
  });

  for (const [axis, timed] of [
    ['time', true],
    ['order', false],
  ] as const) {
    it(`on the ${axis} axis at ${widths.join(', ')} px: distinct legend colours the elements use, even round ticks, no box over another`, async () => {
      const root = join(scratch.path, axis);
      busyRollout(root, timed);
      const busy = pictureOfRollout(root, checker);
      assert.equal(busy.axis, axis);
      assert.ok(busy.elements.length >= 60, `${busy.elements.length} elements`);
      const statuses = new Set(busy.elements.map((element) => element.status));
      for (const status of ['unresolved', 'failed', 'survivors'] as const) assert.ok(statuses.has(status), status);

      await view.page.setViewportSize({ width: widths[widths.length - 1]!, height: 900 });
      await view.show(busy);
      mkdirSync(outputFolder, { recursive: true });
      // Narrowest last but one: the resizes after the first drawing are laid out again by the page itself.
      for (const width of [...widths].reverse()) {
        await view.page.setViewportSize({ width, height: 900 });
        await view.page.evaluate(
          () => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))),
        );
        const layout = await view.page.evaluate(measureLayout);
        const at = `${axis} axis, ${width} px`;

        // The legend: one colour per kind and for bins, no two alike; each element in its kind's colour.
        const colours = layout.legend.filter((look) => !look.classes.includes('pattern')).map((look) => look.colour);
        assert.equal(colours.length, Object.keys(kindNames).length + 1, at);
        assert.equal(new Set(colours).size, colours.length, `${at}: ${colours.join(' ')}`);
        assert.ok(
          colours.every((colour) => !/^rgba\(\d+, \d+, \d+, 0\)$/.test(colour)),
          `${at}: no kind is left without a colour`,
        );
        const legendOf = (classes: string) => layout.legend.find((look) => look.classes.split(' ').includes(classes))!;
        assert.equal(layout.elements.length, busy.elements.length);
        const problem = legendOf('problem');
        for (const element of layout.elements) {
          const kind = element.classes.split(' ').find((name) => name.startsWith('kind-'))!;
          assert.equal(element.swatch, legendOf(kind).swatch, `${at}: ${element.aria}`);
          assert.equal(
            element.hollow,
            legendOf(kind).hollow,
            `${at}: ${element.aria} is ${element.hollow ? '' : 'not '}hollow`,
          );
          const bad = /status-(unresolved|failed|survivors)\b/.test(element.classes);
          // Bad news is a pattern, the same on every kind and in the legend; the fill stays the kind's.
          if (bad) {
            assert.deepEqual(
              [element.borderStyle, element.pattern.startsWith('repeating-linear-gradient')],
              [problem.borderStyle, true],
              `${at}: ${element.aria}`,
            );
            if (!kind.endsWith('exec')) assert.equal(element.colour, legendOf(kind).colour, `${at}: ${element.aria}`);
          } else {
            assert.equal(element.pattern, 'none', `${at}: ${element.aria}`);
            assert.equal(element.colour, legendOf(kind).colour, `${at}: ${element.aria}`);
          }
          assert.ok(element.box.width >= 7, `${at}: ${element.aria} is ${element.box.width} px wide`);
          if (element.text)
            assert.ok(
              element.text.x >= element.box.x - 0.5 &&
                element.text.x + element.text.width <= element.box.x + element.box.width + 0.5,
              `${at}: the label of ${element.aria} stays in its box`,
            );
        }

        // Ticks: at least three, a constant step apart in pixels and in value, the step 1, 2 or 5 times a power of ten (or 15 or 30 of a unit of time).
        assert.ok(layout.ticks.length >= 3, `${at}: ${layout.ticks.length} ticks`);
        const gaps = layout.ticks.slice(1).map((tick, index) => tick.x - layout.ticks[index]!.x);
        assert.ok(Math.max(...gaps) - Math.min(...gaps) <= 1, `${at}: tick gaps ${gaps.join(', ')}`);
        const values = layout.ticks.map((tick) => tickValue(tick.label));
        const steps = values.slice(1).map((value, index) => value - values[index]!);
        assert.ok(
          steps.every((step) => Math.abs(step - steps[0]!) < 1e-9),
          `${at}: ticks ${layout.ticks.map((tick) => tick.label).join(', ')}`,
        );
        const mantissa = steps[0]! / 10 ** Math.floor(Math.log10(steps[0]!) + 1e-9);
        assert.ok(
          [1, 2, 5].some((round) => Math.abs(mantissa - round) < 1e-9) ||
            (axis === 'time' && [15, 30].includes(steps[0]!)),
          `${at}: step ${steps[0]}`,
        );
        if (axis === 'order')
          assert.ok(
            layout.ticks.every((tick) => /^#\d+$/.test(tick.label)),
            at,
          );
        else
          assert.ok(
            layout.ticks.every((tick) => / (s|min|h)$/.test(tick.label)),
            at,
          );

        // The tracks have the axis's width, its grid lines fall on its ticks, and a narrow panel still gives the axis most of its width.
        for (const [index, track] of layout.tracks.entries()) {
          assert.ok(
            Math.abs(track.x - layout.scale.x) <= 1 && Math.abs(track.width - layout.scale.width) <= 1,
            `${at}: track ${index} ${JSON.stringify(track)} under the scale ${JSON.stringify(layout.scale)}`,
          );
          assert.deepEqual(
            layout.gridlines[index]!.map((x, line) => Math.abs(x - layout.ticks[line]!.x) <= 1),
            layout.ticks.map(() => true),
            `${at}: grid lines of track ${index}`,
          );
        }
        // Beside an editor the lane names go above the tracks; wide, they take a column of 180 px.
        assert.ok(
          layout.scale.width >= width - (width < 600 ? 0 : 180) - 60,
          `${at}: the axis is ${layout.scale.width} px wide`,
        );

        // No label over another, and no element or bin over another.
        const labelClash = overlapping(
          layout.labels,
          (label) => label.box,
          (label) => label.what,
        );
        assert.equal(labelClash, undefined, `${at}: ${labelClash}`);
        const boxes = [
          ...layout.elements.map((element) => ({ what: element.aria, box: element.box })),
          ...layout.bins.map((bin) => ({ what: `bin in ${bin.lane}`, box: bin.box })),
        ];
        const boxClash = overlapping(
          boxes,
          (item) => item.box,
          (item) => item.what,
        );
        assert.equal(boxClash, undefined, `${at}: ${boxClash}`);

        await view.page.screenshot({ path: join(outputFolder, `timeline-${axis}-${width}.png`), fullPage: true });
      }
      assert.deepEqual(await view.violations(), [], 'nothing was refused by the content security policy');
    });
  }
});
