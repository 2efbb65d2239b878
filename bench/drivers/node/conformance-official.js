#!/usr/bin/env node
// Conformance driver (conformance-tests/DRIVER-CONTRACT.md) for the official Node client,
// @camunda8/sdk (pinned by package-lock.json here, beside the bench driver that uses it too).
// Started by conformance-tests/peers/official-node/run.
// Each contract step is written as a user of that SDK writes it: the handler returns
// job.complete / job.fail({retries: retries − 1, retryBackOff}) / job.error, and an exception
// is left to the SDK (which fails the job). streamEnabled: true uses zbc.streamJobs (the SDK's
// push worker), otherwise zbc.createWorker (polling). Nothing the SDK lacks is added: no worker
// states, spans or metrics, no auto-extension, no close timeout for a stream worker.
//
// Configuration: `new Camunda8(config)` reads ZEEBE_ADDRESS, ZEEBE_INSECURE_CONNECTION,
// ZEEBE_CLIENT_ID/SECRET and ZEEBE_TOKEN_AUDIENCE itself. The contract's other variables have
// different names in this SDK, so they are passed under its names (what a user moving from
// another client does): the CA file, the client certificate, the token URL, and the auth
// strategy (NONE unless a client id is set; the SDK's default is OAUTH).
'use strict'
const readline = require('node:readline')
const { Camunda8 } = require('@camunda8/sdk')
const sdkVersion = require('@camunda8/sdk/package.json').version

// The SDK logs to stdout (JSON lines); stdout is the event channel, so its logs go to stderr.
const out = process.stdout.write.bind(process.stdout)
process.stdout.write = process.stderr.write.bind(process.stderr)
function emit(event, fields = {}) {
  out(JSON.stringify({ t: Date.now(), event, ...fields }) + '\n')
}
const log = (...a) => process.stderr.write(`[official-node] ${a.join(' ')}\n`)

class Gate {
  constructor() { this.permits = 0; this.waiters = [] }
  wait() {
    if (this.permits > 0) { this.permits--; return Promise.resolve() }
    return new Promise((resolve) => this.waiters.push(resolve))
  }
  release(count) {
    if (count === undefined || count === null) {
      const n = this.waiters.length
      this.waiters.splice(0).forEach((r) => r())
      return n
    }
    let n = count
    while (n > 0 && this.waiters.length) { this.waiters.shift()(); n-- }
    this.permits += n
    return count
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

function config() {
  const e = process.env
  const c = { CAMUNDA_AUTH_STRATEGY: e.ZEEBE_CLIENT_ID ? 'OAUTH' : 'NONE', CAMUNDA_TOKEN_DISK_CACHE_DISABLE: true }
  if (e.ZEEBE_CA_CERTIFICATE_PATH) c.CAMUNDA_CUSTOM_ROOT_CERT_PATH = e.ZEEBE_CA_CERTIFICATE_PATH
  if (e.ZEEBE_CLIENT_CERTIFICATE_PATH) c.CAMUNDA_CUSTOM_CERT_CHAIN_PATH = e.ZEEBE_CLIENT_CERTIFICATE_PATH
  if (e.ZEEBE_CLIENT_PRIVATE_KEY_PATH) c.CAMUNDA_CUSTOM_PRIVATE_KEY_PATH = e.ZEEBE_CLIENT_PRIVATE_KEY_PATH
  if (e.ZEEBE_AUTHORIZATION_SERVER_URL) c.CAMUNDA_OAUTH_URL = e.ZEEBE_AUTHORIZATION_SERVER_URL
  if (e.ZEEBE_INSECURE_CONNECTION === 'false') c.CAMUNDA_SECURE_CONNECTION = true
  return c
}

let zbc
const workers = new Map() // id -> { close(timeoutMs), gate }

function codeName(err) {
  const names = ['OK', 'CANCELLED', 'UNKNOWN', 'INVALID_ARGUMENT', 'DEADLINE_EXCEEDED', 'NOT_FOUND', 'ALREADY_EXISTS',
    'PERMISSION_DENIED', 'RESOURCE_EXHAUSTED', 'FAILED_PRECONDITION', 'ABORTED', 'OUT_OF_RANGE', 'UNIMPLEMENTED',
    'INTERNAL', 'UNAVAILABLE', 'DATA_LOSS', 'UNAUTHENTICATED']
  return err && typeof err.code === 'number' ? names[err.code] : undefined
}

function startWorker(cmd) {
  const id = cmd.id
  const o = cmd.options || {}
  const gate = new Gate()
  const behavior = Array.isArray(cmd.behavior) ? cmd.behavior : []
  if (o.autoExtend) log('autoExtend: @camunda8/sdk has no automatic job-timeout extension; ignored')
  const taskHandler = async (job) => {
    const t0 = Date.now()
    const key = String(job.key)
    emit('job_start', { worker: id, key, type: job.type, retries: job.retries, variables: JSON.stringify(job.variables), deadline: Number(job.deadline) })
    const steps = job.variables && Array.isArray(job.variables.jwBehavior) ? job.variables.jwBehavior : behavior
    let outcome = 'completed'
    try {
      for (const step of steps) {
        if ('sleep' in step) await sleep(Number(step.sleep))
        else if ('block' in step) await gate.wait()
        else if ('extendTimeout' in step) await act(id, () => zbc.updateJobTimeout({ jobKey: key, timeout: Number(step.extendTimeout) }))
        else if ('complete' in step) return await act(id, () => job.complete(step.complete ?? {}))
        else if ('completeEcho' in step) return await act(id, () => job.complete(job.variables))
        else if ('fail' in step) {
          outcome = 'failed'
          const f = { errorMessage: String(step.fail), retries: job.retries - 1 }
          if (o.retryBackOffMs !== undefined) f.retryBackOff = o.retryBackOffMs
          return await act(id, () => job.fail(f))
        } else if ('throwError' in step) {
          outcome = 'error'
          const e = step.throwError || {}
          return await act(id, () => job.error({ errorCode: String(e.code), errorMessage: e.message ?? '', variables: e.variables ?? {} }))
        } else if ('crash' in step) {
          outcome = 'crashed'
          throw new TypeError(String(step.crash)) // left to the SDK, which fails the job
        } else log('unknown step', JSON.stringify(step))
      }
      return await act(id, () => job.complete())
    } finally {
      emit('job_end', { worker: id, key, outcome, durationMs: Date.now() - t0 })
    }
  }
  const onConnectionError = (err) => emit('error', { worker: id, message: String((err && err.message) || err || 'connection error'), code: codeName(err) })
  if (o.streamEnabled) {
    const req = { type: cmd.jobType, worker: o.workerName ?? id, timeout: o.jobTimeoutMs ?? 300000, taskHandler }
    if (o.fetchVariables) req.fetchVariables = o.fetchVariables
    if (o.maxJobsActive !== undefined) req.pollMaxJobsToActivate = o.maxJobsActive
    const p = zbc.streamJobs(req)
    workers.set(id, {
      gate,
      close: async () => { (await p).close() }, // the stream worker's close takes no timeout
    })
  } else {
    const cfg = { taskType: cmd.jobType, taskHandler, onConnectionError }
    if (o.workerName !== undefined) cfg.id = o.workerName
    if (o.maxJobsActive !== undefined) cfg.maxJobsToActivate = o.maxJobsActive
    if (o.jobTimeoutMs !== undefined) cfg.timeout = o.jobTimeoutMs
    if (o.requestTimeoutMs !== undefined) cfg.longPoll = o.requestTimeoutMs
    if (o.pollIntervalMs !== undefined) cfg.pollInterval = o.pollIntervalMs
    if (o.fetchVariables) cfg.fetchVariable = o.fetchVariables
    const w = zbc.createWorker(cfg)
    workers.set(id, { gate, close: (timeoutMs) => w.close(timeoutMs) })
  }
  emit('worker_started', { worker: id })
}

/** Runs a job action; a rejection is what the SDK hands the application: reported as an error event. */
async function act(id, f) {
  try {
    return await f()
  } catch (e) {
    emit('error', { worker: id, message: String((e && e.message) || e), code: codeName(e) })
    throw e
  }
}

async function stopWorker(id, timeoutMs) {
  const w = workers.get(id)
  if (!w) return emit('error', { worker: id, message: `unknown worker ${id}` })
  workers.delete(id)
  const t0 = Date.now()
  try {
    await w.close(timeoutMs ?? 5000)
  } catch (e) {
    log('close:', String(e))
  }
  emit('worker_closed', { worker: id, durationMs: Date.now() - t0 })
}

async function closeAll() {
  await Promise.race([Promise.all([...workers.keys()].map((id) => stopWorker(id, 5000))), sleep(5000)])
  await Promise.race([zbc.close(), sleep(2000)])
}

function main() {
  try {
    zbc = new Camunda8(config()).getZeebeGrpcApiClient()
  } catch (e) {
    log('client:', e.message)
    emit('error', { message: e.message })
    process.exit(1)
  }
  emit('ready', { sdk: 'official-node', version: sdkVersion })
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity })
  rl.on('line', (line) => {
    if (!line.trim()) return
    let cmd
    try { cmd = JSON.parse(line) } catch { return emit('error', { message: `bad command: ${line.slice(0, 200)}` }) }
    switch (cmd.cmd) {
      case 'start_worker': return startWorker(cmd)
      case 'stop_worker': return void stopWorker(cmd.id, cmd.timeoutMs)
      case 'release': {
        const w = workers.get(cmd.id)
        return emit('released', { worker: cmd.id, count: w ? w.gate.release(cmd.count) : 0 })
      }
      case 'exit': return void closeAll().then(() => process.exit(0))
      default: emit('error', { message: `unknown command ${cmd.cmd}` })
    }
  })
  rl.on('close', () => { closeAll().then(() => process.exit(0), () => process.exit(0)) })
}

main()
