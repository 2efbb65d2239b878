// Shared helpers of the live view's browser test and latency benchmark:
// start the real engine binary and the real worker (engine-reference/bin),
// launch Debian's chromium headless through playwright-core. Everything
// binds 127.0.0.1, picks free ports, and is stopped at the end.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const ENGINE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const BIN = path.join(ENGINE_DIR, 'bin');
export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

// Line reader over a child's stdout that can wait for a pattern.
class Lines {
  constructor(stream, name) {
    this.lines = [];
    this.waiters = [];
    this.name = name;
    let buf = '';
    stream.setEncoding('utf8');
    stream.on('data', (d) => {
      buf += d;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        this.lines.push(line);
        if (process.env.UI_TEST_VERBOSE) console.log(`[${name}] ${line}`);
        for (const w of [...this.waiters]) w(line);
      }
    });
  }
  waitFor(re, ms = 15000) {
    for (const l of this.lines) { const m = l.match(re); if (m) return Promise.resolve(m); }
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => {
        this.waiters = this.waiters.filter((x) => x !== w);
        reject(new Error(`${this.name}: no line matching ${re} within ${ms} ms; got:\n${this.lines.join('\n')}`));
      }, ms);
      const w = (line) => {
        const m = line.match(re);
        if (m) { clearTimeout(t); this.waiters = this.waiters.filter((x) => x !== w); resolve(m); }
      };
      this.waiters.push(w);
    });
  }
}

function startProcess(name, bin, args) {
  const child = spawn(bin, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  const out = new Lines(child.stdout, name);
  let err = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d) => { err += d; if (process.env.UI_TEST_VERBOSE) process.stderr.write(`[${name}!] ${d}`); });
  const exited = once(child, 'exit');
  return {
    child, out, stderr: () => err,
    // Closing stdin is how both programs are told to stop (--exit-on-stdin-close);
    // SIGKILL if one is still there after 5 s.
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.stdin.end();
      const t = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(t);
    },
  };
}

// startEngine runs `jobwire-engine dev` on free ports and returns its
// gateway address and the live view's URL.
export async function startEngine(extra = []) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'jobwire-ui-test-'));
  const p = startProcess('engine', path.join(BIN, 'jobwire-engine'),
    ['dev', '--port', '0', '--ui-port', '0', '--data-dir', dataDir, '--exit-on-stdin-close', ...extra]);
  const [, addr] = await p.out.waitFor(/listening on (127\.0\.0\.1:\d+)/);
  const [, url] = await p.out.waitFor(/live view (http:\/\/127\.0\.0\.1:\d+\/)/);
  const stop = p.stop;
  p.stop = async () => { await stop(); rmSync(dataDir, { recursive: true, force: true }); };
  return { ...p, addr, url };
}

// startCluster runs `jobwire-engine cluster` (the first gateway serves the
// live view) and returns that gateway's address and the page's URL.
export async function startCluster(extra = []) {
  const p = startProcess('cluster', path.join(BIN, 'jobwire-engine'),
    ['cluster', '--gateways', '2', '--brokers', '2', '--partitions', '2', '--ui-port', '0', '--exit-on-stdin-close', ...extra]);
  const [, url] = await p.out.waitFor(/live view (http:\/\/127\.0\.0\.1:\d+\/)/, 30000);
  const [, addr] = await p.out.waitFor(/cluster ready: gateways (127\.0\.0\.1:\d+)/, 30000);
  return { ...p, addr, url };
}

export function startWorker(args) {
  return startProcess('worker', path.join(BIN, 'uiworker'), args);
}

// Flags as the machine notes list them for a root, offline Chromium.
export async function launchBrowser() {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
}

export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
