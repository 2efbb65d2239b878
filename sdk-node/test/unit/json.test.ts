import { MAX_VARIABLES_BYTES, parseLossless, stringifyLossless, variablesToJson } from '../../src/json'

describe('lossless JSON', () => {
  it('keeps integers beyond 2^53 exact and ordinary numbers ordinary', () => {
    const text = '{"big":9007199254740993,"neg":-92233720368547758,"max":9223372036854775807,"n":42,"f":1.5,"e":1e-400,"s":"12345678901234567890","a":[1,18446744073709551615]}'
    const v = parseLossless(text) as any
    expect(v.big).toBe(9007199254740993n)
    expect(v.neg).toBe(-92233720368547758n)
    expect(v.max).toBe(9223372036854775807n)
    expect(v.n).toBe(42)
    expect(typeof v.n).toBe('number')
    expect(v.f).toBe(1.5)
    expect(v.s).toBe('12345678901234567890')
    expect(v.a[1]).toBe(18446744073709551615n)
    expect(v.e).toBe(0)
    expect(stringifyLossless(v)).toBe(text.replace('1e-400', '0'))
  })

  it('refuses numbers beyond a double and non-finite values instead of losing them', () => {
    // found by the Jazzer run on the Java SDK: 1e400 used to become Infinity, then null when written back
    for (const t of ['{"e":1e400}', '{"e":-1844674E2073709551616}', '{"e":1.5E+309,"big":12345678901234567890}']) {
      expect(() => parseLossless(t)).toThrow(/outside the range of a double/)
      expect(() => variablesToJson(t, 'complete')).toThrow(TypeError)
    }
    for (const bad of [Infinity, -Infinity, NaN]) {
      expect(() => stringifyLossless({ x: bad })).toThrow(/JSON cannot represent/)
      expect(() => stringifyLossless({ x: bad, big: 2n ** 64n })).toThrow(/JSON cannot represent/)
      expect(() => variablesToJson({ a: [1, { x: bad }] }, 'complete')).toThrow(TypeError)
    }
  })

  it('takes the native path for documents without long digit runs', () => {
    expect(parseLossless('{"a":[1,2,{"b":null}],"t":true}')).toEqual({ a: [1, 2, { b: null }], t: true })
  })

  it('parses escapes and rejects invalid JSON', () => {
    expect(parseLossless('{"k\\"q":"\\u00e9\\n","x":12345678901234567}')).toEqual({ 'k"q': 'é\n', x: 12345678901234567n })
    expect(() => parseLossless('{"x":12345678901234567,}')).toThrow(SyntaxError)
    expect(() => parseLossless('{"x":12345678901234567} x')).toThrow(SyntaxError)
  })

  it('keeps __proto__ keys as data', () => {
    const v = parseLossless('{"__proto__":{"polluted":1},"x":12345678901234567}') as any
    expect(({} as any).polluted).toBeUndefined()
    expect(Object.keys(v)).toContain('__proto__')
  })

  it('serializes bigint anywhere, honours toJSON and rejects cycles', () => {
    expect(stringifyLossless({ a: [1n, { b: 2n ** 64n }], d: new Date(0), u: undefined })).toBe('{"a":[1,{"b":18446744073709551616}],"d":"1970-01-01T00:00:00.000Z"}')
    const cyc: any = { x: 1n }
    cyc.self = cyc
    expect(() => stringifyLossless(cyc)).toThrow(TypeError)
  })

  it('validates handler variables before anything is sent', () => {
    expect(variablesToJson(undefined, 'x')).toBe('')
    expect(variablesToJson({ a: 1 }, 'x')).toBe('{"a":1}')
    expect(variablesToJson('{"a":1}', 'x')).toBe('{"a":1}')
    expect(() => variablesToJson([1, 2], 'job 1')).toThrow(/job 1: variables must be a plain object, got array/)
    expect(() => variablesToJson('nope', 'job 1')).toThrow(/not valid JSON/)
    expect(() => variablesToJson('[1]', 'job 1')).toThrow(/must be a JSON object/)
    expect(() => variablesToJson(42, 'job 1')).toThrow(/plain object/)
  })

  it('refuses variables over 4 MiB - 16 KiB with a clear error, counting UTF-8 bytes', () => {
    const near = 'x'.repeat(MAX_VARIABLES_BYTES - 20)
    expect(variablesToJson({ v: near }, 'r').length).toBe(MAX_VARIABLES_BYTES - 20 + 8)
    expect(() => variablesToJson({ v: 'x'.repeat(MAX_VARIABLES_BYTES) }, 'handler result of job 1')).toThrow(
      /handler result of job 1: variables are \d+ bytes of JSON; the gateway accepts at most 4 MiB/,
    )
    // 2 bytes per character in UTF-8: over the limit although it has fewer characters than bytes allowed
    expect(() => variablesToJson({ v: 'é'.repeat(MAX_VARIABLES_BYTES / 2) }, 'r')).toThrow(TypeError)
    expect(() => variablesToJson(`{"v":"${'x'.repeat(MAX_VARIABLES_BYTES)}"}`, 'r')).toThrow(/4 MiB/)
  })
})
