// Level 1 of the test kit (@jobwire/sdk/testing): runHandler runs the worker's own executor with an
// in-process sink. No engine, no network.
import { z } from 'zod'
import { JobError, NonRetryableError, RetryDecision, type Job } from '../src/index'
import { makeJob, runHandler } from '../src/testing/index'

describe('makeJob', () => {
  it('builds the SDK job with its fields and lossless variables', () => {
    const job = makeJob({ variables: '{"big":18446744073709551615,"n":1}', customHeaders: { region: 'eu' }, retries: 2, jobType: 'charge', elementId: 'pay' })
    expect(job.type).toBe('charge')
    expect(job.retries).toBe(2)
    expect(job.elementId).toBe('pay')
    expect(job.customHeaders).toEqual({ region: 'eu' })
    expect(job.variables).toEqual({ big: 18446744073709551615n, n: 1 })
    expect(job.variablesJson).toBe('{"big":18446744073709551615,"n":1}')
    expect(job.key).not.toBe(makeJob().key)
  })
})

describe('runHandler', () => {
  it('completes with the variables the handler returned', async () => {
    const r = await runHandler(async (job) => ({ total: Number(job.variables.price) * 2, big: 9007199254740993n }), makeJob({ variables: { price: 21 } }))
    expect(r.outcome).toBe('completed')
    expect(r.variables).toEqual({ total: 42, big: 9007199254740993n })
    expect(r.exception).toBeUndefined()
  })

  it('a thrown error fails the job with retries - 1, the message and the worker back-off', async () => {
    const boom = new Error('card declined')
    const r = await runHandler(() => { throw boom }, makeJob({ retries: 3 }), { retryBackOffMs: 2_000 })
    expect(r.outcome).toBe('failed')
    expect(r.retries).toBe(2)
    expect(r.errorMessage).toContain('card declined')
    expect(r.retryBackoffMs).toBe(2_000)
    expect(r.exception).toBe(boom)
  })

  it('runs the worker\'s schema, retry policy and middleware: invalid input fails without the handler', async () => {
    let called = 0
    const handler = async () => { called++; return { ok: true } }
    const order = { variables: z.object({ orderId: z.string(), amount: z.number() }) }
    const bad = await runHandler(handler, makeJob({ variables: { orderId: 'A', amount: 'x' }, retries: 3 }), order)
    expect(bad).toMatchObject({ outcome: 'failed', retries: 2 })
    expect(bad.errorMessage).toMatch(/^jobwire: invalid input: amount: /)
    expect(bad.retryBackoffMs).toBeGreaterThanOrEqual(900) // the default policy: ~1 s at retries 3
    expect(bad.retryBackoffMs).toBeLessThanOrEqual(1100)
    expect(called).toBe(0)
    const good = await runHandler(handler, makeJob({ variables: { orderId: 'A', amount: 2 } }), { ...order, middleware: [async (_job, next) => ({ ...(await next() as object), wrapped: true })] })
    expect(good).toMatchObject({ outcome: 'completed', variables: { ok: true, wrapped: true } })
    const nr = await runHandler(() => { throw new NonRetryableError('closed') }, makeJob({ retries: 3 }))
    expect(nr).toMatchObject({ outcome: 'failed', retries: 0, errorMessage: 'closed' })
    const pol = await runHandler(() => { throw new Error('x') }, makeJob(), { retryPolicy: () => RetryDecision.bpmnError('E', 'm') })
    expect(pol).toMatchObject({ outcome: 'bpmnError', errorCode: 'E' })
  })

  it('a JobError becomes a BPMN error with its code and variables', async () => {
    const r = await runHandler(async () => { throw new JobError('OUT_OF_STOCK', 'none left', { sku: 'a1' }) }, makeJob())
    expect(r.outcome).toBe('bpmnError')
    expect(r.errorCode).toBe('OUT_OF_STOCK')
    expect(r.errorMessage).toBe('none left')
    expect(r.variables).toEqual({ sku: 'a1' })
  })

  it('manual completion through the Job API gives the matching outcome', async () => {
    const completed = await runHandler(async (job: Job) => { await job.complete({ done: true }) }, makeJob(), { autoComplete: false })
    expect(completed).toMatchObject({ outcome: 'completed', variables: { done: true } })
    const failed = await runHandler(async (job: Job) => { await job.fail({ message: 'later', retries: 0, retryBackOffMs: 50 }) }, makeJob(), { autoComplete: false })
    expect(failed).toMatchObject({ outcome: 'failed', retries: 0, errorMessage: 'later', retryBackoffMs: 50 })
    const thrown = await runHandler(async (job: Job) => { await job.throwError({ code: 'E1', variables: { why: 'x' } }) }, makeJob(), { autoComplete: false })
    expect(thrown).toMatchObject({ outcome: 'bpmnError', errorCode: 'E1', variables: { why: 'x' } })
  })

  it('a result that is not a JSON object fails the job (as the worker does)', async () => {
    const r = await runHandler(async () => [1, 2] as unknown as Record<string, unknown>, makeJob())
    expect(r.outcome).toBe('failed')
    expect(r.retries).toBe(2)
  })

  it('cancelAfterMs aborts the signal as close() does and hands the job back with retries unchanged', async () => {
    let aborted = false
    const r = await runHandler(
      (_job, { signal }) =>
        new Promise((_resolve, reject) => signal.addEventListener('abort', () => { aborted = true; reject(signal.reason) })),
      makeJob({ retries: 3 }),
      { cancelAfterMs: 20 },
    )
    expect(aborted).toBe(true)
    expect(r.outcome).toBe('cancelled')
    expect(r.retries).toBe(3)
  })

  it('records the auto-extend calls the worker made', async () => {
    const r = await runHandler(
      async () => { await new Promise((res) => setTimeout(res, 400)); return { ok: true } },
      makeJob({ deadline: Date.now() + 300 }),
      { autoExtend: true, jobTimeoutMs: 1_000 },
    )
    expect(r.outcome).toBe('completed')
    expect(r.extensions.length).toBeGreaterThanOrEqual(1)
    expect(r.extensions[0]).toBe(1_000)
  })

  it('rejects when the handler runs past timeoutMs', async () => {
    await expect(runHandler(() => new Promise(() => undefined), makeJob(), { timeoutMs: 50 })).rejects.toThrow(/did not finish within 50 ms/)
  })

  it('rejects when a manual handler never settles the job before its deadline', async () => {
    await expect(runHandler(async () => undefined, makeJob({ deadline: Date.now() + 400 }), { autoComplete: false })).rejects.toThrow(/without an outcome/)
  })

  it('rejects a job that makeJob did not build', async () => {
    await expect(runHandler(async () => ({}), { key: '1' } as unknown as Job)).rejects.toThrow(/makeJob/)
  })
})
