/**
 * Messages between the extension and the language server beyond standard LSP: every custom request and
 * notification is declared here, with its params. The data they carry lives with its concept (probe.ts,
 * rollouts.ts, scaffold.ts, timelinePicture.ts, processUsage.ts).
 */
import {
  NotificationType,
  NotificationType0,
  ParameterStructures,
  RequestType,
  RequestType0,
} from 'vscode-languageserver-protocol';
import type { ContainerListing, DockerAccess, ProbeOutcome, ProbeRequest, TranscriptEntry } from './probe';
import type { ProcessUsage } from './processUsage';
import type { ExperimentSummaryResult, RolloutsResult, RolloutVerdict } from './rollouts';
import type { ScaffoldFiles, ScenarioSummary } from './scaffold';
import type { TimelinePicture, TimelineRange } from './timelinePicture';

/**
 * Our requests take one object of named params, as LSP's own do: declared so, params sent by position
 * (an array) are refused with InvalidParams by the protocol library before any handler sees them, instead
 * of being spread into the handler's arguments.
 */
export function requestWithNamedParams<P, R>(method: string): RequestType<P, R, void> {
  return new RequestType<P, R, void>(method, ParameterStructures.byName);
}

/** Sent by the client at start-up. */
export interface InitializationOptions {
  /**
   * Whether the user trusts the workspace (VS Code's workspace trust). The server runs the probe only
   * when this is true, or, for a client that does not send it, when `rolloutEvidence.probe.trustedWorkspace`
   * says so. Trust granted later arrives as `workspaceTrustGrantedNotification`.
   */
  readonly workspaceTrusted?: boolean;
}

/**
 * The user granted the workspace trust after the server started. VS Code never takes trust back from a
 * running window (it reloads instead), so trust only ever goes this one way.
 */
export const workspaceTrustGrantedNotification = new NotificationType0('rolloutEvidence/workspaceTrustGranted');

/** The code of the error that refuses `runProbe` in a workspace the client did not say it trusts. */
export const workspaceNotTrustedErrorCode = -31001;

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
  /** That rollout's verdict. */
  readonly verdict: RolloutVerdict | null;
}

export const validationReportNotification = new NotificationType<ValidationReport>('rolloutEvidence/validationReport');

/**
 * The documents the editor shows in tabs, sent by the client whenever its tabs change. VS Code pulls the
 * diagnostics of those alone, and drops a document's when its tab closes, while the document may stay
 * synchronised for minutes: the server pushes the diagnostics of a rollout's other files, and takes
 * this list, not the synchronised documents, for the files the editor shows. Without it (other
 * editors), every synchronised document counts as shown.
 */
export interface ShownDocumentsParams {
  readonly uris: readonly string[];
}

export const shownDocumentsNotification = new NotificationType<ShownDocumentsParams>('rolloutEvidence/shownDocuments');

/** What the probe command needs to know about the rollout of the active editor, if any. */
export interface ProbeContextParams {
  /** The active editor's document. */
  readonly uri?: string;
}

export interface ProbeContext {
  readonly rolloutRoot: string | null;
  /**
   * The rollout's sandbox user as the rules read it (from run_config.json, else config.json, else
   * metadata.json): a name, null when the agent ran as root (nothing to observe), or absent when there
   * is no rollout or its config cannot tell.
   */
  readonly sandboxUser?: string | null;
  /** Where the rollout keeps its action records, whether or not the file exists yet. */
  readonly actionRecords: string | null;
}

export const probeContextRequest = requestWithNamedParams<ProbeContextParams, ProbeContext>(
  'rolloutEvidence/probeContext',
);

export interface ProbeTargetsParams {
  readonly dockerAccess: DockerAccess;
}

export const probeTargetsRequest = requestWithNamedParams<ProbeTargetsParams, ContainerListing>(
  'rolloutEvidence/probeTargets',
);

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
export const runProbeRequest = requestWithNamedParams<RunProbeParams, RunProbeResult>('rolloutEvidence/runProbe');

export interface ProbeTranscriptParams {
  readonly transcriptId: string;
  readonly entry: TranscriptEntry;
}

/** Each transcript entry as it happens, so the output channel follows a probe that takes seconds. */
export const probeTranscriptNotification = new NotificationType<ProbeTranscriptParams>(
  'rolloutEvidence/probeTranscript',
);

export interface RolloutsParams {
  /** Folders to search for rollouts (the workspace folders), as file-system paths. */
  readonly folders: readonly string[];
  /** At most this many rollouts are evaluated and listed; the rest are counted in the notice. */
  readonly maxRollouts: number;
}

/** The Rollouts view's listing. Cancelling it stops the evaluation between files. */
export const rolloutsRequest = requestWithNamedParams<RolloutsParams, RolloutsResult>('rolloutEvidence/rollouts');

export interface WorkspaceProblemsParams {
  /** Folders to search for rollouts (the workspace folders), as file-system paths. */
  readonly folders: readonly string[];
  /** At most this many rollouts have their problems shown (`rolloutEvidence.workspaceProblems.maxRollouts`). */
  readonly maxRollouts: number;
}

export interface WorkspaceProblemsResult {
  /** Rollouts whose problems are now shown in every file, as their files change. */
  readonly shown: number;
  /** Rollouts found, shown or not. */
  readonly found: number;
  /** Set when rollouts were found but left out by the bound, saying how many and how to see them. */
  readonly notice?: string;
  /** Folders that could not be searched; one line each. */
  readonly ioErrors: readonly string[];
}

/**
 * Shows the problems of every rollout under the folders (up to the bound) in the files no editor holds,
 * pushed as `textDocument/publishDiagnostics` and kept up to date as the files change. Asked again, it
 * replaces the set it shows. Cancelling it stops the evaluation between rollouts.
 */
export const workspaceProblemsRequest = requestWithNamedParams<WorkspaceProblemsParams, WorkspaceProblemsResult>(
  'rolloutEvidence/showWorkspaceProblems',
);

export interface ExperimentSummaryParams {
  /**
   * The folder whose rollouts are summarised, as a file-system path: a job folder, or a workspace folder
   * for the whole experiment.
   */
  readonly folder: string;
}

/**
 * The experiment summary of every rollout under the folder, each evaluated as its diagnostics are and
 * summarised as the CLI summarises it. Cancelling it stops the evaluation between rollouts.
 */
export const experimentSummaryRequest = requestWithNamedParams<ExperimentSummaryParams, ExperimentSummaryResult>(
  'rolloutEvidence/experimentSummary',
);

export interface TimelineParams {
  /** The rollout's folder. */
  readonly root: string;
  /** Detail for this part of the axis; the whole rollout when absent. */
  readonly range?: TimelineRange;
}

/** The picture of a rollout, evaluated as its diagnostics are; fails with a message when `root` is no rollout. */
export const timelineRequest = requestWithNamedParams<TimelineParams, TimelinePicture>('rolloutEvidence/timeline');

/** The fixture scenarios New Fixture Bundle offers. */
export const scaffoldScenariosRequest = new RequestType0<readonly ScenarioSummary[], void>(
  'rolloutEvidence/scaffoldScenarios',
);

export interface ScaffoldFilesParams {
  readonly scenario: string;
  /** The rollout folder's name, and result.json's `rollout_name`. */
  readonly rolloutName: string;
  /** When the rollout started (ISO 8601); its records are timed from it. Now, when absent. */
  readonly startedAt?: string;
}

/** Refused with InvalidParams, saying why, for an unknown scenario or an unsafe rollout name. */
export const scaffoldFilesRequest = requestWithNamedParams<ScaffoldFilesParams, ScaffoldFiles>(
  'rolloutEvidence/scaffoldFiles',
);

/** What the server process uses; see processUsage.ts. */
export const processUsageRequest = new RequestType0<ProcessUsage, void>('rolloutEvidence/processUsage');

/**
 * The client command that opens a rollout's timeline; the server's code lenses name it. Its argument is
 * the rollout folder's URI, as a string (LSP carries no vscode.Uri).
 */
export const showTimelineCommand = 'rolloutEvidence.showTimeline';
