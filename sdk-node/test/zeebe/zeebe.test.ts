// Against the real Zeebe engine (tools/zeebe-engine), when JOBWIRE_ZEEBE_ADDRESS is set
// (scripts/test.sh starts the launcher and sets it when the launcher exists).
import { Client } from '../../src/index'
import { oneTaskProcess } from '../support/engine'
import { waitFor } from '../support/fakeGateway'

const address = process.env.JOBWIRE_ZEEBE_ADDRESS
const zeebe = address ? describe : describe.skip

zeebe('real Zeebe', () => {
  it('runs 500 one-task instances through the worker (push + poll)', async () => {
    const client = new Client({ address, logger: { debug() {}, info() {}, warn: console.warn, error: console.error } })
    try {
      const type = `zeebe-node-${Date.now()}`
      const deployed = await client.deployResource({ name: 'zeebe-node.bpmn', content: oneTaskProcess('zeebe_node', type) })
      expect(deployed.deployments[0]?.process?.bpmnProcessId).toBe('zeebe_node')
      const done = new Set<string>()
      const activations = new Set<string>()
      const worker = client.createWorker({
        jobType: type,
        handler: (job) => {
          activations.add(job.activation)
          done.add(job.processInstanceKey)
          return { big: 9007199254740993n }
        },
      })
      const total = 500
      const created: string[] = []
      for (let i = 0; i < total; i += 50) {
        const batch = await Promise.all(
          Array.from({ length: Math.min(50, total - i) }, () => client.createProcessInstance({ bpmnProcessId: 'zeebe_node', variables: { i } })),
        )
        created.push(...batch.map((b) => b.processInstanceKey))
      }
      await waitFor(() => done.size >= total, 90_000, `${total} jobs handled`)
      expect(new Set(created).size).toBe(total)
      for (const k of created) expect(done.has(k)).toBe(true)
      // a final instance with result proves completion (and lossless variables) end to end
      const res = client.createProcessInstanceWithResult({ bpmnProcessId: 'zeebe_node', requestTimeoutMs: 20_000 })
      expect((await res).variables.big).toBe(9007199254740993n)
      await worker.close({ timeoutMs: 2_000 })
      expect(worker.state).toBe('closed')
    } finally {
      await client.close({ timeoutMs: 1_000 })
    }
  }, 150_000)

  it.each([
    ['1 KiB', 1024, 150],
    ['30 KiB', 30 * 1024, 40],
  ])('close strands no job (%s jobs): a paused capacity-2 worker hands back what it holds; another worker completes all long before jobTimeout', async (label, size, total) => {
    const client = new Client({ address, logger: { debug() {}, info() {}, warn: console.warn, error: console.error } })
    try {
      const type = `zeebe-drain-${size}-${Date.now()}`
      const id = `zeebe_drain_${size}`
      await client.deployResource({ name: `${id}.bpmn`, content: oneTaskProcess(id, type) })
      const paused = client.createWorker({
        jobType: type,
        maxJobsActive: 2,
        jobTimeoutMs: 120_000, // a stranded job would wait this long
        handler: (_job, { signal }) => new Promise<void>((_r, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true })),
      })
      await waitFor(() => paused.state === 'streaming')
      await Promise.all(Array.from({ length: total }, () => client.createProcessInstance({ bpmnProcessId: id, variables: { pad: 'x'.repeat(size) } })))
      await waitFor(() => paused.heldJobs === 2, 20_000, 'worker full')
      await new Promise((r) => setTimeout(r, 1_500))
      await paused.close({ timeoutMs: 200 })
      const done = new Set<string>()
      const t0 = Date.now()
      const fast = client.createWorker({ jobType: type, maxJobsActive: 32, handler: (job) => { done.add(job.key) } })
      await waitFor(() => done.size === total, 30_000, `all ${total} jobs completed by another worker`)
      process.stdout.write(`zeebe drain ${label}: handed back by the drain ${paused.drainedJobs}, all ${total} completed by another worker ${Date.now() - t0} ms after close\n`)
      await fast.close({ timeoutMs: 1_000 })
    } finally {
      await client.close({ timeoutMs: 1_000 })
    }
  }, 90_000)
})
