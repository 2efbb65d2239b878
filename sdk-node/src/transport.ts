import * as fs from 'node:fs'
import * as grpc from '@grpc/grpc-js'
import * as protoLoader from '@grpc/proto-loader'
import type { ResolvedClientConfig } from './config.js'
import { toJobwireError, JobwireError, CancelledError } from './errors.js'
import { OAuthProvider } from './oauth.js'
import { protoPath } from './protoPath.js'
import type { ProtoGrpcType } from './generated/gateway.js'
import type { GatewayClient } from './generated/gateway_protocol/Gateway.js'

let cachedPackage: ProtoGrpcType | undefined

function loadPackage(): ProtoGrpcType {
  if (!cachedPackage) {
    const def = protoLoader.loadSync(protoPath(), { longs: String, enums: String, defaults: true, oneofs: true })
    cachedPackage = grpc.loadPackageDefinition(def) as unknown as ProtoGrpcType
  }
  return cachedPackage
}

/** Per-call options common to every client command. */
export interface CallOptions {
  /** Aborts the call (it rejects with CancelledError). */
  signal?: AbortSignal
  /** Deadline of this call in ms (default: the client's commandTimeoutMs). */
  timeoutMs?: number
}

type Method = keyof GatewayClient & string

/**
 * The one channel (per address) of a Client, shared by its workers: unary
 * calls with typed errors, server streams, auth metadata. @internal
 */
export class Transport {
  private readonly stubs: GatewayClient[]
  private readonly streamStubs: GatewayClient[]
  private next = 0
  private readonly oauth: OAuthProvider | undefined
  private closed = false

  constructor(readonly config: ResolvedClientConfig) {
    const pkg = loadPackage()
    const creds = config.insecure
      ? grpc.credentials.createInsecure()
      : grpc.credentials.createSsl(config.caCertificatePath ? fs.readFileSync(config.caCertificatePath) : undefined)
    const options: grpc.ChannelOptions = {
      'grpc.keepalive_time_ms': config.keepAliveMs,
      'grpc.keepalive_timeout_ms': 20_000,
      'grpc.max_receive_message_length': 5 * 1024 * 1024,
      // grpc-js defaults to 1 s → 120 s; a restarted gateway should be found again quickly.
      'grpc.initial_reconnect_backoff_ms': 100,
      'grpc.max_reconnect_backoff_ms': 5_000,
    }
    this.stubs = config.addresses.map((a) => new pkg.gateway_protocol.Gateway(a, creds, options))
    // Push streams get their own connection with a small HTTP/2 receive window: while a worker is
    // full its stream is paused, and only ~window bytes of activated jobs can wait in transport
    // buffers; the gateway's sender then blocks and gives further jobs to other workers.
    // (It also keeps long-lived streams from queueing behind the connection's stream limit.)
    const streamOptions: grpc.ChannelOptions = { ...options, 'grpc-node.flow_control_window': config.streamWindowBytes }
    this.streamStubs = config.addresses.map((a) => new pkg.gateway_protocol.Gateway(a, creds, streamOptions))
    this.oauth = config.oauth ? new OAuthProvider(config.oauth) : undefined
  }

  private stub(): GatewayClient {
    return this.stubs[this.next++ % this.stubs.length]!
  }

  /** Metadata for one call (bearer token when OAuth is on). */
  async metadata(): Promise<{ md: grpc.Metadata; token?: string }> {
    const md = new grpc.Metadata()
    if (!this.oauth) return { md }
    const token = await this.oauth.getToken()
    md.set('authorization', `Bearer ${token}`)
    return { md, token }
  }

  /** Called after UNAUTHENTICATED so the next call fetches a fresh token. */
  invalidateToken(token?: string): void {
    this.oauth?.invalidate(token)
  }

  get hasAuth(): boolean {
    return this.oauth !== undefined
  }

  /** A unary call; rejects with a typed JobwireError. One retry after a token refresh on UNAUTHENTICATED. */
  async unary<Res>(method: Method, req: object, opts: CallOptions = {}): Promise<Res> {
    try {
      return await this.unaryOnce<Res>(method, req, opts)
    } catch (e) {
      if (e instanceof JobwireError && e.code === grpc.status.UNAUTHENTICATED && this.oauth && !opts.signal?.aborted) {
        this.oauth.invalidate()
        return await this.unaryOnce<Res>(method, req, opts)
      }
      throw e
    }
  }

  private async unaryOnce<Res>(method: Method, req: object, opts: CallOptions): Promise<Res> {
    if (this.closed) throw new CancelledError(`${method}: client is closed`)
    const signal = opts.signal
    if (signal?.aborted) throw new CancelledError(`${method}: aborted`, grpc.status.CANCELLED)
    const { md } = await this.metadata()
    // Commands wait (until their deadline) for a connection instead of failing at once while the
    // channel reconnects, e.g. during a gateway restart. Worker polls/streams fail fast and back off.
    md.setOptions({ waitForReady: true })
    const deadline = Date.now() + (opts.timeoutMs ?? this.config.commandTimeoutMs)
    return await new Promise<Res>((resolve, reject) => {
      const stub = this.stub() as unknown as Record<string, (...a: unknown[]) => grpc.ClientUnaryCall>
      const onAbort = () => call.cancel()
      const call = stub[method]!.call(stub, req, md, { deadline }, (err: grpc.ServiceError | null, res: Res) => {
        signal?.removeEventListener('abort', onAbort)
        if (err) reject(toJobwireError(err, method))
        else resolve(res)
      })
      signal?.addEventListener('abort', onAbort, { once: true })
    })
  }

  /** Opens a server-streaming call (ActivateJobs, StreamActivatedJobs). */
  async serverStream<Res>(method: 'ActivateJobs' | 'StreamActivatedJobs', req: object, deadline: number): Promise<{ call: grpc.ClientReadableStream<Res>; token?: string }> {
    if (this.closed) throw new CancelledError(`${method}: client is closed`, grpc.status.CANCELLED)
    const { md, token } = await this.metadata()
    const pool = method === 'StreamActivatedJobs' ? this.streamStubs : this.stubs
    const stub = pool[this.next++ % pool.length] as unknown as Record<string, (...a: unknown[]) => grpc.ClientReadableStream<Res>>
    const call = stub[method]!.call(stub, req, md, { deadline })
    return { call, token }
  }

  /** Closes every channel; later calls fail with CancelledError. */
  close(): void {
    this.closed = true
    for (const s of [...this.stubs, ...this.streamStubs]) s.close()
  }
}
