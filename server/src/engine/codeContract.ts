/**
 * What a diagnostic code promises. Each code is declared once, beside the checks that raise it: in the
 * `contract.ts` of its rule's folder under engine/rules/, or in engine/check/contract.ts for a file's own
 * problems. codes.ts assembles them into the one list the engine, the CLI's JSON and SARIF output and
 * README's code table (scripts/codeTable.mjs) read.
 *
 * `effect` is what a finding does to its rollout's verdict: `untrusted` when the bundle's own evidence
 * shows a failed or unchecked precondition of its reward, `incomplete` when evidence is missing,
 * malformed or not yet final.
 */
/** How a finding is shown; with `effect`, the two things a code's contract fixes. */
export type Severity = 'error' | 'warning' | 'information' | 'hint';

export type Effect = 'untrusted' | 'incomplete' | 'none';

export interface CodeContract {
  /** The severity a finding of this code has unless its check says otherwise (see `severityNote`). */
  readonly severity: Severity;
  /** When, and at what severity, a finding deviates from `severity`: README's severity cell adds it in parentheses. */
  readonly severityNote?: string;
  readonly effect: Effect;
  /** One sentence: the SARIF rule's short description. */
  readonly summary: string;
  /**
   * What raises the finding and where it is placed, in full: the SARIF rule's full description and help.
   * Code spans in backquotes are the only markup (the plain text drops the backquotes).
   */
  readonly description: string;
  /**
   * README's row for the code, where it is not `description` as it stands: a row may link to other
   * sections of README, which SARIF's help, read on its own, cannot.
   */
  readonly readme?: string;
}

/** The codes one folder's checks raise, in their public order (codes.ts). */
export type CodeContracts = Readonly<Record<string, CodeContract>>;
