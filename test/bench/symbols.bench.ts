/**
 * `npm run bench`: what the document symbols of a 100,000-line trajectory cost against the full check of
 * the same text, both as the language server runs them: the check that keeps its lines for the next edit
 * (naming each record as it parses it), then the outline from those lines turned into LSP symbols;
 * measured in the same run, each in a fresh process. Target: the symbols cost at most 1x the check.
 * Prints the numbers; never fails on them (machines differ).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ArtifactChecker } from '../../server/src/engine/check/artifactChecker';
import { outlineOf, outlineOfCheckedLines } from '../../server/src/engine/inspect/outline';
import { toSymbol } from '../../server/src/lsp/features/outline';
import { temporaryFolder } from '../support/repo';
import { benchmark, medianOf, type Measured } from './support';

const lines = 100_000;
const runs = 3;

interface Measurement extends Measured {
  readonly entries: number;
  /** The median of 25 one-line edits, each outlined from the one before. */
  readonly afterEditMilliseconds?: number;
}

async function measure(mode: string, path: string): Promise<Measurement> {
  const text = readFileSync(path, 'utf8');
  const checker = new ArtifactChecker();
  const check = () => checker.checkTextCancellable(text, 'acp-trajectory', { maxFindings: 1000 }, () => false);
  if (mode === 'check') {
    const started = performance.now();
    const checked = await check();
    return { milliseconds: performance.now() - started, peakRssBytes: 0, entries: checked!.report.records };
  }
  if (mode === 'symbols-from-text') {
    const started = performance.now();
    const entries = outlineOf(text, 'acp-trajectory').map(toSymbol).length;
    return { milliseconds: performance.now() - started, peakRssBytes: 0, entries };
  }
  // As the server answers: the check of this version (for the diagnostics) has already run.
  const kept = (await check())!.kept!;
  const started = performance.now();
  const entries = outlineOfCheckedLines(kept, 'acp-trajectory').map(toSymbol).length;
  const milliseconds = performance.now() - started;
  // Then one-line edits in the middle: the server checks again (reusing the lines the edit left alone),
  // then asks for the symbols; only the latter is timed here.
  let current = text;
  let previous = kept;
  const edits: number[] = [];
  for (let edit = 0; edit < 25; edit++) {
    const middle = current.indexOf('"title":"pytest', current.length >> 1);
    current = `${current.slice(0, middle)}"title":"pytest -x ${edit}${current.slice(middle + '"title":"pytest'.length)}`;
    previous = (await checker.checkTextCancellable(
      current,
      'acp-trajectory',
      { maxFindings: 1000 },
      () => false,
      previous,
    ))!.kept!;
    const editStarted = performance.now();
    outlineOfCheckedLines(previous, 'acp-trajectory').map(toSymbol);
    edits.push(performance.now() - editStarted);
  }
  edits.sort((a, b) => a - b);
  return { milliseconds, peakRssBytes: 0, entries, afterEditMilliseconds: edits[edits.length >> 1]! };
}

benchmark(measure, main);

/** A realistic mix: prompts, messages, tool calls in every status, a timeout marker now and then. */
function row(index: number): unknown {
  switch (index % 5) {
    case 0:
      return { type: 'user_message', text: `Fix the failing test in module ${index % 97} and explain the change.` };
    case 1:
      return {
        type: 'agent_message',
        text: `Looking at src/module_${index % 97}.py; the assertion on line ${index % 400} compares the wrong field.`,
      };
    case 4:
      return {
        type: 'agent_timeout',
        reason: 'wall_clock_timeout',
        timeout_sec: 300,
        pending_tool_call_ids: [`call_${index - 1}`],
        terminal_trajectory_complete: false,
      };
    default:
      return {
        type: 'tool_call',
        tool_call_id: `call_${index}`,
        kind: 'execute',
        title: `pytest tests/test_module_${index % 97}.py -k case_${index % 13}`,
        status: index % 10 === 2 ? 'in_progress' : 'completed',
        content: [],
      };
  }
}

async function main(): Promise<void> {
  const folder = temporaryFolder('rollout-evidence-bench-');
  try {
    const path = join(folder.path, 'acp_trajectory.jsonl');
    writeFileSync(path, Array.from({ length: lines }, (_, index) => `${JSON.stringify(row(index))}\n`).join(''));
    const check = await medianOf<Measurement>('check', path, runs);
    const symbols = await medianOf<Measurement>('symbols', path, runs);
    const fromText = await medianOf<Measurement>('symbols-from-text', path, runs);
    const ratio = (measured: number) => `${(measured / check.milliseconds).toFixed(2)}x the check`;
    console.log(
      `\nDocument symbols of a ${lines.toLocaleString('en')}-line trajectory (median of ${runs} runs, fresh processes):`,
    );
    console.log(
      `  full check, as the server runs it (it names each record as it parses it): ${check.milliseconds.toFixed(0)} ms (${check.entries} records)`,
    );
    console.log(
      `  document symbols from the check's lines:    ${symbols.milliseconds.toFixed(0)} ms (${symbols.entries} symbols) = ${ratio(symbols.milliseconds)} (target ≤ 1x)`,
    );
    console.log(
      `  after a one-line edit (median of 25):        ${symbols.afterEditMilliseconds!.toFixed(1)} ms = ${ratio(symbols.afterEditMilliseconds!)}`,
    );
    console.log(
      `  from the text alone (no check kept):         ${fromText.milliseconds.toFixed(0)} ms = ${ratio(fromText.milliseconds)}`,
    );
  } finally {
    folder.remove();
  }
}
