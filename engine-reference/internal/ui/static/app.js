// jobwire-engine live view: the main thread. Plain JavaScript, no framework,
// nothing fetched from elsewhere. feed.js (a Web Worker) owns the engine's
// event stream and the model; this file renders the views it posts (in an
// animation frame, rows reused by key while unchanged) and sends the
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

  // fillBody replaces a table's rows only when what it shows changed; a row
  // is rebuilt only when its own signature changed.
  const lastSig = new Map();
  const rowCache = new Map();
  function row(table, key, sig, build) {
    return { sig: key + ' ' + sig, tr: () => {
      const ck = table + ' ' + key, c = rowCache.get(ck);
      if (c && c.sig === sig) { c.used = true; return c.tr; }
      const tr = build();
      rowCache.set(ck, { sig, tr, used: true });
      return tr;
    } };
  }
  let fills = 0;
  function fillBody(table, rows, empty, cols) {
    const tb = $(table).tBodies[0];
    const sig = rows.map((r) => r.sig).join('\n');
    if (lastSig.get(table) === sig && tb.rows.length > 0) return;
    lastSig.set(table, sig);
    if (++fills % 50 === 0) { // forget rows not shown lately
      for (const [k, c] of rowCache) { if (!c.used) rowCache.delete(k); else c.used = false; }
    }
    const frag = document.createDocumentFragment();
    if (rows.length === 0) frag.append(el('tr', { class: 'empty' }, el('td', { colspan: String(cols), text: empty })));
    for (const r of rows) frag.append(r.tr());
    tb.replaceChildren(frag);
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
    $('conn').className = 'pill ' + (v.connected ? 'on' : 'off');
    if (v.p99 != null) setText('lat', 'commit → page p99 ' + v.p99.toFixed(1) + ' ms');
    if (v.counters) {
      for (const k of ['created', 'completed', 'jobs', 'push', 'poll', 'yield']) setText('c-' + k, fmtRate(v.counters[k]));
    }
    setText('c-incidents', String(v.incidentsOpen));
    fillBody('t-types', v.types.map((x) => {
      const cells = [fmtRate(x.completed), fmtRate(x.push), fmtRate(x.poll), fmtRate(x.yield), x.failed, x.timedOut, x.total];
      return row('types', x.type, cells.join('|'), () => el('tr', { 'data-type': x.type }, td(x.type, 'mono'),
        ...cells.map((c) => td(c, 'num'))));
    }), 'no jobs yet', 8);

    setText('n-incidents', '(' + v.incidentCount + ')');
    fillBody('t-incidents', v.incidents.map((i) => row('inc', i.key, i.message, () => {
      const btn = el('button', { 'data-resolve': i.key, text: 'Resolve' });
      btn.addEventListener('click', () => resolve(i.key, btn));
      return el('tr', { 'data-key': i.key }, td(i.key, 'mono'), td(i.instance, 'mono'), td(i.element || '', 'mono'),
        td(i.type), td(i.message, 'msg'), el('td', null, btn));
    })), 'no open incidents', 6);

    setOptions('f-process', v.processes);
    setText('n-instances', '(' + v.instances.length + ' of ' + v.instanceCount + ' shown)');
    fillBody('t-instances', v.instances.map((x) => {
      const active = (x.active || []).join(', ');
      return row('inst', x.key, x.state + '|' + active + '|' + (x.variables || ''), () => el('tr', { 'data-key': x.key, 'data-state': x.state },
        td(x.key, 'mono'), td(x.process, 'mono'), td(x.version, 'num'), stateTd(x.state),
        td(active, 'mono'), el('td', { class: 'vars', title: x.variables || '', text: x.variables || '' })));
    }), 'no process instances', 6);

    setOptions('f-jtype', v.jobTypes);
    setText('n-jobs', '(' + v.jobs.length + ' of ' + v.jobCount + ' shown)');
    fillBody('t-jobs', v.jobs.map((j) => {
      const dl = fmtDeadline(j.deadline || j.retryAt);
      return row('job', j.key, [j.state, j.worker, j.retries, dl, j.activations, j.yields, j.errorMessage].join('|'),
        () => el('tr', { 'data-key': j.key, 'data-state': j.state },
          td(j.key, 'mono'), td(j.type, 'mono'), stateTd(j.state), td(j.worker || ''), td(j.retries, 'num'),
          td(dl), td(j.activations, 'num'), td(j.yields, 'num'), td(j.errorMessage || '', 'msg'), td(j.instance, 'mono')));
    }), 'no jobs', 10);

    const T = v.tables;
    setText('n-streams', '(' + T.streams.length + ')');
    fillBody('t-streams', T.streams.map((s) => row('stream', s.ID, [s.Received, s.Yielded, s.Ready].join('|'),
      () => el('tr', { 'data-worker': s.Worker, 'data-type': s.Type },
        td(s.Worker), td(s.Type, 'mono'), td(s.Peer, 'mono'), td(s.Received, 'num'), td(s.Yielded, 'num'),
        el('td', { class: s.Ready ? 'win-ready' : 'win-full', text: s.Ready ? 'ready' : 'full (not ready)' })))),
    'no open streams', 6);
    setText('n-polls', '(' + T.polls.length + ')');
    fillBody('t-polls', T.polls.map((p, i) => {
      const parked = ((Date.now() - p.ParkedAt) / 1000).toFixed(1) + ' s';
      return row('poll', p.Peer + ' ' + p.Type + ' ' + p.ParkedAt + ' ' + i, parked, () => el('tr', { 'data-worker': p.Worker, 'data-type': p.Type },
        td(p.Worker), td(p.Type, 'mono'), td(p.Peer, 'mono'), td(p.Max, 'num'), td(parked, 'num')));
    }), 'no parked polls', 5);
    const reqs = [...T.requests].sort((a, b) => (a.Peer < b.Peer ? -1 : a.Peer > b.Peer ? 1 : a.Method < b.Method ? -1 : 1));
    fillBody('t-requests', reqs.map((r) => {
      const codes = Object.entries(r.ByCode || {}).map(([c, n]) => c + ' ' + n).join(', ');
      return row('req', r.Peer + ' ' + r.Method, r.Count + '|' + codes, () => el('tr', { 'data-method': r.Method },
        td(r.Peer, 'mono'), td(r.Method, 'mono'), td(r.Count, 'num'), td(codes)));
    }), 'no requests yet', 4);
  }

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
