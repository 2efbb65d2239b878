#!/usr/bin/env node
// Benchmark worker driver (../../DRIVERS.md) for Node: `driver.js jobwire|official '<config json>'`.
// jobwire = @jobwire/sdk (../../../sdk-node); official = @camunda8/sdk (pinned in package.json).
'use strict'
const readline = require('node:readline')

const [, , which, cfgText] = process.argv
const cfg = JSON.parse(cfgText)
const emit = (o) => process.stdout.write(JSON.stringify(o) + '\n')
const quiet = { debug() {}, info() {}, warn() {}, error: (...a) => process.stderr.write(a.join(' ') + '\n') }
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

let jobs = 0
const lat = []
function started(vars) {
  const t0 = vars && typeof vars.t0 === 'number' ? vars.t0 : 0
  if (t0 > 0) lat.push(Date.now() + (performance.now() % 1) - t0)
}

async function startJobwire() {
  const { Client, defineWorker } = require('@jobwire/sdk')
  const client = new Client({ address: cfg.address, logger: quiet })
  const workers = []
  for (const s of cfg.workers) {
    for (let i = 0; i < (s.count || 1); i++) {
      const opts = {
        maxJobsActive: s.capacity || 32,
        streamEnabled: s.mode === 'push',
        handler: async (job) => {
          started(job.variables)
          if (s.delayMs > 0) await sleep(s.delayMs)
          jobs++
        },
      }
      if (s.pollIntervalMs > 0) opts.pollIntervalMs = s.pollIntervalMs
      if (s.mode === 'shortpoll') opts.requestTimeoutMs = -1
      if (s.typed) {
        // typed: input {t0: number} as a Standard Schema (zod), registered declaratively; the SDK
        // derives fetchVariables (t0 only) and validates t0 on every job
        const { z } = require('zod')
        const def = defineWorker({ ...opts, variables: z.object({ t0: z.number() }) })
        workers.push(client.startWorkers({ [s.jobType]: def })[s.jobType])
      } else {
        workers.push(client.createWorker({ ...opts, jobType: s.jobType }))
      }
    }
  }
  return {
    version: require('@jobwire/sdk/package.json').version,
    close: async () => {
      await Promise.all(workers.map((w) => w.close({ timeoutMs: 5000 })))
      await client.close({ timeoutMs: 1000 })
    },
  }
}

async function startOfficial() {
  const { Camunda8 } = require('@camunda8/sdk')
  const c8 = new Camunda8({
    ZEEBE_GRPC_ADDRESS: `grpc://${cfg.address}`,
    ZEEBE_REST_ADDRESS: 'http://127.0.0.1:1',
    CAMUNDA_AUTH_STRATEGY: 'NONE',
    CAMUNDA_SECURE_CONNECTION: false,
    CAMUNDA_LOG_LEVEL: 'error',
    ZEEBE_CLIENT_LOG_LEVEL: 'NONE',
  })
  const zbc = c8.getZeebeGrpcApiClient()
  const workers = []
  for (const s of cfg.workers) {
    const taskHandler = async (job) => {
      started(job.variables)
      if (s.delayMs > 0) await sleep(s.delayMs)
      const ack = await job.complete()
      jobs++
      return ack
    }
    for (let i = 0; i < (s.count || 1); i++) {
      if (s.mode === 'push') {
        workers.push(zbc.streamJobs({ type: s.jobType, worker: 'bench', timeout: 300000, taskHandler }))
      } else {
        const opts = { taskType: s.jobType, taskHandler, maxJobsToActivate: s.capacity || 32, timeout: 300000 }
        if (s.pollIntervalMs > 0) opts.pollInterval = s.pollIntervalMs
        workers.push(zbc.createWorker(opts))
      }
    }
  }
  if (cfg.interop) void runInterop(cfg.interop, (path) => zbc.deployResource({ processFilename: path }),
    (pid, i) => zbc.createProcessInstance({ bpmnProcessId: pid, variables: { n: i } }))
  return {
    version: require('@camunda8/sdk/package.json').version,
    close: async () => {
      await Promise.race([zbc.close(), sleep(5000)])
    },
  }
}

/** interop (DRIVERS.md): this client deploys the BPMN and creates the instances, `inflight` at a time. */
async function runInterop(inp, deploy, create) {
  const t0 = Date.now()
  try {
    await deploy(inp.deploy)
  } catch (e) {
    return emit({ event: 'created', count: 0, error: `deploy: ${e && e.message}` })
  }
  let next = 0, ok = 0, failed = 0, firstErr
  const lane = async () => {
    while (next < inp.count) {
      const i = next++
      try { await create(inp.processId, i); ok++ } catch (e) { failed++; firstErr ??= String(e && e.message) }
    }
  }
  await Promise.all(Array.from({ length: inp.inflight || 32 }, lane))
  emit({ event: 'created', count: ok, errors: failed, ms: Date.now() - t0, ...(firstErr ? { error: firstErr } : {}) })
}

;(async () => {
  const h = which === 'official' ? await startOfficial() : await startJobwire()
  emit({ event: 'ready', client: `node-${which}`, version: h.version })
  const tick = setInterval(() => emit({ event: 'progress', jobs }), 500)
  const rl = readline.createInterface({ input: process.stdin })
  await new Promise((resolve) => {
    rl.on('line', (l) => { if (l.trim() === 'stop') resolve() })
    rl.on('close', resolve)
  })
  clearInterval(tick)
  await h.close()
  // A pipe is written asynchronously: exit only once the line (often > 64 KiB of latencies) is flushed,
  // else process.exit cuts it at the pipe's buffer and the harness sees no 'done'.
  process.stdout.write(JSON.stringify({ event: 'done', jobs, latMs: lat }) + '\n', () => process.exit(0))
})().catch((e) => { process.stderr.write(String(e && e.stack || e) + '\n'); process.exit(1) })
