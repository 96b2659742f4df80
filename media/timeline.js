// The Rollout Timeline webview: draws the picture the extension posts (lanes of elements on one axis,
// bins where the server summarised) and posts back jumps and zooms. Plain DOM, no framework: every text
// from the bundle goes in through textContent, never as markup. Keyboard: one element of the picture is
// in the tab order at a time; arrows move, Home/End go to a lane's ends, Enter jumps (or zooms into a
// bin), + and - zoom around the focused element, 0 shows the whole rollout.
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
  const minimumSpanFraction = 1e-6;

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
    drawScale(next);

    rows = [];
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
        // One record that did two things (killed, then observed) draws both, one above the other.
        const previous = items[index - 1];
        if (previous && previous.kind === 'element' && item.kind === 'element' && previous.value.file === item.value.file && previous.value.line === item.value.line) {
          row[index - 1].node.classList.add('upper');
          node.classList.add('lower');
        }
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
      section.append(label, track);
      lanes.push(section);
    }
    lanesHost.replaceChildren(...lanes);

    const again = keep && rows.flat().find((entry) => identity(entry.item) === keep);
    const first = rows.find((row) => row.length > 0);
    setFocusable(again || (first && first[0]), Boolean(again));
    document.dispatchEvent(new CustomEvent('timeline-rendered', { detail: { drawn: next.elements.length + next.bins.length } }));
  }

  function elementNode(element) {
    const node = document.createElement('button');
    node.type = 'button';
    const instant = element.end === undefined;
    node.className = `element kind-${element.kind} status-${element.status}${instant ? ' instant' : ''}${element.findings.length > 0 ? ' has-findings' : ''}`;
    place(node, element.start, instant ? element.start : element.end);
    const findings = element.findings.length > 0 ? `; findings: ${element.findings.join(', ')}` : '';
    const status = element.status === 'ok' ? '' : `, ${statusNames[element.status] || element.status}`;
    const text = `${kindNames[element.kind] || element.kind}${status}: ${element.label}${findings}. ${basename(element.file)} line ${element.line + 1}`;
    node.setAttribute('aria-label', text);
    node.title = text;
    if (element.status === 'unresolved') node.append(textElement('span', '!'));
    node.addEventListener('click', () => jump(element.file, element.line));
    return node;
  }

  function binNode(bin) {
    const node = document.createElement('button');
    node.type = 'button';
    const entries = Object.entries(bin.counts);
    const total = entries.reduce((sum, [, count]) => sum + count, 0);
    const notable = entries.filter(([status]) => status !== 'ok');
    node.className = `bin${notable.length > 0 ? ' bin-notable' : ''}`;
    place(node, bin.start, bin.end);
    // Denser bins are darker: a summary still shows where the activity was.
    node.style.setProperty('--density', String(Math.min(1, 0.25 + Math.log10(1 + total) / 4)));
    const parts = entries.map(([status, count]) => `${count} ${statusNames[status] || status}`).join(', ');
    const text = `${total} elements counted here (${parts}). Press Enter to zoom in.`;
    node.setAttribute('aria-label', text);
    node.title = text;
    node.addEventListener('click', () => requestRange(bin.start, bin.end));
    return node;
  }

  function place(node, start, end) {
    const span = picture.range.to - picture.range.from;
    const left = Math.max(0, (start - picture.range.from) / span);
    const right = Math.min(1, (end - picture.range.from) / span);
    node.style.left = `${(left * 100).toFixed(4)}%`;
    node.style.width = `${(Math.max(right - left, 0) * 100).toFixed(4)}%`;
  }

  function drawScale(next) {
    const ticks = [];
    const count = 6;
    for (let index = 0; index <= count; index++) {
      const value = next.range.from + ((next.range.to - next.range.from) * index) / count;
      const tick = textElement('span', next.axis === 'time' ? formatTime(value) : `#${Math.round(value)}`);
      tick.className = 'tick';
      tick.style.left = `${(index / count) * 100}%`;
      ticks.push(tick);
    }
    scale.replaceChildren(...ticks);
  }

  function drawLegend() {
    const items = Object.entries(kindNames).map(([kind, name]) => {
      const item = document.createElement('li');
      const swatch = document.createElement('span');
      swatch.className = `swatch kind-${kind}`;
      item.append(swatch, document.createTextNode(name));
      return item;
    });
    for (const [status, name] of [
      ['unresolved', 'Unresolved tool call'],
      ['survivors', 'Survivors found'],
      ['failed', 'Failed'],
    ]) {
      const item = document.createElement('li');
      const swatch = document.createElement('span');
      swatch.className = `swatch kind-tool-call status-${status}`;
      item.append(swatch, document.createTextNode(name));
      items.push(item);
    }
    const bin = document.createElement('li');
    const swatch = document.createElement('span');
    swatch.className = 'swatch swatch-bin';
    bin.append(swatch, document.createTextNode('Summary bin (zoom in)'));
    items.push(bin);
    legend.replaceChildren(...items);
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
