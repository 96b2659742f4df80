/**
 * The part of a rollout a timeline panel asks for. A range is only meaningful on the axis it was picked
 * on (milliseconds, or line positions), so it is kept with that axis and dropped when a picture comes
 * back on the other one, as when a live run's first timestamps turn line order into time. Kept free of
 * `vscode` so it is tested on its own.
 */
import type { TimelineAxis, TimelinePicture, TimelineRange } from '../../../shared/src/timelinePicture';

interface Zoom {
  readonly range: TimelineRange;
  readonly axis: TimelineAxis;
}

export class TimelineZoom {
  private zoom: Zoom | undefined;

  /** The range to ask for; undefined for the whole rollout, including what a live run writes later. */
  get range(): TimelineRange | undefined {
    return this.zoom?.range;
  }

  zoomTo(range: TimelineRange, axis: TimelineAxis): void {
    this.zoom = { range, axis };
  }

  /** Back to the whole rollout: no stored range, so later activity is drawn too. */
  reset(): void {
    this.zoom = undefined;
  }

  /**
   * Whether `picture` may be shown for the range asked for. When it came on another axis than the range
   * was picked on, the range is dropped and false says to ask again for the whole rollout.
   */
  accepts(picture: Pick<TimelinePicture, 'axis'>): boolean {
    if (!this.zoom || this.zoom.axis === picture.axis) return true;
    this.zoom = undefined;
    return false;
  }
}

export function isTimelineAxis(value: unknown): value is TimelineAxis {
  return value === 'time' || value === 'order';
}
