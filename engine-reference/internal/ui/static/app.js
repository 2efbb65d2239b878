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
    hub: [],       // commit → encoded by the engine's hub (ms): the server's share
    painted: [],   // commit → first animation frame after the DOM update (ms)
    batches: 0, snapshots: 0, deltas: 0, tables: 0, connected: false,
    cpu: { events: 0, render: 0 }, // main-thread ms spent handling events / rendering
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
    if (map.size <= KEEP + 250) return; // hysteresis: trim in chunks, not on every update
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
    gen++;
    for (const b of d.batches) {
      const at = b.at / 1e6;
      if (M.receipt.length < LAT_KEEP) M.receipt.push(t - at);
      if (M.hub.length < LAT_KEEP) M.hub.push(d.sent / 1e6 - at);
      pendingPaint.push([at, gen]);
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

  // ---- rendering: in animation frames, only the tables whose data changed;
  // rows are reused by key while their content is unchanged. A batch counts
  // as painted at the frame after the one that rendered it. ----
  const PARTS = ['incidents', 'instances', 'jobs', 'gateway'];
  const dirty = new Set();
  const renderedGen = { incidents: 0, instances: 0, jobs: 0, gateway: 0 };
  let gen = 0, scheduled = false;
  const NO_RENDER = new URLSearchParams(location.search).get('render') === '0'; // diagnosis: model only
  function markDirty(...parts) {
    for (const p of parts) dirty.add(p);
    if (scheduled || NO_RENDER) return;
    scheduled = true;
    requestAnimationFrame(frame);
  }
  const schedule = () => markDirty(...PARTS);
  function frame() {
    const t0 = performance.now();
    try { frameInner(); } finally { M.cpu.render += performance.now() - t0; }
  }
  function frameInner() {
    scheduled = false;
    renderCounters();
    for (const part of PARTS) {
      if (!dirty.has(part)) continue;
      dirty.delete(part);
      RENDER[part]();
      renderedGen[part] = gen;
    }
    const done = Math.min(renderedGen.incidents, renderedGen.instances, renderedGen.jobs); // the tables batches feed
    const ready = [];
    while (pendingPaint.length && pendingPaint[0][1] <= done) ready.push(pendingPaint.shift()[0]);
    if (ready.length) {
      requestAnimationFrame(() => {
        const t = nowMs();
        for (const at of ready) if (M.painted.length < LAT_KEEP) M.painted.push(t - at);
      });
    }
    if (dirty.size) { scheduled = true; requestAnimationFrame(frame); }
  }

  const lastSig = new Map(); // table → signature of what it shows
  function fillBody(table, rows, empty, cols) {
    const tb = $(table).tBodies[0];
    const sig = rows.map((r) => r.sig).join('\n');
    if (lastSig.get(table) === sig && tb.rows.length > 0) return;
    lastSig.set(table, sig);
    sweepRows();
    const frag = document.createDocumentFragment();
    if (rows.length === 0) frag.append(el('tr', { class: 'empty' }, el('td', { colspan: String(cols), text: empty })));
    for (const r of rows) frag.append(r.tr());
    tb.replaceChildren(frag);
  }
  // row(sig, build): a row that is rebuilt only when its signature changes.
  const rowCache = new Map();
  function row(table, key, sig, build) {
    const ck = table + ' ' + key;
    return { sig: key + ' ' + sig, tr: () => {
      const c = rowCache.get(ck);
      if (c && c.sig === sig) { c.used = true; return c.tr; }
      const tr = build();
      rowCache.set(ck, { sig, tr, used: true });
      return tr;
    } };
  }
  let sweeps = 0;
  function sweepRows() { // drop rows not shown for a while
    if (++sweeps % 20) return;
    for (const [k, c] of rowCache) { if (!c.used) rowCache.delete(k); else c.used = false; }
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

  function renderCounters() {
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
      fillBody('t-types', [...types].sort().map((k) => {
        const cells = [fmtRate(rate((x) => g(x.jobsCompleted, k))), fmtRate(rate((x) => g(x.push, k))),
          fmtRate(rate((x) => g(x.poll, k))), fmtRate(rate((x) => g(x.yield, k))), g(t.jobsFailed, k), g(t.timeout, k),
          g(t.jobsCompleted, k)];
        return row('types', k, cells.join('|'), () => el('tr', { 'data-type': k }, td(k, 'mono'),
          ...cells.map((c) => td(c, 'num'))));
      }), 'no jobs yet', 8);
    }
    $('c-incidents').textContent = S.incs.size;
    if (M.receipt.length) {
      const last = M.receipt.slice(-1000).sort((a, b) => a - b);
      const p99 = last[Math.min(last.length - 1, Math.floor(last.length * 0.99))];
      $('lat').textContent = 'commit → page p99 ' + p99.toFixed(1) + ' ms';
    }
  }

  function renderIncidents() {
    const incs = [...S.incs.values()].sort((a, b) => keyCmp(b.key, a.key));
    $('n-incidents').textContent = '(' + incs.length + ')';
    fillBody('t-incidents', incs.slice(0, ROWS).map((i) => row('inc', i.key, i.message, () => {
      const btn = el('button', { 'data-resolve': i.key, text: 'Resolve' });
      btn.addEventListener('click', () => resolve(i.key, btn));
      return el('tr', { 'data-key': i.key }, td(i.key, 'mono'), td(i.instance, 'mono'), td(i.element || '', 'mono'),
        td(i.type), td(i.message, 'msg'), el('td', null, btn));
    })), 'no open incidents', 6);

  }

  function renderInstances() {
    const procs = new Set(); for (const v of S.insts.values()) procs.add(v.process);
    setOptions('f-process', procs);
    const fp = $('f-process').value, fs = $('f-state').value;
    const insts = [...S.insts.values()].filter((v) => (!fp || v.process === fp) && (!fs || v.state === fs))
      .sort((a, b) => keyCmp(b.key, a.key));
    $('n-instances').textContent = '(' + Math.min(ROWS, insts.length) + ' of ' + insts.length + ' shown)';
    fillBody('t-instances', insts.slice(0, ROWS).map((v) => {
      const active = (v.active || []).join(', ');
      return row('inst', v.key, v.state + '|' + active + '|' + (v.variables || ''), () => el('tr', { 'data-key': v.key, 'data-state': v.state },
        td(v.key, 'mono'), td(v.process, 'mono'), td(v.version, 'num'), stateTd(v.state),
        td(active, 'mono'), el('td', { class: 'vars', title: v.variables || '', text: v.variables || '' })));
    }), 'no process instances', 6);

  }

  function renderJobs() {
    const jtypes = new Set(); for (const v of S.jobs.values()) jtypes.add(v.type);
    setOptions('f-jtype', jtypes);
    const ft = $('f-jtype').value, fjs = $('f-jstate').value;
    const jobs = [...S.jobs.values()].filter((v) => (!ft || v.type === ft) && (!fjs || v.state === fjs))
      .sort((a, b) => keyCmp(b.key, a.key));
    $('n-jobs').textContent = '(' + Math.min(ROWS, jobs.length) + ' of ' + jobs.length + ' shown)';
    fillBody('t-jobs', jobs.slice(0, ROWS).map((j) => {
      const dl = fmtDeadline(j.deadline || j.retryAt);
      return row('job', j.key, [j.state, j.worker, j.retries, dl, j.activations, j.yields, j.errorMessage].join('|'),
        () => el('tr', { 'data-key': j.key, 'data-state': j.state },
          td(j.key, 'mono'), td(j.type, 'mono'), stateTd(j.state), td(j.worker || ''), td(j.retries, 'num'),
          td(dl), td(j.activations, 'num'), td(j.yields, 'num'), td(j.errorMessage || '', 'msg'), td(j.instance, 'mono')));
    }), 'no jobs', 10);

  }

  function renderGateway() {
    const T = S.tables;
    $('n-streams').textContent = '(' + T.streams.length + ')';
    fillBody('t-streams', T.streams.map((s) => row('stream', s.ID, [s.Received, s.Yielded, s.Ready].join('|'),
      () => el('tr', { 'data-worker': s.Worker, 'data-type': s.Type },
        td(s.Worker), td(s.Type, 'mono'), td(s.Peer, 'mono'), td(s.Received, 'num'), td(s.Yielded, 'num'),
        el('td', { class: s.Ready ? 'win-ready' : 'win-full', text: s.Ready ? 'ready' : 'full (not ready)' })))),
    'no open streams', 6);
    $('n-polls').textContent = '(' + T.polls.length + ')';
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
  const RENDER = { incidents: renderIncidents, instances: renderInstances, jobs: renderJobs, gateway: renderGateway };

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
    es.addEventListener('delta', (e) => {
      const t0 = performance.now();
      applyDelta(JSON.parse(e.data));
      M.cpu.events += performance.now() - t0;
      markDirty('incidents', 'instances', 'jobs');
    });
    es.addEventListener('tables', (e) => { S.tables = JSON.parse(e.data); M.tables++; markDirty('gateway'); });
  }
  connect();
  setInterval(() => markDirty('gateway', 'jobs'), 1000); // rates decay, "parked for" and deadlines advance while idle
})();
