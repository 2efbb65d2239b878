// Integration against the real reference engine (started per file, always killed).
import { Client, JobError, type WorkerState, type Worker } from '../../src/index'
import { Engine, oneTaskProcess } from '../support/engine'
import { waitFor, delay } from '../support/fakeGateway'

const quiet = { debug() {}, info() {}, warn() {}, error() {} }
let engine: Engine
let client: Client
const workers: Worker<any>[] = []
let seq = 0
const unhandled: unknown[] = []
const onUnhandled = (e: unknown) => unhandled.push(e)

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled)
  engine = await Engine.start()
  client = new Client({ address: engine.address, logger: quiet })
})
afterAll(async () => {
  await client?.close({ timeoutMs: 500 })
  await engine?.stop()
  process.off('unhandledRejection', onUnhandled)
})
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.close({ timeoutMs: 500 })))
  expect(unhandled).toEqual([])
})

async function deploy(jobType: string): Promise<string> {
  const id = `p${++seq}_${jobType.replace(/[^a-z0-9]/gi, '')}`
  await client.deployResource({ name: `${id}.bpmn`, content: oneTaskProcess(id, jobType) })
  return id
}

async function start(id: string, n: number, variables: Record<string, unknown> | string = {}): Promise<string[]> {
  const keys: string[] = []
  for (let i = 0; i < n; i++) keys.push((await client.createProcessInstance({ bpmnProcessId: id, variables })).processInstanceKey)
  return keys
}

function track<W extends Worker<any>>(w: W): W {
  workers.push(w)
  return w
}

describe('reference engine', () => {
  it('completes jobs by polling, with lossless int64 variables end to end', async () => {
    const type = 'poll-lossless'
    const id = await deploy(type)
    const big = '{"big":9223372036854775807,"small":1}'
    const res = client.createProcessInstanceWithResult({ bpmnProcessId: id, variables: big, requestTimeoutMs: 20_000 })
    const seen: string[] = []
    track(client.createWorker({
      jobType: type,
      streamEnabled: false,
      handler: (job) => {
        seen.push(job.activation)
        expect(job.variables.big).toBe(9223372036854775807n)
        expect(job.variablesJson).toContain('9223372036854775807')
        return { out: (job.variables.big as bigint) - 1n }
      },
    }))
    const r = await res
    expect(r.variables.out).toBe(9223372036854775806n)
    expect(r.variablesJson).toContain('9223372036854775806')
    expect(seen).toEqual(['poll'])
  })

  it('receives jobs by push once the stream is open, and backfills older jobs', async () => {
    const type = 'push-basic'
    const id = await deploy(type)
    await start(id, 3) // backlog before the worker exists: needs the backfill poll
    const activations: string[] = []
    const w = track(client.createWorker({ jobType: type, handler: (job) => { activations.push(job.activation) } }))
    await waitFor(() => activations.length === 3)
    await waitFor(() => w.state === 'streaming')
    await start(id, 5)
    await waitFor(() => activations.length === 8)
    expect(activations.slice(3).every((a) => a === 'push')).toBe(true)
  })

  it('backpressure: a slow worker never holds more than maxJobsActive; a second worker takes the rest; none lost', async () => {
    const type = 'backpressure'
    const id = await deploy(type)
    let slowMax = 0
    const slowDone = new Set<string>()
    const fastDone = new Set<string>()
    const slow = track(client.createWorker({
      jobType: type,
      maxJobsActive: 2,
      workerName: 'slow',
      handler: async (job) => {
        slowMax = Math.max(slowMax, slow.heldJobs)
        await delay(300)
        slowDone.add(job.key)
      },
    }))
    await waitFor(() => slow.state === 'streaming')
    const total = 40
    // Realistic payloads (4 KB): in Node a paused stream still parks about window + 16 KiB (the
    // http2 stream's readable buffer) + the connection window of jobs; see README "Backpressure".
    await start(id, total, { pad: 'x'.repeat(4000) })
    const fast = track(client.createWorker({ jobType: type, workerName: 'fast', maxJobsActive: 8, handler: (job) => { fastDone.add(job.key) } }))
    await waitFor(() => slowDone.size + fastDone.size >= total, 30_000, 'all jobs handled')
    expect(slowMax).toBeLessThanOrEqual(2)
    expect(fast.heldJobs).toBeLessThanOrEqual(8)
    expect(fastDone.size).toBeGreaterThanOrEqual(10)
    // no job lost or handled twice
    expect(new Set([...slowDone, ...fastDone]).size).toBe(total)
  })

  it('BPMN error without boundary → incident; handler exception → fail with retries − 1', async () => {
    const type = 'outcomes'
    const id = await deploy(type)
    await start(id, 1, { kind: 'crash' })
    const retriesSeen: number[] = []
    track(client.createWorker({
      jobType: type,
      streamEnabled: false,
      handler: (job) => {
        retriesSeen.push(job.retries)
        if (job.retries > 1) throw new Error('transient')
        throw new JobError('NO_CATCH', 'uncaught')
      },
    }))
    await waitFor(() => retriesSeen.length === 3)
    expect(retriesSeen).toEqual([3, 2, 1])
  })

  it('recovers after a gateway restart (kill + restart on same port and data dir)', async () => {
    const type = 'restart'
    const id = await deploy(type)
    const done = new Set<string>()
    const states: WorkerState[] = []
    const w = track(client.createWorker({ jobType: type, handler: (job) => { done.add(job.key) } }))
    w.on('state', (s) => states.push(s))
    await start(id, 3)
    await waitFor(() => done.size === 3)
    await engine.restart(300)
    await waitFor(() => states.includes('backoff'), 10_000, 'backoff state')
    await waitFor(() => w.state === 'streaming', 15_000, 'stream back')
    await start(id, 3)
    await waitFor(() => done.size === 6, 20_000, 'jobs after restart')
  })

  it('close() fails back unstarted jobs at once so another worker gets them', async () => {
    const type = 'shutdown'
    const id = await deploy(type)
    await start(id, 4)
    let started = 0
    const first = track(client.createWorker({
      jobType: type,
      concurrency: 1,
      streamEnabled: false,
      handler: (_job, { signal }) => new Promise((_res, rej) => { started++; signal.addEventListener('abort', () => rej(signal.reason)) }),
    }))
    await waitFor(() => first.heldJobs === 4 && started === 1)
    const t0 = Date.now()
    await first.close({ timeoutMs: 200 })
    expect(Date.now() - t0).toBeLessThan(2_000)
    const keys = new Set<string>()
    track(client.createWorker({ jobType: type, handler: (job) => { keys.add(job.key) } }))
    await waitFor(() => keys.size === 4, 10_000, 'jobs given back') // not after the 5 min job timeout
  })

  it('120 workers on one client: long-lived calls never starve commands (CompleteJob gets through)', async () => {
    const type = 'many'
    const id = await deploy(type)
    let handled = 0
    for (let i = 0; i < 120; i++) {
      track(client.createWorker({ jobType: type, maxJobsActive: 1, requestTimeoutMs: 30_000, workerName: `w${i}`, handler: () => { handled++; return { done: true } } }))
    }
    await delay(300) // streams open, polls park
    await client.topology({ timeoutMs: 3_000 })
    const results = await Promise.all(
      Array.from({ length: 60 }, () => client.createProcessInstanceWithResult({ bpmnProcessId: id, variables: {}, requestTimeoutMs: 20_000 })),
    )
    expect(results.every((r) => r.variables.done === true)).toBe(true)
    expect(handled).toBe(60)
  }, 40_000)
})
