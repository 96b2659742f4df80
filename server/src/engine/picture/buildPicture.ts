/**
 * The picture of one evaluated rollout for the timeline view: its elements placed on one axis, lane by
 * lane, summarised when there are too many to draw, with notices that say how to read it.
 */
import { basename } from 'node:path';
import type {
  TimelineLane,
  TimelineLaneId,
  TimelinePicture,
  TimelineRange,
} from '../../../../shared/src/timelinePicture';
import type { RolloutBundle } from '../bundle/rollout';
import type { RolloutEvaluation } from '../rules/evaluate';
import { placeRecords } from './axis';
import { collectElements } from './elements';
import { defaultLimits, summarise, type SummaryLimits } from './summary';

const laneLabels: Readonly<Record<TimelineLaneId, string>> = {
  agent: 'Prompts and timeout',
  tools: 'Tool calls',
  hardening: 'Hardening',
  verifier: 'Verifier',
  reward: 'Reward',
};

export interface PictureOptions {
  /** Detail for this part of the axis; the whole rollout when absent. */
  readonly range?: TimelineRange;
  readonly limits?: SummaryLimits;
}

export function buildTimelinePicture(
  bundle: RolloutBundle,
  evaluation: RolloutEvaluation,
  options: PictureOptions = {},
): TimelinePicture {
  const placement = placeRecords(evaluation.model);
  const candidates = collectElements(evaluation.model, evaluation.findings, placement);
  const laneOrder = Object.keys(laneLabels) as TimelineLaneId[];
  // Lane by lane, each in axis order: the order the view draws and moves focus in.
  candidates.sort(
    (a, b) => laneOrder.indexOf(a.lane) - laneOrder.indexOf(b.lane) || a.start - b.start || a.line - b.line,
  );

  let extentEnd = placement.end;
  for (const candidate of candidates) extentEnd = Math.max(extentEnd, candidate.end ?? candidate.start);
  // An empty or instantaneous rollout still gets a stretch of axis to draw on.
  const extent = { from: 0, to: extentEnd > 0 ? extentEnd : 1 };
  const range = clampRange(options.range, extent);
  const summary = summarise(candidates, range, options.limits ?? defaultLimits);

  const notices = [...placement.notices];
  if (candidates.length === 0)
    notices.push('This rollout has no prompts, tool calls, action records or reward to draw.');
  if (summary.binned > 0)
    notices.push(
      `${summary.binned} elements in this range are counted in bins rather than drawn one by one: zoom in to see them.`,
    );
  const lanes: TimelineLane[] = laneOrder.map((id) => ({
    id,
    label: laneLabels[id],
    approximate: placement.trajectoryApproximate && (id === 'agent' || id === 'tools'),
  }));
  return {
    root: bundle.root,
    name: basename(bundle.root),
    verdict: evaluation.verdict,
    axis: placement.axis,
    extent,
    range,
    lanes,
    elements: summary.elements,
    bins: summary.bins,
    summarised: summary.binned > 0,
    notices,
  };
}

/** The requested range within the extent; the whole extent when none is asked for or it is empty. */
function clampRange(requested: TimelineRange | undefined, extent: TimelineRange): TimelineRange {
  if (!requested) return extent;
  const from = Math.max(extent.from, requested.from);
  const to = Math.min(extent.to, requested.to);
  return from < to ? { from, to } : extent;
}
