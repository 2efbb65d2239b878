import { status } from '@grpc/grpc-js'
import { Backoff } from '../../src/worker/backoff'
import { Ledger } from '../../src/worker/ledger'
import { extendWaitMs } from '../../src/worker/extender'
import { StateMachine, type WorkerState } from '../../src/worker/state'
import { toJobwireError, BackpressureError, NotFoundError, UnavailableError, JobwireError, UnimplementedError } from '../../src/errors'
import { resolveClientConfig, parseAddresses } from '../../src/config'
import { resolveWorkerOptions } from '../../src/worker/options'

describe('Backoff', () => {
  it('grows 50 ms → 5 s by ×1.6 and resets on success', () => {
    const b = new Backoff(() => 0.5) // no jitter
    const seq = Array.from({ length: 12 }, () => b.next())
    expect(seq.slice(0, 4)).toEqual([50, 80, 128, 205])
    expect(Math.max(...seq)).toBe(5000)
    expect(seq[seq.length - 1]).toBe(5000)
    b.reset()
    expect(b.next()).toBe(50)
  })

  it('jitters by ±10 %', () => {
    expect(new Backoff(() => 0).next()).toBe(45)
    expect(new Backoff(() => 0.999999).next()).toBe(55)
  })
})

describe('auto-extend timing', () => {
  it('extends at half the time left; retries after the back-off alone, capped at half the time left', () => {
    const b = new Backoff(() => 0.5) // no jitter
    expect(extendWaitMs(10_000, false, b)).toBe(5_000)
    expect(extendWaitMs(60, false, b)).toBe(50) // floor
    expect(extendWaitMs(5_000, true, b)).toBe(50) // back-off alone, not plus a share of the time left
    expect(extendWaitMs(4_950, true, b)).toBe(80)
    expect(extendWaitMs(200, true, b)).toBe(100) // 128 capped at half of 200
    expect(extendWaitMs(10, true, b)).toBe(20) // floor
  })
})

describe('Ledger', () => {
  it('never goes below 0 or above max; a slot releases exactly once', () => {
    const l = new Ledger(2)
    const a = l.tryTake()!
    const b = l.tryTake()!
    expect(l.tryTake()).toBeUndefined()
    expect(l.held).toBe(2)
    a.release()
    a.release()
    expect(l.held).toBe(1)
    b.release()
    expect(l.held).toBe(0)
    expect(l.free).toBe(2)
  })

  it('wakes waiters on change', async () => {
    const l = new Ledger(1)
    const s = l.tryTake()!
    const ac = new AbortController()
    const p = l.waitFor(() => l.free > 0, ac.signal)
    s.release()
    await p
    expect(() => new Ledger(0)).toThrow(RangeError)
  })
})

describe('StateMachine', () => {
  it('derives states from the parts and reports transitions once', () => {
    const seen: WorkerState[] = []
    const m = new StateMachine((s) => seen.push(s))
    m.streamActive = true
    m.start()
    m.streamOpen = true
    m.update()
    m.update()
    m.streamOpen = false
    m.streamBackoff = true
    m.update()
    m.closing()
    m.closed()
    expect(seen).toEqual(['polling', 'streaming', 'backoff', 'closing', 'closed'])
  })
})

describe('error table', () => {
  it('maps status codes to typed errors', () => {
    expect(toJobwireError({ code: status.RESOURCE_EXHAUSTED, details: 'busy' })).toBeInstanceOf(BackpressureError)
    expect(toJobwireError({ code: status.UNAVAILABLE, details: '' })).toBeInstanceOf(UnavailableError)
    expect(toJobwireError({ code: status.NOT_FOUND, details: '' })).toBeInstanceOf(NotFoundError)
    expect(toJobwireError({ code: status.UNIMPLEMENTED, details: '' })).toBeInstanceOf(UnimplementedError)
    const e = toJobwireError({ code: status.DATA_LOSS, details: 'x' })
    expect(e).toBeInstanceOf(JobwireError)
    expect(e.codeName).toBe('DATA_LOSS')
    expect(toJobwireError(new Error('boom')).code).toBeUndefined()
  })
})

describe('config', () => {
  it('reads the environment with ZEEBE_* and CAMUNDA_* twins', () => {
    const c = resolveClientConfig({}, {
      ZEEBE_ADDRESS: 'grpcs://gw.example:443',
      CAMUNDA_CLIENT_ID: 'id',
      CAMUNDA_CLIENT_SECRET: 's',
      CAMUNDA_OAUTH_URL: 'http://127.0.0.1:1/token',
      ZEEBE_TOKEN_AUDIENCE: 'aud',
    })
    expect(c.addresses).toEqual(['gw.example:443'])
    expect(c.insecure).toBe(false)
    expect(c.oauth).toMatchObject({ clientId: 'id', clientSecret: 's', authorizationServerUrl: 'http://127.0.0.1:1/token', audience: 'aud' })
    expect(c.keepAliveMs).toBe(45_000)
  })

  it('defaults to plaintext on loopback and parses lists', () => {
    expect(resolveClientConfig({}, {}).addresses).toEqual(['127.0.0.1:26500'])
    expect(resolveClientConfig({}, {}).insecure).toBe(true)
    expect(resolveClientConfig({}, { ZEEBE_ADDRESS: '127.0.0.1:1', ZEEBE_INSECURE_CONNECTION: 'false' }).insecure).toBe(false)
    expect(parseAddresses('dns:///a:1, b')).toEqual(['dns:///a:1', 'b:26500'])
    expect(() => resolveClientConfig({}, { ZEEBE_CLIENT_ID: 'x' })).toThrow(/OAuth/)
  })

  it('handles the environment like the other SDKs (booleans, CA implies TLS, keepalive, OAuth)', () => {
    expect(resolveClientConfig({}, { ZEEBE_ADDRESS: 'gw.example', ZEEBE_INSECURE_CONNECTION: 'yes' })).toMatchObject({ addresses: ['gw.example:26500'], insecure: true })
    expect(() => resolveClientConfig({}, { ZEEBE_INSECURE_CONNECTION: 'maybe' })).toThrow(/ZEEBE_INSECURE_CONNECTION/)
    expect(resolveClientConfig({}, { ZEEBE_CA_CERTIFICATE_PATH: '/ca.pem' }).insecure).toBe(false)
    expect(resolveClientConfig({ caCertificatePath: '/ca.pem' }, {}).insecure).toBe(false)
    expect(resolveClientConfig({}, { CAMUNDA_KEEP_ALIVE: '30000' }).keepAliveMs).toBe(30_000)
    expect(() => resolveClientConfig({}, { ZEEBE_KEEP_ALIVE: '30s' })).toThrow(/milliseconds/)
    expect(() => resolveClientConfig({}, { ZEEBE_CLIENT_SECRET: 's' })).toThrow(/ZEEBE_CLIENT_ID/)
    expect(resolveClientConfig({}, { ZEEBE_CLIENT_ID: 'i', ZEEBE_CLIENT_SECRET: 's', CAMUNDA_AUTHORIZATION_SERVER_URL: 'http://127.0.0.1:1/t' }).oauth)
      .toMatchObject({ authorizationServerUrl: 'http://127.0.0.1:1/t' })
    expect(resolveWorkerOptions({ jobType: 't', handler: () => undefined, maxJobsActive: 4, concurrency: 10 }).concurrency).toBe(4)
  })

  it('applies worker defaults and validates', () => {
    const o = resolveWorkerOptions({ jobType: 't', handler: () => undefined })
    expect(o).toMatchObject({ maxJobsActive: 32, concurrency: 32, jobTimeoutMs: 300_000, requestTimeoutMs: 10_000, pollIntervalMs: 100, streamEnabled: true, streamTimeoutMs: 3_600_000, autoComplete: true, autoExtend: false, retryBackOffMs: 0 })
    expect(() => resolveWorkerOptions({ jobType: '', handler: () => undefined })).toThrow(TypeError)
    expect(() => resolveWorkerOptions({ jobType: 't', handler: () => undefined, maxJobsActive: 0 })).toThrow(RangeError)
  })
})
