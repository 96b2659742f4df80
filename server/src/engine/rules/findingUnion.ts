/**
 * The findings of a rollout judged under more than one reading of damaged evidence (everyReading.ts for
 * action records, everyRowReading.ts for trajectory rows): what another reading finds is added once.
 */
import type { BundleFinding } from '../findings';

/**
 * The findings of a rollout, each once: the same code at the same place from another reading adds nothing,
 * even in other words (what another reading says of a place the written one already flags changes no verdict).
 */
export class FindingUnion {
  private readonly byKey = new Map<string, BundleFinding>();

  constructor(private readonly findings: BundleFinding[]) {
    for (const finding of findings) this.byKey.set(keyOf(finding), finding);
  }

  /** Adds what is new, with `note` after its message; returns, for each finding given, the one kept. */
  addAll(findings: readonly BundleFinding[], note: string): Map<BundleFinding, BundleFinding> {
    const kept = new Map<BundleFinding, BundleFinding>();
    for (const finding of findings) {
      const key = keyOf(finding);
      let existing = this.byKey.get(key);
      if (!existing) {
        existing = { ...finding, message: `${finding.message} (${note})`, underReading: true };
        this.byKey.set(key, existing);
        this.findings.push(existing);
      }
      kept.set(finding, existing);
    }
    return kept;
  }
}

function keyOf(finding: BundleFinding): string {
  const { start, end } = finding.range;
  return [finding.code, finding.file, start.line, start.character, end.line, end.character].join('\u0000');
}
