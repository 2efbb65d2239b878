import * as fs from 'node:fs'
import * as grpc from '@grpc/grpc-js'
import * as protoLoader from '@grpc/proto-loader'
import type { ResolvedClientConfig } from './config.js'
import { toJobwireError, JobwireError, RequestCancelledError } from './errors.js'
import { OAuthProvider } from './oauth.js'
import { protoPath } from './protoPath.js'
import type { ProtoGrpcType } from './generated/gateway.js'
import type { GatewayClient } from './generated/gateway_protocol/Gateway.js'
import type { ProtoGrpcType as StreamProtoGrpcType } from './generated/stream.js'
import type { StreamControlServiceClient } from './generated/jobwire/stream/v1/StreamControlService.js'
import type { ReleaseUnreadResponse__Output } from './generated/jobwire/stream/v1/ReleaseUnreadResponse.js'

let cachedPackage: ProtoGrpcType | undefined
let cachedStreamPackage: StreamProtoGrpcType | undefined

function loadPackage(): ProtoGrpcType {
  if (!cachedPackage) {
    const def = protoLoader.loadSync(protoPath(), { longs: String, enums: String, defaults: true, oneofs: true })
    cachedPackage = grpc.loadPackageDefinition(def) as unknown as ProtoGrpcType
  }
  return cachedPackage
}

/** jobwire's StreamControlService (proto/jobwire/stream/v1/stream.proto). */
function loadStreamPackage(): StreamProtoGrpcType {
  if (!cachedStreamPackage) {
    const def = protoLoader.loadSync(protoPath('stream.proto'), { longs: String, enums: String, defaults: true, oneofs: true })
    cachedStreamPackage = grpc.loadPackageDefinition(def) as unknown as StreamProtoGrpcType
  }
  return cachedStreamPackage
}

/** Response header by which a jobwire gateway names a job stream for ReleaseUnread. */
export const STREAM_ID_HEADER = 'jobwire-stream-id'
/** Bound on one ReleaseUnread call (as in every SDK). */
export const RELEASE_TIMEOUT_MS = 2_000

/** Per-call options common to every client command. */
export interface CallOptions {
  /** Aborts the call (it rejects with RequestCancelledError). */
  signal?: AbortSignal
  /** Deadline of this call in ms (default: the client's commandTimeoutMs). */
  timeoutMs?: number
}

type Method = keyof GatewayClient & string

/**
 * Workers whose long-lived calls (a parked ActivateJobs and a StreamActivatedJobs
 * each) share one long-call connection: 2 × 32 = 64 calls stay under common
 * MAX_CONCURRENT_STREAMS limits (100 in many proxies), so none queues behind the
 * others. Same value in every jobwire SDK.
 */
export const WORKERS_PER_LONG_CONNECTION = 32

/**
 * Lets received messages of a server-streaming call through only on demand (a grpc-js client
 * interceptor, public API). A message held here stops grpc-js from reading the next one, so a
 * reader without a free slot keeps at most one decoded message in process; the rest stays in the
 * small HTTP/2 window and, beyond it, with the gateway. @internal
 */
export class ReadGate {
  private credit = 0
  private readonly held: Array<{ msg: unknown; next: (m: unknown) => void }> = []

  /** Lets `n` more messages through (Infinity: every message from now on). */
  grant(n = 1): void {
    this.credit += n
    this.flush()
  }

  /** Takes back credit not used yet. */
  revoke(): void {
    this.credit = 0
  }

  /** Messages waiting at the gate. */
  get waiting(): number {
    return this.held.length
  }

  /** @internal the interceptor's receive hook */
  onMessage(msg: unknown, next: (m: unknown) => void): void {
    this.held.push({ msg, next })
    this.flush()
  }

  private flush(): void {
    while (this.credit > 0 && this.held.length > 0) {
      this.credit--
      const h = this.held.shift()!
      h.next(h.msg)
    }
  }

  /** The grpc-js interceptor that routes received messages through this gate. */
  interceptor(): grpc.Interceptor {
    return (options, nextCall) =>
      new grpc.InterceptingCall(nextCall(options), {
        start: (metadata, _listener, next) => {
          next(metadata, new grpc.ListenerBuilder().withOnReceiveMessage((m: unknown, nxt: (m: unknown) => void) => this.onMessage(m, nxt)).build())
        },
      })
  }
}

/** A worker's place on a long-call connection. @internal */
export interface LongLease {
  /** Opens a server-streaming call (ActivateJobs, StreamActivatedJobs) on the leased connection. */
  serverStream<Res>(method: 'ActivateJobs' | 'StreamActivatedJobs', req: object, deadline: number, gate?: ReadGate): Promise<{ call: grpc.ClientReadableStream<Res>; token?: string }>
  /** A unary call on the leased connection (see Transport.unary). */
  unary<Res>(method: Method, req: object, opts?: CallOptions): Promise<Res>
  /**
   * StreamControlService/ReleaseUnread on the leased connection (the one the stream used, so the
   * gateway sees the stream's cancel first): the gateway hands back the jobs the stream sent after
   * the first `messagesRead`. Rejects with a typed JobwireError (UNIMPLEMENTED on gateways without it).
   */
  releaseUnread(streamId: string, messagesRead: number): Promise<ReleaseUnreadResponse__Output>
  /**
   * The gateway of this worker's address could not be reached: move the worker's long calls (and
   * hand-backs) to the next address. At most once per second, so the poll and the stream failing
   * together move it once.
   */
  failover(): void
  /** Gives the place back (idempotent); an unused connection is closed. */
  release(): void
}

interface LongConnection {
  stubs: GatewayClient[]
  workers: number
}

/**
 * The connections of a Client: one command channel (per address) for every
 * unary call of the client and its workers, and long-call connections for the
 * workers' long polls and push streams (at most WORKERS_PER_LONG_CONNECTION
 * workers each, small HTTP/2 receive window). Typed errors, auth metadata. @internal
 */
export class Transport {
  private readonly stubs: GatewayClient[]
  private readonly long: LongConnection[] = []
  private readonly newLongStubs: () => GatewayClient[]
  private next = 0
  private leases = 0
  private probed = false
  private readonly oauth: OAuthProvider | undefined
  private closed = false

  constructor(readonly config: ResolvedClientConfig) {
    const pkg = loadPackage()
    if (config.insecure && config.clientCertificatePath) throw new TypeError('jobwire: a client certificate (mutual TLS) needs TLS, but the connection is set to plaintext')
    const creds = config.insecure
      ? grpc.credentials.createInsecure()
      : grpc.credentials.createSsl(
          config.caCertificatePath ? fs.readFileSync(config.caCertificatePath) : undefined,
          config.clientPrivateKeyPath ? fs.readFileSync(config.clientPrivateKeyPath) : undefined,
          config.clientCertificatePath ? fs.readFileSync(config.clientCertificatePath) : undefined,
        )
    const options: grpc.ChannelOptions = {
      'grpc.keepalive_time_ms': config.keepAliveMs,
      // A PING unanswered this long drops the connection (a half-open one, e.g. a NAT that lost its
      // state): 20 s at the default 45 s interval, scaled with it (as in every SDK).
      'grpc.keepalive_timeout_ms': Math.max(1_000, Math.round((20 * config.keepAliveMs) / 45)),
      'grpc.max_receive_message_length': 5 * 1024 * 1024,
      // grpc-js defaults to 1 s → 120 s; a restarted gateway should be found again quickly.
      'grpc.initial_reconnect_backoff_ms': 100,
      'grpc.max_reconnect_backoff_ms': 5_000,
      ...config.channelOptions,
    }
    // A `dns:///` target balances round-robin over every address of the name (as in every SDK).
    const rr = (a: string, o: grpc.ChannelOptions): grpc.ChannelOptions =>
      a.startsWith('dns:///') ? { ...o, 'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }) } : o
    this.stubs = config.addresses.map((a) => new pkg.gateway_protocol.Gateway(a, creds, rr(a, options)))
    // Long polls and push streams go over long-call connections with a small HTTP/2 receive window:
    // grpc-js cannot otherwise shrink the window, and while a worker is full its stream is paused,
    // so only ~window bytes of activated jobs wait in transport buffers; the gateway's sender then
    // blocks and gives further jobs to other workers. Separate connections also keep long-lived calls
    // from queueing behind a connection's stream limit, and commands from queueing behind them.
    // A local subchannel pool: grpc-js would otherwise share one connection between channels with
    // equal options.
    const longOptions: grpc.ChannelOptions = {
      ...options,
      'grpc-node.flow_control_window': config.streamWindowBytes,
      'grpc.use_local_subchannel_pool': 1,
    }
    this.newLongStubs = () => config.addresses.map((a) => new pkg.gateway_protocol.Gateway(a, creds, rr(a, longOptions)))
    this.oauth = config.oauth ? new OAuthProvider(config.oauth) : undefined
  }

  /**
   * The next command channel round-robin, skipping addresses whose connection is failing while
   * another is not: a command waits for a connection (until its deadline), so sending it to a
   * gateway that is down would stall it although another gateway could answer.
   */
  private stub(): GatewayClient {
    const n = this.stubs.length
    if (n === 1) return this.stubs[0]!
    if (!this.probed) {
      // Connect every address now so that failing ones are known before commands pick them.
      this.probed = true
      for (const s of this.stubs) s.getChannel().getConnectivityState(true)
    }
    for (let i = 0; i < n; i++) {
      const s = this.stubs[this.next++ % n]!
      if (s.getChannel().getConnectivityState(false) !== grpc.connectivityState.TRANSIENT_FAILURE) return s
    }
    return this.stubs[this.next++ % n]!
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
  async unary<Res>(method: Method, req: object, opts: CallOptions = {}, stubs?: GatewayClient[]): Promise<Res> {
    try {
      return await this.unaryOnce<Res>(method, req, opts, stubs)
    } catch (e) {
      if (e instanceof JobwireError && e.code === grpc.status.UNAUTHENTICATED && this.oauth && !opts.signal?.aborted) {
        this.oauth.invalidate()
        return await this.unaryOnce<Res>(method, req, opts, stubs)
      }
      throw e
    }
  }

  private async unaryOnce<Res>(method: Method, req: object, opts: CallOptions, stubs?: GatewayClient[]): Promise<Res> {
    if (this.closed) throw new RequestCancelledError(`${method}: client is closed`)
    const signal = opts.signal
    if (signal?.aborted) throw new RequestCancelledError(`${method}: aborted`, grpc.status.CANCELLED)
    const { md } = await this.metadata()
    // Commands wait (until their deadline) for a connection instead of failing at once while the
    // channel reconnects, e.g. during a gateway restart. Worker polls/streams fail fast and back off.
    md.setOptions({ waitForReady: true })
    const deadline = Date.now() + (opts.timeoutMs ?? this.config.commandTimeoutMs)
    return await new Promise<Res>((resolve, reject) => {
      const stub = (stubs ? stubs[this.next++ % stubs.length]! : this.stub()) as unknown as Record<string, (...a: unknown[]) => grpc.ClientUnaryCall>
      const onAbort = () => call.cancel()
      const call = stub[method]!.call(stub, req, md, { deadline }, (err: grpc.ServiceError | null, res: Res) => {
        signal?.removeEventListener('abort', onAbort)
        if (err) reject(toJobwireError(err, method))
        else resolve(res)
      })
      signal?.addEventListener('abort', onAbort, { once: true })
    })
  }

  /** A place for one worker's long-lived calls on a long-call connection (a new one when all are full). */
  leaseLong(): LongLease {
    let conn = this.long.find((c) => c.workers < WORKERS_PER_LONG_CONNECTION)
    if (!conn) {
      conn = { stubs: this.newLongStubs(), workers: 0 }
      this.long.push(conn)
    }
    conn.workers++
    const c = conn
    let released = false
    // One address per worker (workers spread round-robin): its poll, stream and the jobs it hands
    // back share one connection, so with several addresses the gateway still sees the call cancelled
    // before the handed-back job is activatable again.
    let pin = this.leases++ % c.stubs.length
    const pinned = [c.stubs[pin]!]
    let movedAt = 0
    return {
      serverStream: async <Res>(method: 'ActivateJobs' | 'StreamActivatedJobs', req: object, deadline: number, gate?: ReadGate) => {
        if (this.closed || released) throw new RequestCancelledError(`${method}: client is closed`, grpc.status.CANCELLED)
        const { md, token } = await this.metadata()
        const stub = pinned[0] as unknown as Record<string, (...a: unknown[]) => grpc.ClientReadableStream<Res>>
        const call = stub[method]!.call(stub, req, md, gate ? { deadline, interceptors: [gate.interceptor()] } : { deadline })
        return { call, token }
      },
      unary: <Res>(method: Method, req: object, opts: CallOptions = {}) => this.unary<Res>(method, req, opts, released ? undefined : pinned),
      releaseUnread: async (streamId: string, messagesRead: number) => {
        if (this.closed) throw new RequestCancelledError('ReleaseUnread: client is closed', grpc.status.CANCELLED)
        const { md } = await this.metadata()
        const ch = pinned[0]!.getChannel()
        const Svc = loadStreamPackage().jobwire.stream.v1.StreamControlService
        const ctl: StreamControlServiceClient = new Svc('unused', grpc.credentials.createInsecure(), { channelOverride: ch as grpc.Channel })
        return await new Promise<ReleaseUnreadResponse__Output>((resolve, reject) => {
          ctl.releaseUnread({ streamId, messagesRead: String(messagesRead) }, md, { deadline: Date.now() + RELEASE_TIMEOUT_MS }, (err, res) => {
            if (err) reject(toJobwireError(err, 'ReleaseUnread'))
            else resolve(res!)
          })
        })
      },
      failover: () => {
        if (c.stubs.length < 2 || Date.now() - movedAt < 1_000) return
        movedAt = Date.now()
        pin = (pin + 1) % c.stubs.length
        pinned[0] = c.stubs[pin]!
      },
      release: () => {
        if (released) return
        released = true
        c.workers--
        if (c.workers === 0) {
          const i = this.long.indexOf(c)
          if (i >= 0) this.long.splice(i, 1)
          for (const s of c.stubs) s.close()
        }
      },
    }
  }

  /** Long-call connections open now (for tests). */
  get longConnections(): number {
    return this.long.length
  }

  /** Closes every channel; later calls fail with RequestCancelledError. */
  close(): void {
    this.closed = true
    for (const s of this.stubs) s.close()
    for (const c of this.long.splice(0)) for (const s of c.stubs) s.close()
  }
}
