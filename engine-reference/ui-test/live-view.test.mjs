// Browser test of the engine's live view: the real engine, a real worker
// over gRPC (uiworker), Debian's chromium headless. Screenshots go to
// $RESULTS/ui (or ui-test/out).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path, { join } from 'node:path';
import { startEngine, startCluster, startWorker, launchBrowser, ENGINE_DIR } from './harness.mjs';

const OUT = process.env.RESULTS ? path.join(process.env.RESULTS, 'ui') : path.join(ENGINE_DIR, 'ui-test', 'out');
mkdirSync(OUT, { recursive: true });
const FAIL_MESSAGE = 'card declined: insufficient funds (ui-test)';
const T = 15000; // generous waits: the machine is shared

let browser;
before(async () => { browser = await launchBrowser(); });
after(async () => { await browser?.close(); });

test('live view shows instances, jobs, streams, polls and incidents; resolving from the page works', async (t) => {
  const engine = await startEngine();
  t.after(() => engine.stop());
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  t.after(() => ctx.close());
  const page = await ctx.newPage();
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  const external = [];
  page.on('request', (r) => { if (!r.url().startsWith(engine.url) && !r.url().startsWith('data:')) external.push(r.url()); });
  await page.goto(engine.url);
  await page.locator('#conn', { hasText: 'live' }).waitFor({ timeout: T });

  const worker = startWorker(['scenario', '--addr', engine.addr]);
  t.after(() => worker.stop());
  const [, okKey] = await worker.out.waitFor(/created ui-order (\d+)/);
  const [, failKey] = await worker.out.waitFor(/created ui-refund (\d+)/);
  await worker.out.waitFor(/^ready$/);

  // The created instance and its job (pushed to the stream, completed).
  const okRow = page.locator(`#t-instances tr[data-key="${okKey}"]`);
  await okRow.waitFor({ timeout: T });
  await page.locator(`#t-instances tr[data-key="${okKey}"][data-state="COMPLETED"]`).waitFor({ timeout: T });
  assert.match(await okRow.innerText(), /ui-order/);
  const okJob = page.locator('#t-jobs tr', { hasText: okKey }).filter({ hasText: 'ui-charge' });
  await okJob.locator('.st-COMPLETED').waitFor({ timeout: T });
  // The open stream, with the job it received.
  const stream = page.locator('#t-streams tr[data-worker="ui-push-worker"][data-type="ui-charge"]');
  await stream.waitFor({ timeout: T });
  await page.waitForFunction(() => {
    const r = document.querySelector('#t-streams tr[data-worker="ui-push-worker"]');
    return r && Number(r.children[3].textContent) >= 1 && r.children[5].textContent === 'ready';
  }, null, { timeout: T });
  // Push vs poll counters by type.
  await page.waitForFunction(() => {
    const r = document.querySelector('#t-types tr[data-type="ui-charge"]');
    return r && Number(r.children[7].textContent) >= 1;
  }, null, { timeout: T });

  // The failing job: its error message, the incident, the instance in INCIDENT.
  const failJob = page.locator('#t-jobs tr', { hasText: failKey }).filter({ hasText: 'ui-refund' });
  await failJob.locator('.st-INCIDENT').waitFor({ timeout: T });
  assert.match(await failJob.innerText(), new RegExp(FAIL_MESSAGE.replace(/[()]/g, '\\$&')));
  await page.locator(`#t-instances tr[data-key="${failKey}"][data-state="INCIDENT"]`).waitFor({ timeout: T });
  const incident = page.locator('#t-incidents tr', { hasText: failKey });
  await incident.waitFor({ timeout: T });
  assert.match(await incident.innerText(), /JOB_NO_RETRIES/);
  assert.match(await incident.innerText(), /card declined/);
  // The poller parked again after failing the job.
  await page.locator('#t-polls tr[data-worker="ui-poll-worker"][data-type="ui-refund"]').waitFor({ timeout: T });
  // Per-client request counts.
  await page.locator('#t-requests tr[data-method="CreateProcessInstance"]').waitFor({ timeout: T });
  await page.locator('#t-requests tr[data-method="StreamActivatedJobs"]').waitFor({ timeout: T });
  await page.locator('#t-requests tr[data-method="FailJob"]', { hasText: 'OK 1' }).waitFor({ timeout: T });
  assert.equal(await page.locator('#c-incidents').innerText(), '1');
  await page.screenshot({ path: path.join(OUT, 'live-view-incident.png'), fullPage: true });

  // Filters: by state, then by process.
  const onlyRow = (k) => page.waitForFunction((key) => {
    const rows = document.querySelectorAll('#t-instances tbody tr');
    return rows.length === 1 && rows[0].getAttribute('data-key') === key;
  }, k, { timeout: T });
  await page.selectOption('#f-state', 'INCIDENT');
  await onlyRow(failKey);
  await page.selectOption('#f-state', '');
  await page.selectOption('#f-process', 'ui-order');
  await onlyRow(okKey);
  await page.selectOption('#f-process', '');

  // Resolve from the page: the job gets a retry, the worker completes it,
  // the incident disappears and the instance completes.
  await incident.locator('button', { hasText: 'Resolve' }).click();
  await page.locator('#toast.ok', { hasText: 'resolved' }).waitFor({ timeout: T });
  await page.locator(`#t-instances tr[data-key="${failKey}"][data-state="COMPLETED"]`).waitFor({ timeout: T });
  await failJob.locator('.st-COMPLETED').waitFor({ timeout: T });
  await page.locator('#t-incidents tr.empty').waitFor({ timeout: T });
  assert.equal(await page.locator('#c-incidents').innerText(), '0');
  await page.screenshot({ path: path.join(OUT, 'live-view.png'), fullPage: true });

  // Everything came from the engine itself (works offline), without errors,
  // and every update was received through the SSE stream.
  assert.deepEqual(external, []);
  assert.deepEqual(pageErrors, []);
  const m = await page.evaluate(() => window.__jwStats());
  assert.ok(m.batches > 0 && m.receipt.length > 0, 'deltas received');
});

test('resolve API: typed errors for an unknown incident, a bad key, a cross-site POST', async (t) => {
  const engine = await startEngine();
  t.after(() => engine.stop());
  // Through the same HTTP API the button uses: an unknown incident is 404
  // with the engine's rejection, a missing UI header is refused.
  const r1 = await fetch(engine.url + 'api/incidents/12345/resolve', { method: 'POST', headers: { 'X-Jobwire-UI': '1' } });
  assert.equal(r1.status, 404);
  assert.match((await r1.json()).error, /no such incident/);
  const r2 = await fetch(engine.url + 'api/incidents/12345/resolve', { method: 'POST' });
  assert.equal(r2.status, 403);
  const r3 = await fetch(engine.url + 'api/incidents/abc/resolve', { method: 'POST', headers: { 'X-Jobwire-UI': '1' } });
  assert.equal(r3.status, 400);
});

test('with --oauth the page needs the admin credential', async (t) => {
  // The page shows jobs with their variables and resolves incidents: it takes
  // the admin API's token (--admin-token-file), never a worker's credential.
  const dir = mkdtempSync(join(tmpdir(), 'jw-ui-admin-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const adminToken = 'ui-admin-token-0123456789';
  writeFileSync(join(dir, 'admin-token'), adminToken + '\n', { mode: 0o600 });
  const engine = await startEngine(['--oauth', '--oauth-client-id', 'ui-id', '--oauth-client-secret', 'ui-secret',
    '--admin-token-file', join(dir, 'admin-token')]);
  t.after(() => engine.stop());
  const anon = await fetch(engine.url);
  assert.equal(anon.status, 401);
  assert.match(anon.headers.get('www-authenticate') || '', /Basic/);
  const basic = (u, p) => ({ Authorization: 'Basic ' + Buffer.from(`${u}:${p}`).toString('base64') });
  assert.equal((await fetch(engine.url + 'api/snapshot', { headers: basic('admin', 'nope') })).status, 401);
  // A worker's client credential and a worker's token are not enough.
  assert.equal((await fetch(engine.url + 'api/snapshot', { headers: basic('ui-id', 'ui-secret') })).status, 401);
  const [, tokenURL] = await engine.out.waitFor(/oauth token endpoint (\S+)/);
  const tok = await (await fetch(tokenURL, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&client_id=ui-id&client_secret=ui-secret' })).json();
  assert.ok(tok.access_token);
  assert.equal((await fetch(engine.url + 'api/snapshot', { headers: { Authorization: 'Bearer ' + tok.access_token } })).status, 401);
  assert.equal((await fetch(engine.url + 'api/snapshot', { headers: { Authorization: 'Bearer ' + adminToken } })).status, 200);
  // The browser with the admin token as its Basic password gets the live page and its stream.
  const ctx = await browser.newContext({ httpCredentials: { username: 'admin', password: adminToken } });
  t.after(() => ctx.close());
  const page = await ctx.newPage();
  const resp = await page.goto(engine.url);
  assert.equal(resp.status(), 200);
  await page.locator('#conn', { hasText: 'live' }).waitFor({ timeout: T });
  assert.ok((await page.evaluate(() => window.__jwStats())).snapshots >= 1);
});

test('cluster mode: the first gateway serves the live view, fed by the brokers', async (t) => {
  const cluster = await startCluster();
  t.after(() => cluster.stop());
  const page = await (await browser.newContext()).newPage();
  t.after(() => page.context().close());
  await page.goto(cluster.url);
  await page.locator('#conn', { hasText: 'live' }).waitFor({ timeout: T });
  const worker = startWorker(['scenario', '--addr', cluster.addr]);
  t.after(() => worker.stop());
  const [, okKey] = await worker.out.waitFor(/created ui-order (\d+)/);
  const [, failKey] = await worker.out.waitFor(/created ui-refund (\d+)/);
  // Instances on both brokers' partitions reach the page through WatchCommitted.
  await page.locator(`#t-instances tr[data-key="${okKey}"][data-state="COMPLETED"]`).waitFor({ timeout: T });
  await page.locator(`#t-instances tr[data-key="${failKey}"][data-state="INCIDENT"]`).waitFor({ timeout: T });
  await page.locator('#t-streams tr[data-worker="ui-push-worker"]').waitFor({ timeout: T });
  const incident = page.locator('#t-incidents tr', { hasText: failKey });
  await incident.locator('button', { hasText: 'Resolve' }).click();
  await page.locator(`#t-instances tr[data-key="${failKey}"][data-state="COMPLETED"]`).waitFor({ timeout: T });
  await page.locator('#t-incidents tr.empty').waitFor({ timeout: T });
  await page.screenshot({ path: path.join(OUT, 'live-view-cluster.png'), fullPage: true });
});
