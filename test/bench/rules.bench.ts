/**
 * `npm run bench`, second part: the evidence rules on a rollout with a 50 MB trajectory and a
 * 100,000-line action log. Targets: the full pass (per-file checks and rules) costs at most 1.5x the
 * per-file checks of the same bundle. The edit, as the client sees it: a rollout whose only large file
 * is a 100,000-line action log, open in the real language server; one line changed, from didChange
 * sent to the diagnostic report received, against a full pass (checks, rules, verdict) over the same
 * rollout alone, in a process of its own. Target: a single edit ≤ 5% of that full pass. A single edit
 * is one made after a pause in typing (editQuietMs since the edit before), which the server validates
 * at once; edits made back to back, each as soon as the previous one's report arrives, are timed too:
 * those within editQuietMs of the edit before are a burst of typing, and wait for it to pause. Prints
 * the numbers, and "missed" where a target is; never fails on them.
 */
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { checkBundle } from '../../server/src/engine/checkRollout';
import { ArtifactChecker } from '../../server/src/engine/check/artifactChecker';
import { defaultRuleOptions } from '../../server/src/engine/rules/context';
import { ModelCaches } from '../../server/src/engine/model/caches';
import { fixtures } from '../fixtures/definitions';
import { writeTree } from '../support/files';
import { temporaryFolder } from '../support/repo';
import { actionLogPath, largeActionLog, writeRolloutWithLargeActionLog } from '../support/largeActionLog';
import { LspTestClient } from '../support/lspClient';
import { editQuietMs } from '../../server/src/lsp/documentStore';
import { discoverRollout } from '../support/rollout';
import { benchmark, medianOf, megabyte, stringHeavyRow, writeTrajectory, type Measured } from './support';

/** Edits in a row, as typing makes them: the median is the cost once the server has warmed up. */
const edits = 25;
const actionLines = 100_000;

type Mode = 'per-file' | 'full-pass';

interface Measurement extends Measured {
  readonly verdict?: string;
}

// ---------------------------------------------------------------------------------------------------
// Child side.

async function measure(mode: string, root: string): Promise<Measurement> {
  const checker = new ArtifactChecker();
  // Found before the clock starts: the modes time the checks, not the walk of the folder.
  const bundle = discoverRollout(root);
  if (mode === 'per-file') {
    const started = performance.now();
    for (const file of bundle.files) checker.checkFile(file.path, file.kind, { maxFindings: 1000 });
    return { milliseconds: performance.now() - started, peakRssBytes: 0 };
  }
  if (mode === 'full-pass') {
    const started = performance.now();
    const checked = checkBundle(bundle, checker, {
      maxFindings: 1000,
      rules: defaultRuleOptions,
      caches: new ModelCaches(),
    });
    return { milliseconds: performance.now() - started, peakRssBytes: 0, verdict: checked.evaluation?.verdict };
  }
  throw new Error(`unknown mode ${mode}`);
}

interface EditFigures {
  /** didOpen sent to the first diagnostic report received: the server's first evaluation, as the client waits for it. */
  readonly openMilliseconds: number;
  /** Single edits: each sent editQuietMs after the previous one's report arrived. */
  readonly single: TimedEdits;
  /** Each sent as soon as the previous one's report arrived. */
  readonly backToBack: TimedEdits;
}

interface TimedEdits {
  readonly firstMilliseconds: number;
  readonly medianMilliseconds: number;
}

/**
 * The action log of the rollout at `root` open in the real server (pull diagnostics); `edits` one-line
 * changes made one at a time, then `edits` more back to back, each timed from didChange sent to its
 * diagnostic report received, as the client sees it.
 */
async function editsAsTheClientSees(root: string): Promise<EditFigures> {
  const { client } = await LspTestClient.start({ pull: true, settings: {} });
  try {
    const text = largeActionLog(actionLines);
    const lines = text.split('\n');
    const uri = pathToFileURL(join(root, actionLogPath)).href;
    let started = performance.now();
    await client.open(uri, text);
    await client.pull(uri);
    const openMilliseconds = performance.now() - started;
    let version = 1;
    const timed = async (firstLine: number, pauseMs: number): Promise<TimedEdits> => {
      const times: number[] = [];
      for (let edit = 0; edit < edits; edit++) {
        const line = firstLine + edit * 1_999;
        const changed = lines[line]!.replace('"return_code":0', '"return_code":1');
        const range = { start: { line, character: 0 }, end: { line, character: lines[line]!.length } };
        if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
        started = performance.now();
        await client.edit(uri, ++version, [{ range, text: changed }]);
        await client.pull(uri);
        times.push(performance.now() - started);
      }
      const firstMilliseconds = times[0]!;
      times.sort((a, b) => a - b);
      return { firstMilliseconds, medianMilliseconds: times[Math.floor(times.length / 2)]! };
    };
    const single = await timed(40_000, editQuietMs);
    const backToBack = await timed(41_000, 0);
    return { openMilliseconds, single, backToBack };
  } finally {
    await client.stop();
  }
}

benchmark(measure, main);

// ---------------------------------------------------------------------------------------------------
// Parent side.

/** The healthy fixture, with a 50 MB trajectory and a 100,000-line action log. */
function buildBundle(root: string): void {
  const healthy = fixtures.find((fixture) => fixture.name === 'healthy')!;
  writeTree(root, healthy.files);

  const rows = writeTrajectory(join(root, 'trajectory/acp_trajectory.jsonl'), 50 * megabyte, stringHeavyRow);
  // result.json describes the trajectory truthfully, so that the rollout stays trusted and every rule runs to its end.
  let toolCalls = 0;
  for (let index = 0; index < rows; index++)
    if ((stringHeavyRow(index) as { type: string }).type === 'tool_call') toolCalls++;
  const result = JSON.parse(healthy.files['result.json']!) as { trajectory_summary: Record<string, unknown> };
  result.trajectory_summary = {
    ...result.trajectory_summary,
    steps: rows,
    tool_call_steps: toolCalls,
    tool_call_status_counts: { completed: toolCalls },
  };
  writeFileSync(join(root, 'result.json'), JSON.stringify(result, null, 2));

  writeFileSync(join(root, actionLogPath), largeActionLog(actionLines));
}

async function main(): Promise<void> {
  const folder = temporaryFolder('rollout-evidence-rules-bench-');
  try {
    const root = join(folder.path, 'rollout');
    buildBundle(root);
    const trajectoryMb = statSync(join(root, 'trajectory/acp_trajectory.jsonl')).size / megabyte;
    const actionsMb = statSync(join(root, 'benchguard/action_records.jsonl')).size / megabyte;
    console.log(
      `Evidence rules on one rollout: ${trajectoryMb.toFixed(1)} MB trajectory, ${actionLines} action records (${actionsMb.toFixed(1)} MB); median of 3 fresh processes.`,
    );

    const perFile = await medianOf<Measurement>('per-file' satisfies Mode, root);
    const full = await medianOf<Measurement>('full-pass' satisfies Mode, root);
    const fullRatio = full.milliseconds / perFile.milliseconds;
    console.log(
      `  per-file checks of the bundle           ${perFile.milliseconds.toFixed(0).padStart(6)} ms  peak RSS ${(perFile.peakRssBytes / megabyte).toFixed(0)} MB`,
    );
    console.log(
      `  full pass: checks, rules, verdict       ${full.milliseconds.toFixed(0).padStart(6)} ms  peak RSS ${(full.peakRssBytes / megabyte).toFixed(0)} MB  (verdict ${full.verdict})`,
    );
    console.log(
      `  target: full pass ≤ 1.5x per-file checks: ${fullRatio.toFixed(2)}x ${fullRatio <= 1.5 ? 'met' : 'missed'}`,
    );

    // The edit: the rollout alone (no 50 MB trajectory in it), its action log open in the server.
    const editRoot = join(folder.path, 'edited');
    writeRolloutWithLargeActionLog(editRoot, actionLines);
    const editFull = await medianOf<Measurement>('full-pass' satisfies Mode, editRoot);
    const edited = await editsAsTheClientSees(editRoot);
    const share = (milliseconds: number) => milliseconds / editFull.milliseconds;
    const percent = (milliseconds: number) => `${(share(milliseconds) * 100).toFixed(1)}%`;
    const { single, backToBack } = edited;
    console.log(
      `Edits of the ${actionLines.toLocaleString('en')}-line action log, its rollout alone, as the client sees them (real server, pull diagnostics):`,
    );
    console.log(
      `  full pass over the rollout, in process  ${editFull.milliseconds.toFixed(0).padStart(6)} ms  (verdict ${editFull.verdict})`,
    );
    console.log(`  didOpen to the first report            ${edited.openMilliseconds.toFixed(0).padStart(6)} ms`);
    console.log(
      `  a single one-line edit (${editQuietMs} ms after the report of the one before), didChange to report: first ${single.firstMilliseconds.toFixed(1)} ms = ${percent(single.firstMilliseconds)},` +
        ` median of ${edits} ${single.medianMilliseconds.toFixed(1)} ms = ${percent(single.medianMilliseconds)} of the full pass`,
    );
    // An edit within editQuietMs of the one before is typing: the server waits for the burst to pause
    // (editQuietMs after its last edit) before any work, by design.
    console.log(
      `  one-line edits back to back (each as soon as the report of the one before arrives): first ${backToBack.firstMilliseconds.toFixed(1)} ms,` +
        ` median of ${edits} ${backToBack.medianMilliseconds.toFixed(1)} ms = ${percent(backToBack.medianMilliseconds)}` +
        ` (one within ${editQuietMs} ms of the edit before waits for a pause of ${editQuietMs} ms)`,
    );
    console.log(
      `  target: a single edit ≤ 5% of a full pass over the same rollout, as the client sees it: ${percent(single.medianMilliseconds)} ${share(single.medianMilliseconds) <= 0.05 ? 'met' : 'missed'}` +
        `; back to back: ${percent(backToBack.medianMilliseconds)} ${share(backToBack.medianMilliseconds) <= 0.05 ? 'met' : 'missed'}`,
    );
  } finally {
    folder.remove();
  }
}
