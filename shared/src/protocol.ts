/**
 * Messages between the extension and the language server beyond standard LSP.
 */
import { NotificationType, RequestType } from 'vscode-languageserver-protocol';
import type { ContainerListing, DockerAccess, ProbeOutcome, ProbeRequest, TranscriptEntry } from './probe';

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

/** What the probe command needs to know about the rollout of the active editor, if any. */
export interface ProbeContextParams {
  /** The active editor's document. */
  readonly uri?: string;
}

export interface ProbeContext {
  readonly rolloutRoot: string | null;
  /**
   * config.json's sandbox user: a name, null when the agent ran as root (nothing to observe), or absent
   * when there is no rollout or its config.json cannot tell.
   */
  readonly sandboxUser?: string | null;
  /** Where the rollout keeps its action records, whether or not the file exists yet. */
  readonly actionRecords: string | null;
}

export const probeContextRequest = new RequestType<ProbeContextParams, ProbeContext, void>('rolloutEvidence/probeContext');

export interface ProbeTargetsParams {
  readonly dockerAccess: DockerAccess;
}

export const probeTargetsRequest = new RequestType<ProbeTargetsParams, ContainerListing, void>('rolloutEvidence/probeTargets');

export interface RunProbeParams {
  readonly request: ProbeRequest;
  /** Names this run in its transcript notifications. */
  readonly transcriptId: string;
}

export interface RunProbeResult {
  readonly outcome: ProbeOutcome;
  /** The outcome as one `SandboxUserQuiescence` JSONL line, without its newline. */
  readonly recordLine: string;
}

/** Runs the probe; cancelling the request cancels the probe, which then reports that nothing was observed. */
export const runProbeRequest = new RequestType<RunProbeParams, RunProbeResult, void>('rolloutEvidence/runProbe');

export interface ProbeTranscriptParams {
  readonly transcriptId: string;
  readonly entry: TranscriptEntry;
}

/** Each transcript entry as it happens, so the output channel follows a probe that takes seconds. */
export const probeTranscriptNotification = new NotificationType<ProbeTranscriptParams>('rolloutEvidence/probeTranscript');

/**
 * The client command that opens a rollout's timeline; the server's code lenses name it. Its argument is
 * the rollout folder's URI, as a string (LSP carries no vscode.Uri).
 */
export const showTimelineCommand = 'rolloutEvidence.showTimeline';
