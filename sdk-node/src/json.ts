/**
 * Lossless JSON for job variables.
 *
 * Zeebe keys and user numbers are int64; JavaScript numbers lose precision past
 * 2^53. `parseLossless` yields a `bigint` for an integer literal outside
 * Number.MAX_SAFE_INTEGER and a plain `number` for everything else, so ordinary
 * values stay ordinary. `stringifyLossless` writes a `bigint` as a bare integer.
 */

/** A JSON document's value as produced by {@link parseLossless}. */
export type JsonValue = null | boolean | number | bigint | string | JsonValue[] | { [key: string]: JsonValue }

// Only documents with a run of 16+ digits can hold an unsafe integer; the rest
// take the native (fast) path.
// A three-digit exponent may overflow a double (beyond ±1.8e308): the
// lossless parser refuses that instead of turning it into ±Infinity.
const LONG_DIGITS = /\d{16,}|[eE]\+?\d{3}/

/**
 * Parses JSON text, keeping integers beyond 2^53 exact as `bigint`.
 *
 * @example
 * parseLossless('{"id": 9007199254740993, "n": 1.5}') // { id: 9007199254740993n, n: 1.5 }
 */
export function parseLossless(text: string): JsonValue {
  if (!LONG_DIGITS.test(text)) return JSON.parse(text) as JsonValue
  return new Parser(text).parseDocument()
}

/**
 * Deepest nesting the lossless parser reads (it recurses; a deeper document
 * would overflow the stack with a RangeError). Deeper documents get a
 * SyntaxError. Found by the fast-check fuzzing in json.property.test.ts.
 */
export const MAX_LOSSLESS_DEPTH = 1000

class Parser {
  private i = 0
  private depth = 0
  constructor(private readonly s: string) {}

  private enter(): void {
    if (++this.depth > MAX_LOSSLESS_DEPTH) this.fail(`nesting deeper than ${MAX_LOSSLESS_DEPTH} levels`)
  }

  parseDocument(): JsonValue {
    this.ws()
    const v = this.value()
    this.ws()
    if (this.i !== this.s.length) this.fail('unexpected trailing characters')
    return v
  }

  private fail(msg: string): never {
    throw new SyntaxError(`invalid JSON at position ${this.i}: ${msg}`)
  }

  private ws(): void {
    const s = this.s
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i)
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) this.i++
      else break
    }
  }

  private value(): JsonValue {
    const c = this.s[this.i]
    if (c === '{') return this.object()
    if (c === '[') return this.array()
    if (c === '"') return this.string()
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number()
    if (this.s.startsWith('true', this.i)) { this.i += 4; return true }
    if (this.s.startsWith('false', this.i)) { this.i += 5; return false }
    if (this.s.startsWith('null', this.i)) { this.i += 4; return null }
    return this.fail('unexpected token')
  }

  private object(): { [key: string]: JsonValue } {
    const out: { [key: string]: JsonValue } = {}
    this.enter()
    this.i++
    this.ws()
    if (this.s[this.i] === '}') { this.i++; this.depth--; return out }
    for (;;) {
      this.ws()
      if (this.s[this.i] !== '"') this.fail('expected string key')
      const k = this.string()
      this.ws()
      if (this.s[this.i] !== ':') this.fail("expected ':'")
      this.i++
      this.ws()
      const v = this.value()
      // defineProperty: a key "__proto__" must stay data, not change the prototype
      Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true })
      this.ws()
      const c = this.s[this.i++]
      if (c === '}') { this.depth--; return out }
      if (c !== ',') this.fail("expected ',' or '}'")
    }
  }

  private array(): JsonValue[] {
    const out: JsonValue[] = []
    this.enter()
    this.i++
    this.ws()
    if (this.s[this.i] === ']') { this.i++; this.depth--; return out }
    for (;;) {
      this.ws()
      out.push(this.value())
      this.ws()
      const c = this.s[this.i++]
      if (c === ']') { this.depth--; return out }
      if (c !== ',') this.fail("expected ',' or ']'")
    }
  }

  private string(): string {
    // Find the closing quote, then let JSON.parse handle escapes exactly.
    const start = this.i
    this.i++
    const s = this.s
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i)
      if (c === 0x5c) this.i += 2
      else if (c === 0x22) { this.i++; return JSON.parse(s.slice(start, this.i)) as string }
      else this.i++
    }
    return this.fail('unterminated string')
  }

  private number(): number | bigint {
    const m = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y
    m.lastIndex = this.i
    const r = m.exec(this.s)
    if (!r) return this.fail('invalid number')
    this.i = m.lastIndex
    const text = r[0]
    const n = Number(text)
    if (r[1] === undefined && r[2] === undefined && !Number.isSafeInteger(n)) return BigInt(text)
    // A decimal or exponent form beyond a double's range would silently
    // become ±Infinity here and null when written back: refuse it instead.
    if (!Number.isFinite(n)) return this.fail(`number ${text.length > 40 ? text.slice(0, 40) + '…' : text} is outside the range of a double`)
    return n
  }
}

/**
 * Serializes a value to JSON, writing `bigint` as a bare integer literal.
 * Throws a TypeError for values JSON cannot hold (cycles, functions at top level,
 * NaN and ±Infinity, which native stringify would silently write as null).
 *
 * @example
 * stringifyLossless({ id: 9007199254740993n }) // '{"id":9007199254740993}'
 */
export function stringifyLossless(value: unknown): string {
  try {
    const out = JSON.stringify(value, refuseNonFinite)
    if (out === undefined) throw new TypeError(`value of type ${typeof value} is not JSON`)
    return out
  } catch (err) {
    // Native stringify refuses bigint: walk the value ourselves.
    if (!(err instanceof TypeError) || !/BigInt/i.test(err.message)) throw err
    const out = write(value, new Set())
    if (out === undefined) throw new TypeError(`value of type ${typeof value} is not JSON`)
    return out
  }
}

/** JSON has no NaN or Infinity: native stringify would write null and lose the value. */
function refuseNonFinite(key: string, v: unknown): unknown {
  if (typeof v === 'number' && !Number.isFinite(v)) throw new TypeError(`${key ? `"${key}" is ` : ''}${v}, which JSON cannot represent`)
  return v
}

function write(v: unknown, seen: Set<object>, key = ''): string | undefined {
  if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') {
    v = (v as { toJSON: (k: string) => unknown }).toJSON(key)
  }
  switch (typeof v) {
    case 'bigint': return v.toString()
    case 'string': case 'boolean': return JSON.stringify(v)
    case 'number': return String(refuseNonFinite(key, v))
    case 'undefined': case 'function': case 'symbol': return undefined
  }
  if (v === null) return 'null'
  const o = v as object
  if (seen.has(o)) throw new TypeError('Converting circular structure to JSON')
  seen.add(o)
  try {
    if (Array.isArray(o)) return '[' + o.map((x, i) => write(x, seen, String(i)) ?? 'null').join(',') + ']'
    const parts: string[] = []
    for (const [k, x] of Object.entries(o)) {
      const w = write(x, seen, k)
      if (w !== undefined) parts.push(JSON.stringify(k) + ':' + w)
    }
    return '{' + parts.join(',') + '}'
  } finally {
    seen.delete(o)
  }
}

/**
 * Turns variables given by a user (an object, or a JSON string of an object)
 * into the JSON text sent to the gateway, or throws a clear TypeError before
 * anything is sent. `undefined`/`null` means "no variables". @internal
 */
export function variablesToJson(vars: unknown, what: string): string {
  return sized(toJson(vars, what), what)
}

/**
 * Largest variables document sent: a gateway accepts at most 4 MiB per gRPC
 * message (Zeebe's default maxMessageSize), less 16 KiB for the rest of the
 * request. A handler result over it fails the job with this message
 * (retries − 1) instead of an outcome the gateway refuses every time.
 */
export const MAX_VARIABLES_BYTES = 4 * 1024 * 1024 - 16 * 1024

function sized(text: string, what: string): string {
  // cheap bound first: at most 3 UTF-8 bytes per UTF-16 code unit
  if (text.length * 3 > MAX_VARIABLES_BYTES) {
    const n = Buffer.byteLength(text, 'utf8')
    if (n > MAX_VARIABLES_BYTES) {
      throw new TypeError(
        `${what}: variables are ${n} bytes of JSON; the gateway accepts at most 4 MiB per message ` +
          `(${MAX_VARIABLES_BYTES} bytes of variables): store large payloads elsewhere and pass a reference`,
      )
    }
  }
  return text
}

function toJson(vars: unknown, what: string): string {
  if (vars === undefined || vars === null) return ''
  if (typeof vars === 'string') {
    let parsed: unknown
    try {
      parsed = parseLossless(vars)
    } catch (e) {
      throw new TypeError(`${what}: variables are not valid JSON: ${(e as Error).message}`)
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new TypeError(`${what}: variables must be a JSON object, got ${Array.isArray(parsed) ? 'array' : typeof parsed}`)
    }
    return vars
  }
  if (typeof vars !== 'object' || Array.isArray(vars) || vars instanceof Map) {
    throw new TypeError(`${what}: variables must be a plain object, got ${Array.isArray(vars) ? 'array' : typeof vars}`)
  }
  try {
    return stringifyLossless(vars)
  } catch (e) {
    throw new TypeError(`${what}: variables cannot be serialized to JSON: ${(e as Error).message}`)
  }
}
