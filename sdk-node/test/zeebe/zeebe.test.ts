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
})
