import type { OAuthOptions } from './config.js'
import { UnauthenticatedError } from './errors.js'

interface Token {
  value: string
  expiresAt: number
}

/**
 * Client-credentials token provider: one cached token, refreshed before it
 * expires (at 80 % of its lifetime, at most 30 s early), one fetch at a time.
 * @internal
 */
export class OAuthProvider {
  private token: Token | undefined
  private inflight: Promise<Token> | undefined

  constructor(private readonly opts: OAuthOptions, private readonly now: () => number = Date.now) {}

  /** A valid bearer token (from cache when fresh). */
  async getToken(): Promise<string> {
    const t = this.token
    if (t && this.now() < t.expiresAt) return t.value
    return (await this.refresh()).value
  }

  /** Forgets the cached token (after UNAUTHENTICATED), so the next call fetches a new one. */
  invalidate(stale?: string): void {
    if (stale === undefined || this.token?.value === stale) this.token = undefined
  }

  private refresh(): Promise<Token> {
    if (!this.inflight) {
      this.inflight = this.fetchToken().finally(() => {
        this.inflight = undefined
      })
    }
    return this.inflight
  }

  private async fetchToken(): Promise<Token> {
    const body = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: this.opts.clientId,
      client_secret: this.opts.clientSecret,
    })
    if (this.opts.audience) body.set('audience', this.opts.audience)
    if (this.opts.scope) body.set('scope', this.opts.scope)
    let res: Response
    try {
      res = await fetch(this.opts.authorizationServerUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body,
        signal: AbortSignal.timeout(15_000),
      })
    } catch (e) {
      throw new UnauthenticatedError(`oauth: token request failed: ${(e as Error).message}`, undefined, '', { cause: e })
    }
    const text = await res.text()
    if (!res.ok) throw new UnauthenticatedError(`oauth: token endpoint answered ${res.status}: ${text.slice(0, 200)}`)
    let json: { access_token?: unknown; expires_in?: unknown }
    try {
      json = JSON.parse(text) as typeof json
    } catch {
      throw new UnauthenticatedError(`oauth: token endpoint answered non-JSON: ${text.slice(0, 200)}`)
    }
    if (typeof json.access_token !== 'string') throw new UnauthenticatedError('oauth: token response has no access_token')
    const lifetimeMs = (Number(json.expires_in) || 300) * 1000
    const early = Math.min(30_000, lifetimeMs * 0.2)
    this.token = { value: json.access_token, expiresAt: this.now() + lifetimeMs - early }
    return this.token
  }
}
