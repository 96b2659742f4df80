// The Rollout Timeline webview: draws the picture the extension posts (lanes of elements on one axis,
// bins where the server summarised) and posts back jumps and zooms. Plain DOM, no framework: every text
// from the bundle goes in through textContent, never as markup. Keyboard: one element of the picture is
// in the tab order at a time; arrows move, Home/End go to a lane's ends, Enter jumps (or zooms into a
// bin), + and - zoom around the focused element, 0 shows the whole rollout. Layout is in pixels, done again
// when the panel is resized: elements get a minimum width, and ones that would then touch are stacked in
// rows of their lane rather than drawn over each other; the axis ticks take the smallest even, round step
// whose labels fit side by side.
(function () {
  'use strict';

  const vscode = acquireVsCodeApi();
  const kindNames = {
    prompt: 'Prompt',
    'tool-call': 'Tool call',
    timeout: 'Timeout marker',
    kill: 'Kill attempt',
    observation: 'Observation',
    'sidecar-start': 'Verifier start',
    setup: 'Setup exec',
    grading: 'Grading exec',
    exec: 'Other exec',
    reward: 'Reward',
  };
  const statusNames = {
    ok: 'ok',
    unresolved: 'unresolved',
    failed: 'failed',
    survivors: 'survivors found',
    quiescent: 'quiescent',
    unobservable: 'unobservable',
    unknown: 'unknown',
  };
  /** Statuses that mean something went wrong: drawn with one pattern whatever the kind's colour. */
  const problemStatuses = new Set(['unresolved', 'failed', 'survivors']);
  /** Statuses that say the evidence cannot tell. */
  const uncertainStatuses = new Set(['unknown', 'unobservable']);
  const minimumSpanFraction = 1e-6;
  /** Pixels: the narrowest element drawn; the height of a row of elements within a lane; the space a label needs to be shown inside its element. */
  const minimumElementWidth = 8;
  /** Wider for what went wrong: room for its stripes and its "!". */
  const minimumProblemWidth = 12;
  const rowHeight = 24;
  const trackPadding = 4;
  const minimumTextWidth = 40;
  /** Pixels between neighbouring tick labels, and the closest two ticks may be. */
  const tickLabelGap = 12;
  const minimumTickSpacing = 24;
  const second = 1000;
  const minute = 60 * second;
  const hour = 60 * minute;
  /** Round steps of time, in milliseconds; the steps of line order are 1, 2 and 5 times a power of ten. */
  const timeSteps = [1, 2, 5, 10, 20, 50, 100, 200, 500, second, 2 * second, 5 * second, 10 * second, 15 * second, 30 * second, minute, 2 * minute, 5 * minute, 10 * minute, 15 * minute, 30 * minute, hour, 2 * hour, 3 * hour, 6 * hour, 12 * hour, 24 * hour];

  const title = byId('title');
  const summary = byId('summary');
  const notices = byId('notices');
  const lanesHost = byId('lanes');
  const scale = byId('scale');
  const legend = byId('legend');
  let picture;
  /** Focusable items (elements and bins) per lane, in axis order. */
  let rows = [];
  let focused;
  /** The lanes' tracks and what each holds, for layout: `{ track, entries }`. */
  let tracks = [];
  /** Ticks of the axis as drawn, as fractions of its width: the tracks draw grid lines there. */
  let tickFractions = [];
  let laidOutWidth = 0;

  byId('zoom-in').addEventListener('click', () => zoom(0.5));
  byId('zoom-out').addEventListener('click', () => zoom(2));
  byId('zoom-reset').addEventListener('click', showWholeRollout);
  drawLegend();

  window.addEventListener('message', (event) => {
    const message = event.data;
    if (!message || typeof message !== 'object') return;
    if (message.type === 'picture') render(message.picture);
    if (message.type === 'error') showError(String(message.message));
  });
  document.addEventListener('keydown', onKey);
  // Only a change of width moves anything: stacking changes the lanes' heights, which must not loop.
  new ResizeObserver(() => {
    if (picture && scale.clientWidth !== laidOutWidth) layout();
  }).observe(lanesHost);
  vscode.postMessage({ type: 'ready' });

  function byId(id) {
    return document.getElementById(id);
  }

  function render(next) {
    const keep = focused && identity(focused.item);
    picture = next;
    title.textContent = `Timeline: ${next.name}`;
    const binned = next.bins.length > 0 ? `, ${next.bins.length} bins` : '';
    summary.textContent = `Verdict ${next.verdict}. ${next.axis === 'time' ? 'Time from the rollout start' : 'Line order'}; ${describeRange(next)}. ${next.elements.length} elements${binned}.`;
    notices.replaceChildren(...next.notices.map((text) => textElement('li', text)));

    rows = [];
    tracks = [];
    const lanes = [];
    for (const lane of next.lanes) {
      const section = document.createElement('section');
      section.className = 'lane';
      section.dataset.lane = lane.id;
      const label = textElement('h2', lane.approximate ? `${lane.label} (spread in line order)` : lane.label);
      label.className = 'lane-label';
      label.id = `lane-${lane.id}`;
      const track = document.createElement('div');
      track.className = 'track';
      track.setAttribute('role', 'group');
      track.setAttribute('aria-labelledby', label.id);
      const items = [];
      for (const element of next.elements) if (element.lane === lane.id) items.push({ kind: 'element', value: element });
      for (const bin of next.bins) if (bin.lane === lane.id) items.push({ kind: 'bin', value: bin });
      items.sort((a, b) => a.value.start - b.value.start);
      const row = [];
      items.forEach((item, index) => {
        const node = item.kind === 'bin' ? binNode(item.value) : elementNode(item.value);
        node.dataset.lane = lane.id;
        node.dataset.index = String(index);
        node.tabIndex = -1;
        track.append(node);
        const entry = { item, node };
        // A click or Tab also moves the one tab stop here, so the arrows go on from what was picked.
        node.addEventListener('focus', () => focused?.node !== node && setFocusable(entry, false));
        row.push(entry);
      });
      rows.push(row);
      tracks.push({ track, entries: row });
      section.append(label, track);
      lanes.push(section);
    }
    lanesHost.replaceChildren(...lanes);
    layout();

    const again = keep && rows.flat().find((entry) => identity(entry.item) === keep);
    const first = rows.find((row) => row.length > 0);
    setFocusable(again || (first && first[0]), Boolean(again));
    document.dispatchEvent(new CustomEvent('timeline-rendered', { detail: { drawn: next.elements.length + next.bins.length } }));
  }

  function elementNode(element) {
    const node = document.createElement('button');
    node.type = 'button';
    const classes = ['element', `kind-${element.kind}`, `status-${element.status}`];
    if (problemStatuses.has(element.status)) classes.push('problem');
    if (uncertainStatuses.has(element.status)) classes.push('uncertain');
    if (element.findings.length > 0) classes.push('has-findings');
    node.className = classes.join(' ');
    // The kind and the status are said here once: the label says only which one this is.
    const status = element.status === 'ok' ? '' : `, ${statusNames[element.status] || element.status}`;
    const findings = element.findings.length > 0 ? `; findings: ${element.findings.join(', ')}` : '';
    const text = `${kindNames[element.kind] || element.kind}${status}: ${element.label}${findings}. ${basename(element.file)} line ${element.line + 1}`;
    node.setAttribute('aria-label', text);
    node.title = text;
    if (problemStatuses.has(element.status)) node.append(markElement());
    const label = textElement('span', element.label);
    label.className = 'element-text';
    label.setAttribute('aria-hidden', 'true');
    node.append(label);
    node.addEventListener('click', () => jump(element.file, element.line));
    return node;
  }

  function markElement() {
    const mark = textElement('span', '!');
    mark.className = 'mark';
    mark.setAttribute('aria-hidden', 'true');
    return mark;
  }

  function binNode(bin) {
    const node = document.createElement('button');
    node.type = 'button';
    const entries = Object.entries(bin.counts);
    const total = entries.reduce((sum, [, count]) => sum + count, 0);
    const notable = entries.filter(([status]) => status !== 'ok');
    node.className = `bin${notable.length > 0 ? ' bin-notable' : ''}`;
    // Denser bins are darker: a summary still shows where the activity was.
    node.style.setProperty('--density', String(Math.min(1, 0.25 + Math.log10(1 + total) / 4)));
    const parts = entries.map(([status, count]) => `${count} ${statusNames[status] || status}`).join(', ');
    const text = `${total} elements counted here (${parts}). Press Enter to zoom in.`;
    node.setAttribute('aria-label', text);
    node.title = text;
    node.addEventListener('click', () => requestRange(bin.start, bin.end));
    return node;
  }

  /** Places everything again for the panel's width: the axis first, then each lane on its ticks. */
  function layout() {
    laidOutWidth = scale.clientWidth;
    drawScale(picture, laidOutWidth);
    for (const { track, entries } of tracks) layoutTrack(track, entries);
  }

  /**
   * Each element at its place on the axis, at least the minimum width (an instant centred on its
   * moment), in the first row of its lane where it touches nothing drawn before it.
   */
  function layoutTrack(track, entries) {
    const width = track.clientWidth;
    const span = picture.range.to - picture.range.from;
    const toPixels = (value) => ((value - picture.range.from) / span) * width;
    const boxes = entries.map(({ item, node }) => {
      const value = item.value;
      const instant = item.kind === 'element' && value.end === undefined;
      const from = toPixels(value.start);
      // Only the part within the range shown counts: a zoom cuts elements at its ends.
      const natural = instant ? 0 : Math.min(width, toPixels(value.end)) - Math.max(0, from);
      const least = item.kind === 'bin' ? 2 : problemStatuses.has(value.status) ? minimumProblemWidth : minimumElementWidth;
      const boxWidth = Math.min(width, Math.max(least, natural));
      const left = Math.min(Math.max(instant ? from - boxWidth / 2 : from, 0), width - boxWidth);
      return { node, left, width: boxWidth };
    });
    const rowEnds = [];
    for (const box of [...boxes].sort((a, b) => a.left - b.left)) {
      let row = rowEnds.findIndex((end) => end <= box.left);
      if (row < 0) row = rowEnds.push(0) - 1;
      rowEnds[row] = box.left + box.width;
      // One pixel short of its place: neighbours that touch still read as two.
      const drawn = Math.max(1, box.width - 1);
      box.node.style.left = `${box.left.toFixed(2)}px`;
      box.node.style.width = `${drawn.toFixed(2)}px`;
      box.node.style.top = `${trackPadding + row * rowHeight}px`;
      box.node.classList.toggle('labelled', drawn >= minimumTextWidth);
    }
    track.style.height = `${trackPadding * 2 + Math.max(1, rowEnds.length) * rowHeight}px`;
    const lines = tickFractions.map((fraction) => {
      const line = document.createElement('span');
      line.className = 'gridline';
      line.style.left = `${(fraction * width).toFixed(2)}px`;
      return line;
    });
    track.querySelectorAll('.gridline').forEach((line) => line.remove());
    track.prepend(...lines);
  }

  /** Ticks at the smallest round step whose labels, each centred on its tick and kept within the axis, leave a gap between them. */
  function drawScale(next, width) {
    const span = next.range.to - next.range.from;
    scale.replaceChildren();
    tickFractions = [];
    if (!(width > 0 && span > 0)) return;
    for (const step of stepsFrom(next.axis, (minimumTickSpacing / width) * span)) {
      const unit = next.axis === 'time' ? timeUnitOf(step) : undefined;
      const ticks = [];
      for (let index = Math.ceil(next.range.from / step - 1e-9); index * step <= next.range.to + span * 1e-9; index++) {
        const value = index * step;
        const label = textElement('span', unit ? formatTick(value, step, unit) : `#${value}`);
        label.className = 'tick-label';
        ticks.push({ x: ((value - next.range.from) / span) * width, label });
      }
      scale.replaceChildren(...ticks.map((tick) => tick.label));
      let previousRight = -Infinity;
      let fits = true;
      for (const tick of ticks) {
        const labelWidth = tick.label.getBoundingClientRect().width;
        tick.labelLeft = Math.min(Math.max(tick.x - labelWidth / 2, 0), width - labelWidth);
        if (tick.labelLeft < previousRight + tickLabelGap) fits = false;
        previousRight = tick.labelLeft + labelWidth;
      }
      // The largest step leaves one tick or none, and fits however long its label.
      if (!fits && step < span) continue;
      const nodes = [];
      for (const tick of ticks) {
        const mark = document.createElement('span');
        mark.className = 'tick';
        mark.style.left = `${tick.x.toFixed(2)}px`;
        tick.label.style.left = `${tick.labelLeft.toFixed(2)}px`;
        nodes.push(mark, tick.label);
      }
      scale.replaceChildren(...nodes);
      tickFractions = ticks.map((tick) => tick.x / width);
      return;
    }
  }

  /** Round steps no smaller than `least`, smallest first, without end. */
  function* stepsFrom(axis, least) {
    if (axis === 'time') for (const step of timeSteps) if (step >= least) yield step;
    const largestTimeStep = timeSteps[timeSteps.length - 1];
    for (let power = 1; ; power *= 10) {
      for (const factor of [1, 2, 5]) {
        const step = factor * power * (axis === 'time' ? largestTimeStep : 1);
        if (step >= least && (axis !== 'time' || step > largestTimeStep)) yield step;
      }
    }
  }

  /** The unit every tick of a step is said in, so that the labels read alike. */
  function timeUnitOf(step) {
    if (step >= hour) return { size: hour, name: 'h' };
    if (step >= minute) return { size: minute, name: 'min' };
    return { size: second, name: 's' };
  }

  function formatTick(value, step, unit) {
    const decimals = Math.max(0, Math.ceil(-Math.log10(step / unit.size) - 1e-9));
    return `${(value / unit.size).toFixed(decimals)} ${unit.name}`;
  }

  /** The swatches carry the very classes the elements do, so the legend shows what the picture uses. */
  function drawLegend() {
    const items = Object.entries(kindNames).map(([kind, name]) => legendItem(['swatch', `kind-${kind}`], name));
    items.push(legendItem(['swatch', 'swatch-bin'], 'Summary bin (zoom in)'));
    const problem = legendItem(['swatch', 'pattern', 'problem'], 'Problem: unresolved call, failed, survivors found');
    problem.firstChild.append(markElement());
    items.push(problem, legendItem(['swatch', 'pattern', 'uncertain'], 'Unknown or unobservable'), legendItem(['swatch', 'pattern', 'has-findings'], 'Has a finding'));
    legend.replaceChildren(...items);
  }

  function legendItem(classes, name) {
    const item = document.createElement('li');
    const swatch = document.createElement('span');
    swatch.className = classes.join(' ');
    item.append(swatch, document.createTextNode(name));
    return item;
  }

  function onKey(event) {
    if (!picture || event.altKey || event.ctrlKey || event.metaKey) return;
    const inPicture = focused && document.activeElement === focused.node;
    switch (event.key) {
      case '+':
      case '=':
        zoom(0.5);
        break;
      case '-':
      case '_':
        zoom(2);
        break;
      case '0':
        showWholeRollout();
        break;
      case 'ArrowLeft':
      case 'ArrowRight':
      case 'Home':
      case 'End':
        if (!inPicture) return;
        moveWithinLane(event.key);
        break;
      case 'ArrowUp':
      case 'ArrowDown':
        if (!inPicture) return;
        moveAcrossLanes(event.key === 'ArrowUp' ? -1 : 1);
        break;
      default:
        return;
    }
    event.preventDefault();
  }

  function moveWithinLane(key) {
    const row = rows[focused.lane];
    const index = key === 'Home' ? 0 : key === 'End' ? row.length - 1 : focused.index + (key === 'ArrowLeft' ? -1 : 1);
    if (index >= 0 && index < row.length) setFocusable(row[index], true);
  }

  /** To the element of the next non-empty lane nearest in axis position. */
  function moveAcrossLanes(direction) {
    const at = focused.entry.item.value.start;
    for (let lane = focused.lane + direction; lane >= 0 && lane < rows.length; lane += direction) {
      const row = rows[lane];
      if (row.length === 0) continue;
      let best = row[0];
      for (const entry of row) if (Math.abs(entry.item.value.start - at) < Math.abs(best.item.value.start - at)) best = entry;
      setFocusable(best, true);
      return;
    }
  }

  function setFocusable(entry, moveFocus) {
    if (focused) focused.node.tabIndex = -1;
    focused = undefined;
    if (!entry) return;
    const lane = rows.findIndex((row) => row.includes(entry));
    focused = { entry, item: entry.item, node: entry.node, lane, index: rows[lane].indexOf(entry) };
    entry.node.tabIndex = 0;
    if (moveFocus) entry.node.focus();
  }

  function zoom(factor) {
    const { range, extent } = picture;
    const centre = focused ? focusCentre(focused.item.value) : (range.from + range.to) / 2;
    const extentSpan = extent.to - extent.from;
    const span = Math.min(extentSpan, Math.max(extentSpan * minimumSpanFraction, (range.to - range.from) * factor));
    let from = centre - span / 2;
    from = Math.min(Math.max(extent.from, from), extent.to - span);
    requestRange(from, from + span);
  }

  function focusCentre(value) {
    return value.end === undefined ? value.start : (value.start + value.end) / 2;
  }

  /** A range on the axis shown: the extension drops it should the axis change (a live run's first times). */
  function requestRange(from, to) {
    if (!(to > from)) return;
    vscode.postMessage({ type: 'zoom', from, to, axis: picture.axis });
  }

  /** Not the current extent as a range: the whole rollout goes on growing while a run writes. */
  function showWholeRollout() {
    if (picture) vscode.postMessage({ type: 'reset' });
  }

  function jump(file, line) {
    vscode.postMessage({ type: 'jump', file, line });
  }

  function showError(text) {
    const item = textElement('li', text);
    item.className = 'error';
    notices.replaceChildren(item);
  }

  function identity(item) {
    const value = item.value;
    return `${item.kind}:${value.kind || ''}:${value.file}:${value.line}:${value.start}`;
  }

  function describeRange(next) {
    const whole = next.range.from === next.extent.from && next.range.to === next.extent.to;
    if (next.axis === 'time') return whole ? `the whole rollout, ${formatTime(next.extent.to)}` : `${formatTime(next.range.from)} to ${formatTime(next.range.to)} of ${formatTime(next.extent.to)}`;
    return whole ? `the whole rollout, ${Math.round(next.extent.to)} positions` : `positions ${Math.round(next.range.from)} to ${Math.round(next.range.to)} of ${Math.round(next.extent.to)}`;
  }

  function formatTime(milliseconds) {
    const seconds = milliseconds / 1000;
    if (Math.abs(seconds) < 10) return `${seconds.toFixed(seconds < 1 ? 3 : 2)} s`;
    if (Math.abs(seconds) < 600) return `${seconds.toFixed(1)} s`;
    const minutes = Math.floor(seconds / 60);
    return `${minutes} min ${Math.round(seconds - minutes * 60)} s`;
  }

  function basename(path) {
    return path.split(/[\\/]/).pop() || path;
  }

  function textElement(tag, text) {
    const node = document.createElement(tag);
    node.textContent = text;
    return node;
  }
})();
