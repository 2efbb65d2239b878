#!/usr/bin/env node
// Activation wait under sustained push overload (issue 12 item 8; docs/worker-semantics.md, push
// and poll rule 8). A closed loop keeps BENCH_IN_FLIGHT instances in flight (each replaced when it
// completes), BENCH_N in all, against one push worker with capacity BENCH_CAPACITY whose handler
// takes BENCH_HANDLER_MS. Prints the wait from creating an instance to its job's handler start:
// p50 / p99 / max. Env: BENCH_N (5000), BENCH_IN_FLIGHT (256), BENCH_CAPACITY (16),
// BENCH_HANDLER_MS (0), BENCH_PAD_BYTES (0), JOBWIRE_SDK_LIB (the built SDK to load, default ../lib/cjs/index.js),
// JOBWIRE_ENGINE_BIN.
'use strict'
const { Client } = require(process.env.JOBWIRE_SDK_LIB ?? '../lib/cjs/index.js')

const N = Number(process.env.BENCH_N ?? 5000)
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 256)
const CAPACITY = Number(process.env.BENCH_CAPACITY ?? 16)
const HANDLER_MS = Number(process.env.BENCH_HANDLER_MS ?? 0)
const SLOW_MS = 1_000
const PAD = 'x'.repeat(Number(process.env.BENCH_PAD_BYTES ?? 0))

const { startEngine: start, bpmn } = require('./engine.js')
const startEngine = () => start({ prefix: 'jobwire-fair-' })

const pct = (xs, p) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]

;(async () => {
  const engine = await startEngine()
  const client = new Client({ address: engine.address, logger: process.env.BENCH_LOG ? { debug: (m) => console.error(Date.now(), 'D', m), info: (m) => console.error(Date.now(), 'I', m), warn: (m) => console.error(Date.now(), 'W', m), error: console.error } : { debug() {}, info() {}, warn() {}, error: console.error } })
  try {
    const id = 'fair'
    const type = 'fair'
    await client.deployResource({ name: `${id}.bpmn`, content: bpmn(id, type) })
    const waits = []
    const slow = {} // jobs that waited more than SLOW_MS, by activation (push | poll)
    const seen = new Set()
    let completed = 0
    const w = client.createWorker({
      jobType: type,
      maxJobsActive: CAPACITY,
      jobTimeoutMs: 60_000,
      handler: async (job) => {
        const t = Number(job.variables.createdAt)
        if (!seen.has(job.key)) {
          const wt = Date.now() - t
          waits.push(wt)
          if (wt > SLOW_MS) slow[job.activation] = (slow[job.activation] ?? 0) + 1
        }
        seen.add(job.key)
        if (HANDLER_MS > 0) await new Promise((r) => setTimeout(r, HANDLER_MS))
      },
    })
    while (w.state !== 'streaming') await new Promise((r) => setTimeout(r, 10))
    await new Promise((r) => setTimeout(r, 300))
    // Closed loop: each slot of IN_FLIGHT creates an instance and waits for its result, then the next.
    let next = 0
    const t0 = Date.now()
    await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
      while (next < N) {
        next++
        await client.createProcessInstanceWithResult({ bpmnProcessId: id, variables: { createdAt: Date.now(), pad: PAD }, requestTimeoutMs: 120_000 })
        completed++
      }
    }))
    const s = (Date.now() - t0) / 1000
    await w.close({ timeoutMs: 1000 })
    waits.sort((a, b) => a - b)
    const r = { instances: completed, inFlight: IN_FLIGHT, capacity: CAPACITY, handlerMs: HANDLER_MS, seconds: +s.toFixed(2), waitMs: { p50: pct(waits, 50), p99: pct(waits, 99), max: waits[waits.length - 1] }, slowOver1s: slow }
    console.log(JSON.stringify(r))
  } finally {
    await client.close({ timeoutMs: 500 })
    engine.stop()
  }
})().catch((e) => { console.error(e); process.exit(1) })
