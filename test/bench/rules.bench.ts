/**
 * `npm run bench`, second part: the evidence rules on a rollout with a 50 MB trajectory and a
 * 100,000-line action log. Targets: the full pass (per-file checks and rules) costs at most 1.5x the
 * per-file checks of the same bundle; re-evaluating after a one-line edit of the action log (as the
 * language server does, reusing unchanged lines) costs at most 5% of a full pass. Prints the numbers;
 * never fails on them.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { defaultSettings } from '../../shared/src/settings';
import { ArtifactClassifier } from '../../server/src/engine/artifacts/classify';
import { checkBundle } from '../../server/src/engine/bundle/checkBundle';
import { ArtifactChecker } from '../../server/src/engine/check/artifactChecker';
import { defaultRuleOptions } from '../../server/src/engine/rules/context';
import { ModelCaches } from '../../server/src/engine/model/caches';
import { RolloutEvaluator } from '../../server/src/lsp/rolloutEvaluator';
import { fixtures } from '../fixtures/definitions';
import { writeTree } from '../support/files';
import { temporaryFolder } from '../support/repo';
import { actionLogPath, largeActionLog } from '../support/largeActionLog';
import { discoverRollout } from '../support/rollout';
import { benchmark, medianOf, megabyte, stringHeavyRow, writeTrajectory, type Measured } from './support';

/** Edits in a row, as typing makes them: the median is the cost once the server has warmed up. */
const edits = 25;
const actionLines = 100_000;

type Mode = 'per-file' | 'full-pass' | 'incremental';

interface Measurement extends Measured {
  /** For the incremental mode: the first, full evaluation, and the first edit after it. */
  readonly fullMilliseconds?: number;
  readonly firstEditMilliseconds?: number;
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
  // The language server's path: the action log open in the editor, the trajectory on disk.
  const evaluator = new RolloutEvaluator(checker, () => true);
  const classifier = new ArtifactClassifier();
  const actionsPath = join(root, 'benchguard/action_records.jsonl');
  let document = TextDocument.create(`file://${actionsPath}`, 'jsonl', 1, readFileSync(actionsPath, 'utf8'));
  const open = (path: string) => (path === actionsPath ? document : undefined);
  let started = performance.now();
  const first = await evaluator.evaluate(root, defaultSettings, classifier, 0, open, () => false);
  const fullMilliseconds = performance.now() - started;
  const times: number[] = [];
  for (let edit = 0; edit < edits; edit++) {
    const line = 40_000 + edit * 7_919;
    const text = document.getText({ start: { line, character: 0 }, end: { line: line + 1, character: 0 } });
    const changed = text.replace('"return_code":0', '"return_code":1');
    document = TextDocument.update(
      document,
      [{ range: { start: { line, character: 0 }, end: { line: line + 1, character: 0 } }, text: changed }],
      document.version + 1,
    );
    started = performance.now();
    await evaluator.evaluate(root, defaultSettings, classifier, 0, open, () => false);
    times.push(performance.now() - started);
  }
  const firstEditMilliseconds = times[0]!;
  times.sort((a, b) => a - b);
  return {
    milliseconds: times[Math.floor(times.length / 2)]!,
    fullMilliseconds,
    firstEditMilliseconds,
    peakRssBytes: 0,
    verdict: first?.evaluation.verdict,
  };
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
    const incremental = await medianOf<Measurement>('incremental' satisfies Mode, root);
    const fullRatio = full.milliseconds / perFile.milliseconds;
    const editShare = incremental.milliseconds / incremental.fullMilliseconds!;
    console.log(
      `  per-file checks of the bundle           ${perFile.milliseconds.toFixed(0).padStart(6)} ms  peak RSS ${(perFile.peakRssBytes / megabyte).toFixed(0)} MB`,
    );
    console.log(
      `  full pass: checks, rules, verdict       ${full.milliseconds.toFixed(0).padStart(6)} ms  peak RSS ${(full.peakRssBytes / megabyte).toFixed(0)} MB  (verdict ${full.verdict})`,
    );
    console.log(`  server: first evaluation, log in editor ${incremental.fullMilliseconds!.toFixed(0).padStart(6)} ms`);
    console.log(
      `  server: the first one-line edit         ${incremental.firstEditMilliseconds!.toFixed(1).padStart(6)} ms  (before the engine has optimised the reuse path)`,
    );
    console.log(
      `  server: a one-line edit, median of ${edits}   ${incremental.milliseconds.toFixed(1).padStart(6)} ms  peak RSS ${(incremental.peakRssBytes / megabyte).toFixed(0)} MB`,
    );
    console.log(
      `  target: full pass ≤ 1.5x per-file checks: ${fullRatio.toFixed(2)}x ${fullRatio <= 1.5 ? 'met' : 'MISSED'}`,
    );
    console.log(
      `  target: re-evaluation after an edit ≤ 5% of a full pass: ${(editShare * 100).toFixed(1)}% ${editShare <= 0.05 ? 'met' : 'MISSED'}`,
    );
  } finally {
    folder.remove();
  }
}
