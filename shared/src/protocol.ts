/**
 * Messages between the extension and the language server beyond standard LSP.
 */
import { NotificationType } from 'vscode-languageserver-protocol';

/** Sent by the client at start-up. Other editors send nothing and get every diagnostic. */
export interface InitializationOptions {
  /**
   * VS Code validates the `.json` artifacts itself through the manifest's `jsonValidation` schemas, so
   * the server leaves their syntax and schema problems to it rather than reporting them twice.
   */
  readonly jsonDocumentsValidatedByClient?: boolean;
}

/** What one validation of one document cost and found; drives the language status item. */
export interface ValidationReport {
  readonly uri: string;
  readonly version: number;
  /** The artifact kind the server recognised, or null when the file is not an artifact. */
  readonly kind: string | null;
  readonly durationMs: number;
  readonly problemCount: number;
  /** Problems left out because of `rolloutEvidence.maxNumberOfProblems`. */
  readonly omittedCount: number;
  /** The folder of the rollout the document belongs to, when it belongs to one. */
  readonly rollout: string | null;
  /** That rollout's verdict: untrusted, incomplete, trusted-timeout or trusted. */
  readonly verdict: string | null;
}

export const validationReportNotification = new NotificationType<ValidationReport>('rolloutEvidence/validationReport');
