#!/usr/bin/env node
// No-op worker throughput against the reference engine (npm run bench).
// Prints jobs/s for polling (backlog drained by a poll-only worker) and for push
// (stream open first, instances created while it runs). Env: BENCH_N (default 3000),
// BENCH_FSYNC=1 to keep the engine's fsync on, JOBWIRE_ENGINE_BIN to pick the engine.
'use strict'
const { Client } = require('../lib/cjs/index.js')

const N = Number(process.env.BENCH_N ?? 3000)

const { startEngine: start, bpmn } = require('./engine.js')
const startEngine = () => start({ fsync: process.env.BENCH_FSYNC === '1' })

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
