#!/usr/bin/env node
// jobwire conformance driver for Node: runs workers with @jobwire/sdk's public
// API under the runner's control (JSON lines: commands on stdin, events on stdout).
// Connection settings come only from the SDK's own environment variables.
'use strict'
const readline = require('node:readline')
const { Client, JobError, JobwireError, NonRetryableError, defineWorker, exponentialBackoff, parseLossless } = require('@jobwire/sdk')
const { z } = require('zod')
const sdkVersion = require('@jobwire/sdk/package.json').version

function emit(event, fields = {}) {
  process.stdout.write(JSON.stringify({ t: Date.now(), event, ...fields }) + '\n')
}
const log = (...a) => process.stderr.write(`[driver-node] ${a.join(' ')}\n`)

// --- optional OpenTelemetry (the driver's dependency, never the SDK's) --------
let otel
if (process.env.JOBWIRE_DRIVER_OTEL === '1') otel = installOtel()

function installOtel() {
  const api = require('@opentelemetry/api')
  const { BasicTracerProvider } = require('@opentelemetry/sdk-trace-base')
  const { MeterProvider, MetricReader } = require('@opentelemetry/sdk-metrics')
  const kinds = ['INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER']
  const statuses = ['UNSET', 'OK', 'ERROR']
  const spanProcessor = {
    onStart() {},
    onEnd(span) {
      const sc = span.spanContext()
      const parent = span.parentSpanContext ?? undefined
      emit('span', {
        name: span.name,
        kind: kinds[span.kind],
        attributes: span.attributes,
        status: statuses[span.status.code],
        traceId: sc.traceId,
        spanId: sc.spanId,
        // the parent as the SDK set it (a remote parent from a traceparent included); absent for a root span
        ...(parent && parent.spanId ? { parentSpanId: parent.spanId } : {}),
      })
    },
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  }
  api.trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [spanProcessor] }))
  class PullReader extends MetricReader {
    onForceFlush() { return Promise.resolve() }
    onShutdown() { return Promise.resolve() }
  }
  const reader = new PullReader()
  api.metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }))
  // What the SDK recorded, as it recorded it: the instrument kind (a monotonic sum is a counter, a
  // non-monotonic one an up-down counter), integer or float values, histograms as {count, sum}.
  async function collect() {
    const { resourceMetrics } = await reader.collect()
    const out = new Map()
    for (const sm of resourceMetrics.scopeMetrics) {
      for (const m of sm.metrics) {
        let type = ['histogram', 'exponential_histogram', 'gauge', 'sum'][m.dataPointType] ?? String(m.dataPointType)
        if (type === 'sum') type = m.isMonotonic === false ? 'updowncounter' : 'counter'
        out.set(m.descriptor.name, {
          name: m.descriptor.name,
          type,
          valueType: m.descriptor.valueType === 0 ? 'int' : 'double',
          // numbers as they are; histograms as {count, sum}
          points: m.dataPoints.map((p) => ({ attributes: p.attributes, value: typeof p.value === 'number' ? p.value : { count: p.value.count, sum: p.value.sum } })),
        })
      }
    }
    return out
  }
  return {
    collect,
    /** Emits the newest values; instruments or points the SDK stopped observing (a closed worker's gauge) keep their last value from `before`. */
    async report(before) {
      const now = await collect()
      for (const [name, m] of before ?? []) {
        const cur = now.get(name)
        if (!cur) { now.set(name, m); continue }
        const seen = new Set(cur.points.map((p) => JSON.stringify(p.attributes)))
        for (const p of m.points) if (!seen.has(JSON.stringify(p.attributes))) cur.points.push(p)
      }
      emit('metrics', { metrics: [...now.values()] })
    },
  }
}

// --- workers -------------------------------------------------------------------
let client
const workers = new Map() // id -> { worker, gate }

/** Counting gate for `block` steps, opened by `release` commands. */
class Gate {
  constructor() { this.permits = 0; this.waiters = [] }
  wait(signal) {
    if (this.permits > 0) { this.permits--; return Promise.resolve() }
    return new Promise((resolve, reject) => {
      const w = { resolve, reject }
      this.waiters.push(w)
      signal.addEventListener('abort', () => {
        const i = this.waiters.indexOf(w)
        if (i >= 0) this.waiters.splice(i, 1)
        reject(signal.reason ?? new Error('aborted'))
      }, { once: true })
    })
  }
  release(count) {
    let n = count === undefined ? this.waiters.length : count
    let released = 0
    while (n > 0 && this.waiters.length) { this.waiters.shift().resolve(); n--; released++ }
    this.permits += count === undefined ? 0 : n
    return count === undefined ? released : count
  }
}

class Crash extends TypeError {}

function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms)
    signal.addEventListener('abort', () => { clearTimeout(t); reject(signal.reason ?? new Error('aborted')) }, { once: true })
  })
}

// The typed worker of `typed: "order"`: input Order, headers OrderHeaders, output Receipt (zod schemas).
const Order = z.object({ orderId: z.string(), amount: z.number() })
const OrderHeaders = z.object({ channel: z.string().optional() })

function workerOptions(o = {}, id) {
  const m = {}
  for (const k of ['workerName', 'maxJobsActive', 'concurrency', 'jobTimeoutMs', 'requestTimeoutMs', 'pollIntervalMs', 'streamEnabled', 'streamTimeoutMs', 'fetchVariables', 'autoExtend', 'retryBackOffMs', 'tenantIds']) {
    if (o[k] !== undefined && o[k] !== null) m[k] = o[k]
  }
  // the SDK's exponential policy with the given values (absent fields: the SDK's defaults)
  if (o.retryPolicy && typeof o.retryPolicy === 'object') m.retryPolicy = exponentialBackoff(present(o.retryPolicy, ['initialMs', 'maxMs', 'multiplier', 'jitter', 'maxRetries']))
  if (Array.isArray(o.middleware)) m.middleware = o.middleware.map((mw) => middleware(id, String(mw.name), mw.raise))
  return m
}

/** A worker-level middleware writing `middleware` events around the next step (or raising instead). */
function middleware(id, name, raise) {
  return async (job, next) => {
    emit('middleware', { worker: id, name, phase: 'before', key: job.key })
    if (raise !== undefined && raise !== null) throw new Error(String(raise))
    try {
      const r = await next()
      emit('middleware', { worker: id, name, phase: 'after', key: job.key, error: false })
      return r
    } catch (e) {
      emit('middleware', { worker: id, name, phase: 'after', key: job.key, error: true })
      throw e
    }
  }
}

function startWorker(cmd) {
  const id = cmd.id
  const gate = new Gate()
  const behavior = Array.isArray(cmd.behavior) ? cmd.behavior : []
  const options = cmd.options || {}
  const handler = async (job, { signal }) => {
    const t0 = Date.now()
    emit('job_start', { worker: id, key: job.key, processInstanceKey: String(job.processInstanceKey), type: job.type, retries: job.retries, activation: job.activation, variables: job.variablesJson, deadline: job.deadline })
    // a typed job's variables are Order (validated); the raw JSON still carries jwBehavior when fetched
    const raw = options.typed ? parseLossless(job.variablesJson) : job.variables
    const steps = Array.isArray(raw.jwBehavior) ? raw.jwBehavior : behavior
    let outcome = 'completed'
    try {
      const result = await runSteps(steps, job, signal, gate)
      if (result === NO_OUTCOME) {
        if (!options.typed) return undefined
        // the Receipt
        return { orderId: job.variables.orderId, total: job.variables.amount * 2, channel: job.customHeaders.channel ?? '' }
      }
      return result
    } catch (e) {
      if (signal.aborted) outcome = 'cancelled'
      else if (e instanceof JobError) outcome = 'error'
      else if (e instanceof Crash) outcome = 'crashed'
      else outcome = 'failed'
      throw e
    } finally {
      emit('job_end', { worker: id, key: job.key, outcome, durationMs: Date.now() - t0 })
    }
  }
  let worker
  if (options.typed === 'order') {
    // the documented declarative style: a definition with Standard Schemas, started as a group
    const started = client.startWorkers({
      [cmd.jobType]: defineWorker({ ...workerOptions(options, id), variables: Order, customHeaders: OrderHeaders, handler }),
    })
    worker = started[cmd.jobType]
  } else {
    worker = client.createWorker({ ...workerOptions(options, id), jobType: cmd.jobType, handler })
  }
  worker.on('state', (state) => emit('state', { worker: id, state }))
  worker.on('error', (e) => emit('error', { worker: id, message: e.message, code: e.codeName && e.codeName !== 'CLIENT' ? e.codeName : undefined }))
  workers.set(id, { worker, gate })
  emit('worker_started', { worker: id })
}

async function runSteps(steps, job, signal, gate) {
  for (const step of steps) {
    if ('sleep' in step) await sleep(Number(step.sleep), signal)
    else if ('block' in step) await gate.wait(signal)
    else if ('extendTimeout' in step) await job.extendTimeout(Number(step.extendTimeout))
    else if ('complete' in step) return step.complete ?? {}
    else if ('completeEcho' in step) return job.variablesJson // raw JSON text: lossless by construction
    else if ('completePad' in step) return { out: 'y'.repeat(Number(step.completePad)) }
    else if ('fail' in step) throw new Error(String(step.fail))
    else if ('throwError' in step) {
      const e = step.throwError || {}
      throw new JobError(String(e.code), e.message ?? '', e.variables)
    } else if ('crash' in step) throw new Crash(String(step.crash))
    else if ('failNonRetryable' in step) throw new NonRetryableError(String(step.failNonRetryable))
    else log('unknown step', JSON.stringify(step))
  }
  return NO_OUTCOME
}

/** runSteps' answer when the steps held no outcome step. */
const NO_OUTCOME = Symbol('no outcome')

async function stopWorker(id, timeoutMs) {
  const w = workers.get(id)
  if (!w) return emit('error', { worker: id, message: `unknown worker ${id}` })
  // A closed worker leaves the meter: keep what its gauges said just before the close.
  const before = otel ? await otel.collect() : undefined
  const t0 = Date.now()
  await w.worker.close({ timeoutMs: timeoutMs ?? 5000 })
  workers.delete(id)
  emit('worker_closed', { worker: id, durationMs: Date.now() - t0 })
  if (otel) await otel.report(before)
}

async function closeAll(timeoutMs) {
  await Promise.all([...workers.keys()].map((id) => stopWorker(id, timeoutMs)))
  if (client) await client.close({ timeoutMs })
}

// --- client commands (`call`) ---------------------------------------------------
/** The fields of `o` named in `keys` that are present (absent ones are left to the SDK's defaults). */
function present(o, keys) {
  const out = {}
  for (const k of keys) if (o && o[k] !== undefined && o[k] !== null) out[k] = o[k]
  return out
}

/** Each `call` method: the SDK's public client method, and the `result` of its answer. */
const calls = {
  async evaluateDecision(req) {
    const r = await client.evaluateDecision(present(req, ['decisionId', 'decisionKey', 'variables', 'tenantId']))
    // the rules matched by the evaluated decision itself (the last one of that id: required decisions come first)
    const own = [...r.evaluatedDecisions].reverse().find((d) => d.decisionId === r.decisionId)
    return {
      decisionKey: r.decisionKey,
      decisionId: r.decisionId,
      decisionVersion: r.decisionVersion,
      decisionOutput: r.decisionOutputJson,
      evaluatedDecisionIds: r.evaluatedDecisions.map((d) => d.decisionId),
      matchedRuleIds: own ? own.matchedRules.map((m) => m.ruleId) : [],
      failedDecisionId: r.failedDecisionId,
      failureMessage: r.failureMessage,
    }
  },
  async modifyProcessInstance(req) {
    await client.modifyProcessInstance({
      ...present(req, ['processInstanceKey', 'terminate']),
      ...(Array.isArray(req.activate)
        ? {
            activate: req.activate.map((a) => ({
              ...present(a, ['elementId', 'ancestorElementInstanceKey']),
              ...(Array.isArray(a.variables) ? { variables: a.variables.map((v) => present(v, ['scopeId', 'variables'])) } : {}),
            })),
          }
        : {}),
    })
    return {}
  },
  async migrateProcessInstance(req) {
    await client.migrateProcessInstance({
      ...present(req, ['processInstanceKey', 'targetProcessDefinitionKey']),
      ...(Array.isArray(req.mappings) ? { mappings: req.mappings.map((m) => present(m, ['sourceElementId', 'targetElementId'])) } : {}),
    })
    return {}
  },
  async deleteResource(req) {
    await client.deleteResource(req.resourceKey)
    return {}
  },
  async broadcastSignal(req) {
    return { key: await client.broadcastSignal(present(req, ['signalName', 'variables', 'tenantId'])) }
  },
}

/** Sends one client command through the SDK's client; answers `call_result` once it returned. */
async function call(cmd) {
  const fn = Object.prototype.hasOwnProperty.call(calls, cmd.method) ? calls[cmd.method] : undefined
  if (!fn) return emit('call_result', { id: cmd.id, ok: false, code: 'UNIMPLEMENTED', errorType: 'Error', message: `unknown method ${cmd.method}` })
  try {
    emit('call_result', { id: cmd.id, ok: true, result: await fn(cmd.request || {}) })
  } catch (e) {
    emit('call_result', {
      id: cmd.id,
      ok: false,
      // the gRPC status name of the SDK's typed error (CLIENT: raised by the SDK before anything was sent)
      code: e instanceof JobwireError ? e.codeName : 'UNKNOWN',
      errorType: (e && e.name) || (e && e.constructor && e.constructor.name) || 'Error',
      message: String((e && e.message) || e),
    })
  }
}

// Commands are handled in order; stop_worker runs concurrently with later commands
// (a `release` may be needed for a close to finish).
async function handle(cmd) {
  switch (cmd.cmd) {
    case 'start_worker': return startWorker(cmd)
    case 'stop_worker': return void stopWorker(cmd.id, cmd.timeoutMs).catch((e) => emit('error', { worker: cmd.id, message: String(e) }))
    case 'release': {
      const w = workers.get(cmd.id)
      const count = w ? w.gate.release(cmd.count) : 0
      return emit('released', { worker: cmd.id, count })
    }
    case 'call': return call(cmd)
    case 'exit':
      await closeAll(5000)
      process.exit(0)
    default:
      emit('error', { message: `unknown command ${cmd.cmd}` })
  }
}

function main() {
  try {
    client = new Client() // from the environment, as a user's process would
  } catch (e) {
    log('client:', e.message)
    emit('error', { message: e.message })
    process.exit(1)
  }
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity })
  emit('ready', { sdk: 'node', version: sdkVersion })
  rl.on('line', (line) => {
    if (!line.trim()) return
    let cmd
    try { cmd = JSON.parse(line) } catch { return emit('error', { message: `bad command: ${line.slice(0, 200)}` }) }
    // a call's variables may hold integers beyond 2^53: read it again losslessly (bigint), as the SDK sends them
    if (cmd && cmd.cmd === 'call') cmd = parseLossless(line)
    Promise.resolve(handle(cmd)).catch((e) => emit('error', { message: String(e && e.message || e) }))
  })
  rl.on('close', () => {
    closeAll(5000).then(() => process.exit(0), (e) => { log('close failed', e); process.exit(0) })
  })
}

main()
