/**
 * What a timeline panel asks for after a zoom: the range until the view asks for the whole rollout
 * again, and nothing once a picture comes back on another axis than the range was picked on.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TimelineZoom } from '../../client/src/timeline/timelineZoom';

describe('timeline zoom', () => {
  it('asks for the whole rollout until zoomed, and again after a reset, so later activity is drawn', () => {
    const zoom = new TimelineZoom();
    assert.equal(zoom.range, undefined);
    zoom.zoomTo({ from: 10, to: 20 }, 'time');
    assert.deepEqual(zoom.range, { from: 10, to: 20 });
    assert.equal(zoom.accepts({ axis: 'time' }), true);
    assert.deepEqual(zoom.range, { from: 10, to: 20 }, 'kept while the axis stays');
    zoom.reset();
    assert.equal(zoom.range, undefined);
  });

  it('drops a range picked on line positions when the picture comes back in milliseconds', () => {
    const zoom = new TimelineZoom();
    zoom.zoomTo({ from: 100, to: 200 }, 'order');
    assert.equal(
      zoom.accepts({ axis: 'time' }),
      false,
      'that picture shows milliseconds 100 to 200, not the lines picked',
    );
    assert.equal(zoom.range, undefined);
    assert.equal(zoom.accepts({ axis: 'time' }), true, 'the whole rollout is shown on the new axis');
  });
});
