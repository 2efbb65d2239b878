// The five client commands against the real reference engine (started for this file on a free port,
// always stopped): evaluate a deployed decision, delete a deployed process, broadcast a signal to a
// signal-start process, modify an instance (activate + terminate + variables), migrate v1 -> v2.
import { status } from '@grpc/grpc-js'
import { Client, FailedPreconditionError, InvalidArgumentError, NotFoundError, UnavailableError, type Job, type Worker } from '../../src/index'
import { Engine } from '../support/engine'
import { Admin } from '../support/admin'
import { waitFor } from '../support/fakeGateway'

const quiet = { debug() {}, info() {}, warn() {}, error() {} }
let engine: Engine
let client: Client
let admin: Admin
const workers: Worker<any>[] = []
let seq = 0

beforeAll(async () => {
  engine = await Engine.start()
  client = new Client({ address: engine.address, logger: quiet })
  admin = new Admin(engine.address)
})
afterAll(async () => {
  admin?.close()
  await client?.close({ timeoutMs: 500 })
  await engine?.stop()
})
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.close({ timeoutMs: 500 })))
})

const BPMN = 'xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0"'

/** A process of service tasks in a row (`tasks` are [elementId, jobType]), started by the signal `signal` if given. */
function sequence(processId: string, tasks: Array<[string, string]>, signal?: string): string {
  const ids = ['start', ...tasks.map((t) => t[0]), 'end']
  const flows = ids.slice(1).map((to, i) => `<bpmn:sequenceFlow id="f${i}" sourceRef="${ids[i]}" targetRef="${to}" />`)
  const inc = (id: string) => `<bpmn:incoming>f${ids.indexOf(id) - 1}</bpmn:incoming>`
  const out = (id: string) => `<bpmn:outgoing>f${ids.indexOf(id)}</bpmn:outgoing>`
  const body = tasks.map(
    ([id, type]) => `<bpmn:serviceTask id="${id}"><bpmn:extensionElements><zeebe:taskDefinition type="${type}" /></bpmn:extensionElements>${inc(id)}${out(id)}</bpmn:serviceTask>`,
  )
  return `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions ${BPMN} id="defs_${processId}" targetNamespace="http://jobwire.dev/test">
  ${signal ? `<bpmn:signal id="sig_${processId}" name="${signal}" />` : ''}
  <bpmn:process id="${processId}" isExecutable="true">
    <bpmn:startEvent id="start">${out('start')}${signal ? `<bpmn:signalEventDefinition id="sed" signalRef="sig_${processId}" />` : ''}</bpmn:startEvent>
    ${body.join('\n    ')}
    <bpmn:endEvent id="end">${inc('end')}</bpmn:endEvent>
    ${flows.join('\n    ')}
  </bpmn:process>
</bpmn:definitions>
`
}

/** Resolves once the async `cond` holds (polled every 50 ms), or rejects after `timeoutMs`. */
async function eventually(cond: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs
  for (;;) {
    if (await cond()) return
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** A decision requirements graph: `discount` (a literal expression) requires `tier` (a decision table); `overlap` is a UNIQUE table whose rules overlap. */
const DMN = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="pricing" name="Pricing" namespace="http://jobwire.dev/test/dmn">
  <decision id="discount" name="Discount">
    <informationRequirement id="ir1"><requiredDecision href="#tier" /></informationRequirement>
    <literalExpression id="le1"><text>{ order: orderId, rate: if tier = "gold" then 10 else 0 }</text></literalExpression>
  </decision>
  <decision id="tier" name="Tier">
    <decisionTable id="dt1" hitPolicy="UNIQUE">
      <input id="in_amount" label="Amount"><inputExpression id="ie1" typeRef="number"><text>amount</text></inputExpression></input>
      <output id="out_tier" name="tier" typeRef="string" />
      <rule id="small"><inputEntry id="s1"><text>&lt; 100</text></inputEntry><outputEntry id="s2"><text>"silver"</text></outputEntry></rule>
      <rule id="big"><inputEntry id="b1"><text>&gt;= 100</text></inputEntry><outputEntry id="b2"><text>"gold"</text></outputEntry></rule>
    </decisionTable>
  </decision>
  <decision id="overlap" name="Overlap">
    <decisionTable id="dt2" hitPolicy="UNIQUE">
      <input id="in_n" label="N"><inputExpression id="ie2" typeRef="number"><text>n</text></inputExpression></input>
      <output id="out_o" name="o" typeRef="string" />
      <rule id="o1"><inputEntry id="o1a"><text>&gt;= 0</text></inputEntry><outputEntry id="o1b"><text>"a"</text></outputEntry></rule>
      <rule id="o2"><inputEntry id="o2a"><text>&gt;= 10</text></inputEntry><outputEntry id="o2b"><text>"b"</text></outputEntry></rule>
    </decisionTable>
  </decision>
</definitions>
`

async function deploy(name: string, xml: string): Promise<string> {
  const d = await client.deployResource({ name, content: xml })
  return d.processes[0]?.processDefinitionKey ?? d.key
}

/** Creates a worker that records its jobs (left activated, never completed, unless `complete`). */
function collect(jobType: string, complete = true): { jobs: Job[] } {
  const seen = { jobs: [] as Job[] }
  workers.push(
    client.createWorker({
      jobType,
      autoComplete: complete,
      handler: (job) => {
        seen.jobs.push(job)
      },
    }),
  )
  return seen
}

const instances = (bpmnProcessId: string) => admin.processInstances(bpmnProcessId)
const jobsOf = (type: string) => admin.jobs(type)

describe('client commands (reference engine)', () => {
  it('evaluateDecision: by id and by key, required decisions first, matched rules, lossless output; an unknown decision is NotFoundError; a failed evaluation resolves', async () => {
    await client.deployResource({ name: 'pricing.dmn', content: DMN })
    const r = await client.evaluateDecision({ decisionId: 'discount', variables: { amount: 250, orderId: 9007199254740993n } })
    expect(r.failedDecisionId).toBe('')
    expect(r.decisionId).toBe('discount')
    expect(r.decisionVersion).toBe(1)
    expect(r.decisionKey).toMatch(/^\d+$/)
    expect(r.decisionOutput).toEqual({ order: 9007199254740993n, rate: 10 })
    expect(r.decisionOutputJson).toContain('9007199254740993')
    expect(r.evaluatedDecisions.map((d) => d.decisionId)).toEqual(['tier', 'discount'])
    const tier = r.evaluatedDecisions[0]!
    expect(tier.decisionOutput).toBe('gold')
    expect(tier.matchedRules.map((m) => m.ruleId)).toEqual(['big'])
    expect(tier.matchedRules[0]!.evaluatedOutputs.map((o) => [o.outputName, o.outputValue])).toEqual([['tier', 'gold']])
    expect(tier.evaluatedInputs.map((i) => [i.inputId, i.inputValue])).toEqual([['in_amount', 250]])

    const byKey = await client.evaluateDecision({ decisionKey: tier.decisionKey, variables: '{"amount": 5}' })
    expect(byKey.decisionId).toBe('tier')
    expect(byKey.decisionOutput).toBe('silver')
    expect(byKey.evaluatedDecisions[0]!.matchedRules.map((m) => m.ruleId)).toEqual(['small'])

    const failed = await client.evaluateDecision({ decisionId: 'overlap', variables: { n: 50 } })
    expect(failed.failedDecisionId).toBe('overlap')
    expect(failed.failureMessage).not.toBe('')

    await expect(client.evaluateDecision({ decisionId: 'no-such-decision', variables: {} })).rejects.toBeInstanceOf(NotFoundError)
  })

  it('evaluateDecision is resent after UNAVAILABLE and RESOURCE_EXHAUSTED (rejected by the gateway before it handled them)', async () => {
    await client.deployResource({ name: 'pricing.dmn', content: DMN }) // the same resource again: no new version
    const before = await admin.requestCount('EvaluateDecision')
    await admin.reject('EvaluateDecision', status.UNAVAILABLE, 1)
    await admin.reject('EvaluateDecision', status.RESOURCE_EXHAUSTED, 1)
    const r = await client.evaluateDecision({ decisionId: 'tier', variables: { amount: 1 } })
    expect(r.decisionOutput).toBe('silver')
    expect((await admin.requestCount('EvaluateDecision')) - before).toBe(3)
  })

  it('deleteResource is not resent after UNAVAILABLE (the typed error at once), but is after RESOURCE_EXHAUSTED', async () => {
    const id = `delr${++seq}`
    const key = await deploy(`${id}.bpmn`, sequence(id, []))
    const before = await admin.requestCount('DeleteResource')
    await admin.reject('DeleteResource', status.UNAVAILABLE, 1)
    await expect(client.deleteResource(key)).rejects.toBeInstanceOf(UnavailableError)
    expect((await admin.requestCount('DeleteResource')) - before).toBe(1)
    // not deleted: the process still starts (an instance that ends at once: a definition with running instances cannot be deleted)
    expect((await client.createProcessInstanceWithResult({ bpmnProcessId: id, requestTimeoutMs: 5_000 })).bpmnProcessId).toBe(id)
    await admin.reject('DeleteResource', status.RESOURCE_EXHAUSTED, 2)
    await client.deleteResource(key)
    expect((await admin.requestCount('DeleteResource')) - before).toBe(4)
    await expect(client.createProcessInstance({ bpmnProcessId: id })).rejects.toBeInstanceOf(NotFoundError)
  })

  it('deleteResource: refused (FailedPreconditionError) while an instance runs; once it ended, deleted: the process cannot be started, deleting it again is NotFoundError', async () => {
    const id = `del${++seq}`
    const type = `${id}-t`
    const key = await deploy(`${id}.bpmn`, sequence(id, [['t', type]]))
    await client.createProcessInstance({ bpmnProcessId: id })
    await expect(client.deleteResource(key)).rejects.toBeInstanceOf(FailedPreconditionError)
    collect(type) // completes the instance's job: the instance ends
    await eventually(async () => (await instances(id)).every((i) => i.state === 'PROCESS_INSTANCE_STATE_COMPLETED'), 10_000, 'the instance completed')
    await client.deleteResource(key)
    await expect(client.createProcessInstance({ bpmnProcessId: id })).rejects.toBeInstanceOf(NotFoundError)
    await expect(client.createProcessInstance({ processDefinitionKey: key })).rejects.toBeInstanceOf(NotFoundError)
    await expect(client.deleteResource(key)).rejects.toBeInstanceOf(NotFoundError)
  })

  it('broadcastSignal: starts the signal-start process once, with the variables (lossless)', async () => {
    const id = `sig${++seq}`
    const type = `${id}-t`
    await deploy(`${id}.bpmn`, sequence(id, [['t', type]], `go-${id}`))
    const signalKey = await client.broadcastSignal({ signalName: `go-${id}`, variables: { big: 9223372036854775807n, who: 'node' } })
    expect(signalKey).toMatch(/^\d+$/)
    const seen = collect(type)
    await waitFor(() => seen.jobs.length === 1, 10_000, 'the job of the started instance')
    expect(seen.jobs[0]!.variables.big).toBe(9223372036854775807n)
    expect(seen.jobs[0]!.variables.who).toBe('node')
    expect(await instances(id)).toHaveLength(1)
  })

  it('modifyProcessInstance: activates B with variables and terminates A in one step', async () => {
    const id = `mod${++seq}`
    await deploy(`${id}.bpmn`, sequence(id, [['A', `${id}-a`], ['B', `${id}-b`]]))
    const pi = await client.createProcessInstance({ bpmnProcessId: id, variables: { keep: 1 } })
    await eventually(async () => (await jobsOf(`${id}-a`)).length === 1, 5_000, 'the job of A')
    const [jobA] = await jobsOf(`${id}-a`)
    await client.modifyProcessInstance({
      processInstanceKey: pi.processInstanceKey,
      activate: [{ elementId: 'B', variables: [{ variables: { note: 'modified', big: 9007199254740993n } }] }],
      terminate: [jobA!.elementInstanceKey],
    })
    const seen = collect(`${id}-b`)
    await waitFor(() => seen.jobs.length === 1, 10_000, 'the job of B')
    const b = seen.jobs[0]!
    expect(b.processInstanceKey).toBe(pi.processInstanceKey)
    expect(b.elementId).toBe('B')
    expect(b.variables).toMatchObject({ keep: 1, note: 'modified', big: 9007199254740993n })
    // A was terminated: its job is gone
    await expect(client.completeJob({ jobKey: jobA!.key })).rejects.toBeInstanceOf(NotFoundError)
    // B was the only token: the instance ends with it
    await eventually(async () => (await instances(id))[0]?.state === 'PROCESS_INSTANCE_STATE_COMPLETED', 10_000, 'instance completed')
  })

  it('createProcessInstance with startElementIds starts before those elements; an unknown one is InvalidArgumentError', async () => {
    const id = `start${++seq}`
    await deploy(`${id}.bpmn`, sequence(id, [['A', `${id}-a`], ['B', `${id}-b`]]))
    const pi = await client.createProcessInstance({ bpmnProcessId: id, variables: { s: 1 }, startElementIds: ['B'] })
    const seen = collect(`${id}-b`)
    await waitFor(() => seen.jobs.length === 1, 10_000, 'the job of B')
    expect(seen.jobs[0]!.processInstanceKey).toBe(pi.processInstanceKey)
    expect(seen.jobs[0]!.variables).toMatchObject({ s: 1 })
    expect(await jobsOf(`${id}-a`)).toHaveLength(0) // A never ran
    await expect(client.createProcessInstance({ bpmnProcessId: id, startElementIds: ['nope'] })).rejects.toBeInstanceOf(InvalidArgumentError)
  })

  it('migrateProcessInstance: v1 task A moves to v2 task A2 by mapping', async () => {
    const id = `mig${++seq}`
    const type = `${id}-t`
    const v1 = await deploy(`${id}.bpmn`, sequence(id, [['A', type]]))
    const pi = await client.createProcessInstance({ bpmnProcessId: id })
    const v2 = await deploy(`${id}.bpmn`, sequence(id, [['A2', type], ['after', `${id}-after`]]))
    expect(v2).not.toBe(v1)
    await client.migrateProcessInstance({ processInstanceKey: pi.processInstanceKey, targetProcessDefinitionKey: v2, mappings: [{ sourceElementId: 'A', targetElementId: 'A2' }] })
    const [inst] = (await instances(id)).filter((i) => i.key === pi.processInstanceKey)
    expect(inst!.processDefinitionKey).toBe(v2)
    expect(inst!.version).toBe(2)
    const seen = collect(type)
    await waitFor(() => seen.jobs.length === 1, 10_000, 'the migrated job')
    expect(seen.jobs[0]!.elementId).toBe('A2')
    expect(seen.jobs[0]!.processDefinitionKey).toBe(v2)
    // the instance continues on v2: its next task exists only there
    const after = collect(`${id}-after`)
    await waitFor(() => after.jobs.length === 1, 10_000, 'the v2-only task after A2')
  })
})
