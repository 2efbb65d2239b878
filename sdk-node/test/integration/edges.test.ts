// Worker edges against the real reference engine (docs/worker-semantics.md): nothing stranded in
// transport buffers at close, truthful outcomes, closed workers leave the client.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { Client, NotFoundError, JobwireError, type Worker } from '../../src/index'
import { Admin } from '../support/admin'
import { Engine, oneTaskProcess } from '../support/engine'
import { waitFor, delay } from '../support/fakeGateway'

const quiet = { debug() {}, info() {}, warn() {}, error() {} }
let engine: Engine
let client: Client
let admin: Admin
let seq = 0
const workers: Worker<any>[] = []

beforeAll(async () => {
  engine = await Engine.start()
  client = new Client({ address: engine.address, logger: quiet })
  admin = new Admin(engine.address)
})
afterAll(async () => {
  await client?.close({ timeoutMs: 500 })
  admin?.close()
  await engine?.stop()
})
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.close({ timeoutMs: 500 })))
})

async function deploy(jobType: string): Promise<string> {
  const id = `e${++seq}_${jobType.replace(/[^a-z0-9]/gi, '')}`
  await client.deployResource({ name: `${id}.bpmn`, content: oneTaskProcess(id, jobType) })
  return id
}

async function start(id: string, n: number, variables: Record<string, unknown> = {}): Promise<void> {
  const all: Promise<unknown>[] = []
  for (let i = 0; i < n; i++) all.push(client.createProcessInstance({ bpmnProcessId: id, variables }))
  await Promise.all(all)
}

// Measured numbers go to a file the README quotes (and to the test output).
const MEASURE = process.env.JOBWIRE_MEASURE_FILE ?? path.join(__dirname, '..', '..', '.measure-drain.json')
const measured: Record<string, unknown> = {}
afterAll(() => {
  if (Object.keys(measured).length > 0) fs.writeFileSync(MEASURE, JSON.stringify(measured, null, 2) + '\n')
})

describe('close strands no job that reached the worker (rule 7)', () => {
  it.each([
    // 30 KiB jobs (40) gave the same result (README, 2026-11-25); every SDK's close and recycle with
    // jobs still in transport is checked by the conformance scenario close-releases-jobs-in-transport.
    ['1 KiB', 1024, 150],
  ])('%s jobs: a paused capacity-2 worker hands back every job it holds; another worker completes all at once', async (label, size, total) => {
    const type = `drain-${size}`
    const id = await deploy(type)
    const release: Array<() => void> = []
    const paused = client.createWorker({
      jobType: type,
      workerName: 'paused',
      maxJobsActive: 2,
      jobTimeoutMs: 120_000, // a stranded job would wait this long: far beyond the test
      handler: (_job, { signal }) => new Promise<void>((resolve, reject) => {
        release.push(resolve)
        signal.addEventListener('abort', () => reject(signal.reason), { once: true })
      }),
    })
    await waitFor(() => paused.state === 'streaming')
    await start(id, total, { pad: 'x'.repeat(size) })
    await waitFor(() => paused.heldJobs === 2, 10_000, 'worker full')
    await delay(1_500) // let every transport buffer fill
    const before = (await admin.jobs(type)).filter((j) => j.state === 'JOB_STATE_ACTIVATED' && j.worker === 'paused').length
    const t0 = Date.now()
    await paused.close({ timeoutMs: 200 })
    const closeMs = Date.now() - t0
    const stranded = (await admin.jobs(type)).filter((j) => j.state === 'JOB_STATE_ACTIVATED' && j.worker === 'paused').length
    const done = new Set<string>()
    const fast = client.createWorker({ jobType: type, workerName: 'fast', maxJobsActive: 32, handler: (job) => { done.add(job.key) } })
    workers.push(fast)
    const t1 = Date.now()
    await waitFor(() => done.size === total, 20_000, `all ${total} jobs completed by another worker`)
    const allDoneMs = Date.now() - t1
    measured[label] = { jobsHeldByPausedWorker: before, running: 2, handedBackByDrain: paused.drainedJobs, strandedAfterClose: stranded, closeMs, allCompletedByOtherWorkerMs: allDoneMs }
    process.stdout.write(`drain ${label}: ${JSON.stringify(measured[label])}\n`)
    expect(stranded).toBe(0)
    expect(before).toBeGreaterThanOrEqual(2)
    expect(paused.drainedJobs).toBe(before - 2)
    expect(allDoneMs).toBeLessThan(20_000)
  })
})

describe('truthful outcomes', () => {
  it('manual complete() rejects with NotFoundError when the job is gone; a second outcome rejects and sends nothing', async () => {
    const type = 'manual-notfound'
    const id = await deploy(type)
    const results: unknown[] = []
    const w = client.createWorker({
      jobType: type,
      autoComplete: false,
      handler: async (job) => {
        await client.completeJob({ jobKey: job.key }) // completed elsewhere
        results.push(await job.complete({ a: 1 }).then(() => 'resolved', (e: unknown) => e))
        results.push(await job.fail('again').then(() => 'resolved', (e: unknown) => e))
      },
    })
    workers.push(w)
    await start(id, 1)
    await waitFor(() => results.length === 2)
    expect(results[0]).toBeInstanceOf(NotFoundError)
    expect(results[1]).toBeInstanceOf(JobwireError)
    expect((results[1] as Error).message).toMatch(/already sent/)
    await waitFor(() => w.heldJobs === 0)
  })

  it('manual mode: a handler that returns without an outcome holds its slot until the deadline', async () => {
    const type = 'manual-unsettled'
    const id = await deploy(type)
    let started = 0
    const w = client.createWorker({ jobType: type, autoComplete: false, maxJobsActive: 1, jobTimeoutMs: 1_500, handler: () => { started++ } })
    workers.push(w)
    await start(id, 2)
    await waitFor(() => started === 1)
    await delay(700)
    expect(w.heldJobs).toBe(1) // the handler returned, but the job is still activated for this worker
    expect(started).toBe(1) // so the second job did not start
    await waitFor(() => started >= 2, 10_000, 'slot freed after the deadline')
  })
})

describe('stall watchdog (rule 6) against the engine', () => {
  it('a stream the engine stopped pushing to is recycled once a parked poll finds the jobs; pushing resumes on the new stream', async () => {
    const type = 'stall-watchdog'
    const id = await deploy(type)
    const activations: string[] = []
    const w = client.createWorker({ jobType: type, maxJobsActive: 4, requestTimeoutMs: 2_000, handler: (job) => { activations.push(job.activation) } })
    workers.push(w)
    await waitFor(() => w.state === 'streaming')
    const streamsBefore = await admin.requestCount('StreamActivatedJobs')
    // The stream has sat on its reserved slot for > 2 s, and the parked poll (sent ~2.1 s after the
    // stream opened) has waited > 500 ms: jobs it gets now became activatable while it was parked.
    await delay(3_000)
    await admin.stallStreams(type, 1_500)
    await start(id, 2)
    await waitFor(() => activations.length === 2, 10_000, 'jobs collected by the parked poll')
    expect(activations).toEqual(['poll', 'poll'])
    const t0 = Date.now()
    let streamsAfter = streamsBefore
    while (streamsAfter === streamsBefore && Date.now() - t0 < 3_000) {
      await delay(100)
      streamsAfter = await admin.requestCount('StreamActivatedJobs')
    }
    // The engine counts a call when it ends: the stalled stream was ended (recycled) within 3 s, once.
    expect(streamsAfter).toBe(streamsBefore + 1)
    await delay(1_600) // the stall is over
    await start(id, 2)
    await waitFor(() => activations.length === 4, 10_000)
    expect(activations.slice(2)).toContain('push')
  })
})

describe('empty-poll pause (rule: empty polls pause) against an engine that does not park polls', () => {
  it('an idle poll-only worker sends about one ActivateJobs per pollInterval, not a tight loop', async () => {
    const e = await Engine.start({ args: ['--no-long-polling'] })
    const c = new Client({ address: e.address, logger: quiet })
    const a = new Admin(e.address)
    try {
      const w = c.createWorker({ jobType: 'idle-no-long-poll', streamEnabled: false, handler: () => {} })
      await delay(300)
      const before = await a.requestCount('ActivateJobs')
      await delay(2_000)
      const n = (await a.requestCount('ActivateJobs')) - before
      await w.close({ timeoutMs: 100 })
      expect(n).toBeGreaterThanOrEqual(10) // it keeps polling
      expect(n).toBeLessThanOrEqual(22) // ~100 ms apart: 20 in 2 s (a tight loop makes thousands)
    } finally {
      a.close()
      await c.close({ timeoutMs: 100 })
      await e.stop()
    }
  })
})

describe('client lifecycle', () => {
  it('closed workers leave the client; createWorker after close() throws', async () => {
    const c = new Client({ address: engine.address, logger: quiet })
    const ws = Array.from({ length: 5 }, (_, i) => c.createWorker({ jobType: `dyn-${i}`, handler: () => {} }))
    expect(c.workerCount).toBe(5)
    await Promise.all(ws.slice(0, 3).map((w) => w.close({ timeoutMs: 100 })))
    expect(c.workerCount).toBe(2)
    await c.close({ timeoutMs: 100 })
    expect(c.workerCount).toBe(0)
    expect(() => c.createWorker({ jobType: 'late', handler: () => {} })).toThrow(/after close/)
  })
})
