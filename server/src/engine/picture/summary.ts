/**
 * Keeps a picture drawable: within the visible range, every rare element is kept up to a bound (the few
 * landmarks of each lane before the many tool calls), and when the routine ones are too many to draw,
 * each lane's are counted in equal stretches of the range.
 */
import type {
  TimelineBin,
  TimelineElement,
  TimelineElementKind,
  TimelineLaneId,
  TimelineRange,
  TimelineStatus,
} from '../../../../shared/src/timelinePicture';
import type { Candidate } from './elements';
import { compareNames } from '../../../../shared/src/order';

export interface SummaryLimits {
  /** Elements drawn one by one, at most. */
  readonly maxElements: number;
  /** Bins per lane when a lane's routine elements are counted. */
  readonly binsPerLane: number;
}

export const defaultLimits: SummaryLimits = { maxElements: 2000, binsPerLane: 200 };

/** Kinds a rollout has a handful of, which the view promises to draw however many tool calls there are. */
const landmarkKinds: ReadonlySet<TimelineElementKind> = new Set([
  'timeout',
  'kill',
  'observation',
  'sidecar-start',
  'setup',
  'grading',
  'reward',
]);

export interface Summary {
  readonly elements: readonly TimelineElement[];
  readonly bins: readonly TimelineBin[];
  /** Elements counted in bins rather than drawn. */
  readonly binned: number;
}

export function summarise(candidates: readonly Candidate[], range: TimelineRange, limits: SummaryLimits): Summary {
  const visible = candidates.filter(
    (candidate) => candidate.start <= range.to && (candidate.end ?? candidate.start) >= range.from,
  );
  if (visible.length <= limits.maxElements) return { elements: visible.map(drawn), bins: [], binned: 0 };

  // Rare first: the landmarks of every lane, then the rest in lane and axis order, so thousands of failed
  // or unresolved tool calls never push a kill or the reward into a bin. The rare beyond the bound are
  // counted too, so nothing goes unmentioned.
  const rare = visible.filter((candidate) => !candidate.routine);
  const byPriority = [
    ...rare.filter((candidate) => landmarkKinds.has(candidate.kind)),
    ...rare.filter((candidate) => !landmarkKinds.has(candidate.kind)),
  ];
  const chosen = new Set(byPriority.slice(0, limits.maxElements));
  const kept = rare.filter((candidate) => chosen.has(candidate));
  const counted = [
    ...rare.filter((candidate) => !chosen.has(candidate)),
    ...visible.filter((candidate) => candidate.routine),
  ];
  return { elements: kept.map(drawn), bins: binsOf(counted, range, limits.binsPerLane), binned: counted.length };
}

function binsOf(elements: readonly Candidate[], range: TimelineRange, binsPerLane: number): TimelineBin[] {
  const width = (range.to - range.from) / binsPerLane;
  const lanes: TimelineLaneId[] = [];
  const bins = new Map<
    number,
    { lane: TimelineLaneId; index: number; counts: Partial<Record<TimelineStatus, number>> }
  >();
  for (const element of elements) {
    const index =
      width > 0 ? Math.min(binsPerLane - 1, Math.max(0, Math.floor((element.start - range.from) / width))) : 0;
    let lane = lanes.indexOf(element.lane);
    if (lane < 0) lane = lanes.push(element.lane) - 1;
    const key = lane * binsPerLane + index;
    let bin = bins.get(key);
    if (!bin) bins.set(key, (bin = { lane: element.lane, index, counts: {} }));
    bin.counts[element.status] = (bin.counts[element.status] ?? 0) + 1;
  }
  return [...bins.values()]
    .sort((a, b) => compareNames(a.lane, b.lane) || a.index - b.index)
    .map((bin) => ({
      lane: bin.lane,
      start: range.from + bin.index * width,
      end: range.from + (bin.index + 1) * width,
      counts: bin.counts,
    }));
}

function drawn(candidate: Candidate): TimelineElement {
  const { kind, lane, start, end, file, line, status, findings } = candidate;
  return {
    kind,
    lane,
    label: candidate.label(),
    start,
    ...(end === undefined ? {} : { end }),
    file,
    line,
    status,
    findings,
  };
}
