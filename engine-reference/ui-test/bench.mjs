// Latency of the live view: commit → the page, through the browser.
//
// Starts `jobwire-engine dev` (fsync on, 3 partitions), opens the page in
// headless chromium, drives --rate instances/s for --duration with the real
// worker (uiworker load: CreateProcessInstance + two push streams that
// complete every job), then reads, for every committed batch the page got,
//   receipt = page time when the batch was applied to the page's model − commit time
//   painted = first animation frame after the DOM showing it − commit time
// (commit time is taken on the partition goroutine right after the fsync;
// both clocks are this machine's wall clock). Prints percentiles beside the
// import latency Zeebe's chaos-day report measured for Operate (3.7–5.7 s).
import { writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { startEngine, startWorker, launchBrowser, percentile, ENGINE_DIR } from './harness.mjs';

const { values } = parseArgs({ options: {
  rate: { type: 'string', default: '500' },
  duration: { type: 'string', default: '20s' },
  target: { type: 'string', default: '100' },
} });
const OUT = process.env.RESULTS ? path.join(process.env.RESULTS, 'ui') : path.join(ENGINE_DIR, 'ui-test', 'out');
mkdirSync(OUT, { recursive: true });

const load0 = os.loadavg()[0];
const engine = await startEngine();
const browser = await launchBrowser();
let worker;
try {
  const page = await (await browser.newContext({ viewport: { width: 1400, height: 1000 } })).newPage();
  await page.goto(engine.url + (process.env.UI_BENCH_QUERY || ''));
  await page.locator('#conn', { hasText: 'live' }).waitFor({ timeout: 15000 });
  // A plain HTTP client on the same stream (no browser): separates the
  // engine's share from the browser's.
  const plain = [];
  const ac = new AbortController();
  const sse = (async () => {
    const res = await fetch(engine.url + 'api/events', { signal: ac.signal });
    const dec = new TextDecoder();
    let buf = '';
    for await (const chunk of res.body) {
      const t = performance.timeOrigin + performance.now();
      buf += dec.decode(chunk, { stream: true });
      let i;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const msg = buf.slice(0, i); buf = buf.slice(i + 2);
        if (!msg.startsWith('event: delta')) continue;
        const d = JSON.parse(msg.slice(msg.indexOf('data: ') + 6));
        for (const b of d.batches) plain.push(t - b.at / 1e6);
      }
    }
  })().catch(() => {});
  worker = startWorker(['load', '--addr', engine.addr, '--rate', values.rate, '--duration', values.duration]);
  const [line] = await worker.out.waitFor(/^load created=.*/, 600000);
  await page.waitForTimeout(1000); // let the last batches arrive
  ac.abort();
  await sse;
  await page.screenshot({ path: path.join(OUT, 'live-view-load.png'), fullPage: false });
  const st = await page.evaluate(() => window.__jwStats());
  const main = await page.evaluate(() => window.__jw);
  const m = { receipt: st.receipt, hub: st.hub, painted: main.painted, batches: st.batches, deltas: st.deltas,
    snapshots: st.snapshots, cpu: { events: st.eventsMs, render: main.renderMs, views: main.views, longFrames: main.longFrames,
      longFramesMs: main.longFramesMs, styleLayoutMs: main.styleLayoutMs } };
  const dropped = await page.evaluate(async () => (await (await fetch('api/snapshot')).json()).totals.dropped);
  const stats = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return { n: s.length, p50: percentile(s, 50), p90: percentile(s, 90), p99: percentile(s, 99),
      p999: percentile(s, 99.9), max: s[s.length - 1] };
  };
  const r = stats(m.receipt), p = stats(m.painted), h = stats(m.hub), n = stats(plain);
  const f = (x) => (x === undefined || Number.isNaN(x) ? "-" : x.toFixed(1)).padStart(8);
  console.log(`worker: ${line}`);
  console.log(`machine: ${os.cpus().length} cores, load average ${load0.toFixed(1)} before, ${os.loadavg()[0].toFixed(1)} after`);
  console.log(`page: ${m.batches} committed batches in ${m.deltas} SSE messages, ${m.snapshots} snapshot(s); hub dropped ${dropped}`);
  console.log(`page: feed worker ${m.cpu.events.toFixed(0)} ms handling events; main thread ${m.cpu.views} views, ${m.cpu.render.toFixed(0)} ms rendering (script), ${m.cpu.longFrames} long frames (${m.cpu.longFramesMs.toFixed(0)} ms, ${m.cpu.styleLayoutMs.toFixed(0)} ms style+layout)`);
  console.log('commit → page latency (ms)      n       p50      p90      p99    p99.9      max');
  console.log(`  encoded by the hub     ${String(h.n).padStart(8)} ${f(h.p50)} ${f(h.p90)} ${f(h.p99)} ${f(h.p999)} ${f(h.max)}`);
  console.log(`  received by node (SSE) ${String(n.n).padStart(8)} ${f(n.p50)} ${f(n.p90)} ${f(n.p99)} ${f(n.p999)} ${f(n.max)}`);
  console.log(`  received by the page   ${String(r.n).padStart(8)} ${f(r.p50)} ${f(r.p90)} ${f(r.p99)} ${f(r.p999)} ${f(r.max)}`);
  console.log(`  painted (next frame)   ${String(p.n).padStart(8)} ${f(p.p50)} ${f(p.p90)} ${f(p.p99)} ${f(p.p999)} ${f(p.max)}`);
  console.log(`Operate (Zeebe chaos day): 3700–5700 ms import latency; here p99 ${f(r.p99).trim()} ms received, ${f(p.p99).trim()} ms painted`);
  const target = Number(values.target);
  console.log(`target p99 ≤ ${target} ms at ${values.rate} instances/s: ${r.p99 <= target ? 'met' : 'NOT met'} (received), ${p.p99 <= target ? 'met' : 'NOT met'} (painted)`);
  writeFileSync(path.join(OUT, 'bench.json'), JSON.stringify({ rate: Number(values.rate), duration: values.duration,
    worker: line, loadavg: [load0, os.loadavg()[0]], hub: h, plainClient: n, received: r, painted: p, batches: m.batches, deltas: m.deltas, dropped }, null, 2));
} finally {
  await worker?.stop();
  await browser.close();
  await engine.stop();
}
