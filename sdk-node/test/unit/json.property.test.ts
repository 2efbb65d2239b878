// Property-based fuzzing of the lossless JSON used for job variables
// (fast-check). Bounded in `npm test` (a few hundred runs per property);
// `JOBWIRE_FUZZ_SECONDS=600 npx jest test/unit/json.property` (make fuzz)
// runs each property for that long and prints how many inputs it tried.
import fc from 'fast-check'
import { MAX_LOSSLESS_DEPTH, parseLossless, stringifyLossless, variablesToJson, JsonValue } from '../../src/json'

const SECONDS = Number(process.env.JOBWIRE_FUZZ_SECONDS ?? '0')
const SAFE = BigInt(Number.MAX_SAFE_INTEGER)

function run<T>(name: string, arb: fc.Arbitrary<T>, pred: (v: T) => void, ciRuns = 300): void {
  const params: fc.Parameters<[T]> = SECONDS > 0
    ? { numRuns: Number.MAX_SAFE_INTEGER, interruptAfterTimeLimit: SECONDS * 1000, markInterruptAsFailure: false }
    : { numRuns: ciRuns }
  const out = fc.check(fc.property(arb, pred), params)
  if (SECONDS > 0) console.log(`fuzz ${name}: ${out.numRuns} inputs in ${SECONDS} s, failed=${out.failed}`)
  if (out.failed) throw new Error(fc.defaultReportMessage(out) ?? `property ${name} failed`)
}

// The value parseLossless yields for an integer: bigint outside the safe range.
const norm = (n: bigint): number | bigint => (n > SAFE || n < -SAFE ? n : Number(n))

// Replaces bigints by the double JSON.parse would produce (for comparisons).
function asDoubles(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v)
  if (Array.isArray(v)) return v.map(asDoubles)
  if (v !== null && typeof v === 'object') {
    const o: Record<string, unknown> = {}
    for (const [k, x] of Object.entries(v)) Object.defineProperty(o, k, { value: asDoubles(x), enumerable: true, writable: true, configurable: true })
    return o
  }
  return v
}

const bigInt64 = fc.bigInt({ min: -(1n << 64n), max: 1n << 64n })
// JSON values with exact big integers (and -0 removed: JSON has no -0 integer).
const losslessValue: fc.Arbitrary<JsonValue> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.string({ unit: 'grapheme' }),
    // a double that is an integer beyond 2^53 (and written without exponent,
    // |d| < 1e21) is an integer literal in JSON: it comes back as a bigint
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((d): number | bigint => {
      if (Object.is(d, -0)) return 0
      if (Number.isInteger(d) && Math.abs(d) > Number.MAX_SAFE_INTEGER && Math.abs(d) < 1e21) return BigInt(d)
      return d
    }),
    bigInt64.map(norm),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(fc.string(), tie('value'), { maxKeys: 5 }),
  ),
})).value as fc.Arbitrary<JsonValue>

describe('lossless JSON (property-based)', () => {
  it('keeps every int64/uint64 exact', () => {
    run('exact-integers', bigInt64, (n) => {
      const v = parseLossless(`{"x":${n},"y":[${n}]}`) as { x: unknown; y: unknown[] }
      expect(v.x).toBe(norm(n))
      expect(v.y[0]).toBe(norm(n))
    }, 1000)
  })

  it('round-trips any value: parseLossless(stringifyLossless(v)) equals v', () => {
    run('round-trip', losslessValue, (v) => {
      expect(parseLossless(stringifyLossless(v))).toEqual(v)
    })
  })

  it('agrees with JSON.parse on any JSON text (big integers aside)', () => {
    const texts = fc.tuple(fc.json(), bigInt64).map(([j, n]) => `[${j},${n},{"k":${j}}]`)
    run('differential', texts, (text) => {
      expect(asDoubles(parseLossless(text))).toEqual(JSON.parse(text))
    })
  })

  it('answers any text with a value or a SyntaxError, exactly when JSON.parse does (or when it would yield ±Infinity)', () => {
    // Broken documents that still hold a long digit run, so the lossless
    // parser (not the native one) reads them.
    const broken = fc.tuple(fc.json(), bigInt64, fc.nat(), fc.string({ unit: 'binary', maxLength: 3 }), fc.nat({ max: 3 }))
      .map(([j, n, at, ins, del]) => {
        const doc = `{"a":${j},"b":${n < 0n ? -n + 10n ** 17n : n + 10n ** 17n}}`
        const i = at % (doc.length + 1)
        return doc.slice(0, i) + ins + doc.slice(i + del)
      })
    run('robustness', fc.oneof(broken, fc.string({ unit: 'binary' })), (text) => {
      let native: unknown = undefined
      let nativeErr = false
      try {
        native = JSON.parse(text)
      } catch {
        nativeErr = true
      }
      let mine: unknown
      try {
        mine = parseLossless(text)
      } catch (e) {
        expect(e).toBeInstanceOf(SyntaxError)
        // where JSON.parse reads a number beyond a double as ±Infinity, the
        // lossless parser refuses it on purpose (worker-semantics, Variables)
        if (!nativeErr) expect(JSON.stringify(native, (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? 'INF' : v))).toContain('"INF"')
        else expect(nativeErr).toBe(true)
        return
      }
      expect(nativeErr).toBe(false)
      expect(asDoubles(mine)).toEqual(native)
    }, 1000)
  })

  it('a deeply nested document with a big integer is a SyntaxError, never a stack overflow', () => {
    run('deep-nesting', fc.tuple(fc.integer({ min: 1, max: 20000 }), fc.constantFrom('[', '{"k":')), ([depth, open]) => {
      const close = open === '[' ? ']' : '}'
      const text = open.repeat(depth) + '12345678901234567' + close.repeat(depth)
      if (depth <= MAX_LOSSLESS_DEPTH) {
        let v: unknown = parseLossless(text)
        for (let i = 0; i < depth; i++) v = open === '[' ? (v as unknown[])[0] : (v as Record<string, unknown>).k
        expect(v).toBe(12345678901234567n)
      } else {
        expect(() => parseLossless(text)).toThrow(SyntaxError)
      }
    }, 50)
  })

  it('variablesToJson accepts exactly the JSON object texts and passes them on unchanged', () => {
    run('variables-text', fc.oneof(fc.json(), losslessValue.map((v) => stringifyLossless(v)), fc.string()), (text) => {
      let parsed: unknown
      let ok: boolean
      try {
        parsed = parseLossless(text)
        ok = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      } catch {
        ok = false
      }
      if (ok) {
        expect(variablesToJson(text, 'v')).toBe(text)
      } else {
        expect(() => variablesToJson(text, 'v')).toThrow(TypeError)
      }
    })
  })
})
