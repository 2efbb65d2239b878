// Level 2 of the test kit (@jobwire/sdk/testing) against the real engine (JOBWIRE_ENGINE, else the
// suite's engine: JOBWIRE_ENGINE_BIN or the repository's engine-reference/bin/jobwire-engine): the shared cases of
// conformance-tests/vectors/testkit.json through the public kit API, the 30-day timer, workers.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { BackpressureError, JobError, NotFoundError, type Job } from '../src/index'
import { startTestEngine, type TestEngine } from '../src/testing/index'
import { ENGINE_BIN } from './support/engine'

process.env.JOBWIRE_ENGINE ??= ENGINE_BIN
const VECTORS = path.resolve(__dirname, '..', '..', 'conformance-tests', 'vectors')
const shared = JSON.parse(fs.readFileSync(path.join(VECTORS, 'testkit.json'), 'utf8')) as { cases: Array<{ name: string; steps: Array<Record<string, unknown>> }> }

let engine: TestEngine
beforeAll(async () => {
  engine = await startTestEngine()
})
beforeEach(() => engine.reset())
afterAll(() => engine?.close())

/** The step language of testkit.json, run through the public kit API. */
async function runCase(steps: Array<Record<string, unknown>>): Promise<void> {
  const named = new Map<string, string>()
  const inst = (s: unknown) => {
    const k = named.get(String(s))
    if (!k) throw new Error(`unknown instance name ${String(s)}`)
    return k
  }
  for (const step of steps) {
    const where = JSON.stringify(step)
    if ('deploy' in step) await engine.deploy(path.join(VECTORS, 'testkit', String(step.deploy)))
    else if ('create' in step) named.set(String(step.as), await engine.createInstance(String(step.create), step.variables as Record<string, unknown> | undefined))
    else if ('advance_clock_ms' in step) await engine.advanceClock(Number(step.advance_clock_ms))
    else if ('set_clock_from_now_ms' in step) await engine.setClock((await engine.clock()).getTime() + Number(step.set_clock_from_now_ms))
    else if ('expect_clock_near_wall_ms' in step) expect(Math.abs((await engine.clock()).getTime() - Date.now())).toBeLessThanOrEqual(Number(step.expect_clock_near_wall_ms))
    else if ('await_completed' in step) {
      const vars = await engine.awaitCompleted(inst(step.await_completed))
      if (step.variables) expect(vars).toMatchObject(step.variables as object)
    } else if ('await_incident' in step) {
      const inc = await engine.awaitIncident(inst(step.await_incident))
      if (step.type) expect(inc.type).toBe(step.type)
    } else if ('complete_jobs' in step) {
      const p = engine.completeJobs(String(step.complete_jobs), step.variables as Record<string, unknown> | undefined)
      if (step.expect_error) await expect(p).rejects.toMatchObject({ codeName: step.expect_error })
      else {
        const n = await p
        if (step.expect_count !== undefined) expect([where, n]).toEqual([where, step.expect_count])
      }
    } else if ('jobs' in step) expect([where, (await engine.jobs(String(step.jobs))).length]).toEqual([where, step.expect_count])
    else if ('reset' in step) await engine.reset()
    else if ('expect_no_instance' in step) await expect(engine.variables(inst(step.expect_no_instance))).rejects.toBeInstanceOf(NotFoundError)
    else if ('fault' in step) {
      expect(step.fault).toBe('resource_exhausted')
      await engine.injectResourceExhausted(Number(step.count))
    } else if ('clear_faults' in step) await engine.clearFaults()
    else throw new Error(`unknown step ${where}`)
  }
}

describe('testkit.json (shared cases)', () => {
  it.each(shared.cases.map((c) => [c.name, c.steps] as const))('%s', async (_name, steps) => {
    await runCase(steps as Array<Record<string, unknown>>)
  })
})

describe('TestEngine', () => {
  it('fires a 30-day timer in well under a second', async () => {
    const t0 = performance.now()
    await engine.deploy(path.join(VECTORS, 'testkit', 'timer-30d.bpmn'))
    const a = await engine.createInstance('kit-timer-30d', { order: 1 })
    await engine.advanceClock(30 * 24 * 3600 * 1000)
    expect(await engine.completeJobs('kit-remind', { reminded: true })).toBe(1)
    expect(await engine.awaitCompleted(a)).toMatchObject({ order: 1, reminded: true })
    const ms = performance.now() - t0
    console.log(`testkit-node: 30-day timer test ${ms.toFixed(0)} ms`)
    expect(ms).toBeLessThan(1_000)
  })

  it('runs a real worker of the SDK against the engine', async () => {
    const [id] = await engine.deploy(fs.readFileSync(path.join(VECTORS, 'testkit', 'one-task.bpmn'), 'utf8'))
    expect(id).toBe('kit-one-task')
    const worker = engine.client.createWorker({ jobType: 'kit-work', handler: async (job: Job) => ({ y: Number(job.variables.x) + 1 }) })
    try {
      const a = await engine.createInstance('kit-one-task', { x: 41 })
      expect(await engine.awaitCompleted(a)).toEqual({ x: 41, y: 42 })
    } finally {
      await worker.close()
    }
  })

  it('a BPMN error nobody catches is an incident', async () => {
    await engine.deploy(path.join(VECTORS, 'testkit', 'one-task.bpmn'))
    const worker = engine.client.createWorker({ jobType: 'kit-work', handler: async () => { throw new JobError('NOPE', 'not caught') } })
    try {
      const a = await engine.createInstance('kit-one-task')
      const inc = await engine.awaitIncident(a)
      expect(inc.type).toBe('UNHANDLED_ERROR_EVENT')
    } finally {
      await worker.close()
    }
  })

  it('a wait that times out says what the instance is doing', async () => {
    await engine.deploy(path.join(VECTORS, 'testkit', 'one-task.bpmn'))
    const a = await engine.createInstance('kit-one-task', { x: 5 })
    await expect(engine.awaitCompleted(a, { timeoutMs: 100 })).rejects.toThrow(/ACTIVE[\s\S]*"x":5[\s\S]*incidents: none[\s\S]*kit-work \(ACTIVATABLE, retries 3\)/)
  })

  it('injected RESOURCE_EXHAUSTED reaches the caller as the typed error', async () => {
    await engine.injectResourceExhausted(1)
    await expect(engine.completeJobs('kit-work')).rejects.toBeInstanceOf(BackpressureError)
    expect(await engine.completeJobs('kit-work')).toBe(0)
  })

  it('drops streams, clock moves forward only, restarts the gateway keeping state', async () => {
    await engine.deploy(path.join(VECTORS, 'testkit', 'one-task.bpmn'))
    const a = await engine.createInstance('kit-one-task', { x: 1 })
    const before = await engine.clock()
    const after = await engine.advanceClock(60_000)
    expect(after.getTime() - before.getTime()).toBeGreaterThanOrEqual(60_000)
    await expect(engine.setClock(before)).rejects.toMatchObject({ codeName: 'FAILED_PRECONDITION' })
    expect(await engine.dropStreams()).toBeGreaterThanOrEqual(0)
    await engine.restartGateway()
    expect(await engine.completeJobs('kit-work')).toBe(1)
    expect(await engine.awaitCompleted(a)).toEqual({ x: 1 })
  })
})
