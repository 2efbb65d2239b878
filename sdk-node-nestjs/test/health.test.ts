// JobwireHealth against the reference engine: UP while the worker streams; DOWN (backoff) within the
// watchdog bound once the engine is killed; checkOrThrow gives HTTP 503 with the same body.
import 'reflect-metadata'
import { HttpStatus, Injectable, ServiceUnavailableException } from '@nestjs/common'
import { Test, type TestingModule } from '@nestjs/testing'
import type { Client } from '@jobwire/sdk'
import type { TestEngine } from '@jobwire/sdk/testing'
import { JOBWIRE_CLIENT, JobWorker, JobwireHealth, JobwireModule, type JobwireHealthReport } from '../src'
import { engine as startEngine, until } from './support/engine'

@Injectable()
class Workers {
  @JobWorker({ type: 'nest-health-a', workerName: 'health-a' })
  a() {}
  @JobWorker({ type: 'nest-health-b', workerName: 'health-b', streamEnabled: false })
  b() {}
}

let engine: TestEngine | undefined
let m: TestingModule | undefined
afterAll(async () => {
  await m?.close()
  await m?.get<Client>(JOBWIRE_CLIENT).close({ timeoutMs: 0 })
  await engine?.close()
})

test('health: UP while streaming and polling, DOWN within the watchdog bound after the engine is killed, 503 with the report', async () => {
  engine = await startEngine()
  // A short keep-alive makes the watchdog bound short: keepAlive × (1 + 20/45).
  const keepAliveMs = 2_000
  m = await Test.createTestingModule({ imports: [JobwireModule.forRoot({ client: { address: engine.address, insecure: true, keepAliveMs } })], providers: [Workers] }).compile()
  const health = m.get(JobwireHealth)
  // Before bootstrap: no workers, UP.
  expect(health.check()).toEqual({ status: 'UP', workers: [] })
  await m.init()
  await until(() => health.check().workers.find((w) => w.type === 'nest-health-a')?.state === 'streaming', 10_000, 'worker a streaming')
  await until(() => health.check().workers.find((w) => w.type === 'nest-health-b')?.state === 'polling', 10_000, 'worker b polling')
  expect(health.check()).toEqual({
    status: 'UP',
    workers: [
      { name: 'health-a', type: 'nest-health-a', state: 'streaming', heldJobs: 0 },
      { name: 'health-b', type: 'nest-health-b', state: 'polling', heldJobs: 0 },
    ],
  })
  expect(health.checkOrThrow().status).toBe('UP')

  await engine.close()
  const t0 = Date.now()
  const bound = keepAliveMs * (1 + 20 / 45)
  await until(() => health.check().status === 'DOWN', bound, 'health DOWN after the engine was killed')
  const took = Date.now() - t0
  const report = health.check()
  expect(report.workers.map((w) => w.state)).toEqual(['backoff', 'backoff'])

  let thrown: unknown
  try {
    health.checkOrThrow()
  } catch (e) {
    thrown = e
  }
  expect(thrown).toBeInstanceOf(ServiceUnavailableException)
  const http = thrown as ServiceUnavailableException
  expect(http.getStatus()).toBe(HttpStatus.SERVICE_UNAVAILABLE)
  expect(http.getResponse()).toEqual<JobwireHealthReport>({ status: 'DOWN', workers: report.workers })
  console.log(`health DOWN ${took} ms after the engine was killed (bound ${Math.round(bound)} ms)`)
})
