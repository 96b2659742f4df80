/**
 * The timeline of one rollout as the webview draws it: lanes of elements placed on one axis (time in
 * milliseconds from the rollout's start when the bundle gives times, else line order), each pointing at
 * the line it was read from. A huge rollout comes as a summary: the landmarks (timeout, kills,
 * observations, the verifier's start, setup and grading, the reward) are always drawn, unresolved calls
 * and elements with findings up to the element bound, and the rest counted in bins; asking again with
 * a narrower range gives that range in detail. The request that asks for it, `timelineRequest`, is in
 * protocol.ts.
 */

export type TimelineAxis = 'time' | 'order';

/** `agent`: prompts and the timeout marker; `hardening`: what the framework did to the sandbox user; `verifier`: sidecar start, setup and grading. */
export type TimelineLaneId = 'agent' | 'tools' | 'hardening' | 'verifier' | 'reward';

export type TimelineElementKind =
  | 'prompt'
  | 'tool-call'
  | 'timeout'
  | 'kill'
  | 'observation'
  | 'sidecar-start'
  | 'setup'
  | 'grading'
  | 'exec'
  | 'reward';

/**
 * What an element's evidence says: `unresolved` (a tool call left pending or in progress), `failed`,
 * `survivors` (an observation that found processes), `quiescent`, `unobservable`, `unknown`, or `ok`.
 */
export type TimelineStatus = 'ok' | 'unresolved' | 'failed' | 'survivors' | 'quiescent' | 'unobservable' | 'unknown';

export interface TimelineRange {
  readonly from: number;
  readonly to: number;
}

export interface TimelineLane {
  readonly id: TimelineLaneId;
  readonly label: string;
  /** Its elements carry no times of their own and were spread over a window in line order. */
  readonly approximate: boolean;
}

export interface TimelineElement {
  readonly kind: TimelineElementKind;
  readonly lane: TimelineLaneId;
  /**
   * One line of text saying which one it is (a command, a title, the reward's value), never its kind or
   * status: those are fields of their own, which the view names once.
   */
  readonly label: string;
  readonly start: number;
  /** Absent for an instant. */
  readonly end?: number;
  /** Absolute path of the file to open. */
  readonly file: string;
  /** 0-based line. */
  readonly line: number;
  readonly status: TimelineStatus;
  /** Diagnostic codes the rules placed on this element's line. */
  readonly findings: readonly string[];
}

/** Routine elements of one lane in one stretch of the axis, counted rather than drawn. */
export interface TimelineBin {
  readonly lane: TimelineLaneId;
  readonly start: number;
  readonly end: number;
  /** Elements by status. */
  readonly counts: Readonly<Partial<Record<TimelineStatus, number>>>;
}

export interface TimelinePicture {
  readonly root: string;
  /** The rollout's folder name. */
  readonly name: string;
  readonly verdict: string;
  readonly axis: TimelineAxis;
  /** The whole rollout on the axis. */
  readonly extent: TimelineRange;
  /** The part this picture shows (the extent unless zoomed). */
  readonly range: TimelineRange;
  readonly lanes: readonly TimelineLane[];
  /** In axis order within each lane. */
  readonly elements: readonly TimelineElement[];
  readonly bins: readonly TimelineBin[];
  /** Routine elements were counted in bins, or rare ones beyond the bound left out. */
  readonly summarised: boolean;
  /** Sentences the view shows above the picture: why it falls back to line order, what it summarised. */
  readonly notices: readonly string[];
}

/** Messages the timeline webview posts to the extension. */
export type TimelineViewMessage =
  | { readonly type: 'jump'; readonly file: string; readonly line: number }
  /** A range on the axis of the picture shown (the view's `axis`). */
  | { readonly type: 'zoom'; readonly from: number; readonly to: number; readonly axis: TimelineAxis }
  /** Back to the whole rollout, as it grows. */
  | { readonly type: 'reset' }
  | { readonly type: 'ready' };

/** Messages the extension posts to the timeline webview. */
export type TimelineHostMessage =
  | { readonly type: 'picture'; readonly picture: TimelinePicture }
  | { readonly type: 'error'; readonly message: string };
