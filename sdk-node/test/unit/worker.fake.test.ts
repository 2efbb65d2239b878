// Worker behaviour against an in-process fake gateway (edge cases the real engine cannot produce on demand).
import * as grpc from '@grpc/grpc-js'
import { Client, JobError, type WorkerState } from '../../src/index'
import { FakeGateway, fakeJob, ok, waitFor, delay } from '../support/fakeGateway'

const quiet = { debug() {}, info() {}, warn() {}, error() {} }

let gw: FakeGateway
let client: Client
const unhandled: unknown[] = []
const onUnhandled = (e: unknown) => unhandled.push(e)

beforeAll(() => process.on('unhandledRejection', onUnhandled))
afterAll(() => process.off('unhandledRejection', onUnhandled))
afterEach(async () => {
  await client?.close({ timeoutMs: 100 })
  await gw?.stop()
  expect(unhandled).toEqual([])
})

/** ActivateJobs that hands out `queue` jobs (up to maxJobsToActivate) and otherwise parks until cancelled. */
function activateFrom(queue: any[], parkMs = 200) {
  return (call: any) => {
    const n = Math.min(call.request.maxJobsToActivate, queue.length)
    if (n > 0) {
      call.write({ jobs: queue.splice(0, n) })
      call.end()
      return
    }
    const t = setTimeout(() => call.end(), parkMs)
    call.on('cancelled', () => clearTimeout(t))
  }
}

function outcomes(_method: string) {
  return (_call: any, cb: any) => ok(cb)
}

describe('worker with polling (fake gateway)', () => {
  it('maps handler results to Complete / ThrowError / Fail', async () => {
    const jobs = [
      fakeJob({ variables: '{"mode":"ok"}' }),
      fakeJob({ variables: '{"mode":"biz"}' }),
      fakeJob({ variables: '{"mode":"crash"}', retries: 3 }),
      fakeJob({ variables: '{"mode":"bad"}', retries: 2 }),
      fakeJob({ variables: '{"mode":"ret-err"}' }),
    ]
    gw = await FakeGateway.start({ ActivateJobs: activateFrom([...jobs]), CompleteJob: outcomes('c'), FailJob: outcomes('f'), ThrowError: outcomes('t') })
    client = new Client({ address: gw.address, logger: quiet })
    const errors: Error[] = []
    const w = client.createWorker({
      jobType: 'test',
      streamEnabled: false,
      retryBackOffMs: 250,
      handler: async (job) => {
        switch (job.variables.mode) {
          case 'ok': return { done: true, big: 12345678901234567890n }
          case 'biz': throw new JobError('E42', 'nope', { why: 'x' })
          case 'crash': throw new Error('kaboom')
          case 'bad': return [1, 2] as any
          default: return new JobError('E43', 'returned')
        }
      },
    })
    w.on('error', (e) => errors.push(e))
    await waitFor(() => gw.count('CompleteJob') + gw.count('FailJob') + gw.count('ThrowError') === 5)
    expect(gw.requests('CompleteJob')).toEqual([expect.objectContaining({ jobKey: jobs[0].key, variables: '{"done":true,"big":12345678901234567890}' })])
    expect(gw.requests('ThrowError')).toEqual(expect.arrayContaining([
      expect.objectContaining({ jobKey: jobs[1].key, errorCode: 'E42', errorMessage: 'nope', variables: '{"why":"x"}' }),
      expect.objectContaining({ jobKey: jobs[4].key, errorCode: 'E43' }),
    ]))
    const fails = gw.requests('FailJob')
    const crash = fails.find((f) => f.jobKey === jobs[2].key)
    expect(crash).toMatchObject({ retries: 2, retryBackOff: '250' })
    expect(crash.errorMessage).toMatch(/kaboom/)
    const bad = fails.find((f) => f.jobKey === jobs[3].key)
    expect(bad).toMatchObject({ retries: 1 })
    expect(bad.errorMessage).toMatch(/variables must be a plain object, got array/)
    expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/got array/)])
    await waitFor(() => w.heldJobs === 0)
  })

  it('sizes polls by free slots, polls only at ≤30 % held, never holds more than max', async () => {
    const queue = Array.from({ length: 40 }, () => fakeJob())
    gw = await FakeGateway.start({ ActivateJobs: activateFrom(queue), CompleteJob: outcomes('c') })
    client = new Client({ address: gw.address, logger: quiet })
    let running = 0
    let maxHeld = 0
    const w = client.createWorker({
      jobType: 'test',
      maxJobsActive: 10,
      concurrency: 4,
      streamEnabled: false,
      handler: async () => {
        running++
        maxHeld = Math.max(maxHeld, w.heldJobs)
        expect(running).toBeLessThanOrEqual(4)
        await delay(10)
        running--
      },
    })
    await waitFor(() => gw.count('CompleteJob') === 40)
    const asks = gw.calls.filter((c) => c.method === 'ActivateJobs')
    expect(asks[0]!.request.maxJobsToActivate).toBe(10)
    for (const a of asks) expect(a.request.maxJobsToActivate).toBeGreaterThanOrEqual(7) // held ≤ 3 when asking
    expect(maxHeld).toBeLessThanOrEqual(10)
    expect(asks[0]!.request).toMatchObject({ type: 'test', timeout: '300000', requestTimeout: '10000' })
  })

  it('backs off exponentially on RESOURCE_EXHAUSTED, reports state, never crashes, recovers', async () => {
    let fail = 6
    const queue = [fakeJob()]
    const act = activateFrom(queue)
    gw = await FakeGateway.start({
      ActivateJobs: (call: any) => {
        if (fail-- > 0) return call.emit('error', { code: grpc.status.RESOURCE_EXHAUSTED, details: 'backpressure' })
        act(call)
      },
      CompleteJob: outcomes('c'),
    })
    client = new Client({ address: gw.address, logger: quiet })
    const states: WorkerState[] = []
    const w = client.createWorker({ jobType: 'test', streamEnabled: false, handler: () => ({}) })
    w.on('state', (s) => states.push(s))
    await waitFor(() => gw.count('CompleteJob') === 1)
    const times = gw.calls.filter((c) => c.method === 'ActivateJobs').map((c) => c.at)
    const gaps = times.slice(1, 7).map((t, i) => t - times[i]!)
    // 50, 80, 128, 205, 328, 524 (±10 %, plus scheduling slack)
    const expected = [50, 80, 128, 205, 328, 524]
    gaps.forEach((g, i) => {
      expect(g).toBeGreaterThanOrEqual(expected[i]! * 0.9 - 5)
      expect(g).toBeLessThan(expected[i]! * 1.1 + 150)
    })
    expect(states).toContain('backoff')
    expect(states[states.length - 1]).toBe('polling')
  })

  it('drops jobs that expired before their slot came (no handler, no outcome) and tolerates redelivery', async () => {
    const dup = fakeJob()
    const queue = [fakeJob({ deadline: String(Date.now() - 1000) }), dup, { ...dup }]
    gw = await FakeGateway.start({ ActivateJobs: activateFrom(queue), CompleteJob: outcomes('c'), FailJob: outcomes('f') })
    client = new Client({ address: gw.address, logger: quiet })
    const seen: string[] = []
    client.createWorker({ jobType: 'test', streamEnabled: false, handler: async (job) => { seen.push(job.key); await delay(50) } })
    await waitFor(() => gw.count('CompleteJob') === 1)
    await delay(100)
    expect(seen).toEqual([dup.key])
    expect(gw.count('FailJob')).toBe(0)
  })

  it('runs a redelivery that arrives while the FailJob of the same key is still in flight', async () => {
    const job = fakeJob({ retries: 3 })
    const queue = [job]
    gw = await FakeGateway.start({
      ActivateJobs: activateFrom(queue, 50),
      FailJob: (call: any, cb: any) => {
        // the engine makes the job activatable again and the next poll gets it before the FailJob answer arrives
        queue.push({ ...job, retries: call.request.retries })
        setTimeout(() => ok(cb), 400)
      },
      CompleteJob: outcomes('c'),
    })
    client = new Client({ address: gw.address, logger: quiet })
    const attempts: number[] = []
    client.createWorker({
      jobType: 'test',
      streamEnabled: false,
      requestTimeoutMs: 5_000,
      handler: (j) => {
        attempts.push(j.retries)
        if (j.retries === 3) throw new Error('first attempt fails')
        return { second: true }
      },
    })
    await waitFor(() => gw.count('CompleteJob') === 1, 5_000).catch((e) => { throw new Error(`${e.message}; attempts ${attempts} calls ${gw.calls.map((c) => c.method)}`) })
    expect(attempts).toEqual([3, 2])
  })

  it('retries outcomes on UNAVAILABLE; NOT_FOUND is benign (no error event)', async () => {
    const queue = [fakeJob(), fakeJob()]
    let unavailable = 2
    gw = await FakeGateway.start({
      ActivateJobs: activateFrom(queue),
      CompleteJob: (call: any, cb: any) => {
        if (call.request.jobKey === queue[0]?.key || unavailable <= 0) return cb({ code: grpc.status.NOT_FOUND, details: 'gone' })
        unavailable--
        cb({ code: grpc.status.UNAVAILABLE, details: 'later' })
      },
    })
    const keys = queue.map((j) => j.key)
    gw.handlers.CompleteJob = (call: any, cb: any) => {
      if (call.request.jobKey === keys[0]) return cb({ code: grpc.status.NOT_FOUND, details: 'gone' })
      if (unavailable-- > 0) return cb({ code: grpc.status.UNAVAILABLE, details: 'later' })
      ok(cb)
    }
    client = new Client({ address: gw.address, logger: quiet })
    const errors: Error[] = []
    const w = client.createWorker({ jobType: 'test', streamEnabled: false, handler: () => ({}) })
    w.on('error', (e) => errors.push(e))
    await waitFor(() => gw.requests('CompleteJob').filter((r) => r.jobKey === keys[1]).length === 3)
    await waitFor(() => w.heldJobs === 0)
    expect(errors).toEqual([])
  })

  it('retries Complete / Fail / ThrowError answered ABORTED (broker connection closed); ABORTED then NOT_FOUND is benign', async () => {
    // Zeebe's gateway answers ABORTED when its connection to the partition leader closes mid-request.
    const aborted = { code: grpc.status.ABORTED, details: 'Connection RemoteClientConnection{channel=[id: 0x1]} was closed' }
    const jobs = [
      fakeJob({ variables: '{"mode":"ok"}' }),
      fakeJob({ variables: '{"mode":"fail"}', retries: 2 }),
      fakeJob({ variables: '{"mode":"biz"}' }),
      fakeJob({ variables: '{"mode":"lost"}' }),
    ]
    const lostKey = jobs[3].key
    const tries = new Map<string, number>()
    const twiceAborted = (call: any, cb: any) => {
      const key = String(call.request.jobKey)
      const n = (tries.get(key) ?? 0) + 1
      tries.set(key, n)
      // 'lost': the first attempt was applied but its answer lost; the resend finds no job
      if (key === lostKey) return cb(n === 1 ? aborted : { code: grpc.status.NOT_FOUND, details: 'job not found' })
      if (n <= 2) return cb(aborted)
      ok(cb)
    }
    gw = await FakeGateway.start({ ActivateJobs: activateFrom([...jobs]), CompleteJob: twiceAborted, FailJob: twiceAborted, ThrowError: twiceAborted })
    client = new Client({ address: gw.address, logger: quiet })
    const errors: Error[] = []
    const w = client.createWorker({
      jobType: 'test',
      streamEnabled: false,
      handler: async (job) => {
        if (job.variables.mode === 'fail') throw new Error('kaboom')
        if (job.variables.mode === 'biz') throw new JobError('E1', 'nope')
        return {}
      },
    })
    w.on('error', (e) => errors.push(e))
    await waitFor(() => w.heldJobs === 0 && tries.size === 4 && tries.get(lostKey) === 2, 5_000)
    expect(gw.requests('CompleteJob').filter((r) => r.jobKey === jobs[0].key)).toHaveLength(3)
    expect(gw.requests('FailJob').filter((r) => r.jobKey === jobs[1].key)).toHaveLength(3)
    expect(gw.requests('ThrowError').filter((r) => r.jobKey === jobs[2].key)).toHaveLength(3)
    expect(gw.requests('CompleteJob').filter((r) => r.jobKey === lostKey)).toHaveLength(2)
    expect(errors).toEqual([])
  })

  it('survives an unreachable gateway without unhandled errors, and close() returns promptly', async () => {
    gw = await FakeGateway.start()
    const port = gw.port
    await gw.stop()
    client = new Client({ address: `127.0.0.1:${port}`, logger: quiet })
    const w = client.createWorker({ jobType: 'test', handler: () => ({}) }) // no 'error' listener on purpose
    const states: WorkerState[] = []
    w.on('state', (s) => states.push(s))
    await delay(600)
    expect(states).toContain('backoff')
    const t0 = Date.now()
    await w.close({ timeoutMs: 1000 })
    expect(Date.now() - t0).toBeLessThan(1000)
    expect(w.state).toBe('closed')
  })
})

describe('worker with push (fake gateway)', () => {
  it('falls back to polling alone on UNIMPLEMENTED, logged once', async () => {
    const queue = [fakeJob(), fakeJob()]
    gw = await FakeGateway.start({ ActivateJobs: activateFrom(queue), CompleteJob: outcomes('c') })
    const warns: string[] = []
    client = new Client({ address: gw.address, logger: { ...quiet, warn: (m: string) => warns.push(m) } })
    client.createWorker({ jobType: 'test', handler: () => ({}) })
    await waitFor(() => gw.count('CompleteJob') === 2)
    await delay(300)
    expect(gw.count('StreamActivatedJobs')).toBe(1)
    expect(warns.filter((m) => /StreamActivatedJobs/.test(m))).toHaveLength(1)
  })

  it('pauses the stream when full: never more than maxJobsActive held, all jobs done', async () => {
    const total = 30
    let sent = 0
    gw = await FakeGateway.start({
      ActivateJobs: activateFrom([]),
      StreamActivatedJobs: (call: any) => {
        const push = () => {
          while (sent < total) {
            sent++
            if (!call.write(fakeJob({ variables: `{"i":${sent}}` }))) return call.once('drain', push)
          }
        }
        push()
      },
      CompleteJob: outcomes('c'),
    })
    client = new Client({ address: gw.address, logger: quiet })
    let maxHeld = 0
    const activations = new Set<string>()
    const w = client.createWorker({
      jobType: 'test',
      maxJobsActive: 3,
      handler: async (job) => {
        activations.add(job.activation)
        maxHeld = Math.max(maxHeld, w.heldJobs)
        await delay(20)
      },
    })
    await waitFor(() => gw.count('CompleteJob') === total, 15_000)
    expect(maxHeld).toBeLessThanOrEqual(3)
    expect([...activations]).toEqual(['push'])
    expect(w.state).toBe('streaming')
  })

  it('recycles a healthy stream after streamTimeout without backoff', async () => {
    gw = await FakeGateway.start({ ActivateJobs: activateFrom([], 5_000), StreamActivatedJobs: () => {} })
    client = new Client({ address: gw.address, logger: quiet })
    const states: WorkerState[] = []
    const w = client.createWorker({ jobType: 'test', streamTimeoutMs: 250, handler: () => ({}) })
    w.on('state', (s) => states.push(s))
    await waitFor(() => gw.count('StreamActivatedJobs') >= 3, 5_000)
    expect(states).not.toContain('backoff')
  })

  it('reopens a failed stream with backoff and backfill-polls after each open', async () => {
    let opens = 0
    gw = await FakeGateway.start({
      ActivateJobs: activateFrom([], 50), // a parked poll already serves as the backfill; keep polls short
      StreamActivatedJobs: (call: any) => {
        opens++
        if (opens <= 3) return call.emit('error', { code: grpc.status.UNAVAILABLE, details: 'restart' })
        call.write(fakeJob())
      },
      CompleteJob: outcomes('c'),
    })
    client = new Client({ address: gw.address, logger: quiet })
    const states: WorkerState[] = []
    const w = client.createWorker({ jobType: 'test', requestTimeoutMs: 60_000, handler: () => ({}) })
    w.on('state', (s) => states.push(s))
    await waitFor(() => gw.count('CompleteJob') === 1)
    expect(opens).toBe(4)
    expect(states).toContain('backoff')
    expect(states[states.length - 1]).toBe('streaming')
    // a backfill poll follows the last (successful) open
    const lastOpen = gw.calls.filter((c) => c.method === 'StreamActivatedJobs').pop()!.at
    await waitFor(() => gw.calls.some((c) => c.method === 'ActivateJobs' && c.at >= lastOpen))
  })
})

describe('manual outcomes and auto-extend', () => {
  it('manual mode: job.fail / job.complete / job.extendTimeout; the first outcome wins', async () => {
    const queue = [fakeJob({ retries: 4 }), fakeJob()]
    gw = await FakeGateway.start({ ActivateJobs: activateFrom(queue.slice()), CompleteJob: outcomes('c'), FailJob: outcomes('f'), UpdateJobTimeout: outcomes('u') })
    client = new Client({ address: gw.address, logger: quiet })
    client.createWorker({
      jobType: 'test',
      autoComplete: false,
      streamEnabled: false,
      handler: async (job) => {
        await job.extendTimeout(90_000)
        if (job.key === queue[0].key) await job.fail({ message: 'manual', retryBackOffMs: 7 })
        else await job.complete({ manual: true })
        await job.complete({ ignored: true }) // second outcome: ignored
      },
    })
    await waitFor(() => gw.count('CompleteJob') === 1 && gw.count('FailJob') === 1)
    await delay(50)
    expect(gw.count('CompleteJob')).toBe(1)
    expect(gw.requests('FailJob')[0]).toMatchObject({ retries: 3, errorMessage: 'manual', retryBackOff: '7' })
    expect(gw.requests('CompleteJob')[0]).toMatchObject({ variables: '{"manual":true}' })
    expect(gw.requests('UpdateJobTimeout').map((r) => r.timeout)).toEqual(['90000', '90000'])
  })

  it('autoExtend sends UpdateJobTimeout while a handler outlives its deadline', async () => {
    const queue = [fakeJob({ deadline: String(Date.now() + 400) })]
    gw = await FakeGateway.start({ ActivateJobs: activateFrom(queue), CompleteJob: outcomes('c'), UpdateJobTimeout: outcomes('u') })
    client = new Client({ address: gw.address, logger: quiet })
    client.createWorker({ jobType: 'test', streamEnabled: false, autoExtend: true, jobTimeoutMs: 400, handler: async () => { await delay(900) } })
    await waitFor(() => gw.count('CompleteJob') === 1)
    expect(gw.count('UpdateJobTimeout')).toBeGreaterThanOrEqual(2)
    expect(gw.requests('UpdateJobTimeout')[0]).toMatchObject({ timeout: '400' })
  })
})

describe('close', () => {
  it('cancels the parked long poll at once, waits for running handlers, fails back unstarted jobs', async () => {
    const queue = [fakeJob({ retries: 5 }), fakeJob({ retries: 5 }), fakeJob({ retries: 5 })]
    let parked = false
    gw = await FakeGateway.start({
      ActivateJobs: (call: any) => {
        if (queue.length) {
          call.write({ jobs: queue.splice(0) })
          return call.end()
        }
        parked = true // park for the whole long poll
      },
      CompleteJob: outcomes('c'),
      FailJob: outcomes('f'),
    })
    client = new Client({ address: gw.address, logger: quiet })
    let aborted = 0
    const w = client.createWorker({
      jobType: 'test',
      concurrency: 1,
      streamEnabled: false,
      requestTimeoutMs: 30_000,
      handler: (_job, { signal }) =>
        new Promise((resolve, reject) => {
          const t = setTimeout(() => resolve({}), 5_000)
          signal.addEventListener('abort', () => {
            aborted++
            clearTimeout(t)
            reject(signal.reason)
          })
        }),
    })
    await waitFor(() => parked && w.heldJobs === 3)
    const t0 = Date.now()
    await w.close({ timeoutMs: 300 })
    const took = Date.now() - t0
    expect(took).toBeLessThan(2_000)
    expect(aborted).toBe(1)
    const fails = gw.requests('FailJob')
    expect(fails).toHaveLength(3)
    for (const f of fails) expect(f).toMatchObject({ retries: 5, retryBackOff: '0' })
    expect(gw.count('CompleteJob')).toBe(0)
    expect(w.heldJobs).toBe(0)
  })
})

describe('OAuth', () => {
  it('sends a cached bearer token and retries once after UNAUTHENTICATED', async () => {
    const http = await import('node:http')
    let issued = 0
    const server = http.createServer((req, res) => {
      let body = ''
      req.on('data', (c) => (body += c))
      req.on('end', () => {
        const p = new URLSearchParams(body)
        if (p.get('client_id') !== 'id' || p.get('client_secret') !== 'secret') {
          res.statusCode = 401
          return res.end('no')
        }
        issued++
        res.setHeader('content-type', 'application/json')
        res.end(JSON.stringify({ access_token: `tok${issued}`, expires_in: 60 }))
      })
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const port = (server.address() as any).port
    try {
      gw = await FakeGateway.start({
        Topology: (call: any, cb: any) => {
          const auth = call.metadata.get('authorization')[0]
          if (auth === 'Bearer tok1') return cb({ code: grpc.status.UNAUTHENTICATED, details: 'expired' })
          cb(null, { brokers: [], clusterSize: 1, partitionsCount: 1, replicationFactor: 1, gatewayVersion: auth })
        },
      })
      client = new Client({ address: gw.address, logger: quiet, oauth: { clientId: 'id', clientSecret: 'secret', authorizationServerUrl: `http://127.0.0.1:${port}/oauth/token` } })
      expect((await client.topology()).gatewayVersion).toBe('Bearer tok2')
      expect((await client.topology()).gatewayVersion).toBe('Bearer tok2')
      expect(issued).toBe(2)
    } finally {
      server.close()
    }
  })

  it('a worker whose token request fails logs the endpoint\'s answer (not "CLIENT: ") and never the secret', async () => {
    const http = await import('node:http')
    const server = http.createServer((req, res) => {
      req.resume()
      req.on('end', () => {
        res.statusCode = 503
        res.end('{"error":"temporarily_unavailable"}')
      })
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const port = (server.address() as any).port
    const lines: string[] = []
    const capture = { debug: (m: string) => lines.push(m), info: (m: string) => lines.push(m), warn: (m: string) => lines.push(m), error: (m: string) => lines.push(m) }
    try {
      gw = await FakeGateway.start({})
      client = new Client({ address: gw.address, logger: capture, oauth: { clientId: 'id', clientSecret: 'the-secret-42', authorizationServerUrl: `http://127.0.0.1:${port}/oauth/token` } })
      const w = client.createWorker({ jobType: 't', handler: async () => ({}) })
      await waitFor(() => lines.some((l) => l.startsWith('poll failed')))
      await w.close({ timeoutMs: 1000 })
      const poll = lines.find((l) => l.startsWith('poll failed'))!
      expect(poll).toContain('token endpoint answered 503')
      expect(lines.join('\n')).not.toContain('the-secret-42')
    } finally {
      server.close()
    }
  })
})

