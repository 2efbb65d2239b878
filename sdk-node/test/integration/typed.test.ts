// A typed worker end to end against the real reference engine: fetchVariables derived from the
// schema, the validated output in the handler, invalid input failing the job without the handler.
import { z } from 'zod'
import { Client, defineWorker, type Worker } from '../../src/index'
import { Admin } from '../support/admin'
import { Engine, oneTaskProcess } from '../support/engine'

const quiet = { debug() {}, info() {}, warn() {}, error() {} }
const TP = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'
let engine: Engine
let client: Client
let admin: Admin
let workers: Record<string, Worker> = {}

beforeAll(async () => {
  engine = await Engine.start()
  client = new Client({ address: engine.address, logger: quiet })
  admin = new Admin(engine.address)
})
afterAll(async () => {
  await Promise.all(Object.values(workers).map((w) => w.close({ timeoutMs: 500 })))
  await client?.close({ timeoutMs: 500 })
  admin?.close()
  await engine?.stop()
})

it('runs a typed worker: derived fetchVariables, typed output, invalid input failed with the field named', async () => {
  const type = 'typed-order'
  await client.deployResource({ name: 'typed.bpmn', content: oneTaskProcess('typed_order', type) })
  const Order = z.object({ orderId: z.string(), amount: z.number() })
  const seen: Array<{ orderId: string; raw: string }> = []
  workers = client.startWorkers({
    [type]: defineWorker({
      variables: Order,
      handler: async (job) => {
        seen.push({ orderId: job.variables.orderId, raw: job.variablesJson })
        return { orderId: job.variables.orderId, total: job.variables.amount * 2 }
      },
    }),
  })
  const good = client.createProcessInstanceWithResult({ bpmnProcessId: 'typed_order', variables: { orderId: 'A', amount: 21, unrelated: 'x'.repeat(100), traceparent: TP }, requestTimeoutMs: 20_000 })
  const bad = await client.createProcessInstance({ bpmnProcessId: 'typed_order', variables: { orderId: 'B', amount: 'lots' } })

  const r = await good
  expect(r.variables).toMatchObject({ orderId: 'A', total: 42 })
  // derived fetchVariables: the job carried only the schema's keys and traceparent
  expect(seen[0]!.orderId).toBe('A')
  expect(JSON.parse(seen[0]!.raw)).toEqual({ orderId: 'A', amount: 21, traceparent: TP })

  let failed: any
  const deadline = Date.now() + 15_000
  while (Date.now() < deadline) {
    const jobs = (await admin.jobs(type)) as any[]
    failed = jobs.find((j) => j.processInstanceKey === bad.processInstanceKey && j.failCount >= 1)
    if (failed) break
    await new Promise((res) => setTimeout(res, 100))
  }
  expect(failed).toBeDefined()
  expect(failed.errorMessage).toMatch(/invalid input/)
  expect(failed.errorMessage).toMatch(/amount/)
  expect(failed.fetchVariables).toEqual(['orderId', 'amount', 'traceparent'])
  expect(Number(failed.lastRetryBackoffMs)).toBeGreaterThanOrEqual(900)
  expect(Number(failed.lastRetryBackoffMs)).toBeLessThanOrEqual(1100)
  expect(seen.map((s) => s.orderId)).toEqual(['A']) // the handler never saw B
})
