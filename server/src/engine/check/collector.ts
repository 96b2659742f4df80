/**
 * Collects a file's findings up to a limit and counts the rest, so that a file with a million broken
 * lines costs a counter, not a million diagnostics, and the user is told how many were left out.
 */
import type { ArtifactKind } from '../../../../shared/src/layout';
import type { Finding, SeverityCounts } from '../findings';
import type { FileReport } from './report';

export class FindingCollector {
  readonly findings: Finding[] = [];
  readonly counts: SeverityCounts = { error: 0, warning: 0, information: 0, hint: 0 };
  omitted = 0;

  constructor(private readonly maxFindings: number) {}

  add(finding: Finding): void {
    this.counts[finding.severity]++;
    if (this.findings.length < this.maxFindings) this.findings.push(finding);
    else this.omitted++;
  }

  /**
   * Adds a finding that must be listed whatever the maximum (one that says the file was not read whole):
   * past it, it takes the place of the last finding kept, which is counted as left out instead.
   */
  addListed(finding: Finding): void {
    this.counts[finding.severity]++;
    if (this.findings.length < this.maxFindings) this.findings.push(finding);
    else if (this.findings.length > 0) {
      this.findings[this.findings.length - 1] = finding;
      this.omitted++;
    } else this.omitted++;
  }

  addAll(findings: readonly Finding[]): void {
    for (const finding of findings) this.add(finding);
  }

  report(kind: ArtifactKind, records: number): FileReport {
    return { kind, findings: this.findings, counts: this.counts, omitted: this.omitted, records };
  }
}

/** The notice shown (as a `problems-limited` diagnostic or a CLI line) when findings were left out. */
export function limitNotice(omitted: number, maxFindings: number, settingName: string): string {
  const total = omitted + maxFindings;
  return `Showing the first ${maxFindings} of ${total} problems in this file; ${omitted} more were found but not listed. Raise ${settingName} to see them.`;
}
