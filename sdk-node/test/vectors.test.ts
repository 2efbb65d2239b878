/**
 * Shared status-code vectors (conformance-tests/vectors/status-codes.json, read in place: the one
 * source for all four SDKs): every case of every section against the SDK's decision functions, and
 * the outcome cases also through the real outcome sender.
 */
import * as fs from 'fs'
import * as path from 'path'
import { status as Status } from '@grpc/grpc-js'
import { errorClassFor, isRetryable, JobwireError, toJobwireError } from '../src/errors'
import { activationDecision, outcomeDecision, type ActivationCall } from '../src/worker/codes'
import { GatewayOutcomeSender } from '../src/worker/outcome'
import type { WorkerContext } from '../src/worker/context'
import { Client } from '../src/index'
import { FakeGateway, waitFor, delay } from './support/fakeGateway'

interface Vectors {
  codes: Record<string, number>
  outcome: { cases: { code: string; message: string; decision: string }[] }
  command: { cases: { code: string; retryable: boolean }[] }
  activation: { cases: { call: string; code: string; decision: string }[] }
  errors: { cases: { code: string; error: string }[] }
}

/** Walks up from this file to the repository root's conformance-tests/vectors/status-codes.json. */
function findVectors(): string {
  const rel = path.join('conformance-tests', 'vectors', 'status-codes.json')
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const p = path.join(dir, rel)
    if (fs.existsSync(p)) return p
    if (path.dirname(dir) === dir) throw new Error(`${rel} not found above ${__dirname}`)
  }
}

const v: Vectors = JSON.parse(fs.readFileSync(findVectors(), 'utf8'))
const codeOf = (name: string): number => {
  const n = v.codes[name]
  if (n === undefined) throw new Error(`status-codes.json: unknown code ${name}`)
  return n
}

describe('status-code vectors', () => {
  it('covers the 16 non-OK codes, numbered as grpc-js numbers them', () => {
    expect(Object.keys(v.codes)).toHaveLength(16)
    for (const [name, n] of Object.entries(v.codes)) expect([name, (Status as unknown as Record<string, number>)[name]]).toEqual([name, n])
    for (const section of [v.outcome, v.command, v.errors]) {
      expect(new Set(section.cases.map((c) => c.code))).toEqual(new Set(Object.keys(v.codes)))
    }
    for (const call of ['poll', 'stream']) {
      expect(v.activation.cases.filter((c) => c.call === call).map((c) => c.code).sort()).toEqual(Object.keys(v.codes).sort())
    }
  })

  it.each(v.outcome.cases.map((c) => [c.code, c.message, c.decision]))('outcome %s %j -> %s', (code, message, decision) => {
    expect(outcomeDecision(codeOf(code), message)).toBe(decision)
  })

  it.each(v.command.cases.map((c) => [c.code, c.retryable]))('command %s retryable=%s', (code, retryable) => {
    expect(isRetryable(codeOf(code))).toBe(retryable)
  })

  it.each(v.activation.cases.map((c) => [c.call, c.code, c.decision]))('activation %s %s -> %s', (call, code, decision) => {
    expect(activationDecision(call as ActivationCall, codeOf(code))).toBe(decision)
  })

  it.each(v.errors.cases.map((c) => [c.code, c.error]))('error %s -> %s', (code, name) => {
    expect(errorClassFor(codeOf(code)).name).toBe(name)
    const e = toJobwireError({ code: codeOf(code), details: 'x' }, 'Call')
    expect(e).toBeInstanceOf(JobwireError)
    expect(e.name).toBe(name)
    expect(e.code).toBe(codeOf(code))
    expect(e.codeName).toBe(code)
  })
})

/** A worker context whose command channel fails the first call with `code` / `details`, then succeeds. */
function failingOnce(code: number, details: string) {
  const calls: string[] = []
  const reported: Error[] = []
  let failed = false
  const unary = async (method: string) => {
    calls.push(method)
    if (!failed) {
      failed = true
      throw Object.assign(new Error(`${code} ${details}`), { code, details })
    }
    return {}
  }
  const quiet = () => {}
  const ctx = {
    transport: { config: { commandTimeoutMs: 5_000 }, unary },
    long: { unary },
    logger: { debug: quiet, info: quiet, warn: quiet, error: quiet },
    reportError: (e: Error) => reported.push(e),
  } as unknown as WorkerContext
  return { ctx, calls, reported }
}

describe('status-code vectors through the outcome sender', () => {
  const expected: Record<string, { result: string; calls: number; reported: number }> = {
    retry: { result: 'ok', calls: 2, reported: 0 },
    benign: { result: 'not_found', calls: 1, reported: 0 },
    give_up: { result: 'gave_up', calls: 1, reported: 1 },
  }
  it.each(v.outcome.cases.map((c) => [c.code, c.message, c.decision]))('CompleteJob %s %j -> %s', async (code, message, decision) => {
    const { ctx, calls, reported } = failingOnce(codeOf(code), message)
    const r = await new GatewayOutcomeSender(ctx).send('CompleteJob', { jobKey: '1' }, '1', Date.now() + 30_000)
    expect({ result: r.result, calls: calls.length, reported: reported.length }).toEqual(expected[decision])
  })
})

describe('status-code vectors through a worker (fake gateway)', () => {
  const quiet = { debug() {}, info() {}, warn() {}, error() {} }
  let gw: FakeGateway | undefined
  let client: Client | undefined
  afterEach(async () => {
    await client?.close({ timeoutMs: 100 })
    await gw?.stop()
    client = gw = undefined
  })
  /** A call that fails at once with `code`. */
  const failWith = (code: number) => (call: any) => call.emit('error', { code, details: 'vector' })
  /** ActivateJobs that finds no job: parks 200 ms (until cancelled). */
  const parked = (call: any) => {
    const t = setTimeout(() => call.end(), 200)
    call.on('cancelled', () => clearTimeout(t))
  }

  // backoff: tried again after a short wait, not reported; max_backoff_report: reported, not tried
  // again within the first step of the backoff; polling_only: never tried again, not reported.
  it.each(v.activation.cases.map((c) => [c.call, c.code, c.decision]))('%s %s -> %s', async (call, code, decision) => {
    const method = call === 'poll' ? 'ActivateJobs' : 'StreamActivatedJobs'
    const n = codeOf(code)
    gw = await FakeGateway.start(call === 'poll' ? { ActivateJobs: failWith(n) } : { ActivateJobs: parked, StreamActivatedJobs: failWith(n) })
    client = new Client({ address: gw.address, logger: quiet })
    const reported: Error[] = []
    const w = client.createWorker({ jobType: 'vectors', streamEnabled: call === 'stream', handler: () => ({}) })
    w.on('error', (e) => reported.push(e))
    const g = gw
    if (decision === 'backoff') {
      await waitFor(() => g.count(method) >= 2, 3_000, `a second ${method}`)
      expect(reported).toEqual([])
    } else {
      await waitFor(() => g.count(method) >= 1, 3_000, method)
      await delay(400)
      expect(g.count(method)).toBe(1)
      expect(reported.map((e) => (e as JobwireError).code)).toEqual(decision === 'max_backoff_report' ? [n] : [])
    }
  })
})
