// Typed handlers, retry policy, middleware, declarative registration and the transport back-off
// option: the pure parts directly, the worker's path against the in-process fake gateway.
import { z } from 'zod'
import { Client, InvalidInputError, JobError, NonRetryableError, RetryDecision, defaultRetryPolicy, defineWorker, exponentialBackoff, type Job, type Middleware, type StandardSchemaV1 } from '../../src/index'
import { resolveClientConfig } from '../../src/config'
import { Backoff, resolveBackoff } from '../../src/worker/backoff'
import { resolveWorkerOptions } from '../../src/worker/options'
import { decide, fixedBackoff } from '../../src/worker/retry'
import { deriveFetchVariables, stripsTraceparent, validateInput } from '../../src/worker/schema'
import { FakeGateway, fakeJob, ok, waitFor } from '../support/fakeGateway'

const quiet = { debug() {}, info() {}, warn() {}, error() {} }
const Order = z.object({ orderId: z.string(), amount: z.number() })
const jobWith = (retries: number) => ({ key: '1', retries }) as unknown as Job

/** A Standard Schema that accepts anything, with extra introspection fields. */
function bare(extra: Record<string, unknown> = {}): StandardSchemaV1 & Record<string, unknown> {
  return { '~standard': { version: 1, vendor: 'test', validate: (value: unknown) => ({ value }) }, ...extra }
}

describe('fetchVariables derivation', () => {
  it('reads the Standard JSON Schema (zod 4), else .shape, else .entries, else nothing', () => {
    expect(deriveFetchVariables(Order)).toEqual(['orderId', 'amount'])
    expect(deriveFetchVariables(bare({ shape: { a: 1, b: 2 } }))).toEqual(['a', 'b'])
    expect(deriveFetchVariables(bare({ entries: { x: 1 } }))).toEqual(['x'])
    const js = bare()
    ;(js['~standard'] as unknown as Record<string, unknown>).jsonSchema = { input: () => ({ type: 'object', properties: { p: {}, q: {} } }) }
    expect(deriveFetchVariables(js)).toEqual(['p', 'q'])
    expect(deriveFetchVariables(bare())).toBeUndefined()
    expect(deriveFetchVariables(z.string())).toBeUndefined()
  })

  it('explicit fetchVariables wins; an explicit [] fetches all; no schema fetches all', () => {
    const base = { jobType: 't', handler: () => undefined }
    expect(resolveWorkerOptions({ ...base, variables: Order }).fetchVariables).toEqual(['orderId', 'amount', 'traceparent'])
    expect(resolveWorkerOptions({ ...base, variables: Order, fetchVariables: ['orderId', 'extra'] }).fetchVariables).toEqual(['orderId', 'extra'])
    expect(resolveWorkerOptions({ ...base, variables: Order, fetchVariables: [] }).fetchVariables).toEqual([])
    expect(resolveWorkerOptions(base).fetchVariables).toEqual([])
    expect(() => resolveWorkerOptions({ ...base, variables: {} as never })).toThrow(/Standard Schema/)
  })

  it('a derived list also names traceparent (once, at the end); an explicit list and "all" stay as given', () => {
    const base = { jobType: 't', handler: () => undefined }
    const Traced = z.object({ traceparent: z.string(), orderId: z.string() })
    expect(resolveWorkerOptions({ ...base, variables: Traced }).fetchVariables).toEqual(['traceparent', 'orderId'])
    expect(resolveWorkerOptions({ ...base, variables: z.object({}) }).fetchVariables).toEqual([])
    expect(resolveWorkerOptions({ ...base, variables: Order, fetchVariables: ['orderId'] }).fetchVariables).toEqual(['orderId'])
    expect(resolveWorkerOptions({ ...base, variables: z.string() }).fetchVariables).toEqual([])
    // the schema's input loses traceparent only when the list names it and the schema does not
    expect(stripsTraceparent(Order, ['orderId', 'amount', 'traceparent'])).toBe(true)
    expect(stripsTraceparent(Traced, ['traceparent', 'orderId'])).toBe(false)
    expect(stripsTraceparent(Order, [])).toBe(false)
    expect(stripsTraceparent(bare(), ['traceparent'])).toBe(false)
  })
})

describe('validation messages', () => {
  it('names each field with the library wording, joined with "; "', async () => {
    const err = await validateInput(Order, { orderId: 7 }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(InvalidInputError)
    const e = err as InvalidInputError
    expect(e.issues.map((i) => i.path)).toEqual(['orderId', 'amount'])
    expect(e.message).toMatch(/^jobwire: invalid input: orderId: .*expected string.*; amount: .*expected number/)
  })

  it('writes nested paths as order.amount and items[2].sku; returns the output when valid', async () => {
    const S = z.object({ order: z.object({ amount: z.number() }), items: z.array(z.object({ sku: z.string() })) })
    const e = (await validateInput(S, { order: { amount: 'x' }, items: [{ sku: 'a' }, { sku: 'b' }, {}] }).catch((x: unknown) => x)) as InvalidInputError
    expect(e.issues.map((i) => i.path)).toEqual(['order.amount', 'items[2].sku'])
    await expect(validateInput(z.object({ n: z.coerce.number() }), { n: '5' })).resolves.toEqual({ n: 5 })
  })
})

describe('retry policy maths', () => {
  it('exponential with jitter 0: retries 3, 2, 1 → 1 s, 2 s, 4 s; capped at max', () => {
    const p = exponentialBackoff({ jitter: 0 })
    expect([3, 2, 1].map((r) => p(jobWith(r), new Error('x')).backoffMs)).toEqual([1000, 2000, 4000])
    expect(p(jobWith(7), new Error('x')).backoffMs).toBe(1000) // more retries than maxRetries: attempt 0
    const capped = exponentialBackoff({ jitter: 0, initialMs: 1000, maxMs: 3000, maxRetries: 10 })
    expect(capped(jobWith(1), new Error('x'))).toMatchObject({ kind: 'retry', backoffMs: 3000 })
  })

  it('jitter stays within ±jitter (u = -1 and u → 1)', () => {
    expect(exponentialBackoff({}, () => 0)(jobWith(3), new Error('x')).backoffMs).toBe(900)
    expect(exponentialBackoff({}, () => 0.999999)(jobWith(3), new Error('x')).backoffMs).toBe(1100)
    for (let i = 0; i < 200; i++) {
      const b = defaultRetryPolicy(jobWith(2), new Error('x')).backoffMs
      expect(b).toBeGreaterThanOrEqual(1800)
      expect(b).toBeLessThanOrEqual(2200)
    }
  })

  it('NonRetryableError (also as a cause) → incident with its message, in the default and the fixed policy', () => {
    expect(defaultRetryPolicy(jobWith(3), new NonRetryableError('account closed'))).toMatchObject({ kind: 'incident', message: 'account closed' })
    expect(defaultRetryPolicy(jobWith(3), new Error('wrapped', { cause: new NonRetryableError('deep') }))).toMatchObject({ kind: 'incident', message: 'deep' })
    expect(fixedBackoff(250)(jobWith(3), new NonRetryableError('n'))).toMatchObject({ kind: 'incident' })
    expect(fixedBackoff(250)(jobWith(3), new Error('e'))).toMatchObject({ kind: 'retry', backoffMs: 250 })
  })

  it('a policy that throws or returns no decision → the default policy, logged at warn', () => {
    const warns: string[] = []
    const logger = { ...quiet, warn: (m: string) => warns.push(m) }
    expect(decide(() => { throw new Error('bug') }, jobWith(3), new Error('x'), logger)).toMatchObject({ kind: 'retry' })
    expect(decide(() => undefined as never, jobWith(3), new NonRetryableError('n'), logger)).toMatchObject({ kind: 'incident' })
    expect(warns).toHaveLength(2)
    expect(decide(() => RetryDecision.bpmnError('E1', 'm', { a: 1 }), jobWith(3), new Error('x'), logger)).toMatchObject({ kind: 'bpmnError', code: 'E1', variables: { a: 1 } })
    expect(() => RetryDecision.retry(-1)).toThrow(RangeError)
  })

  it('precedence: retryPolicy > explicit retryBackOffMs > default', () => {
    const base = { jobType: 't', handler: () => undefined }
    const mine = () => RetryDecision.retry(7)
    expect(resolveWorkerOptions({ ...base, retryPolicy: mine, retryBackOffMs: 5 }).retryPolicy).toBe(mine)
    expect(resolveWorkerOptions({ ...base, retryBackOffMs: 0 }).retryPolicy(jobWith(3), new Error('x'))).toMatchObject({ kind: 'retry', backoffMs: 0 })
    expect(resolveWorkerOptions(base).retryPolicy).toBe(defaultRetryPolicy)
  })
})

describe('transport back-off option', () => {
  it('defaults to 50 ms → 5 s ×1.6 and takes configured bounds', () => {
    expect(resolveClientConfig({}, {}).backoff).toEqual({ initialMs: 50, maxMs: 5000, multiplier: 1.6 })
    const b = new Backoff(() => 0.5, resolveBackoff({ initialMs: 10, maxMs: 30, multiplier: 2 }))
    expect([b.next(), b.next(), b.next(), b.next()]).toEqual([10, 20, 30, 30])
    expect(b.max()).toBe(30)
  })

  it('rejects initialMs ≤ 0, maxMs < initialMs, multiplier < 1', () => {
    expect(() => new Client({ backoff: { initialMs: 0 } })).toThrow(RangeError)
    expect(() => new Client({ backoff: { initialMs: 100, maxMs: 50 } })).toThrow(/maxMs/)
    expect(() => new Client({ backoff: { multiplier: 0.5 } })).toThrow(/multiplier/)
  })
})

describe('typed worker, policy and middleware (fake gateway)', () => {
  let gw: FakeGateway
  let client: Client
  afterEach(async () => {
    await client?.close({ timeoutMs: 100 })
    await gw?.stop()
  })

  function start(jobs: unknown[]) {
    const queue = [...jobs]
    return FakeGateway.start({
      ActivateJobs: (call: any) => {
        const n = Math.min(call.request.maxJobsToActivate, queue.length)
        if (n > 0) call.write({ jobs: queue.splice(0, n) })
        call.end()
      },
      CompleteJob: (_c: any, cb: any) => ok(cb),
      FailJob: (_c: any, cb: any) => ok(cb),
      ThrowError: (_c: any, cb: any) => ok(cb),
    })
  }

  it('validates input: a valid job reaches the handler typed; an invalid one fails (retries − 1, ~1 s) without it', async () => {
    const good = fakeJob({ type: 'order', variables: '{"orderId":"A","amount":21}', customHeaders: '{"channel":"web"}' })
    const bad = fakeJob({ type: 'order', variables: '{"orderId":"B","amount":"x"}' })
    gw = await start([good, bad])
    client = new Client({ address: gw.address, logger: quiet })
    const seen: string[] = []
    const workers = client.startWorkers({
      order: defineWorker({
        variables: Order,
        customHeaders: z.object({ channel: z.string().optional() }),
        streamEnabled: false,
        handler: async (job) => {
          seen.push(job.variables.orderId)
          // @ts-expect-error job.variables is the schema's output type: no such field
          void job.variables.notInTheSchema
          return { total: job.variables.amount * 2, channel: job.customHeaders.channel ?? '' }
        },
      }),
    })
    await waitFor(() => gw.count('CompleteJob') + gw.count('FailJob') === 2)
    expect(seen).toEqual(['A'])
    expect(gw.requests('ActivateJobs')[0]).toMatchObject({ fetchVariable: ['orderId', 'amount', 'traceparent'] })
    expect(gw.requests('CompleteJob')[0]).toMatchObject({ jobKey: good.key, variables: '{"total":42,"channel":"web"}' })
    const fail = gw.requests('FailJob')[0]
    expect(fail).toMatchObject({ jobKey: bad.key, retries: 2 })
    expect(fail.errorMessage).toMatch(/^jobwire: invalid input: amount: /)
    expect(Number(fail.retryBackOff)).toBeGreaterThanOrEqual(900)
    expect(Number(fail.retryBackOff)).toBeLessThanOrEqual(1100)
    expect(Object.keys(workers)).toEqual(['order'])
  })

  it('a strict schema accepts a job with the traceparent its derived list fetched; the handler does not see it', async () => {
    const tp = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'
    const job = fakeJob({ type: 'strict', variables: JSON.stringify({ orderId: 'A', amount: 2, traceparent: tp }) })
    gw = await start([job])
    client = new Client({ address: gw.address, logger: quiet })
    const seen: unknown[] = []
    client.startWorkers({
      strict: defineWorker({
        variables: Order.strict(),
        streamEnabled: false,
        handler: async (j) => {
          seen.push(j.variables)
          return { total: j.variables.amount * 2 }
        },
      }),
    })
    await waitFor(() => gw.count('CompleteJob') + gw.count('FailJob') === 1)
    expect(gw.requests('ActivateJobs')[0]).toMatchObject({ fetchVariable: ['orderId', 'amount', 'traceparent'] })
    expect(gw.count('FailJob')).toBe(0)
    expect(gw.requests('CompleteJob')[0]).toMatchObject({ jobKey: job.key, variables: '{"total":4}' })
    expect(seen).toEqual([{ orderId: 'A', amount: 2 }])
  })

  it('runs group middleware, then worker middleware, around the handler; a raising middleware fails the job; NonRetryable → incident', async () => {
    const j1 = fakeJob({ type: 'mw', variables: '{"mode":"ok"}' })
    const j2 = fakeJob({ type: 'mw', variables: '{"mode":"raise"}' })
    const j3 = fakeJob({ type: 'mw', variables: '{"mode":"nonretryable"}', retries: 3 })
    const j4 = fakeJob({ type: 'mw', variables: '{"mode":"short"}' })
    gw = await start([j1, j2, j3, j4])
    client = new Client({ address: gw.address, logger: quiet })
    const trace: string[] = []
    const mw = (name: string): Middleware => async (job, next, { signal }) => {
      trace.push(`${name}>${String(job.variables.mode)}${signal instanceof AbortSignal && !signal.aborted ? '' : ' (no signal)'}`)
      if (name === 'worker' && job.variables.mode === 'raise') throw new Error('middleware says no')
      if (name === 'group' && job.variables.mode === 'short') return new JobError('SHORT', 'short-circuit')
      try {
        return await next()
      } finally {
        trace.push(`${name}<${String(job.variables.mode)}`)
      }
    }
    client.startWorkers(
      {
        mw: {
          middleware: [mw('worker')],
          concurrency: 1,
          handler: async (job) => {
            trace.push(`handler:${String(job.variables.mode)}`)
            if (job.variables.mode === 'nonretryable') throw new NonRetryableError('give up now')
            return { ok: true }
          },
        },
      },
      { middleware: [mw('group')], defaults: { streamEnabled: false } },
    )
    await waitFor(() => gw.count('CompleteJob') + gw.count('FailJob') + gw.count('ThrowError') === 4)
    expect(trace.slice(0, 5)).toEqual(['group>ok', 'worker>ok', 'handler:ok', 'worker<ok', 'group<ok'])
    expect(trace).not.toContain('handler:raise')
    expect(trace).not.toContain('handler:short')
    const fails = gw.requests('FailJob')
    expect(fails.find((f) => f.jobKey === j2.key)).toMatchObject({ retries: 2, errorMessage: expect.stringMatching(/middleware says no/) })
    expect(fails.find((f) => f.jobKey === j3.key)).toMatchObject({ retries: 0, errorMessage: 'give up now' })
    expect(gw.requests('ThrowError')).toEqual([expect.objectContaining({ jobKey: j4.key, errorCode: 'SHORT' })])
  })

  it('a retryPolicy decides: bpmnError → ThrowError, incident → retries 0', async () => {
    const j1 = fakeJob({ type: 'pol', variables: '{"m":"bpmn"}' })
    const j2 = fakeJob({ type: 'pol', variables: '{"m":"inc"}' })
    gw = await start([j1, j2])
    client = new Client({ address: gw.address, logger: quiet })
    client.createWorker({
      jobType: 'pol',
      streamEnabled: false,
      retryBackOffMs: 5, // the policy wins
      retryPolicy: (job, err) => ((job.variables as { m: string }).m === 'bpmn' ? RetryDecision.bpmnError('E_POL', (err as Error).message, { from: 'policy' }) : RetryDecision.incident('stop: ' + (err as Error).message)),
      handler: async (job) => {
        throw new Error(`boom-${String(job.variables.m)}`)
      },
    })
    await waitFor(() => gw.count('FailJob') + gw.count('ThrowError') === 2)
    expect(gw.requests('ThrowError')[0]).toMatchObject({ jobKey: j1.key, errorCode: 'E_POL', errorMessage: 'boom-bpmn', variables: '{"from":"policy"}' })
    expect(gw.requests('FailJob')[0]).toMatchObject({ jobKey: j2.key, retries: 0, errorMessage: 'stop: boom-inc' })
  })

  it('startWorkers is all or nothing: one bad definition starts none', () => {
    client = new Client({ address: '127.0.0.1:1', logger: quiet })
    expect(() => client.startWorkers({ a: async () => ({}), b: { handler: async () => ({}), maxJobsActive: -1 } })).toThrow(/maxJobsActive/)
    expect(client.workerCount).toBe(0)
  })
})

// Compile-time: createWorker infers job.variables / job.customHeaders from the schemas (tsc checks this file).
export function typedCreateWorker(c: Client) {
  return c.createWorker({
    jobType: 'x',
    variables: Order,
    customHeaders: z.object({ channel: z.string().optional() }),
    handler: async (job) => {
      const amount: number = job.variables.amount
      const channel: string | undefined = job.customHeaders.channel
      // @ts-expect-error amount is a number, not a string
      const wrong: string = job.variables.amount
      return { amount, channel, wrong }
    },
  })
}
