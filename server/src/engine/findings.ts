/**
 * What the engine reports: findings placed on exact text ranges. Lines and characters are 0-based and
 * characters count UTF-16 code units, as LSP and SARIF do; presenters convert for people.
 */
import type { Effect, Severity } from './codeContract';
import type { DiagnosticCode } from './codes';

/** How many findings of each severity. */
export type SeverityCounts = Record<Severity, number>;

export interface TextPosition {
  readonly line: number;
  readonly character: number;
}

export interface TextRange {
  readonly start: TextPosition;
  readonly end: TextPosition;
}

/** Evidence in another place (possibly another file) that explains a finding. */
export interface RelatedEvidence {
  /** Path of the file holding the evidence. */
  readonly file: string;
  readonly range: TextRange;
  readonly message: string;
}

export interface Finding {
  readonly code: DiagnosticCode;
  readonly severity: Severity;
  readonly message: string;
  readonly range: TextRange;
  readonly related?: readonly RelatedEvidence[];
  /** Overrides the code's effect on the verdict, for a finding that only informs. */
  readonly effect?: Effect;
}

/** A finding of the rules, which may concern any file of a rollout. */
export interface BundleFinding extends Finding {
  readonly file: string;
  /** Who raised it: the evidence rules, over the whole rollout, or the file's own check (syntax, schema, encoding). */
  readonly source: 'rules' | 'file';
  /**
   * Set when it holds only under another reading of damaged evidence than as written (rules/context.ts
   * `holdsWhen`): views that say what the rollout shows as written (inspect/rolloutSummary.ts) leave it out.
   */
  readonly underReading?: true;
}

/** A file's own finding (syntax, schema, encoding), placed in `file` among the rollout's. */
export function fileFinding(finding: Finding, file: string): BundleFinding {
  return { ...finding, file, source: 'file' };
}

export function rangeOnLine(line: number, startCharacter: number, endCharacter: number): TextRange {
  return { start: { line, character: startCharacter }, end: { line, character: endCharacter } };
}

export function comparePositions(a: TextPosition, b: TextPosition): number {
  return a.line - b.line || a.character - b.character;
}

/**
 * A file's findings as they are listed: its own and the rules', in position order, at most `max` of
 * them; `omitted` counts the rest with those its own check already left out.
 */
export function listFindings<T extends Finding>(
  own: readonly T[],
  ownOmitted: number,
  rules: readonly T[],
  max: number,
): { listed: T[]; omitted: number } {
  const all = [...own, ...rules].sort((a, b) => comparePositions(a.range.start, b.range.start));
  return { listed: all.slice(0, max), omitted: ownOmitted + Math.max(0, all.length - max) };
}
