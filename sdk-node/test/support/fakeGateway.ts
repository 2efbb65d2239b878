// An in-process gateway for unit tests: a real @grpc/grpc-js server on
// 127.0.0.1:0 serving the SDK's own gateway.proto, with per-test handlers.
import * as grpc from '@grpc/grpc-js'
import * as protoLoader from '@grpc/proto-loader'
import { protoPath } from '../../src/protoPath'

export type Handlers = Partial<Record<string, grpc.UntypedHandleCall>>

export interface Recorded {
  method: string
  request: any
  at: number
  metadata: grpc.Metadata
}

export class FakeGateway {
  readonly calls: Recorded[] = []
  private server = new grpc.Server()
  port = 0
  handlers: Handlers = {}

  private serverOptions: grpc.ServerOptions = {}

  static async start(handlers: Handlers = {}, serverOptions: grpc.ServerOptions = {}): Promise<FakeGateway> {
    const g = new FakeGateway()
    g.handlers = handlers
    g.serverOptions = serverOptions
    await g.listen(0)
    return g
  }

  get address(): string {
    return `127.0.0.1:${this.port}`
  }

  count(method: string): number {
    return this.calls.filter((c) => c.method === method).length
  }

  requests(method: string): any[] {
    return this.calls.filter((c) => c.method === method).map((c) => c.request)
  }

  async listen(port: number): Promise<void> {
    return this.listenWith(port, grpc.ServerCredentials.createInsecure())
  }

  async listenWith(port: number, creds: grpc.ServerCredentials): Promise<void> {
    const def = protoLoader.loadSync(protoPath(), { longs: String, enums: String, defaults: true, oneofs: true })
    const pkg = grpc.loadPackageDefinition(def) as any
    const service = pkg.gateway_protocol.Gateway.service as grpc.ServiceDefinition
    const impl: grpc.UntypedServiceImplementation = {}
    for (const [name, m] of Object.entries(service)) {
      const method = (m as any).originalName ?? name
      impl[method] = (call: any, cb?: any) => {
        this.calls.push({ method: name, request: call.request, at: Date.now(), metadata: call.metadata })
        const h = this.handlers[name]
        if (h) return (h as any)(call, cb)
        if (cb) return cb({ code: grpc.status.UNIMPLEMENTED, details: `${name} not faked` })
        call.emit('error', { code: grpc.status.UNIMPLEMENTED, details: `${name} not faked` })
      }
    }
    this.server = new grpc.Server(this.serverOptions)
    this.server.addService(service, impl)
    this.port = await new Promise<number>((resolve, reject) =>
      this.server.bindAsync(`127.0.0.1:${port}`, creds, (err, p) => (err ? reject(err) : resolve(p))),
    )
  }

  /** Stops at once (open calls are cancelled). */
  stop(): Promise<void> {
    this.server.forceShutdown()
    return Promise.resolve()
  }
}

let nextKey = 2251799813685248n

/** An ActivatedJob message with sensible defaults. */
export function fakeJob(over: Partial<Record<string, unknown>> = {}): any {
  nextKey++
  return {
    key: nextKey.toString(),
    type: 'test',
    processInstanceKey: '2251799813685249',
    bpmnProcessId: 'proc',
    processDefinitionVersion: 1,
    processDefinitionKey: '2251799813685250',
    elementId: 'task',
    elementInstanceKey: '2251799813685251',
    customHeaders: '{}',
    worker: 'w',
    retries: 3,
    deadline: String(Date.now() + 60_000),
    variables: '{}',
    tenantId: '<default>',
    ...over,
  }
}

export const ok = (cb: any) => cb(null, {})

export function waitFor(cond: () => boolean, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const start = Date.now()
  return new Promise((resolve, reject) => {
    const t = setInterval(() => {
      if (cond()) {
        clearInterval(t)
        resolve()
      } else if (Date.now() - start > timeoutMs) {
        clearInterval(t)
        reject(new Error(`timed out waiting for ${what}`))
      }
    }, 10)
  })
}

export const delay = (ms: number) => new Promise((r) => setTimeout(r, ms))
