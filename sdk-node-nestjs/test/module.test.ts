// @jobwire/nestjs against the reference engine: decorated provider methods complete jobs with their
// injected dependencies; forRootAsync; app.close() under load strands no job (the assertion of the
// conformance scenario lifecycle/close-strands-no-job); bad options fail the application's start.
import 'reflect-metadata'
import { Injectable, Module } from '@nestjs/common'
import { Test, type TestingModule } from '@nestjs/testing'
import { Client, RetryDecision, type Job, type Middleware } from '@jobwire/sdk'
import type { TestEngine } from '@jobwire/sdk/testing'
import { z } from 'zod'
import { InjectJobwireClient, JOBWIRE_CLIENT, JobWorker, JobwireHealth, JobwireLifecycle, JobwireModule } from '../src'
import { Admin, engine as startEngine, oneTask, until } from './support/engine'

let engine: TestEngine
let admin: Admin
const apps: TestingModule[] = []

beforeAll(async () => {
  engine = await startEngine()
  admin = new Admin(engine.address)
})
afterEach(async () => {
  // A failed test still stops its app (closing twice is a no-op); closing the client again keeps
  // a broken close from leaving workers running (and Jest from hanging).
  await Promise.all(apps.splice(0).map(async (a) => {
    await a.close()
    await a.get<Client>(JOBWIRE_CLIENT).close({ timeoutMs: 0 })
  }))
})
afterAll(async () => {
  admin?.close()
  await engine?.close()
})

async function app(metadata: Parameters<typeof Test.createTestingModule>[0]): Promise<TestingModule> {
  const m = await Test.createTestingModule(metadata).compile()
  apps.push(m)
  await m.init()
  return m
}

@Injectable()
class Pricing {
  readonly rate = 3
}

const Order = z.object({ orderId: z.string(), amount: z.number() })

@Injectable()
class PriceWorkers {
  constructor(
    private readonly pricing: Pricing,
    @InjectJobwireClient() readonly client: Client,
  ) {}

  @JobWorker({ type: 'nest-price', variables: Order, maxJobsActive: 4 })
  price(job: Job<z.infer<typeof Order>>) {
    return { orderId: job.variables.orderId, total: job.variables.amount * this.pricing.rate }
  }
}

test('a @JobWorker provider method completes jobs, with its injected dependencies and typed variables', async () => {
  await engine.deploy(oneTask('nest-price-p', 'nest-price'))
  const m = await app({ imports: [JobwireModule.forRoot({ client: { address: engine.address, insecure: true } })], providers: [Pricing, PriceWorkers] })
  const workers = m.get(JobwireLifecycle).workers
  expect(workers.map((w) => [w.options.jobType, w.options.maxJobsActive, w.options.fetchVariables])).toEqual([['nest-price', 4, ['orderId', 'amount', 'traceparent']]])
  // The injected client is the module's, the one the workers run on.
  expect(m.get(PriceWorkers).client).toBe(m.get(JOBWIRE_CLIENT))
  expect(m.get(JOBWIRE_CLIENT).workerCount).toBe(1)

  const keys = await Promise.all(Array.from({ length: 20 }, (_, i) => engine.createInstance('nest-price-p', { orderId: `o${i}`, amount: i, extra: 'x' })))
  const done = await Promise.all(keys.map((k) => engine.awaitCompleted(k)))
  expect(done.map((v) => v.total)).toEqual(Array.from({ length: 20 }, (_, i) => i * 3))

  // Input the schema rejects never reaches the method: the job fails (retries left: it waits).
  const bad = await engine.createInstance('nest-price-p', { orderId: 7, amount: 'no' })
  await until(async () => (await admin.jobs('nest-price')).some((j) => j.failCount > 0), 5_000, 'the invalid job failed')
  const failed = (await admin.jobs('nest-price')).filter((j) => j.failCount > 0)
  expect(failed).toHaveLength(1)
  expect(failed[0]!.errorMessage).toMatch(/invalid input/)
  expect((await engine.variables(bad)).total).toBeUndefined()
  expect(m.get(JobwireHealth).check().status).toBe('UP')
})

@Injectable()
class AppConfig {
  private readonly values: Record<string, string> = {}
  set(k: string, v: string): void {
    this.values[k] = v
  }
  get(k: string): string {
    const v = this.values[k]
    if (v === undefined) throw new Error(`no ${k}`)
    return v
  }
}
const config = new AppConfig()
@Module({ providers: [{ provide: AppConfig, useValue: config }], exports: [AppConfig] })
class AppConfigModule {}

@Injectable()
class ShipWorkers {
  @JobWorker({ type: 'nest-ship' })
  ship() {
    return { shipped: true }
  }
  @JobWorker({ type: 'nest-ship-own', maxJobsActive: 1 })
  own() {}
}

test('forRootAsync: options from an injected config service (imports, inject, useFactory)', async () => {
  config.set('JOBWIRE_ADDRESS', engine.address)
  config.set('JOBWIRE_MAX_JOBS_ACTIVE', '7')
  await engine.deploy(oneTask('nest-ship-p', 'nest-ship'))
  const m = await app({
    imports: [
      JobwireModule.forRootAsync({
        imports: [AppConfigModule],
        inject: [AppConfig],
        useFactory: async (c: AppConfig) => ({
          client: { address: c.get('JOBWIRE_ADDRESS'), insecure: true },
          workerDefaults: { maxJobsActive: Number(c.get('JOBWIRE_MAX_JOBS_ACTIVE')), workerName: 'nest-test' },
          closeTimeoutMs: 1_000,
        }),
      }),
    ],
    providers: [ShipWorkers],
  })
  const byType = Object.fromEntries(m.get(JobwireLifecycle).workers.map((w) => [w.options.jobType, w.options]))
  expect(byType['nest-ship']).toMatchObject({ maxJobsActive: 7, workerName: 'nest-test' })
  // The decorator's own options win over the defaults.
  expect(byType['nest-ship-own']).toMatchObject({ maxJobsActive: 1, workerName: 'nest-test' })
  const k = await engine.createInstance('nest-ship-p', {})
  expect((await engine.awaitCompleted(k)).shipped).toBe(true)
  const jobs = await admin.jobs('nest-ship')
  expect(jobs.map((j) => j.state)).toEqual(['JOB_STATE_COMPLETED'])
})

const calls: string[] = []
const mark =
  (name: string): Middleware =>
  async (_job, next) => {
    calls.push(name)
    return next()
  }

@Injectable()
class ChainWorkers {
  @JobWorker({ type: 'nest-chain', middleware: [mark('worker')], retryPolicy: (_job, e) => RetryDecision.incident(`policy: ${(e as Error).message}`) })
  run(job: Job) {
    calls.push('handler')
    if (job.variables.fail) throw new Error('asked to fail')
    return { ok: true }
  }
}

test('the decorator takes the SDK options: the module middleware wraps the worker middleware; retryPolicy decides a failure', async () => {
  await engine.deploy(oneTask('nest-chain-p', 'nest-chain'))
  await app({ imports: [JobwireModule.forRoot({ client: { address: engine.address, insecure: true }, middleware: [mark('module')] })], providers: [ChainWorkers] })
  expect((await engine.awaitCompleted(await engine.createInstance('nest-chain-p', {}))).ok).toBe(true)
  expect(calls).toEqual(['module', 'worker', 'handler'])
  const incident = await engine.awaitIncident(await engine.createInstance('nest-chain-p', { fail: true }))
  expect(incident.message).toContain('policy: asked to fail')
})

const slow = { started: 0, aborted: 0 }

@Injectable()
class SlowWorkers {
  @JobWorker({ type: 'nest-slow', maxJobsActive: 2, jobTimeoutMs: 60_000 })
  async block(_job: Job, { signal }: { signal: AbortSignal }) {
    slow.started++
    // Runs until the close timeout aborts it.
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))
    slow.aborted++
    throw signal.reason
  }
}

test('app.close() under load leaves no job stranded (no job ACTIVATED, none timed out, all activatable again)', async () => {
  await engine.deploy(oneTask('nest-slow-p', 'nest-slow'))
  const m = await app({ imports: [JobwireModule.forRoot({ client: { address: engine.address, insecure: true }, closeTimeoutMs: 300 })], providers: [SlowWorkers] })
  const health = m.get(JobwireHealth)
  await until(() => health.check().workers[0]?.state === 'streaming', 10_000, 'the worker is streaming')
  await Promise.all(Array.from({ length: 80 }, () => engine.createInstance('nest-slow-p', { pad: 'x'.repeat(1024) })))
  await until(() => slow.started === 2, 10_000, 'two handlers started')
  await new Promise((r) => setTimeout(r, 500))
  expect((await admin.jobs('nest-slow')).filter((j) => j.state === 'JOB_STATE_ACTIVATED').length).toBeGreaterThanOrEqual(2)

  const t0 = Date.now()
  await m.close()
  const took = Date.now() - t0
  // Waited for the running handlers up to closeTimeoutMs, then aborted them: not the 30 s default, not the job timeout.
  expect(took).toBeGreaterThanOrEqual(250)
  expect(took).toBeLessThan(5_000)
  expect(slow).toEqual({ started: 2, aborted: 2 })

  const jobs = await admin.jobs('nest-slow')
  expect(jobs).toHaveLength(80)
  expect(jobs.filter((j) => j.state === 'JOB_STATE_ACTIVATED')).toEqual([])
  expect(jobs.filter((j) => j.timeoutCount > 0)).toEqual([])
  expect(jobs.filter((j) => j.state === 'JOB_STATE_ACTIVATABLE')).toHaveLength(80)
  // After close: every worker closed, health DOWN, the client closed.
  expect(health.check()).toEqual({ status: 'DOWN', workers: [{ name: expect.any(String), type: 'nest-slow', state: 'closed', heldJobs: 0 }] })
  expect(() => m.get<Client>(JOBWIRE_CLIENT).createWorker({ jobType: 'x', handler: () => {} })).toThrow(/closed/)
})

test('bad options fail the application start with the SDK error; no worker is left running', async () => {
  // Client options the SDK rejects: the module does not compile.
  await expect(Test.createTestingModule({ imports: [JobwireModule.forRoot({ client: { address: engine.address, clientCertificatePath: '/no/cert.pem' } })] }).compile()).rejects.toThrow(
    /mutual TLS needs both/,
  )
  expect(() => JobwireModule.forRoot({ closeTimeoutMs: -1 })).toThrow(RangeError)

  // Worker options the SDK rejects: init (onApplicationBootstrap) fails, the workers started before it are closed.
  @Injectable()
  class BadWorkers {
    @JobWorker({ type: 'nest-good' })
    good() {}
    @JobWorker({ type: 'nest-bad', maxJobsActive: 0 })
    bad() {}
  }
  const m = await Test.createTestingModule({ imports: [JobwireModule.forRoot({ client: { address: engine.address, insecure: true } })], providers: [BadWorkers] }).compile()
  // (a module whose init failed cannot be closed: Nest's close() rethrows the init error)
  await expect(m.init()).rejects.toThrow(RangeError)
  await until(() => m.get<Client>(JOBWIRE_CLIENT).workerCount === 0, 2_000, 'no worker running')
  expect(() => m.get<Client>(JOBWIRE_CLIENT).createWorker({ jobType: 'x', handler: () => {} })).toThrow(/closed/)

  // Two methods for one job type.
  @Injectable()
  class Twice {
    @JobWorker({ type: 'nest-twice' })
    a() {}
    @JobWorker({ type: 'nest-twice' })
    b() {}
  }
  const t = await Test.createTestingModule({ imports: [JobwireModule.forRoot({ client: { address: engine.address, insecure: true } })], providers: [Twice] }).compile()
  await expect(t.init()).rejects.toThrow(/two @JobWorker methods for job type "nest-twice": Twice.a and Twice.b/)
  expect(t.get<Client>(JOBWIRE_CLIENT).workerCount).toBe(0)
  await t.get<Client>(JOBWIRE_CLIENT).close()
})
