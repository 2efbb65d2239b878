// The worker rules shared with the Go SDK (docs/worker-semantics.md): capacity overflow, parked-poll
// cancel, close hand-back, redelivery, connections. A scripted in-memory transport decides what each
// long-lived call receives and when; connections are tested against a real grpc-js server.
import { EventEmitter } from 'node:events'
import * as grpc from '@grpc/grpc-js'
import { metrics } from '@opentelemetry/api'
import { Client } from '../../src/index'
import { Worker } from '../../src/worker/worker'
import { MSG_AT_CAPACITY, MSG_CLOSING, MSG_RECYCLED, CLOSE_GRACE_MS } from '../../src/worker/executor'
import { pollDeadlineMs } from '../../src/worker/poller'
import { InternalError } from '../../src/errors'
import type { WorkerState } from '../../src/worker/state'
import type { Transport, ReadGate } from '../../src/transport'
import type { WorkerOptions } from '../../src/worker/options'
import { FakeGateway, fakeJob, waitFor, delay } from '../support/fakeGateway'

const quiet = { debug() {}, info() {}, warn() {}, error() {} }

class FakeCall extends EventEmitter {
  cancelled = false
  deadline = 0
  openedAt = 0
  private paused = false
  constructor(readonly method: string, readonly request: any) {
    super()
  }
  cancel(): void {
    if (this.cancelled) return
    this.cancelled = true
    setImmediate(() => this.emit('error', { code: grpc.status.CANCELLED, details: 'Cancelled on client' }))
  }
  // Like a grpc-js call with the SDK's read gate: a message reaches 'data' only when the gate lets it through.
  gate: ReadGate | undefined
  override emit(event: string | symbol, ...args: any[]): boolean {
    if (event === 'data' && this.gate) {
      this.gate.onMessage(args[0], (m) => super.emit('data', m))
      return true
    }
    return super.emit(event, ...args)
  }
  pause(): this {
    this.paused = true
    return this
  }
  resume(): this {
    this.paused = false
    return this
  }
  isPaused(): boolean {
    return this.paused
  }
}

class ScriptedTransport {
  readonly config = { commandTimeoutMs: 1_000, logger: quiet }
  readonly hasAuth = false
  readonly calls: FakeCall[] = []
  readonly unaryCalls: Array<{ method: string; req: any }> = []
  failGate: Promise<void> | undefined
  /** Unary methods that fail with this gRPC status. */
  readonly failWith = new Map<string, number>()
  invalidateToken(): void {}
  async unary(method: string, req: any): Promise<unknown> {
    if (method === 'FailJob' && this.failGate) await this.failGate
    this.unaryCalls.push({ method, req })
    const code = this.failWith.get(method)
    if (code !== undefined) throw { code, details: 'scripted failure' }
    return {}
  }
  leaseLong() {
    return {
      serverStream: async (method: string, req: any, deadline: number, gate?: ReadGate) => {
        const call = new FakeCall(method, req)
        call.gate = gate
        call.deadline = deadline
        call.openedAt = Date.now()
        this.calls.push(call)
        // A poll that does not park (backfill, fairness: requestTimeout -1) is answered at once, like a
        // gateway's; it finds nothing unless a test answered it first.
        if (method === 'ActivateJobs' && req.requestTimeout === '-1') setTimeout(() => call.emit('end'), 5)
        return { call }
      },
      unary: (method: string, req: any) => this.unary(method, req),
      failover() {},
      release() {},
    }
  }
  of(method: string): FakeCall[] {
    return this.calls.filter((c) => c.method === method)
  }
  requests(method: string): any[] {
    return this.unaryCalls.filter((c) => c.method === method).map((c) => c.req)
  }
}

// A recording OpenTelemetry meter (API only): counter increments by name and outcome/result.
const counts = new Map<string, number>()
const count = (k: string) => counts.get(k) ?? 0
const gaugeCallbacks = new Set<unknown>()
beforeAll(() => {
  const meter = {
    createCounter: (name: string) => ({
      add: (v: number, attrs: Record<string, unknown> = {}) => {
        const k =
          attrs.outcome !== undefined ? `${name}{outcome=${attrs.outcome}}`
          : attrs.result !== undefined ? `${name}{result=${attrs.result}}`
          : attrs.reason !== undefined ? `${name}{reason=${attrs.reason}}`
          : name
        counts.set(k, (counts.get(k) ?? 0) + v)
      },
    }),
    createHistogram: () => ({ record() {} }),
    createObservableGauge: () => ({
      addCallback: (fn: unknown) => gaugeCallbacks.add(fn),
      removeCallback: (fn: unknown) => gaugeCallbacks.delete(fn),
    }),
  }
  metrics.setGlobalMeterProvider({ getMeter: () => meter } as any)
})
afterAll(() => metrics.disable())
beforeEach(() => counts.clear())

const open: Worker<any>[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((w) => w.close({ timeoutMs: 50 })))
})

function startWorker(t: ScriptedTransport, o: Partial<WorkerOptions> & Pick<WorkerOptions, 'handler'>): Worker<any> {
  const w = new Worker(t as unknown as Transport, { jobType: 'test', requestTimeoutMs: 30_000, ...o }, quiet)
  open.push(w)
  return w
}

/** The first long poll that parks (the backfill after the stream opened does not park and ends at once). */
async function parkedPoll(t: ScriptedTransport): Promise<FakeCall> {
  await waitFor(() => t.of('ActivateJobs').some((c) => c.request.requestTimeout !== '-1'))
  return t.of('ActivateJobs').find((c) => c.request.requestTimeout !== '-1')!
}

function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void
  const promise = new Promise<void>((r) => (open = r))
  return { promise, open }
}

describe('rule 1: overflow is returned at once', () => {
  it('fails back a polled job that arrives when the stream filled every slot; never runs it', async () => {
    const t = new ScriptedTransport()
    const release = gate()
    const ran: string[] = []
    const w = startWorker(t, { maxJobsActive: 2, handler: async (job) => { ran.push(job.key); await release.promise } })
    await waitFor(() => t.of('StreamActivatedJobs').length === 1)
    const [stream] = t.of('StreamActivatedJobs')
    const poll = await parkedPoll(t)
    const j1 = fakeJob(), j2 = fakeJob(), j3 = fakeJob({ retries: 3 })
    await delay(150) // the poll is parked: the stream reader may borrow its slots
    // The poll's response was already in flight when the stream filled the worker.
    stream!.emit('data', j1)
    stream!.emit('data', j2)
    poll!.emit('data', { jobs: [j3] })
    await waitFor(() => t.requests('FailJob').length === 1)
    expect(t.requests('FailJob')[0]).toEqual({ jobKey: j3.key, retries: 3, errorMessage: MSG_AT_CAPACITY, retryBackOff: '0', variables: '' })
    expect(w.heldJobs).toBe(2)
    await waitFor(() => count('jobwire.worker.jobs.handled{outcome=returned}') === 1)
    release.open()
    await waitFor(() => w.heldJobs === 0)
    expect(ran.sort()).toEqual([j1.key, j2.key].sort())
  })

  it('a pushed job never finds the worker full: the stream is read only with a reserved slot', async () => {
    const t = new ScriptedTransport()
    const release = gate()
    const ran: string[] = []
    const w = startWorker(t, { maxJobsActive: 1, handler: async (job) => { ran.push(job.key); await release.promise } })
    await waitFor(() => t.of('StreamActivatedJobs').length === 1)
    const [stream] = t.of('StreamActivatedJobs')
    const j1 = fakeJob(), j2 = fakeJob()
    await delay(150)
    stream!.emit('data', j1)
    stream!.emit('data', j2) // the transport has it, but the reader holds no slot for it: it waits
    await waitFor(() => ran.length === 1)
    await delay(100)
    expect(t.requests('FailJob')).toHaveLength(0)
    expect(w.heldJobs).toBe(1)
    release.open()
    await waitFor(() => ran.length === 2, 2_000, 'j2 runs once a slot is free')
    expect(ran).toEqual([j1.key, j2.key])
    expect(t.requests('FailJob')).toHaveLength(0)
  })
})

describe('rule 7: close drains the stream', () => {
  it('hands back every job the transport buffered, after the cancel, with the closing message', async () => {
    const t = new ScriptedTransport()
    const release = gate()
    const w = startWorker(t, { maxJobsActive: 1, handler: async () => { await release.promise } })
    await waitFor(() => t.of('StreamActivatedJobs').length === 1)
    const [stream] = t.of('StreamActivatedJobs')
    await delay(150)
    const jobs = Array.from({ length: 5 }, () => fakeJob())
    for (const j of jobs) stream!.emit('data', j)
    await waitFor(() => w.heldJobs === 1)
    let cancelledBeforeHandBack = true
    const closing = w.close({ timeoutMs: 100 })
    await waitFor(() => t.requests('FailJob').length >= 4, 3_000, 'buffered jobs handed back')
    cancelledBeforeHandBack = stream!.cancelled
    await closing
    const back = t.requests('FailJob')
    expect(back.map((r) => r.jobKey).sort()).toEqual(jobs.map((j) => j.key).sort()) // 4 buffered + 1 running
    for (const r of back) expect(r).toMatchObject({ retries: 3, retryBackOff: '0', errorMessage: MSG_CLOSING })
    expect(cancelledBeforeHandBack).toBe(true)
    expect(w.drainedJobs).toBe(4)
    expect(count('jobwire.worker.jobs.handled{outcome=returned}')).toBe(5)
    release.open()
  })
})

describe('rule 2 (Node): a parked poll is not cancelled when the stream fills the worker', () => {
  it('keeps the parked poll above 30 % held; what it brings with no free slot is handed back at once', async () => {
    const t = new ScriptedTransport()
    const release = gate()
    const w = startWorker(t, { maxJobsActive: 4, handler: async () => { await release.promise } })
    await waitFor(() => t.of('StreamActivatedJobs').length === 1)
    const [stream] = t.of('StreamActivatedJobs')
    const poll = await parkedPoll(t)
    const polls = t.of('ActivateJobs').length
    for (let i = 0; i < 4; i++) stream!.emit('data', fakeJob()) // held 4 > 1.2: full
    await delay(300)
    // a cancel would drop an answer already sent (measured: 13-14 jobs per cancel waited out their time-out)
    expect(poll!.cancelled).toBe(false)
    expect(t.of('ActivateJobs')).toHaveLength(polls) // no other poll while above the threshold
    expect(w.state).toBe('streaming')
    const late = fakeJob()
    poll!.emit('data', { jobs: [late] }) // the engine answers the parked poll while the worker is full
    poll!.emit('end')
    await waitFor(() => t.requests('FailJob').length === 1, 1_000, 'overflow handed back')
    expect(t.requests('FailJob')[0]).toMatchObject({ jobKey: late.key, retries: late.retries, retryBackOff: '0', errorMessage: MSG_AT_CAPACITY })
    expect(count('jobwire.worker.poll.requests{result=cancelled}')).toBe(0)
    release.open()
    await waitFor(() => t.of('ActivateJobs').length === polls + 1)
  })
})

describe('rule 3: close hands running jobs back unchanged', () => {
  it.each([['honours', false], ['ignores', true]])('a handler that %s cancellation: FailJob with retries unchanged, no backoff', async (_name, ignores) => {
    const t = new ScriptedTransport()
    const started = gate()
    const w = startWorker(t, {
      maxJobsActive: 2,
      retryBackOffMs: 60_000,
      handler: async (_job, { signal }) => {
        started.open()
        if (ignores) {
          await delay(CLOSE_GRACE_MS + 300)
          return { late: true }
        }
        await new Promise((_r, reject) => signal.addEventListener('abort', () => reject(signal.reason)))
      },
    })
    await waitFor(() => t.of('StreamActivatedJobs').length === 1)
    const j = fakeJob({ retries: 3 })
    t.of('StreamActivatedJobs')[0]!.emit('data', j)
    await started.promise
    await w.close({ timeoutMs: 100 })
    await delay(ignores ? 400 : 50)
    expect(t.requests('FailJob')).toEqual([{ jobKey: j.key, retries: 3, errorMessage: MSG_CLOSING, retryBackOff: '0', variables: '' }])
    expect(t.requests('CompleteJob')).toEqual([])
    expect(count('jobwire.worker.jobs.handled{outcome=returned}')).toBe(1)
  })
})

describe('rule 4: redelivery of a held key', () => {
  it('while the handler runs: not run again, the newer deadline is kept, the copy is counted', async () => {
    const t = new ScriptedTransport()
    const release = gate()
    const ran: string[] = []
    let seenDeadline = 0
    const w = startWorker(t, {
      handler: async (job) => {
        ran.push(job.key)
        await release.promise
        seenDeadline = job.deadline
      },
    })
    await waitFor(() => t.of('StreamActivatedJobs').length === 1)
    const [stream] = t.of('StreamActivatedJobs')
    const first = fakeJob({ deadline: String(Date.now() + 60_000) })
    stream!.emit('data', first)
    await waitFor(() => ran.length === 1)
    const later = { ...first, deadline: String(Date.now() + 120_000) }
    stream!.emit('data', later) // read as soon as the reader holds a slot again
    await waitFor(() => count('jobwire.worker.jobs.handled{outcome=duplicate}') === 1)
    expect(w.heldJobs).toBe(1)
    release.open()
    await waitFor(() => w.heldJobs === 0)
    await delay(30)
    expect(ran).toEqual([first.key])
    expect(seenDeadline).toBe(Number(later.deadline))
    expect(t.requests('CompleteJob')).toHaveLength(1)
  })

  it('while the outcome is in flight: runs after that outcome is acknowledged', async () => {
    const t = new ScriptedTransport()
    const ack = gate()
    t.failGate = ack.promise
    const events: string[] = []
    const w = startWorker(t, { handler: async () => { events.push('run'); throw new Error('boom') } })
    await waitFor(() => t.of('StreamActivatedJobs').length === 1)
    const [stream] = t.of('StreamActivatedJobs')
    const j = fakeJob({ retries: 3 })
    stream!.emit('data', j)
    await waitFor(() => events.length === 1)
    await delay(20) // FailJob waits for its acknowledgement
    stream!.emit('data', { ...j, retries: 2 })
    await delay(100)
    expect(events).toEqual(['run'])
    events.push('ack')
    t.failGate = undefined
    ack.open()
    await waitFor(() => events.length === 3)
    expect(events).toEqual(['run', 'ack', 'run'])
    await waitFor(() => w.heldJobs === 0)
    expect(t.requests('FailJob').map((f) => f.retries)).toEqual([2, 1])
  })
})

describe('rule 5: long-lived calls never starve commands', () => {
  let gw: FakeGateway | undefined
  let client: Client | undefined
  afterEach(async () => {
    await client?.close({ timeoutMs: 100 })
    await gw?.stop()
  })

  it('120 workers on one client behind a 100-stream limit: every call opens, commands get through', async () => {
    const park = (call: any) => call.on('cancelled', () => {})
    gw = await FakeGateway.start(
      { ActivateJobs: park, StreamActivatedJobs: park, Topology: (_c: any, cb: any) => cb(null, {}), CompleteJob: (_c: any, cb: any) => cb(null, {}) },
      { 'grpc.max_concurrent_streams': 100 },
    )
    client = new Client({ address: gw.address, logger: quiet })
    for (let i = 0; i < 120; i++) client.createWorker({ jobType: `many-${i}`, requestTimeoutMs: 30_000, handler: () => ({}) })
    await waitFor(() => gw!.count('StreamActivatedJobs') >= 120 && gw!.count('ActivateJobs') >= 120, 10_000, '240 long-lived calls')
    await client.topology({ timeoutMs: 2_000 })
    await client.completeJob({ jobKey: '1' }, { timeoutMs: 2_000 })
  }, 30_000)
})

describe('close with several gateway addresses', () => {
  const gws: FakeGateway[] = []
  let client: Client | undefined
  afterEach(async () => {
    await client?.close({ timeoutMs: 100 })
    await Promise.all(gws.splice(0).map((g) => g.stop()))
  })

  it('hands a job back over the connection (address) of the calls that delivered it', async () => {
    let handed = false
    const job = fakeJob({ type: 'multi' })
    const park = (call: any) => call.on('cancelled', () => {})
    const activate = (call: any) => {
      if (handed) return park(call)
      handed = true
      call.write({ jobs: [job] })
      call.end()
    }
    for (let i = 0; i < 2; i++) gws.push(await FakeGateway.start({ ActivateJobs: activate, StreamActivatedJobs: park, FailJob: (_c: any, cb: any) => cb(null, {}) }))
    client = new Client({ address: gws.map((g) => g.address), logger: quiet })
    let started = 0
    const workers = Array.from({ length: 4 }, (_, i) => client!.createWorker({ jobType: `multi-${i}`, requestTimeoutMs: 30_000, handler: () => { started++; return new Promise(() => {}) } }))
    await waitFor(() => started === 1 && gws.every((g) => g.count('StreamActivatedJobs') >= 2), 5_000, 'both addresses used, the job running')
    await Promise.all(workers.map((w) => w.close({ timeoutMs: 50 })))
    const withFail = gws.filter((g) => g.count('FailJob') > 0)
    expect(withFail).toHaveLength(1)
    // the gateway that got the hand-back also carried the worker's stream and polls, and nothing of it went elsewhere
    const jobType = withFail[0]!.requests('FailJob')[0] && workers.find((w) => withFail[0]!.requests('ActivateJobs').some((r: any) => r.type === w.options.jobType))!.options.jobType
    for (const g of gws) {
      const own = g.requests('ActivateJobs').some((r: any) => r.type === jobType) || g.requests('StreamActivatedJobs').some((r: any) => r.type === jobType)
      expect(own).toBe(g === withFail[0])
    }
  })
})

describe('a worker pinned to an unreachable address', () => {
  let gw: FakeGateway | undefined
  let client: Client | undefined
  afterEach(async () => {
    await client?.close({ timeoutMs: 100 })
    await gw?.stop()
  })

  it('moves its long calls to the next address and gets jobs there', async () => {
    const dead = await FakeGateway.start({})
    const deadAddress = dead.address
    await dead.stop() // nothing listens there any more
    let handed = false
    const park = (call: any) => call.on('cancelled', () => {})
    gw = await FakeGateway.start({
      ActivateJobs: (call: any) => {
        if (handed || call.request.type !== 'fo-0') return park(call)
        handed = true
        call.write({ jobs: [fakeJob()] })
        call.end()
      },
      StreamActivatedJobs: park,
      CompleteJob: (_c: any, cb: any) => cb(null, {}),
    })
    // Commands round-robin over the addresses and wait for a connection until their deadline: keep it short.
    client = new Client({ address: [deadAddress, gw.address], commandTimeoutMs: 1_000, logger: quiet })
    let ran = 0
    client.createWorker({ jobType: 'fo-0', requestTimeoutMs: 30_000, handler: () => { ran++ } }) // pinned to the dead address first
    await waitFor(() => ran === 1, 8_000, 'job received after failover')
    await waitFor(() => gw!.count('CompleteJob') === 1)
  })
})

describe('commands with a gateway address down', () => {
  let gw: FakeGateway | undefined
  let client: Client | undefined
  afterEach(async () => {
    await client?.close({ timeoutMs: 100 })
    await gw?.stop()
  })

  it('go to the address that answers instead of waiting for the one that is down', async () => {
    const dead = await FakeGateway.start({})
    const deadAddress = dead.address
    await dead.stop()
    gw = await FakeGateway.start({ CompleteJob: (_c: any, cb: any) => cb(null, {}) })
    client = new Client({ address: [deadAddress, gw.address], commandTimeoutMs: 5_000, logger: quiet })
    await client.completeJob({ jobKey: '1' }).catch(() => {}) // the first call finds out which address is down
    const t0 = Date.now()
    for (let i = 0; i < 4; i++) await client.completeJob({ jobKey: String(i + 2) })
    expect(Date.now() - t0).toBeLessThan(1_000)
    expect(gw.count('CompleteJob')).toBeGreaterThanOrEqual(4)
  })
})

describe('issue 12 edges', () => {
  it('long-poll deadline: requestTimeout + 10 s; 20 s for 0; 10 s when long polling is off', async () => {
    expect(pollDeadlineMs(2_000)).toBe(12_000)
    expect(pollDeadlineMs(0)).toBe(20_000)
    expect(pollDeadlineMs(-1)).toBe(10_000)
    const t = new ScriptedTransport()
    startWorker(t, { requestTimeoutMs: 0, streamEnabled: false, handler: () => {} })
    await waitFor(() => t.of('ActivateJobs').length === 1)
    const [poll] = t.of('ActivateJobs')
    expect(poll!.request.requestTimeout).toBe('0')
    expect(poll!.deadline - poll!.openedAt).toBeGreaterThanOrEqual(19_900)
    expect(poll!.deadline - poll!.openedAt).toBeLessThanOrEqual(20_100)
  })

  it('a poll that ends in DEADLINE_EXCEEDED with no job is an empty poll: no backoff, no error', async () => {
    const t = new ScriptedTransport()
    const states: WorkerState[] = []
    const w = startWorker(t, { requestTimeoutMs: 0, streamEnabled: false, handler: () => {} })
    w.on('state', (st) => states.push(st))
    await waitFor(() => t.of('ActivateJobs').length === 1)
    t.of('ActivateJobs')[0]!.emit('error', { code: grpc.status.DEADLINE_EXCEEDED, details: 'Deadline exceeded' })
    await waitFor(() => t.of('ActivateJobs').length === 2, 1_000, 'next poll without backoff')
    expect(states).not.toContain('backoff')
    expect(count('jobwire.worker.poll.requests{result=empty}')).toBe(1)
    expect(count('jobwire.worker.poll.requests{result=error}')).toBe(0)
  })

  it('requestTimeoutMs must be an integer', () => {
    const t = new ScriptedTransport()
    for (const bad of [1.5, Number.NaN, '10' as unknown as number]) expect(() => startWorker(t, { requestTimeoutMs: bad, handler: () => {} })).toThrow(RangeError)
  })

  it('an outcome the worker gave up sending counts undelivered, never completed; manual complete() rejects with the typed error', async () => {
    const t = new ScriptedTransport()
    t.failWith.set('CompleteJob', grpc.status.INTERNAL)
    const errors: Error[] = []
    const w = startWorker(t, { streamEnabled: false, handler: () => ({ ok: true }) })
    w.on('error', (e) => errors.push(e))
    await waitFor(() => t.of('ActivateJobs').length === 1)
    t.of('ActivateJobs')[0]!.emit('data', { jobs: [fakeJob()] })
    await waitFor(() => count('jobwire.worker.jobs.handled{outcome=undelivered}') === 1)
    expect(count('jobwire.worker.jobs.handled{outcome=completed}')).toBe(0)
    expect(errors[0]).toBeInstanceOf(InternalError)

    const t2 = new ScriptedTransport()
    t2.failWith.set('CompleteJob', grpc.status.INTERNAL)
    let rejected: unknown
    startWorker(t2, { streamEnabled: false, autoComplete: false, handler: async (job) => { rejected = await job.complete().then(() => 'resolved', (e: unknown) => e) } })
    await waitFor(() => t2.of('ActivateJobs').length === 1)
    t2.of('ActivateJobs')[0]!.emit('data', { jobs: [fakeJob()] })
    await waitFor(() => rejected !== undefined)
    expect(rejected).toBeInstanceOf(InternalError)
    await waitFor(() => count('jobwire.worker.jobs.handled{outcome=undelivered}') === 2)
  })

  it('manual mode: an unsettled job holds its slot until its deadline, then counts unsettled', async () => {
    const t = new ScriptedTransport()
    const w = startWorker(t, { streamEnabled: false, autoComplete: false, handler: () => {} })
    await waitFor(() => t.of('ActivateJobs').length === 1)
    t.of('ActivateJobs')[0]!.emit('data', { jobs: [fakeJob({ deadline: String(Date.now() + 400) })] })
    await delay(200)
    expect(w.heldJobs).toBe(1)
    expect(count('jobwire.worker.jobs.handled{outcome=completed}')).toBe(0)
    await waitFor(() => w.heldJobs === 0, 2_000)
    expect(count('jobwire.worker.jobs.handled{outcome=unsettled}')).toBe(1)
    expect(t.unaryCalls).toHaveLength(0)
  })

  it('stall watchdog: a stream that sat on a reserved slot for 2 s while a poll found jobs is recycled (drained)', async () => {
    const t = new ScriptedTransport()
    const w = startWorker(t, { requestTimeoutMs: 30_000, handler: () => {} })
    await waitFor(() => t.of('StreamActivatedJobs').length === 1 && t.of('ActivateJobs').length === 1)
    const [stream] = t.of('StreamActivatedJobs')
    t.of('ActivateJobs')[0]!.emit('end') // the backfill poll after the stream opened: empty
    await waitFor(() => t.of('ActivateJobs').length === 2)
    await delay(2_100)
    const poll = t.of('ActivateJobs')[1]!
    poll.emit('data', { jobs: [fakeJob()] }) // the engine could not push it, yet the stream looks healthy
    poll.emit('end')
    await waitFor(() => t.of('StreamActivatedJobs').length === 2, 1_000, 'stream recycled')
    await waitFor(() => stream!.cancelled, 1_000, 'old stream cancelled after its drain')
    expect(count('jobwire.worker.stream.reconnects{reason=stalled}')).toBe(1)
    expect(w.state).toBe('streaming')
  })

  it('a stream recycle hands back what the old stream buffered, with the recycle message', async () => {
    const t = new ScriptedTransport()
    const release = gate()
    startWorker(t, { maxJobsActive: 1, streamTimeoutMs: 600, handler: async () => { await release.promise } })
    await waitFor(() => t.of('StreamActivatedJobs').length === 1)
    const [stream] = t.of('StreamActivatedJobs')
    await delay(150)
    const jobs = [fakeJob(), fakeJob(), fakeJob()]
    for (const j of jobs) stream!.emit('data', j) // one runs, two wait at the gate
    await waitFor(() => t.of('StreamActivatedJobs').length === 2, 2_000, 'recycled after streamTimeout')
    await waitFor(() => t.requests('FailJob').length === 2, 2_000)
    expect(t.requests('FailJob').map((r) => r.jobKey).sort()).toEqual([jobs[1]!.key, jobs[2]!.key].sort())
    for (const r of t.requests('FailJob')) expect(r).toMatchObject({ retries: 3, retryBackOff: '0', errorMessage: MSG_RECYCLED })
    expect(count('jobwire.worker.stream.reconnects{reason=recycled}')).toBe(1)
    release.open()
  })

  // A capacity-4 worker whose empty backfill poll has ended, its long poll parked, and four pushed
  // jobs holding every slot (their handlers wait for release).
  async function fullOnStream() {
    const t = new ScriptedTransport()
    const release: Array<() => void> = []
    startWorker(t, { maxJobsActive: 4, handler: () => new Promise<void>((r) => release.push(r)) })
    await waitFor(() => t.of('StreamActivatedJobs').length === 1 && t.of('ActivateJobs').length === 1)
    const [stream] = t.of('StreamActivatedJobs')
    t.of('ActivateJobs')[0]!.emit('end') // backfill: empty
    await waitFor(() => t.of('ActivateJobs').length === 2)
    await delay(150)
    for (let i = 0; i < 4; i++) stream!.emit('data', fakeJob())
    await waitFor(() => release.length === 4)
    return { t, release, stream }
  }

  it('fairness poll: while the stream keeps held above the threshold, a non-parking poll goes out 1 s after the last poll, as soon as a slot frees', async () => {
    const { t, release, stream } = await fullOnStream()
    t.of('ActivateJobs')[1]!.emit('end') // the parked poll ends empty (Node does not cancel it, rule 2)
    stream!.emit('data', fakeJob()) // the engine has more for the stream; the reader must leave the next slot to the poll
    await delay(1_200)
    expect(t.of('ActivateJobs')).toHaveLength(2) // no slot free yet
    release.shift()!()
    await waitFor(() => t.of('ActivateJobs').length === 3, 1_000, 'fairness poll')
    expect(t.of('ActivateJobs')[2]!.request).toMatchObject({ requestTimeout: '-1', maxJobsToActivate: 1 })
    for (const r of release) r()
  })

  it('a full worker waiting for its fairness poll keeps one timer: slots taken and freed on the stream do not re-arm it', async () => {
    const { t, release, stream } = await fullOnStream()
    t.of('ActivateJobs')[1]!.emit('end') // the parked poll ends: the fairness poll is due 1 s later
    await delay(250) // past the pollInterval pause after the empty answer: the poller waits for the fairness poll
    // Only the fairness timer has a delay between 100 ms and 1 s here (job deadlines and streamTimeout are
    // far; this test's own waits are shorter).
    const spy = jest.spyOn(global, 'setTimeout')
    try {
      for (let i = 0; i < 10; i++) {
        release.shift()!() // a slot frees: the reader reserves it...
        await delay(5)
        stream!.emit('data', fakeJob()) // ...and the pushed job lands in it
        await waitFor(() => release.length === 4)
      }
      const fairnessTimers = spy.mock.calls.filter(([, ms]) => typeof ms === 'number' && ms >= 100 && ms <= 1_001)
      expect(fairnessTimers.length).toBeLessThanOrEqual(1)
    } finally {
      spy.mockRestore()
    }
    await delay(1_100) // past the due time: the fairness poll waits for a free slot (the kept timer looked again)
    expect(t.of('ActivateJobs')).toHaveLength(2)
    release.shift()!() // a slot frees: the due fairness poll takes it
    await waitFor(() => t.of('ActivateJobs').length === 3, 1_500, 'fairness poll')
    expect(t.of('ActivateJobs')[2]!.request).toMatchObject({ requestTimeout: '-1' })
    for (const r of release) r()
  })

  it('empty polls pause pollInterval when the gateway answers at once (no busy loop)', async () => {
    const t = new ScriptedTransport()
    startWorker(t, { requestTimeoutMs: 10_000, streamEnabled: false, pollIntervalMs: 100, handler: () => {} })
    const t0 = Date.now()
    const answered = new Set<FakeCall>()
    while (Date.now() - t0 < 1_000) {
      for (const c of t.of('ActivateJobs')) if (!answered.has(c)) { answered.add(c); setImmediate(() => c.emit('end')) }
      await delay(5)
    }
    expect(t.of('ActivateJobs').length).toBeGreaterThanOrEqual(5)
    expect(t.of('ActivateJobs').length).toBeLessThanOrEqual(11)
  })

  it('a closed worker leaves the meter (its capacity callback is removed)', async () => {
    const t = new ScriptedTransport()
    const before = gaugeCallbacks.size
    const w = new Worker(t as unknown as Transport, { jobType: 'test', handler: () => {} }, quiet)
    expect(gaugeCallbacks.size).toBe(before + 1)
    await w.close({ timeoutMs: 10 })
    expect(gaugeCallbacks.size).toBe(before)
  })
})
