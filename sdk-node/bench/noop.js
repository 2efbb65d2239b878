#!/usr/bin/env node
// No-op worker throughput against the reference engine (npm run bench).
// Prints jobs/s for polling (backlog drained by a poll-only worker) and for push
// (stream open first, instances created while it runs). Env: BENCH_N (default 3000),
// BENCH_FSYNC=1 to keep the engine's fsync on, JOBWIRE_ENGINE_BIN to pick the engine.
'use strict'
const { spawn } = require('node:child_process')
const path = require('node:path')
const fs = require('node:fs')
const os = require('node:os')
const { Client } = require('../lib/cjs/index.js')

const N = Number(process.env.BENCH_N ?? 3000)
const ENGINE = process.env.JOBWIRE_ENGINE_BIN ?? path.resolve(__dirname, '..', '..', 'engine-reference', 'bin', 'jobwire-engine')

function startEngine() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jobwire-bench-'))
  const args = ['dev', '--port', '0', '--data-dir', dir, '--exit-on-stdin-close']
  if (process.env.BENCH_FSYNC !== '1') args.push('--no-fsync')
  const p = spawn(ENGINE, args, { stdio: ['pipe', 'pipe', 'inherit'] })
  return new Promise((resolve, reject) => {
    let out = ''
    p.stdout.on('data', (d) => {
      out += d
      const m = /listening on (127\.0\.0\.1:\d+)/.exec(out)
      if (m) resolve({ address: m[1], stop: () => { p.kill('SIGKILL'); fs.rmSync(dir, { recursive: true, force: true }) } })
    })
    p.on('exit', (c) => reject(new Error(`engine exited ${c}: ${out}`)))
  })
}

const bpmn = (id, type) => `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="x">
  <bpmn:process id="${id}" isExecutable="true">
    <bpmn:startEvent id="s"><bpmn:outgoing>f1</bpmn:outgoing></bpmn:startEvent>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="t" />
    <bpmn:serviceTask id="t"><bpmn:extensionElements><zeebe:taskDefinition type="${type}" /></bpmn:extensionElements><bpmn:incoming>f1</bpmn:incoming><bpmn:outgoing>f2</bpmn:outgoing></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="t" targetRef="e" />
    <bpmn:endEvent id="e"><bpmn:incoming>f2</bpmn:incoming></bpmn:endEvent>
  </bpmn:process>
</bpmn:definitions>`

async function createMany(client, id, n, parallel = 64) {
  let next = 0
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < n) { next++; await client.createProcessInstance({ bpmnProcessId: id, variables: { n: next } }) }
  }))
}

function until(cond) {
  return new Promise((r) => { const t = setInterval(() => { if (cond()) { clearInterval(t); r() } }, 2) })
}

async function run(client, mode) {
  const id = `bench_${mode}`
  const type = `bench-${mode}`
  await client.deployResource({ name: `${id}.bpmn`, content: bpmn(id, type) })
  let done = 0
  const opts = { jobType: type, maxJobsActive: 64, handler: () => { done++ } }
  if (mode === 'poll') {
    const t0c = performance.now()
    await createMany(client, id, N)
    const createS = (performance.now() - t0c) / 1000
    const t0 = performance.now()
    const w = client.createWorker({ ...opts, streamEnabled: false })
    await until(() => done >= N)
    const s = (performance.now() - t0) / 1000
    await w.close({ timeoutMs: 1000 })
    return { mode, jobs: N, seconds: s, jobsPerSec: N / s, createPerSec: N / createS }
  }
  const w = client.createWorker(opts)
  await until(() => w.state === 'streaming')
  const t0 = performance.now()
  await createMany(client, id, N)
  await until(() => done >= N)
  const s = (performance.now() - t0) / 1000
  await w.close({ timeoutMs: 1000 })
  return { mode, jobs: N, seconds: s, jobsPerSec: N / s, note: 'includes creating the instances' }
}

;(async () => {
  const engine = await startEngine()
  const client = new Client({ address: engine.address, logger: { debug() {}, info() {}, warn: console.warn, error: console.error } })
  try {
    for (const mode of ['poll', 'push']) {
      const r = await run(client, mode)
      console.log(`${mode.padEnd(4)}: ${r.jobs} jobs in ${r.seconds.toFixed(2)} s = ${Math.round(r.jobsPerSec)} jobs/s` + (r.createPerSec ? ` (backlog created at ${Math.round(r.createPerSec)}/s)` : ` (${r.note})`))
    }
  } finally {
    await client.close({ timeoutMs: 500 })
    engine.stop()
  }
})().catch((e) => { console.error(e); process.exit(1) })
