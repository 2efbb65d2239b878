// jobwire-engine live view. Plain JavaScript, no framework, nothing fetched
// from elsewhere: the engine pushes a snapshot, then one "delta" per drain of
// committed batches, and "tables" when the gateway's streams/polls/request
// counts change (Server-Sent Events on api/events).
'use strict';

(function () {
  const ROWS = 100;        // rows shown per table
  const KEEP = 2000;       // instances / jobs kept in the page's model
  const LAT_KEEP = 200000; // latency samples kept for benchmarks

  const S = {
    insts: new Map(), jobs: new Map(), incs: new Map(),
    totals: null, tables: { streams: [], polls: [], requests: [] },
    samples: [], // [ms, totals] for rates
  };
  // Measurement hooks (read by the browser test and the latency benchmark).
  const M = window.__jw = {
    receipt: [],   // commit → handled by this page (ms), per committed batch
    painted: [],   // commit → first animation frame after the DOM update (ms)
    batches: 0, snapshots: 0, deltas: 0, tables: 0, connected: false,
  };
  let pendingPaint = [];

  const $ = (id) => document.getElementById(id);
  const nowMs = () => performance.timeOrigin + performance.now();
  const keyCmp = (a, b) => (a.length - b.length) || (a < b ? -1 : a > b ? 1 : 0);
  const finishedI = (s) => s === 'COMPLETED' || s === 'CANCELED';
  const finishedJ = (s) => s === 'COMPLETED' || s === 'CANCELED' || s === 'ERROR_THROWN';

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

  // ---- model ----
  function putInstance(v) {
    const old = S.insts.get(v.key);
    if (old && old.incidents) for (const i of old.incidents) S.incs.delete(i.key);
    S.insts.set(v.key, v);
    if (v.incidents) for (const i of v.incidents) S.incs.set(i.key, i);
  }
  function trim(map, finished) {
    if (map.size <= KEEP) return;
    const done = [];
    for (const [k, v] of map) if (finished(v.state)) done.push(k);
    done.sort(keyCmp);
    for (let i = 0; i < done.length && map.size > KEEP; i++) map.delete(done[i]);
  }
  function applySnapshot(s) {
    S.insts.clear(); S.jobs.clear(); S.incs.clear();
    for (const v of s.instances || []) putInstance(v);
    for (const v of s.jobs || []) S.jobs.set(v.key, v);
    for (const i of s.incidents || []) S.incs.set(i.key, i);
    S.totals = s.totals;
    if (s.tables) S.tables = s.tables;
    S.samples = [[nowMs(), s.totals]];
    M.snapshots++;
  }
  function applyDelta(d) {
    for (const b of d.batches) {
      if (b.resolved) for (const k of b.resolved) S.incs.delete(k);
      if (b.instances) for (const v of b.instances) putInstance(v);
      if (b.jobs) for (const v of b.jobs) S.jobs.set(v.key, v);
    }
    trim(S.insts, finishedI); trim(S.jobs, finishedJ);
    S.totals = d.totals;
    const t = nowMs();
    S.samples.push([t, d.totals]);
    while (S.samples.length > 2 && t - S.samples[1][0] > 3000) S.samples.shift();
    for (const b of d.batches) {
      const at = b.at / 1e6;
      if (M.receipt.length < LAT_KEEP) M.receipt.push(t - at);
      pendingPaint.push(at);
    }
    M.batches += d.batches.length; M.deltas++;
  }

  // ---- rates (from the totals pushed with each delta) ----
  function rate(get) {
    const n = S.samples.length;
    if (n < 1 || !S.totals) return 0;
    const t = nowMs();
    const [t0, a] = S.samples[0];
    const dt = Math.max(1000, t - t0) / 1000; // at least a 1 s window
    return Math.max(0, (get(S.totals) - get(a)) / dt);
  }
  const sum = (m) => { let s = 0; if (m) for (const k in m) s += m[k]; return s; };
  const fmtRate = (x) => x >= 100 ? Math.round(x).toString() : x.toFixed(1);

  // ---- rendering (at most once per animation frame) ----
  let scheduled = false;
  function schedule() {
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(() => {
      scheduled = false;
      render();
      const batch = pendingPaint; pendingPaint = [];
      // The frame after this one is the first that shows the new DOM.
      requestAnimationFrame(() => {
        const t = nowMs();
        for (const at of batch) if (M.painted.length < LAT_KEEP) M.painted.push(t - at);
      });
    });
  }

  function fillBody(table, rows, empty, cols) {
    const tb = $(table).tBodies[0];
    const frag = document.createDocumentFragment();
    if (rows.length === 0) frag.append(el('tr', { class: 'empty' }, el('td', { colspan: String(cols), text: empty })));
    for (const r of rows) frag.append(r);
    tb.replaceChildren(frag);
  }

  function setOptions(id, values) {
    const sel = $(id);
    const have = new Set(Array.from(sel.options).map((o) => o.value));
    for (const v of [...values].sort()) if (!have.has(v)) sel.append(el('option', { value: v, text: v }));
  }

  function fmtDeadline(ms) {
    if (!ms) return '';
    const d = ms - Date.now();
    return d >= 0 ? 'in ' + (d / 1000).toFixed(1) + ' s' : (-d / 1000).toFixed(1) + ' s ago';
  }

  function render() {
    const t = S.totals;
    if (t) {
      $('c-created').textContent = fmtRate(rate((x) => x.created));
      $('c-completed').textContent = fmtRate(rate((x) => x.completed));
      $('c-jobs').textContent = fmtRate(rate((x) => sum(x.jobsCompleted)));
      $('c-push').textContent = fmtRate(rate((x) => sum(x.push)));
      $('c-poll').textContent = fmtRate(rate((x) => sum(x.poll)));
      $('c-yield').textContent = fmtRate(rate((x) => sum(x.yield)));
      const types = new Set([...Object.keys(t.jobsCompleted || {}), ...Object.keys(t.push || {}), ...Object.keys(t.poll || {}),
        ...Object.keys(t.yield || {}), ...Object.keys(t.jobsFailed || {})]);
      const g = (m, k) => (m && m[k]) || 0;
      fillBody('t-types', [...types].sort().map((k) => el('tr', { 'data-type': k }, td(k, 'mono'),
        td(fmtRate(rate((x) => g(x.jobsCompleted, k))), 'num'), td(fmtRate(rate((x) => g(x.push, k))), 'num'),
        td(fmtRate(rate((x) => g(x.poll, k))), 'num'), td(fmtRate(rate((x) => g(x.yield, k))), 'num'),
        td(g(t.jobsFailed, k), 'num'), td(g(t.timeout, k), 'num'), td(g(t.jobsCompleted, k), 'num'))), 'no jobs yet', 8);
    }
    $('c-incidents').textContent = S.incs.size;

    // incidents
    const incs = [...S.incs.values()].sort((a, b) => keyCmp(b.key, a.key));
    $('n-incidents').textContent = '(' + incs.length + ')';
    fillBody('t-incidents', incs.slice(0, ROWS).map((i) => {
      const btn = el('button', { 'data-resolve': i.key, text: 'Resolve' });
      btn.addEventListener('click', () => resolve(i.key, btn));
      return el('tr', { 'data-key': i.key }, td(i.key, 'mono'), td(i.instance, 'mono'), td(i.element || '', 'mono'),
        td(i.type), td(i.message, 'msg'), el('td', null, btn));
    }), 'no open incidents', 6);

    // instances
    const procs = new Set(); for (const v of S.insts.values()) procs.add(v.process);
    setOptions('f-process', procs);
    const fp = $('f-process').value, fs = $('f-state').value;
    const insts = [...S.insts.values()].filter((v) => (!fp || v.process === fp) && (!fs || v.state === fs))
      .sort((a, b) => keyCmp(b.key, a.key));
    $('n-instances').textContent = '(' + Math.min(ROWS, insts.length) + ' of ' + insts.length + ' shown)';
    fillBody('t-instances', insts.slice(0, ROWS).map((v) => el('tr', { 'data-key': v.key, 'data-state': v.state },
      td(v.key, 'mono'), td(v.process, 'mono'), td(v.version, 'num'), stateTd(v.state),
      td((v.active || []).join(', '), 'mono'), el('td', { class: 'vars', title: v.variables || '', text: v.variables || '' }))),
    'no process instances', 6);

    // jobs
    const jtypes = new Set(); for (const v of S.jobs.values()) jtypes.add(v.type);
    setOptions('f-jtype', jtypes);
    const ft = $('f-jtype').value, fjs = $('f-jstate').value;
    const jobs = [...S.jobs.values()].filter((v) => (!ft || v.type === ft) && (!fjs || v.state === fjs))
      .sort((a, b) => keyCmp(b.key, a.key));
    $('n-jobs').textContent = '(' + Math.min(ROWS, jobs.length) + ' of ' + jobs.length + ' shown)';
    fillBody('t-jobs', jobs.slice(0, ROWS).map((j) => el('tr', { 'data-key': j.key, 'data-state': j.state },
      td(j.key, 'mono'), td(j.type, 'mono'), stateTd(j.state), td(j.worker || ''), td(j.retries, 'num'),
      td(fmtDeadline(j.deadline || j.retryAt)), td(j.activations, 'num'), td(j.yields, 'num'),
      td(j.errorMessage || '', 'msg'), td(j.instance, 'mono'))), 'no jobs', 10);

    // gateway tables
    const T = S.tables;
    $('n-streams').textContent = '(' + T.streams.length + ')';
    fillBody('t-streams', T.streams.map((s) => el('tr', { 'data-worker': s.Worker, 'data-type': s.Type },
      td(s.Worker), td(s.Type, 'mono'), td(s.Peer, 'mono'), td(s.Received, 'num'), td(s.Yielded, 'num'),
      el('td', { class: s.Ready ? 'win-ready' : 'win-full', text: s.Ready ? 'ready' : 'full (not ready)' }))),
    'no open streams', 6);
    $('n-polls').textContent = '(' + T.polls.length + ')';
    fillBody('t-polls', T.polls.map((p) => el('tr', { 'data-worker': p.Worker, 'data-type': p.Type },
      td(p.Worker), td(p.Type, 'mono'), td(p.Peer, 'mono'), td(p.Max, 'num'),
      td(((Date.now() - p.ParkedAt) / 1000).toFixed(1) + ' s', 'num'))), 'no parked polls', 5);
    const reqs = [...T.requests].sort((a, b) => (a.Peer < b.Peer ? -1 : a.Peer > b.Peer ? 1 : a.Method < b.Method ? -1 : 1));
    fillBody('t-requests', reqs.map((r) => el('tr', { 'data-method': r.Method },
      td(r.Peer, 'mono'), td(r.Method, 'mono'), td(r.Count, 'num'),
      td(Object.entries(r.ByCode || {}).map(([c, n]) => c + ' ' + n).join(', ')))), 'no requests yet', 4);

    if (M.receipt.length) {
      const last = M.receipt.slice(-1000).sort((a, b) => a - b);
      const p99 = last[Math.min(last.length - 1, Math.floor(last.length * 0.99))];
      $('lat').textContent = 'commit → page p99 ' + p99.toFixed(1) + ' ms';
    }
  }

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

  for (const id of ['f-process', 'f-state', 'f-jtype', 'f-jstate']) $(id).addEventListener('change', schedule);

  function connect() {
    const es = new EventSource('api/events');
    es.addEventListener('open', () => {
      M.connected = true; $('conn').textContent = 'live'; $('conn').className = 'pill on';
    });
    es.addEventListener('error', () => {
      M.connected = false; $('conn').textContent = 'reconnecting…'; $('conn').className = 'pill off';
    });
    es.addEventListener('snapshot', (e) => { applySnapshot(JSON.parse(e.data)); schedule(); });
    es.addEventListener('delta', (e) => { applyDelta(JSON.parse(e.data)); schedule(); });
    es.addEventListener('tables', (e) => { S.tables = JSON.parse(e.data); M.tables++; schedule(); });
  }
  connect();
  setInterval(schedule, 1000); // rates decay and "parked for" advances while idle
})();
