import { resolveBackoff, type BackoffBounds, type BackoffOptions } from './worker/backoff.js'

/** OAuth client-credentials settings. */
export interface OAuthOptions {
  /** Client id. Env: ZEEBE_CLIENT_ID / CAMUNDA_CLIENT_ID. */
  clientId: string
  /** Client secret. Env: ZEEBE_CLIENT_SECRET / CAMUNDA_CLIENT_SECRET. */
  clientSecret: string
  /** Token endpoint URL. Env: ZEEBE_AUTHORIZATION_SERVER_URL / CAMUNDA_OAUTH_URL. */
  authorizationServerUrl: string
  /** Audience of the token. Env: ZEEBE_TOKEN_AUDIENCE / CAMUNDA_TOKEN_AUDIENCE. */
  audience?: string
  /** Optional scope. Env: ZEEBE_TOKEN_SCOPE / CAMUNDA_TOKEN_SCOPE. */
  scope?: string
}

/**
 * Options of {@link Client}. Every field is optional: absent fields come from
 * the environment, then from the defaults noted on each field.
 */
export interface ClientOptions {
  /**
   * Gateway address(es), `host:port`. Several (an array, or a comma-separated
   * string) are balanced round-robin per call.
   * default: env ZEEBE_GRPC_ADDRESS / ZEEBE_ADDRESS / CAMUNDA_GRPC_ADDRESS, else `127.0.0.1:26500`
   */
  address?: string | string[]
  /** Plaintext instead of TLS. default: env ZEEBE_INSECURE_CONNECTION, else true for loopback addresses, false otherwise. */
  insecure?: boolean
  /** PEM file with the CA that signed the gateway's certificate. default: env ZEEBE_CA_CERTIFICATE_PATH, else the system roots. */
  caCertificatePath?: string
  /**
   * Mutual TLS: PEM files with this client's certificate (chain) and private key, presented to the
   * gateway. Both or neither; implies TLS. default: env ZEEBE_CLIENT_CERTIFICATE_PATH and
   * ZEEBE_CLIENT_PRIVATE_KEY_PATH, else none.
   */
  clientCertificatePath?: string
  /** See {@link ClientOptions.clientCertificatePath}. */
  clientPrivateKeyPath?: string
  /**
   * Raw grpc-js channel options (e.g. `grpc.ssl_target_name_override`, `grpc.primary_user_agent`),
   * applied to every channel after the SDK's own; the SDK's flow-control window of long-call
   * connections is kept. default: none
   */
  channelOptions?: Record<string, string | number>
  /** OAuth client credentials. default: from env when ZEEBE_CLIENT_ID (or CAMUNDA_CLIENT_ID) is set, else off. */
  oauth?: OAuthOptions
  /** HTTP/2 keepalive ping interval in ms. default: 45000 (env ZEEBE_KEEP_ALIVE). */
  keepAliveMs?: number
  /**
   * HTTP/2 receive window of the push-stream connection, bytes. Small = few activated jobs wait in
   * transport buffers of a busy worker (others get them); large = more push throughput per stream
   * over high-latency links. default: 8192
   */
  streamWindowBytes?: number
  /** Deadline of ordinary (non-long-poll) calls in ms. default: 30000. */
  commandTimeoutMs?: number
  /**
   * Bounds of the transport back-off: polls, stream reopens, outcome and command resends
   * (jitter stays ±10 %). Validated: initialMs > 0, maxMs ≥ initialMs, multiplier ≥ 1.
   * default: `{ initialMs: 50, maxMs: 5000, multiplier: 1.6 }`
   */
  backoff?: BackoffOptions
  /** Where the SDK logs. default: `console` warnings and errors (debug with env JOBWIRE_LOG=debug). */
  logger?: Logger
}

/** Minimal logger interface; `console` satisfies it. */
export interface Logger {
  /** Logs a detail useful when debugging (stream opened, poll parked, ...). */
  debug(msg: string, ...args: unknown[]): void
  /** Logs a normal event of the client's life. */
  info(msg: string, ...args: unknown[]): void
  /** Logs a problem the client recovers from (a retried call, a reconnect). */
  warn(msg: string, ...args: unknown[]): void
  /** Logs a failure the client could not recover from (an outcome that was not sent). */
  error(msg: string, ...args: unknown[]): void
}

/** Client settings after env + defaults. @internal */
export interface ResolvedClientConfig {
  addresses: string[]
  insecure: boolean
  caCertificatePath: string | undefined
  clientCertificatePath: string | undefined
  clientPrivateKeyPath: string | undefined
  channelOptions: Record<string, string | number>
  oauth: OAuthOptions | undefined
  keepAliveMs: number
  streamWindowBytes: number
  commandTimeoutMs: number
  backoff: BackoffBounds
  logger: Logger
}

function env(env: NodeJS.ProcessEnv, ...names: string[]): string | undefined {
  for (const n of names) {
    const v = env[n]
    if (v !== undefined && v.trim() !== '') return v.trim()
  }
  return undefined
}

/** Boolean env values, the same in every SDK: true/false, 1/0, yes/no, on/off (any case); else an error. */
function parseBool(name: string, v: string | undefined): boolean | undefined {
  if (v === undefined) return undefined
  if (/^(1|true|yes|on)$/i.test(v)) return true
  if (/^(0|false|no|off)$/i.test(v)) return false
  throw new TypeError(`jobwire: ${name}=${JSON.stringify(v)}: want true or false`)
}

/** Strips a scheme (`grpc://`, `grpcs://`, `http(s)://`), adds the default port, and splits a list. */
export function parseAddresses(raw: string | string[]): string[] {
  const list = Array.isArray(raw) ? raw : raw.split(',')
  const out: string[] = []
  for (let a of list) {
    a = a.trim()
    if (!a) continue
    // `dns:///host:port` is kept: the channel then balances over every record of the name.
    const dns = /^dns:\/\/\/?/i.test(a)
    a = a.replace(/^(grpcs?|https?):\/\//i, '').replace(/^dns:\/\/\/?/i, '').replace(/\/+$/, '')
    if (!/:\d+$/.test(a)) a += ':26500'
    out.push(dns ? `dns:///${a}` : a)
  }
  if (out.length === 0) throw new TypeError('jobwire: no gateway address given')
  return out
}

function isLoopback(address: string): boolean {
  const host = address.replace(/^dns:\/\/\//, '').replace(/:\d+$/, '').replace(/^\[|\]$/g, '')
  return host === 'localhost' || host === '::1' || /^127\./.test(host)
}

const levels = { debug: 0, info: 1, warn: 2, error: 3 } as const

/** The default logger: console, at level JOBWIRE_LOG (default `warn`). @internal */
export function consoleLogger(level = process.env.JOBWIRE_LOG ?? 'warn'): Logger {
  const min = levels[level as keyof typeof levels] ?? levels.warn
  const mk = (l: keyof typeof levels) => (msg: string, ...args: unknown[]) => {
    if (levels[l] >= min) console[l === 'debug' ? 'error' : l](`[jobwire] ${l}: ${msg}`, ...args)
  }
  return { debug: mk('debug'), info: mk('info'), warn: mk('warn'), error: mk('error') }
}

/** Merges options over the environment over the defaults. @internal */
export function resolveClientConfig(opts: ClientOptions = {}, e: NodeJS.ProcessEnv = process.env): ResolvedClientConfig {
  const addresses = parseAddresses(
    opts.address ?? env(e, 'ZEEBE_GRPC_ADDRESS', 'ZEEBE_ADDRESS', 'CAMUNDA_GRPC_ADDRESS') ?? '127.0.0.1:26500',
  )
  const caCertificatePath = opts.caCertificatePath ?? env(e, 'ZEEBE_CA_CERTIFICATE_PATH', 'CAMUNDA_CA_CERTIFICATE_PATH')
  // A scheme (grpcs:// / https:// = TLS, grpc:// / http:// = plaintext) and a CA certificate imply the transport.
  const raw = opts.address ?? env(e, 'ZEEBE_GRPC_ADDRESS', 'ZEEBE_ADDRESS', 'CAMUNDA_GRPC_ADDRESS') ?? ''
  const first = (Array.isArray(raw) ? raw[0] ?? '' : raw).trim()
  const schemeInsecure = /^(grpcs|https):\/\//i.test(first) ? false : /^(grpc|http):\/\//i.test(first) ? true : undefined
  const clientCertificatePath = opts.clientCertificatePath ?? env(e, 'ZEEBE_CLIENT_CERTIFICATE_PATH', 'CAMUNDA_CLIENT_CERTIFICATE_PATH')
  const clientPrivateKeyPath = opts.clientPrivateKeyPath ?? env(e, 'ZEEBE_CLIENT_PRIVATE_KEY_PATH', 'CAMUNDA_CLIENT_PRIVATE_KEY_PATH')
  if ((clientCertificatePath === undefined) !== (clientPrivateKeyPath === undefined)) {
    throw new TypeError('jobwire: mutual TLS needs both a client certificate and its private key (clientCertificatePath and clientPrivateKeyPath)')
  }
  const channelOptions = opts.channelOptions ?? {}
  if (typeof channelOptions !== 'object' || Array.isArray(channelOptions)) throw new TypeError('jobwire: channelOptions must be an object of grpc-js channel options')
  for (const [k, v] of Object.entries(channelOptions)) {
    if (typeof v !== 'string' && typeof v !== 'number') throw new TypeError(`jobwire: channel option ${k} must be a string or a number`)
  }
  const insecure =
    opts.insecure ??
    (opts.caCertificatePath !== undefined || clientCertificatePath !== undefined ? false : undefined) ??
    schemeInsecure ??
    parseBool('ZEEBE_INSECURE_CONNECTION', env(e, 'ZEEBE_INSECURE_CONNECTION', 'CAMUNDA_INSECURE_CONNECTION')) ??
    (caCertificatePath !== undefined ? false : undefined) ??
    addresses.every(isLoopback)
  let oauth = opts.oauth
  if (!oauth) {
    const clientId = env(e, 'ZEEBE_CLIENT_ID', 'CAMUNDA_CLIENT_ID')
    const clientSecret = env(e, 'ZEEBE_CLIENT_SECRET', 'CAMUNDA_CLIENT_SECRET')
    const url = env(e, 'ZEEBE_AUTHORIZATION_SERVER_URL', 'CAMUNDA_OAUTH_URL', 'CAMUNDA_AUTHORIZATION_SERVER_URL')
    if (clientId || clientSecret) {
      if (!clientId || !clientSecret || !url) {
        throw new TypeError('jobwire: OAuth needs ZEEBE_CLIENT_ID, ZEEBE_CLIENT_SECRET and ZEEBE_AUTHORIZATION_SERVER_URL')
      }
      oauth = {
        clientId,
        clientSecret,
        authorizationServerUrl: url,
        audience: env(e, 'ZEEBE_TOKEN_AUDIENCE', 'CAMUNDA_TOKEN_AUDIENCE'),
        scope: env(e, 'ZEEBE_TOKEN_SCOPE', 'CAMUNDA_TOKEN_SCOPE'),
      }
    }
  }
  const keepEnv = env(e, 'ZEEBE_KEEP_ALIVE', 'CAMUNDA_KEEP_ALIVE')
  if (keepEnv !== undefined && !(Number.isInteger(Number(keepEnv)) && Number(keepEnv) > 0)) {
    throw new TypeError(`jobwire: ZEEBE_KEEP_ALIVE=${JSON.stringify(keepEnv)}: want milliseconds`)
  }
  return {
    addresses,
    insecure,
    caCertificatePath,
    clientCertificatePath,
    clientPrivateKeyPath,
    channelOptions,
    oauth,
    keepAliveMs: opts.keepAliveMs ?? (keepEnv ? Number(keepEnv) : 45_000),
    streamWindowBytes: opts.streamWindowBytes ?? 8_192,
    commandTimeoutMs: opts.commandTimeoutMs ?? 30_000,
    backoff: resolveBackoff(opts.backoff),
    logger: opts.logger ?? consoleLogger(),
  }
}
