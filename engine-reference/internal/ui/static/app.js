// jobwire-engine live view: the main thread. Plain JavaScript, no framework,
// nothing fetched from elsewhere. feed.js (a Web Worker) owns the engine's
// event stream and the model; this file renders the views it posts (in an
// animation frame, updating table cells in place) and sends the
// resolve action.
'use strict';

(function () {
  const LAT_KEEP = 200000;
  const feed = new Worker('feed.js');
  // Measurement hooks for the browser test and the latency benchmark:
  // painted = commit → the frame after the DOM showing the batch (ms).
  const M = window.__jw = { painted: [], views: 0, renderMs: 0, longFrames: 0, longFramesMs: 0, styleLayoutMs: 0 };
  let statsId = 0;
  const statsWait = new Map();
  // window.__jwStats() → the feed's counters and receipt latencies.
  window.__jwStats = () => new Promise((resolve) => {
    const id = ++statsId;
    statsWait.set(id, resolve);
    feed.postMessage({ kind: 'stats', id });
  });

  const $ = (id) => document.getElementById(id);
  const nowMs = () => performance.timeOrigin + performance.now();
  const fmtRate = (x) => x >= 100 ? Math.round(x).toString() : x.toFixed(1);

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    if (attrs) for (const [k, v] of Object.entries(attrs)) {
      if (k === 'class') e.className = v; else if (k === 'text') e.textContent = v; else e.setAttribute(k, v);
    }
    for (const k of kids) if (k != null) e.append(k);
    return e;
  }
  const td = (text, cls) => el('td', cls ? { class: cls, text: String(text) } : { text: String(text) });
  const stateTd = (s) => el('td', null, el('span', { class: 'st st-' + s, text: s }));

  // sync updates a table in place: a fixed set of row elements whose cells
  // get new text, classes and attributes only where they changed. No rows
  // are created or destroyed while a table keeps its size, so a view costs
  // text updates, not new DOM (style and layout stay cheap under load).
  // A cell spec is a string, or { text, cls, state } (state: a badge), or
  // { button } (a Resolve button carrying the incident key).
  function sync(table, items, empty, cols, rowOf) {
    const tb = $(table).tBodies[0];
    if (items.length === 0) {
      if (!(tb.rows.length === 1 && tb.rows[0].className === 'empty')) {
        tb.replaceChildren(el('tr', { class: 'empty' }, el('td', { colspan: String(cols), text: empty })));
      }
      return;
    }
    if (tb.rows.length && tb.rows[0].className === 'empty') tb.replaceChildren();
    while (tb.rows.length > items.length) tb.deleteRow(-1);
    while (tb.rows.length < items.length) {
      const tr = tb.insertRow(-1);
      for (let i = 0; i < cols; i++) tr.insertCell(-1);
    }
    for (let r = 0; r < items.length; r++) {
      const tr = tb.rows[r];
      const { attrs, cells } = rowOf(items[r]);
      for (const k in attrs) if (tr.getAttribute(k) !== attrs[k]) tr.setAttribute(k, attrs[k]);
      for (let i = 0; i < cols; i++) setCell(tr.cells[i], cells[i]);
    }
  }
  function setCell(td, spec) {
    if (spec == null) spec = '';
    if (typeof spec !== 'object') spec = { text: String(spec) };
    const cls = spec.cls || '';
    if (td.className !== cls) td.className = cls;
    if (spec.state !== undefined) {
      let sp = td.firstElementChild;
      if (!sp || sp.tagName !== 'SPAN') { sp = el('span'); td.replaceChildren(sp); }
      const c = 'st st-' + spec.state;
      if (sp.className !== c) sp.className = c;
      if (sp.textContent !== spec.state) sp.textContent = spec.state;
      return;
    }
    if (spec.button !== undefined) {
      let btn = td.firstElementChild;
      if (!btn || btn.tagName !== 'BUTTON') { btn = el('button', { text: 'Resolve' }); td.replaceChildren(btn); }
      if (btn.getAttribute('data-resolve') !== spec.button) { btn.setAttribute('data-resolve', spec.button); btn.disabled = false; }
      return;
    }
    if (td.firstElementChild) td.replaceChildren();
    if (td.textContent !== spec.text) td.textContent = spec.text;
    if (spec.title !== undefined && td.title !== spec.title) td.title = spec.title;
  }
  function setOptions(id, values) {
    const sel = $(id);
    const have = new Set(Array.from(sel.options).map((o) => o.value));
    for (const v of values) if (!have.has(v)) sel.append(el('option', { value: v, text: v }));
  }
  const setText = (id, s) => { const e = $(id); if (e.textContent !== s) e.textContent = s; };
  function fmtDeadline(ms) {
    if (!ms) return '';
    const d = ms - Date.now();
    return d >= 0 ? 'in ' + (d / 1000).toFixed(1) + ' s' : (-d / 1000).toFixed(1) + ' s ago';
  }

  function render(v) {
    setText('conn', v.connected ? 'live' : 'reconnecting…');
    const cc = 'pill ' + (v.connected ? 'on' : 'off');
    if ($('conn').className !== cc) $('conn').className = cc;
    if (v.p99 != null) setText('lat', 'commit → page p99 ' + v.p99.toFixed(1) + ' ms');
    if (v.counters) {
      for (const k of ['created', 'completed', 'jobs', 'push', 'poll', 'yield']) setText('c-' + k, fmtRate(v.counters[k]));
    }
    setText('c-incidents', String(v.incidentsOpen));
    const num = (x) => ({ text: String(x), cls: 'num' });
    const mono = (x) => ({ text: String(x), cls: 'mono' });
    sync('t-types', v.types, 'no jobs yet', 8, (x) => ({ attrs: { 'data-type': x.type }, cells: [mono(x.type),
      num(fmtRate(x.completed)), num(fmtRate(x.push)), num(fmtRate(x.poll)), num(fmtRate(x.yield)),
      num(x.failed), num(x.timedOut), num(x.total)] }));

    setText('n-incidents', '(' + v.incidentCount + ')');
    sync('t-incidents', v.incidents, 'no open incidents', 6, (i) => ({ attrs: { 'data-key': i.key }, cells: [
      mono(i.key), mono(i.instance), mono(i.element || ''), i.type, { text: i.message, cls: 'msg', title: i.message },
      { button: i.key }] }));

    setOptions('f-process', v.processes);
    setText('n-instances', '(' + v.instances.length + ' of ' + v.instanceCount + ' shown)');
    sync('t-instances', v.instances, 'no process instances', 6, (x) => ({ attrs: { 'data-key': x.key, 'data-state': x.state },
      cells: [mono(x.key), mono(x.process), num(x.version), { state: x.state }, mono((x.active || []).join(', ')),
        { text: x.variables || '', cls: 'vars', title: x.variables || '' }] }));

    setOptions('f-jtype', v.jobTypes);
    setText('n-jobs', '(' + v.jobs.length + ' of ' + v.jobCount + ' shown)');
    sync('t-jobs', v.jobs, 'no jobs', 10, (j) => ({ attrs: { 'data-key': j.key, 'data-state': j.state }, cells: [
      mono(j.key), mono(j.type), { state: j.state }, j.worker || '', num(j.retries), fmtDeadline(j.deadline || j.retryAt),
      num(j.activations), num(j.yields), { text: j.errorMessage || '', cls: 'msg', title: j.errorMessage || '' }, mono(j.instance)] }));

    const T = v.tables;
    setText('n-streams', '(' + T.streams.length + ')');
    sync('t-streams', T.streams, 'no open streams', 6, (x) => ({ attrs: { 'data-worker': x.Worker, 'data-type': x.Type },
      cells: [x.Worker, mono(x.Type), mono(x.Peer), num(x.Received), num(x.Yielded),
        { text: x.Ready ? 'ready' : 'full (not ready)', cls: x.Ready ? 'win-ready' : 'win-full' }] }));
    setText('n-polls', '(' + T.polls.length + ')');
    sync('t-polls', T.polls, 'no parked polls', 5, (p) => ({ attrs: { 'data-worker': p.Worker, 'data-type': p.Type },
      cells: [p.Worker, mono(p.Type), mono(p.Peer), num(p.Max), num(((Date.now() - p.ParkedAt) / 1000).toFixed(1) + ' s')] }));
    const reqs = [...T.requests].sort((a, b) => (a.Peer < b.Peer ? -1 : a.Peer > b.Peer ? 1 : a.Method < b.Method ? -1 : 1));
    sync('t-requests', reqs, 'no requests yet', 4, (r) => ({ attrs: { 'data-method': r.Method }, cells: [mono(r.Peer),
      mono(r.Method), num(r.Count), Object.entries(r.ByCode || {}).map(([c, n]) => c + ' ' + n).join(', ')] }));
  }

  // Resolve buttons (one delegated listener; rows are reused).
  $('t-incidents').addEventListener('click', (e) => {
    const btn = e.target.closest('button[data-resolve]');
    if (btn && !btn.disabled) resolve(btn.getAttribute('data-resolve'), btn);
  });

  // One view at a time: the newest waits for the next animation frame.
  let latest = null, framePending = false;
  feed.onmessage = (e) => {
    const m = e.data;
    if (m.kind === 'stats') { statsWait.get(m.id)?.(m.stats); statsWait.delete(m.id); return; }
    if (m.kind !== 'view') return;
    if (latest) m.view.ats = latest.ats.concat(m.view.ats);
    latest = m.view;
    if (framePending) return;
    framePending = true;
    requestAnimationFrame(() => {
      framePending = false;
      const v = latest; latest = null;
      const t0 = performance.now();
      render(v);
      const cost = performance.now() - t0;
      M.renderMs += cost; M.views++;
      // The next frame is the first that shows this DOM; the time until it
      // includes style, layout and paint: the feed spaces views by it.
      requestAnimationFrame(() => {
        const t = nowMs();
        for (const at of v.ats) if (M.painted.length < LAT_KEEP) M.painted.push(t - at);
        feed.postMessage({ kind: 'rendered', cost: performance.now() - t0 });
      });
    });
  };

  async function resolve(key, btn) {
    btn.disabled = true;
    const toast = $('toast');
    try {
      const r = await fetch('api/incidents/' + encodeURIComponent(key) + '/resolve',
        { method: 'POST', headers: { 'X-Jobwire-UI': '1' }, credentials: 'same-origin' });
      const body = await r.json().catch(() => ({}));
      if (!r.ok) throw new Error(body.error || ('HTTP ' + r.status));
      toast.textContent = 'incident ' + key + ' resolved';
      toast.className = 'toast ok';
    } catch (e) {
      toast.textContent = 'could not resolve incident ' + key + ': ' + e.message;
      toast.className = 'toast';
      btn.disabled = false;
    }
  }

  const sendFilters = () => feed.postMessage({ kind: 'filters', filters: {
    process: $('f-process').value, state: $('f-state').value, jtype: $('f-jtype').value, jstate: $('f-jstate').value } });
  for (const id of ['f-process', 'f-state', 'f-jtype', 'f-jstate']) $(id).addEventListener('change', sendFilters);
  // Rates decay, "parked for" and deadlines advance while nothing happens.
  setInterval(() => feed.postMessage({ kind: 'tick' }), 1000);

  // Long animation frames (> 50 ms, including style and layout).
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        M.longFrames++; M.longFramesMs += e.duration;
        if (e.styleAndLayoutStart) M.styleLayoutMs += e.startTime + e.duration - e.styleAndLayoutStart;
      }
    }).observe({ type: 'long-animation-frame', buffered: true });
  } catch (_) { /* not supported */ }
})();
