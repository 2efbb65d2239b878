// jobwire-engine live view: the feed (a dedicated Web Worker).
//
// It owns the Server-Sent Events stream (api/events) and the page's model,
// so receiving and applying committed batches never waits for the main
// thread's rendering. At most every `gap` ms it posts the main thread a
// ready-to-render view: counters, rates, and the newest ROWS rows of each
// table after the page's filters.
'use strict';

const ROWS = 25;         // rows per table
const KEEP = 2000;       // instances / jobs kept in the model
const LAT_KEEP = 200000; // latency samples kept for benchmarks

const S = { insts: new Map(), jobs: new Map(), incs: new Map(), totals: null,
  tables: { streams: [], polls: [], requests: [] }, samples: [] };
const M = { receipt: [], hub: [], batches: 0, snapshots: 0, deltas: 0, tables: 0, connected: false, eventsMs: 0 };
let filters = { process: '', state: '', jtype: '', jstate: '' };
let pendingAts = []; // commit times of batches not yet in a posted view
let gap = 50, lastPost = -1e9, timer = null, dirty = false;

const nowMs = () => performance.timeOrigin + performance.now();
const keyCmp = (a, b) => (a.length - b.length) || (a < b ? -1 : a > b ? 1 : 0);
const finishedI = (s) => s === 'COMPLETED' || s === 'CANCELED';
const finishedJ = (s) => s === 'COMPLETED' || s === 'CANCELED' || s === 'ERROR_THROWN';

function putInstance(v) {
  const old = S.insts.get(v.key);
  if (old && old.incidents) for (const i of old.incidents) S.incs.delete(i.key);
  S.insts.set(v.key, v);
  if (v.incidents) for (const i of v.incidents) S.incs.set(i.key, i);
}
function trim(map, finished) {
  if (map.size <= KEEP + 250) return; // in chunks, not on every update
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
    if (M.receipt.length < LAT_KEEP) { M.receipt.push(t - at); M.hub.push(d.sent / 1e6 - at); }
    pendingAts.push(at);
  }
  M.batches += d.batches.length; M.deltas++;
}

// ---- rates from the totals pushed with each delta (window ≥ 1 s, ≤ 3 s) ----
function rate(get) {
  if (!S.totals || S.samples.length === 0) return 0;
  const [t0, a] = S.samples[0];
  return Math.max(0, (get(S.totals) - get(a)) / (Math.max(1000, nowMs() - t0) / 1000));
}
const sum = (m) => { let s = 0; if (m) for (const k in m) s += m[k]; return s; };
const g = (m, k) => (m && m[k]) || 0;

function newest(map, keep) {
  const out = [];
  for (const v of map.values()) if (keep(v)) out.push(v);
  out.sort((a, b) => keyCmp(b.key, a.key));
  return out;
}

function view() {
  const t = S.totals;
  const counters = t ? {
    created: rate((x) => x.created), completed: rate((x) => x.completed), jobs: rate((x) => sum(x.jobsCompleted)),
    push: rate((x) => sum(x.push)), poll: rate((x) => sum(x.poll)), yield: rate((x) => sum(x.yield)),
  } : null;
  const types = [];
  if (t) {
    const names = new Set([...Object.keys(t.jobsCompleted || {}), ...Object.keys(t.push || {}), ...Object.keys(t.poll || {}),
      ...Object.keys(t.yield || {}), ...Object.keys(t.jobsFailed || {})]);
    for (const k of [...names].sort()) {
      types.push({ type: k, completed: rate((x) => g(x.jobsCompleted, k)), push: rate((x) => g(x.push, k)),
        poll: rate((x) => g(x.poll, k)), yield: rate((x) => g(x.yield, k)), failed: g(t.jobsFailed, k),
        timedOut: g(t.timeout, k), total: g(t.jobsCompleted, k) });
    }
  }
  const processes = new Set(), jtypes = new Set();
  for (const v of S.insts.values()) processes.add(v.process);
  for (const v of S.jobs.values()) jtypes.add(v.type);
  const f = filters;
  const insts = newest(S.insts, (v) => (!f.process || v.process === f.process) && (!f.state || v.state === f.state));
  const jobs = newest(S.jobs, (v) => (!f.jtype || v.type === f.jtype) && (!f.jstate || v.state === f.jstate));
  const incs = [...S.incs.values()].sort((a, b) => keyCmp(b.key, a.key));
  let p99 = null;
  if (M.receipt.length) {
    const last = M.receipt.slice(-1000).sort((a, b) => a - b);
    p99 = last[Math.min(last.length - 1, Math.floor(last.length * 0.99))];
  }
  return {
    counters, types, incidentsOpen: S.incs.size, incidents: incs.slice(0, ROWS), incidentCount: incs.length,
    instances: insts.slice(0, ROWS), instanceCount: insts.length, processes: [...processes].sort(),
    jobs: jobs.slice(0, ROWS), jobCount: jobs.length, jobTypes: [...jtypes].sort(), tables: S.tables, p99,
    connected: M.connected, ats: pendingAts,
  };
}

function post() {
  timer = null;
  if (!dirty) return;
  dirty = false;
  lastPost = performance.now();
  const v = view();
  pendingAts = [];
  postMessage({ kind: 'view', view: v });
}
function schedule() {
  dirty = true;
  if (timer !== null) return;
  timer = setTimeout(post, Math.max(0, lastPost + gap - performance.now()));
}

onmessage = (e) => {
  const m = e.data;
  if (m.kind === 'filters') { filters = m.filters; schedule(); }
  // The main thread reports what a view cost (script, style, layout, paint
  // up to the next frame); views are spaced so that rendering takes at most
  // about a third of the main thread.
  if (m.kind === 'rendered') gap = Math.min(1000, Math.max(50, 3 * m.cost));
  if (m.kind === 'tick') schedule();
  if (m.kind === 'stats') postMessage({ kind: 'stats', id: m.id, stats: { receipt: M.receipt, hub: M.hub, batches: M.batches,
    snapshots: M.snapshots, deltas: M.deltas, tables: M.tables, connected: M.connected, eventsMs: M.eventsMs } });
};

const es = new EventSource('api/events');
es.addEventListener('open', () => { M.connected = true; schedule(); });
es.addEventListener('error', () => { M.connected = false; schedule(); });
es.addEventListener('snapshot', (e) => { applySnapshot(JSON.parse(e.data)); schedule(); });
es.addEventListener('delta', (e) => {
  const t0 = performance.now();
  applyDelta(JSON.parse(e.data));
  M.eventsMs += performance.now() - t0;
  schedule();
});
es.addEventListener('tables', (e) => { S.tables = JSON.parse(e.data); M.tables++; schedule(); });
