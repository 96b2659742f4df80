/**
 * `npm run bench`, third part: the timeline of a rollout with a 100,000-line trajectory, against the
 * foundation's full check of that trajectory file, measured in the same run: the picture's build (rules
 * included, as the server evaluates them) and its first paint in headless Chromium (from posting the
 * picture to the frame after it is drawn), each as a ratio to the full check, and how many elements
 * were drawn. Target: the paint draws at most a few thousand elements. Prints the numbers; never fails
 * on them.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ArtifactChecker } from '../../server/src/engine/check/artifactChecker';
import { fixtures } from '../fixtures/definitions';
import { writeTree } from '../support/files';
import { temporaryFolder } from '../support/repo';
import { pictureOfRollout } from '../webview/picture';
import { openTimelinePage } from '../webview/timelinePage';
import { benchmark, medianOf, megabyte, stringHeavyRow, writeTrajectory, type Measured } from './support';

const trajectoryLines = 100_000;
const drawnTarget = 3000;

type Mode = 'check' | 'picture' | 'paint';

interface Measurement extends Measured {
  /** For the picture: the build alone, after the rollout was read and its rules ran. */
  readonly buildMilliseconds?: number;
  readonly drawn?: number;
}

// ---------------------------------------------------------------------------------------------------
// Child side.

async function measure(mode: string, root: string): Promise<Measurement> {
  const checker = new ArtifactChecker();
  const trajectory = join(root, 'trajectory/acp_trajectory.jsonl');
  if (mode === 'check') {
    const started = performance.now();
    checker.checkFile(trajectory, 'acp-trajectory', { maxFindings: 1000 });
    return { milliseconds: performance.now() - started, peakRssBytes: 0 };
  }
  if (mode === 'picture') {
    const started = performance.now();
    let buildStarted = 0;
    const picture = pictureOfRollout(root, checker, {}, () => (buildStarted = performance.now()));
    const ended = performance.now();
    return {
      milliseconds: ended - started,
      buildMilliseconds: ended - buildStarted,
      drawn: picture.elements.length + picture.bins.length,
      peakRssBytes: 0,
    };
  }
  const picture = pictureOfRollout(root, checker);
  const page = await openTimelinePage();
  try {
    const { milliseconds, drawn } = await page.show(picture);
    return { milliseconds, drawn, peakRssBytes: 0 };
  } finally {
    await page.close();
  }
}

benchmark(measure, main);

// ---------------------------------------------------------------------------------------------------
// Parent side.

/** The timed-out fixture with a 100,000-line trajectory (long string-heavy rows) in place of its own. */
function buildBundle(root: string): number {
  const timedOut = fixtures.find((fixture) => fixture.name === 'native-timeout-pending-tool')!;
  writeTree(root, timedOut.files);
  const path = join(root, 'trajectory/acp_trajectory.jsonl');
  // Sized to the line count: about 1.4 KB a row.
  const rows = writeTrajectory(path, trajectoryLines * 1400, stringHeavyRow);
  const ending = timedOut.files['trajectory/acp_trajectory.jsonl']!;
  writeFileSync(path, ending, { flag: 'a' });
  return rows + ending.trimEnd().split('\n').length;
}

async function main(): Promise<void> {
  const folder = temporaryFolder('rollout-evidence-timeline-bench-');
  try {
    const root = join(folder.path, 'rollout');
    const lines = buildBundle(root);
    console.log(
      `Timeline of one rollout with a ${lines.toLocaleString('en')}-line trajectory; median of 3 fresh processes.`,
    );
    const check = await medianOf<Measurement>('check' satisfies Mode, root);
    const picture = await medianOf<Measurement>('picture' satisfies Mode, root);
    const paint = await medianOf<Measurement>('paint' satisfies Mode, root);
    const ratio = (milliseconds: number) => `${(milliseconds / check.milliseconds).toFixed(3)}x`;
    console.log(
      `  full check of the trajectory (foundation) ${check.milliseconds.toFixed(0).padStart(6)} ms  peak RSS ${(check.peakRssBytes / megabyte).toFixed(0)} MB`,
    );
    console.log(
      `  read, rules and picture of the rollout    ${picture.milliseconds.toFixed(0).padStart(6)} ms  ${ratio(picture.milliseconds)}  peak RSS ${(picture.peakRssBytes / megabyte).toFixed(0)} MB`,
    );
    console.log(
      `  the picture's build alone                 ${picture.buildMilliseconds!.toFixed(1).padStart(6)} ms  ${ratio(picture.buildMilliseconds!)}`,
    );
    console.log(
      `  first paint in Chromium                   ${paint.milliseconds.toFixed(1).padStart(6)} ms  ${ratio(paint.milliseconds)}  (${paint.drawn} elements drawn)`,
    );
    console.log(
      `  target: the paint draws ≤ ${drawnTarget} elements: ${paint.drawn!} ${paint.drawn! <= drawnTarget ? 'met' : 'MISSED'}`,
    );
  } finally {
    folder.remove();
  }
}
