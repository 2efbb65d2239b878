// The five client commands with the resend rule (docs/worker-semantics.md, "Client commands: which are
// resent") against an in-process fake gateway: requests built from the typed input, results mapped,
// typed errors, which statuses are resent, at most 5 attempts, never past the deadline.
import * as grpc from '@grpc/grpc-js'
import {
  Client,
  BackpressureError,
  DeadlineExceededError,
  FailedPreconditionError,
  InternalError,
  InvalidArgumentError,
  NotFoundError,
  RequestCancelledError,
  UnavailableError,
} from '../../src/index'
import { MAX_COMMAND_ATTEMPTS, resentAfter, type ResentCommand } from '../../src/commands'
import { Backoff } from '../../src/worker/backoff'
import { FakeGateway } from '../support/fakeGateway'

const S = grpc.status
const quiet = { debug() {}, info() {}, warn() {}, error() {} }
const ALL: ResentCommand[] = ['EvaluateDecision', 'ModifyProcessInstance', 'MigrateProcessInstance', 'DeleteResource', 'BroadcastSignal']
const FAILURE_CODES = Object.values(S).filter((c): c is number => typeof c === 'number' && c !== S.OK)

let gw: FakeGateway | undefined
let client: Client | undefined
const unhandled: unknown[] = []
const onUnhandled = (e: unknown) => unhandled.push(e)
beforeAll(() => process.on('unhandledRejection', onUnhandled))
afterAll(() => process.off('unhandledRejection', onUnhandled))
afterEach(async () => {
  await client?.close({ timeoutMs: 100 })
  await gw?.stop()
  client = undefined
  gw = undefined
  expect(unhandled).toEqual([])
})

/** A unary handler answering the statuses in `fails` first (one per call), then `answer`. */
function failThen(fails: number[], answer: object = {}) {
  let n = 0
  return (_call: any, cb: any) => {
    const code = fails[n++]
    if (code === undefined) cb(null, answer)
    else cb({ code, details: `injected ${S[code]}` })
  }
}

/** A unary handler that always answers `code`. */
const always = (code: number) => (_call: any, cb: any) => cb({ code, details: `injected ${S[code]}` })

async function start(handlers: Record<string, any>, commandTimeoutMs?: number): Promise<Client> {
  gw = await FakeGateway.start(handlers)
  client = new Client({ address: gw.address, logger: quiet, ...(commandTimeoutMs ? { commandTimeoutMs } : {}) })
  return client
}

/** One call of each command with a valid request. */
function callOf(c: Client, command: ResentCommand, options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<unknown> {
  switch (command) {
    case 'EvaluateDecision':
      return c.evaluateDecision({ decisionId: 'd', variables: { a: 1 } }, options)
    case 'ModifyProcessInstance':
      return c.modifyProcessInstance({ processInstanceKey: '1', activate: [{ elementId: 'x' }] }, options)
    case 'MigrateProcessInstance':
      return c.migrateProcessInstance({ processInstanceKey: '1', targetProcessDefinitionKey: '2', mappings: [{ sourceElementId: 'a', targetElementId: 'b' }] }, options)
    case 'DeleteResource':
      return c.deleteResource('3', options)
    case 'BroadcastSignal':
      return c.broadcastSignal({ signalName: 's' }, options)
  }
}

describe('resentAfter: the documented table', () => {
  it('EvaluateDecision is resent after UNAVAILABLE and RESOURCE_EXHAUSTED only', () => {
    const resent = FAILURE_CODES.filter((c) => resentAfter('EvaluateDecision', c))
    expect(resent.map((c) => S[c]).sort()).toEqual(['RESOURCE_EXHAUSTED', 'UNAVAILABLE'])
  })

  it.each(['ModifyProcessInstance', 'MigrateProcessInstance', 'DeleteResource', 'BroadcastSignal'] as ResentCommand[])('%s is resent after RESOURCE_EXHAUSTED only', (command) => {
    const resent = FAILURE_CODES.filter((c) => resentAfter(command, c))
    expect(resent.map((c) => S[c])).toEqual(['RESOURCE_EXHAUSTED'])
    for (const c of [S.UNAVAILABLE, S.DEADLINE_EXCEEDED, S.ABORTED, S.CANCELLED]) expect(resentAfter(command, c)).toBe(false)
  })

  it('a client-side error (no status) is never resent', () => {
    for (const command of ALL) expect(resentAfter(command, undefined)).toBe(false)
  })

  it('at most 5 attempts, as in every SDK', () => {
    expect(MAX_COMMAND_ATTEMPTS).toBe(5)
  })
})

describe('requests and results (fake gateway)', () => {
  it('evaluateDecision: request from the typed input (lossless variables), every result field mapped', async () => {
    const answer = {
      decisionKey: '2251799813685300',
      decisionId: 'price',
      decisionName: 'Price',
      decisionVersion: 3,
      decisionRequirementsId: 'pricing',
      decisionRequirementsKey: '2251799813685299',
      decisionOutput: '{"total":9223372036854775807,"tier":"gold"}',
      evaluatedDecisions: [
        {
          decisionKey: '2251799813685301',
          decisionId: 'tier',
          decisionName: 'Tier',
          decisionVersion: 1,
          decisionType: 'DECISION_TABLE',
          decisionOutput: '"gold"',
          matchedRules: [{ ruleId: 'r2', ruleIndex: 2, evaluatedOutputs: [{ outputId: 'o1', outputName: 'tier', outputValue: '"gold"' }] }],
          evaluatedInputs: [{ inputId: 'i1', inputName: 'Amount', inputValue: '9007199254740993' }],
          tenantId: '<default>',
          decisionEvaluationInstanceKey: '2251799813685302-1',
        },
        { decisionKey: '2251799813685300', decisionId: 'price', decisionName: 'Price', decisionVersion: 3, decisionType: 'LITERAL_EXPRESSION', decisionOutput: '{"total":9223372036854775807,"tier":"gold"}', tenantId: '<default>', decisionEvaluationInstanceKey: '2251799813685302-2' },
      ],
      failedDecisionId: '',
      failureMessage: '',
      tenantId: '<default>',
      decisionInstanceKey: '2251799813685302',
      decisionEvaluationKey: '2251799813685302',
    }
    const c = await start({ EvaluateDecision: failThen([], answer) })
    const r = await c.evaluateDecision({ decisionId: 'price', variables: { amount: 9007199254740993n, n: 1 }, tenantId: 't1' })
    expect(gw!.requests('EvaluateDecision')).toEqual([{ decisionKey: '0', decisionId: 'price', variables: '{"amount":9007199254740993,"n":1}', tenantId: 't1' }])
    expect(r).toEqual({
      decisionKey: '2251799813685300',
      decisionId: 'price',
      decisionName: 'Price',
      decisionVersion: 3,
      decisionRequirementsId: 'pricing',
      decisionRequirementsKey: '2251799813685299',
      decisionOutput: { total: 9223372036854775807n, tier: 'gold' },
      decisionOutputJson: '{"total":9223372036854775807,"tier":"gold"}',
      evaluatedDecisions: [
        {
          decisionKey: '2251799813685301',
          decisionId: 'tier',
          decisionName: 'Tier',
          decisionVersion: 1,
          decisionType: 'DECISION_TABLE',
          decisionOutput: 'gold',
          decisionOutputJson: '"gold"',
          matchedRules: [{ ruleId: 'r2', ruleIndex: 2, evaluatedOutputs: [{ outputId: 'o1', outputName: 'tier', outputValue: 'gold', outputValueJson: '"gold"' }] }],
          evaluatedInputs: [{ inputId: 'i1', inputName: 'Amount', inputValue: 9007199254740993n, inputValueJson: '9007199254740993' }],
          tenantId: '<default>',
          decisionEvaluationInstanceKey: '2251799813685302-1',
        },
        {
          decisionKey: '2251799813685300',
          decisionId: 'price',
          decisionName: 'Price',
          decisionVersion: 3,
          decisionType: 'LITERAL_EXPRESSION',
          decisionOutput: { total: 9223372036854775807n, tier: 'gold' },
          decisionOutputJson: '{"total":9223372036854775807,"tier":"gold"}',
          matchedRules: [],
          evaluatedInputs: [],
          tenantId: '<default>',
          decisionEvaluationInstanceKey: '2251799813685302-2',
        },
      ],
      failedDecisionId: '',
      failureMessage: '',
      tenantId: '<default>',
      decisionInstanceKey: '2251799813685302',
      decisionEvaluationKey: '2251799813685302',
    })
  })

  it('evaluateDecision: by key (a bigint), variables as a JSON string kept as sent; a failed evaluation resolves with the failure', async () => {
    const c = await start({ EvaluateDecision: failThen([], { decisionId: 'd', failedDecisionId: 'd', failureMessage: 'no rule matched', decisionOutput: '' }) })
    const r = await c.evaluateDecision({ decisionKey: 2251799813685300n, variables: '{"x":12345678901234567890}' })
    expect(gw!.requests('EvaluateDecision')).toEqual([{ decisionKey: '2251799813685300', decisionId: '', variables: '{"x":12345678901234567890}', tenantId: '' }])
    expect(r.failedDecisionId).toBe('d')
    expect(r.failureMessage).toBe('no rule matched')
    expect(r.decisionOutput).toBeNull()
    expect(r.decisionOutputJson).toBe('')
  })

  it('modifyProcessInstance: activate instructions with variables per scope, ancestor default 0, terminate keys', async () => {
    const c = await start({ ModifyProcessInstance: failThen([]) })
    await expect(
      c.modifyProcessInstance({
        processInstanceKey: 2251799813685249n,
        activate: [
          { elementId: 'review', variables: [{ variables: { big: 9007199254740993n } }, { scopeId: 'sub', variables: '{"y":2}' }] },
          { elementId: 'inner', ancestorElementInstanceKey: '2251799813685260' },
        ],
        terminate: ['2251799813685251', 2251799813685252n],
      }),
    ).resolves.toBeUndefined()
    expect(gw!.requests('ModifyProcessInstance')).toEqual([
      {
        processInstanceKey: '2251799813685249',
        activateInstructions: [
          { elementId: 'review', ancestorElementInstanceKey: '0', variableInstructions: [{ scopeId: '', variables: '{"big":9007199254740993}' }, { scopeId: 'sub', variables: '{"y":2}' }] },
          { elementId: 'inner', ancestorElementInstanceKey: '2251799813685260', variableInstructions: [] },
        ],
        terminateInstructions: [{ elementInstanceKey: '2251799813685251' }, { elementInstanceKey: '2251799813685252' }],
      },
    ])
  })

  it('migrateProcessInstance: the target definition and the mappings, source and target in place', async () => {
    const c = await start({ MigrateProcessInstance: failThen([]) })
    await c.migrateProcessInstance({
      processInstanceKey: '2251799813685249',
      targetProcessDefinitionKey: '2251799813685270',
      mappings: [
        { sourceElementId: 'A', targetElementId: 'A2' },
        { sourceElementId: 'B', targetElementId: 'B2' },
      ],
    })
    expect(gw!.requests('MigrateProcessInstance')).toEqual([
      {
        processInstanceKey: '2251799813685249',
        migrationPlan: {
          targetProcessDefinitionKey: '2251799813685270',
          mappingInstructions: [
            { sourceElementId: 'A', targetElementId: 'A2' },
            { sourceElementId: 'B', targetElementId: 'B2' },
          ],
        },
      },
    ])
  })

  it('deleteResource: the key; broadcastSignal: name, lossless variables, tenant, and its key back', async () => {
    const c = await start({ DeleteResource: failThen([]), BroadcastSignal: failThen([], { key: '2251799813685280', tenantId: '<default>' }) })
    await c.deleteResource(' 2251799813685270 ')
    expect(gw!.requests('DeleteResource')).toEqual([{ resourceKey: '2251799813685270' }])
    const k = await c.broadcastSignal({ signalName: 'stock', variables: { sku: 'A', n: 9007199254740993n }, tenantId: 't' })
    expect(k).toBe('2251799813685280')
    expect(gw!.requests('BroadcastSignal')).toEqual([{ signalName: 'stock', variables: '{"sku":"A","n":9007199254740993}', tenantId: 't' }])
    await c.broadcastSignal({ signalName: 'bare' })
    expect(gw!.requests('BroadcastSignal')[1]).toEqual({ signalName: 'bare', variables: '', tenantId: '' })
  })

  it('bad input is a TypeError before anything is sent', async () => {
    const c = await start({})
    await expect(c.deleteResource('abc')).rejects.toThrow(TypeError)
    await expect(c.modifyProcessInstance({ processInstanceKey: '1', terminate: [1.5] })).rejects.toThrow(TypeError)
    await expect(c.migrateProcessInstance({ processInstanceKey: '1', targetProcessDefinitionKey: 'x', mappings: [] })).rejects.toThrow(TypeError)
    await expect(c.evaluateDecision({ decisionId: 'd', variables: '[1]' })).rejects.toThrow(TypeError)
    await expect(c.broadcastSignal({ signalName: 's', variables: [1] as any })).rejects.toThrow(TypeError)
    await expect(c.modifyProcessInstance({ processInstanceKey: '1', activate: [{ elementId: 'e', variables: [{ variables: 'nope' }] }] })).rejects.toThrow(TypeError)
    expect(gw!.calls).toEqual([])
  })
})

describe('typed errors, sent once (fake gateway)', () => {
  const cases: Array<[number, new (...a: any[]) => Error]> = [
    [S.NOT_FOUND, NotFoundError],
    [S.INVALID_ARGUMENT, InvalidArgumentError],
    [S.FAILED_PRECONDITION, FailedPreconditionError],
    [S.ABORTED, InternalError],
    [S.DEADLINE_EXCEEDED, DeadlineExceededError],
  ]
  it.each(ALL)('%s: NOT_FOUND, INVALID_ARGUMENT, FAILED_PRECONDITION, ABORTED, DEADLINE_EXCEEDED from the gateway → the typed error after one attempt', async (command) => {
    for (const [code, Cls] of cases) {
      const c = await start({ [command]: always(code) })
      const err: any = await callOf(c, command).catch((e) => e)
      expect(err).toBeInstanceOf(Cls)
      expect(err.codeName).toBe(S[code])
      expect(gw!.count(command)).toBe(1)
      await c.close()
      await gw!.stop()
    }
  })

  it.each(['ModifyProcessInstance', 'MigrateProcessInstance', 'DeleteResource', 'BroadcastSignal'] as ResentCommand[])(
    '%s: UNAVAILABLE is returned at once (the first attempt may have been applied)',
    async (command) => {
      const c = await start({ [command]: failThen([S.UNAVAILABLE]) })
      const err = await callOf(c, command).catch((e) => e)
      expect(err).toBeInstanceOf(UnavailableError)
      expect(gw!.count(command)).toBe(1)
    },
  )
})

describe('resend (fake gateway)', () => {
  it('EvaluateDecision: resent after UNAVAILABLE and RESOURCE_EXHAUSTED with the growing shared backoff', async () => {
    const c = await start({ EvaluateDecision: failThen([S.UNAVAILABLE, S.RESOURCE_EXHAUSTED, S.UNAVAILABLE], { decisionId: 'd', decisionOutput: '1' }) })
    const r = await c.evaluateDecision({ decisionId: 'd' })
    expect(r.decisionOutput).toBe(1)
    const at = gw!.calls.filter((x) => x.method === 'EvaluateDecision').map((x) => x.at)
    expect(at).toHaveLength(4)
    const gaps = at.slice(1).map((t, i) => t - at[i]!)
    // 50 ms, 80 ms, 128 ms (±10 % jitter; timers may fire late, never early)
    expect(gaps[0]).toBeGreaterThanOrEqual(44)
    expect(gaps[1]).toBeGreaterThanOrEqual(71)
    expect(gaps[2]).toBeGreaterThanOrEqual(114)
    expect(gaps[2]!).toBeGreaterThan(gaps[0]!)
  })

  it.each(ALL)('%s: resent after RESOURCE_EXHAUSTED, then succeeds', async (command) => {
    const c = await start({ [command]: failThen([S.RESOURCE_EXHAUSTED, S.RESOURCE_EXHAUSTED], { key: '7' }) })
    await expect(callOf(c, command)).resolves.not.toBeInstanceOf(Error)
    expect(gw!.count(command)).toBe(3)
  })

  it.each(ALL)('%s: at most 5 attempts, then the typed error of the last status', async (command) => {
    const c = await start({ [command]: always(S.RESOURCE_EXHAUSTED) })
    const err = await callOf(c, command, { timeoutMs: 10_000 }).catch((e) => e)
    expect(err).toBeInstanceOf(BackpressureError)
    expect(gw!.count(command)).toBe(5)
  })

  it('never past the deadline: no resend whose backoff would end after it', async () => {
    const c = await start({ EvaluateDecision: always(S.UNAVAILABLE) })
    const t0 = Date.now()
    // attempts at ~0, ~50, ~130 ms; the next would start at ~258 ms, after the 200 ms deadline
    const err = await c.evaluateDecision({ decisionId: 'd' }, { timeoutMs: 200 }).catch((e) => e)
    const took = Date.now() - t0
    expect(err).toBeInstanceOf(UnavailableError)
    // 3 on an idle machine (2 when the first connection is slow); never the 5 attempts the deadline forbids
    const at = gw!.calls.map((x) => x.at)
    expect(at.length).toBeGreaterThanOrEqual(2)
    expect(at.length).toBeLessThanOrEqual(3)
    for (const t of at) expect(t - t0).toBeLessThan(200)
    expect(took).toBeLessThan(250)
  })

  it('the deadline covers every attempt: a slow gateway answer ends the call with DEADLINE_EXCEEDED', async () => {
    let n = 0
    const c = await start({
      EvaluateDecision: (_call: any, cb: any) => {
        if (n++ === 0) cb({ code: S.UNAVAILABLE, details: 'first' })
        else setTimeout(() => cb(null, {}), 2_000).unref()
      },
    })
    const t0 = Date.now()
    const err = await c.evaluateDecision({ decisionId: 'd' }, { timeoutMs: 300 }).catch((e) => e)
    expect(err).toBeInstanceOf(DeadlineExceededError)
    expect(Date.now() - t0).toBeLessThan(1_000)
    expect(gw!.count('EvaluateDecision')).toBe(2)
  })

  it('the client default deadline (commandTimeoutMs) bounds the resends too', async () => {
    const c = await start({ BroadcastSignal: always(S.RESOURCE_EXHAUSTED) }, 400)
    const t0 = Date.now()
    const err = await c.broadcastSignal({ signalName: 's' }).catch((e) => e)
    expect(err).toBeInstanceOf(BackpressureError)
    // at ~0, 50, 130, 258 ms; the next (~463 ms) is past 400 ms (one fewer when the first connection is slow)
    expect(gw!.count('BroadcastSignal')).toBeGreaterThanOrEqual(3)
    expect(gw!.count('BroadcastSignal')).toBeLessThanOrEqual(4)
    expect(Date.now() - t0).toBeLessThan(450)
  })

  it('an abort during the backoff ends the call with RequestCancelledError, without another attempt', async () => {
    const c = await start({ DeleteResource: always(S.RESOURCE_EXHAUSTED) })
    const ac = new AbortController()
    const p = c.deleteResource('3', { signal: ac.signal, timeoutMs: 10_000 })
    setTimeout(() => ac.abort(), 20)
    const err = await p.catch((e) => e)
    expect(err).toBeInstanceOf(RequestCancelledError)
    await new Promise((r) => setTimeout(r, 100))
    expect(gw!.count('DeleteResource')).toBe(1)
  })

  it('uses the shared Backoff (the delays are its steps)', async () => {
    // The loop takes the backoff to use; with the jitter at its upper edge the delays are 55, 88 ms.
    const { sendCommand } = await import('../../src/commands')
    const c = await start({ EvaluateDecision: failThen([S.UNAVAILABLE, S.UNAVAILABLE], {}) })
    const transport = (c as any).transport
    const steps: number[] = []
    const b = new Backoff(() => 1)
    const next = b.next.bind(b)
    b.next = () => {
      const d = next()
      steps.push(d)
      return d
    }
    await sendCommand(transport, 'EvaluateDecision', { decisionId: 'd' }, {}, b)
    expect(steps).toEqual([55, 88])
    const at = gw!.calls.map((x) => x.at)
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(54)
    expect(at[2]! - at[1]!).toBeGreaterThanOrEqual(87)
  })
})
