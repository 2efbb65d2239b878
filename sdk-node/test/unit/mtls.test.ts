// Mutual TLS and raw channel options against a real grpc-js server on 127.0.0.1 that requires a
// client certificate. Certificates are made per run with the openssl CLI.
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import * as grpc from '@grpc/grpc-js'
import { Client, JobwireError } from '../../src/index'
import { resolveClientConfig } from '../../src/config'
import { connectionWarningKey } from '../../src/worker/worker'
import { FakeGateway } from '../support/fakeGateway'

const quiet = { debug() {}, info() {}, warn() {}, error() {} }
let dir: string
let gw: FakeGateway
const f = (n: string) => path.join(dir, n)

function openssl(...args: string[]): void {
  execFileSync('openssl', args, { stdio: 'pipe' })
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jobwire-mtls-'))
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=jobwire test CA', '-keyout', f('ca.key'), '-out', f('ca.pem'))
  for (const [name, ext] of [['server', 'subjectAltName=IP:127.0.0.1,DNS:localhost'], ['client', 'extendedKeyUsage=clientAuth']] as const) {
    openssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${name}`, '-keyout', f(`${name}.key`), '-out', f(`${name}.csr`))
    fs.writeFileSync(f(`${name}.ext`), ext + '\n')
    openssl('x509', '-req', '-in', f(`${name}.csr`), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial', '-days', '1', '-extfile', f(`${name}.ext`), '-out', f(`${name}.pem`))
  }
  gw = new FakeGateway()
  gw.handlers = { Topology: (_call: unknown, cb: any) => cb(null, { brokers: [], clusterSize: 1, partitionsCount: 1, replicationFactor: 1, gatewayVersion: 'mtls' }) }
  await gw.listenWith(0, grpc.ServerCredentials.createSsl(fs.readFileSync(f('ca.pem')), [{ cert_chain: fs.readFileSync(f('server.pem')), private_key: fs.readFileSync(f('server.key')) }], true))
})
afterAll(async () => {
  await gw?.stop()
  fs.rmSync(dir, { recursive: true, force: true })
})

it('presents the client certificate when asked (mutual TLS)', async () => {
  const c = new Client({ address: gw.address, caCertificatePath: f('ca.pem'), clientCertificatePath: f('client.pem'), clientPrivateKeyPath: f('client.key'), logger: quiet })
  try {
    expect((await c.topology({ timeoutMs: 5_000 })).gatewayVersion).toBe('mtls')
  } finally {
    await c.close()
  }
})

it('without a client certificate the server refuses the connection: a clear typed error', async () => {
  const c = new Client({ address: gw.address, caCertificatePath: f('ca.pem'), logger: quiet })
  try {
    // The handshake fails on every attempt; the call ends at its deadline with a typed error, never a result.
    await expect(c.topology({ timeoutMs: 2_000 })).rejects.toBeInstanceOf(JobwireError)
  } finally {
    await c.close()
  }
})

it('a refused handshake is one warning per 30 s, not one per retry: the key drops grpc-js\'s time stamp', () => {
  // as grpc-js words a stream/poll that fails on a gateway requiring a client certificate (seen in
  // transport/mtls-without-client-certificate-rejected: six warnings in 2 s before this key)
  const at = (ts: string) => `No connection established. Last error: 80CCC7FC4D7F0000:error:0A00045C:SSL routines:ssl3_read_bytes:tlsv13 alert certificate required:../deps/openssl/openssl/ssl/record/rec_layer_s3.c:1601:SSL alert number 116\n (${ts}). Resolution note: `
  expect(connectionWarningKey(at('2026-11-26T11:42:41.720Z'))).toBe(connectionWarningKey(at('2026-11-26T11:42:43.494Z')))
  expect(connectionWarningKey(at('2026-11-26T11:42:41Z'))).toBe(connectionWarningKey(at('2026-11-26T11:42:43.494Z')))
  expect(connectionWarningKey(at('2026-11-26T11:42:41.720Z'))).toContain('certificate required')
  expect(connectionWarningKey('unknown ca (2026-11-26T11:42:41.720Z)')).not.toBe(connectionWarningKey('certificate required (2026-11-26T11:42:41.720Z)'))
})

it('validates the mutual-TLS settings and raw channel options', () => {
  expect(() => resolveClientConfig({ clientCertificatePath: '/c.pem' }, {})).toThrow(/both a client certificate and its private key/)
  expect(resolveClientConfig({}, { ZEEBE_CLIENT_CERTIFICATE_PATH: '/c.pem', ZEEBE_CLIENT_PRIVATE_KEY_PATH: '/k.pem' })).toMatchObject({ insecure: false, clientCertificatePath: '/c.pem' })
  expect(() => resolveClientConfig({ channelOptions: { 'grpc.x': {} as unknown as number } }, {})).toThrow(/channel option/)
  expect(() => new Client({ address: '127.0.0.1:1', insecure: true, clientCertificatePath: '/c.pem', clientPrivateKeyPath: '/k.pem' })).toThrow(/needs TLS/)
})

it('applies raw channel options (a user agent) on top of the SDK defaults', async () => {
  const c = new Client({
    address: `localhost:${gw.port}`,
    caCertificatePath: f('ca.pem'),
    clientCertificatePath: f('client.pem'),
    clientPrivateKeyPath: f('client.key'),
    channelOptions: { 'grpc.primary_user_agent': 'jobwire-test' },
    logger: quiet,
  })
  try {
    await c.topology({ timeoutMs: 5_000 })
    const ua = gw.calls.filter((x) => x.method === 'Topology').at(-1)!.metadata.get('user-agent')[0]
    expect(String(ua)).toMatch(/^jobwire-test/)
  } finally {
    await c.close()
  }
})
