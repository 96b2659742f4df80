/** What a fuzz run prints: its seed and counts, and each class of failure once, with a minimal reproducer. */
import type { Failure } from './fuzzInput';
import type { FuzzSettings } from './inputs';
import type { FuzzCounts } from './pool';

export function countsReport(
  title: string,
  settings: FuzzSettings,
  counts: FuzzCounts,
  workers: number,
  seconds: number,
): string {
  const operators = Object.entries(counts.byOperator)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([operator, count]) => `${operator} ${count.inputs} (${count.damaging} damaging)`)
    .join(', ');
  const transitions = Object.entries(counts.transitions)
    .sort(([, a], [, b]) => b - a)
    .map(([transition, count]) => `${transition}: ${count}`)
    .join(', ');
  return [
    `${title}: seed ${settings.seed} (ROLLOUT_EVIDENCE_FUZZ_SEED), ${counts.inputs} inputs (ROLLOUT_EVIDENCE_FUZZ_INPUTS), ${workers} worker(s), ${seconds.toFixed(1)} s`,
    `  ${counts.damaging} damaging; by operator: ${operators}`,
    `  verdicts changed by damaging inputs: ${transitions || 'none'}`,
    `  most CPU for one input: ${Math.round(counts.maxCpu.ms)} ms (input ${counts.maxCpu.index}, ${counts.maxCpu.bytes} bytes); peak worker RSS ${Math.round(counts.peakRssBytes / 2 ** 20)} MB`,
  ].join('\n');
}

/** Failures grouped by class, the most frequent first, each with its first input's reproducer. */
export function failuresReport(settings: FuzzSettings, failures: readonly Failure[], program: string): string {
  const classes = new Map<string, Failure[]>();
  for (const failure of failures) {
    const members = classes.get(failure.classKey);
    if (members) members.push(failure);
    else classes.set(failure.classKey, [failure]);
  }
  const sorted = [...classes.values()].sort((a, b) => b.length - a.length);
  const sections = sorted.map((members, number) => {
    // Each worker shrinks the first failure of a class it meets; the reproducer shown is the first of those.
    const first = [...members].sort((a, b) => a.index - b.index)[0]!;
    const fixtures = [...new Set(members.map((member) => member.fixture))];
    return [
      `#${number + 1} ${first.classKey}`,
      `  ${members.length} input(s), in ${fixtures.length} bundle(s): ${fixtures.slice(0, 6).join(', ')}${fixtures.length > 6 ? ', …' : ''}`,
      `  first: input ${first.index}, bundle ${first.fixture}, file ${first.file}, ${first.operator}: ${first.mutation}`,
      `  ${first.detail.split('\n').join('\n  ')}`,
      `  replay: ROLLOUT_EVIDENCE_FUZZ_SEED=${settings.seed} ROLLOUT_EVIDENCE_FUZZ_ONLY=${first.index}${settings.operator ? ` ROLLOUT_EVIDENCE_FUZZ_OPERATOR=${settings.operator}` : ''} node ${program}`,
      `  minimal reproducer:`,
      `    ${first.reproducer.split('\n').join('\n    ')}`,
    ].join('\n');
  });
  return `${failures.length} failing input(s) in ${classes.size} class(es):\n${sections.join('\n')}`;
}
