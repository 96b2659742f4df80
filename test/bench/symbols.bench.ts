/**
 * `npm run bench`: what the document symbols of a 100,000-line trajectory cost against the full check of
 * the same text, both as the language server runs them (the check that keeps its lines for the next
 * edit; the outline turned into LSP symbols), measured in the same run, each in a fresh process.
 * Target: the symbols cost at most 1x the check. Prints the numbers; never fails on them (machines differ).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ArtifactChecker } from '../../server/src/engine/check/artifactChecker';
import { outlineOf } from '../../server/src/engine/inspect/outline';
import { toSymbol } from '../../server/src/lsp/features/outline';
import { temporaryFolder } from '../support/repo';
import { benchmark, medianOf, type Measured } from './support';

const lines = 100_000;
const runs = 3;

interface Measurement extends Measured {
  readonly entries: number;
}

async function measure(mode: string, path: string): Promise<Measurement> {
  const text = readFileSync(path, 'utf8');
  if (mode === 'check') {
    const checker = new ArtifactChecker();
    const started = performance.now();
    const checked = await checker.checkTextCancellable(text, 'acp-trajectory', { maxFindings: 1000 }, () => false);
    return { milliseconds: performance.now() - started, peakRssBytes: 0, entries: checked!.report.records };
  }
  const started = performance.now();
  const entries = outlineOf(text, 'acp-trajectory').map(toSymbol).length;
  return { milliseconds: performance.now() - started, peakRssBytes: 0, entries };
}

benchmark(measure, main);

/** A realistic mix: prompts, messages, tool calls in every status, a timeout marker now and then. */
function row(index: number): unknown {
  switch (index % 5) {
    case 0:
      return { type: 'user_message', text: `Fix the failing test in module ${index % 97} and explain the change.` };
    case 1:
      return { type: 'agent_message', text: `Looking at src/module_${index % 97}.py; the assertion on line ${index % 400} compares the wrong field.` };
    case 4:
      return { type: 'agent_timeout', reason: 'wall_clock_timeout', timeout_sec: 300, pending_tool_call_ids: [`call_${index - 1}`], terminal_trajectory_complete: false };
    default:
      return { type: 'tool_call', tool_call_id: `call_${index}`, kind: 'execute', title: `pytest tests/test_module_${index % 97}.py -k case_${index % 13}`, status: index % 10 === 2 ? 'in_progress' : 'completed', content: [] };
  }
}

async function main(): Promise<void> {
  const folder = temporaryFolder('rollout-evidence-bench-');
  try {
    const path = join(folder.path, 'acp_trajectory.jsonl');
    writeFileSync(path, Array.from({ length: lines }, (_, index) => `${JSON.stringify(row(index))}\n`).join(''));
    const check = await medianOf<Measurement>('check', path, runs);
    const outline = await medianOf<Measurement>('symbols', path, runs);
    console.log(`\nDocument symbols of a ${lines.toLocaleString('en')}-line trajectory (median of ${runs} runs, fresh processes):`);
    console.log(`  full check, as the server runs it: ${check.milliseconds.toFixed(0)} ms (${check.entries} records)`);
    console.log(`  document symbols:                 ${outline.milliseconds.toFixed(0)} ms (${outline.entries} symbols) = ${(outline.milliseconds / check.milliseconds).toFixed(2)}x the check (target ≤ 1x)`);
  } finally {
    folder.remove();
  }
}
