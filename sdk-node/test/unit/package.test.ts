// The built package (npm run build; scripts/test.sh builds first) loads as CommonJS and as ESM
// with the same public names, and finds its gateway.proto.
import { execFileSync } from 'node:child_process'
import * as path from 'node:path'

const root = path.resolve(__dirname, '..', '..')
const script = (imp: string) =>
  `${imp}; const c = new m.Client({ address: '127.0.0.1:1' }); console.log(JSON.stringify({ names: Object.keys(m).sort(), big: m.stringifyLossless(m.parseLossless('{"a":18446744073709551615}')) })); c.close()`

it('exports the same public API from the CJS and ESM builds', () => {
  const cjs = JSON.parse(execFileSync('node', ['-e', script(`const m = require(${JSON.stringify(path.join(root, 'lib/cjs/index.js'))})`)], { encoding: 'utf8' }))
  const esm = JSON.parse(
    execFileSync('node', ['--input-type=module', '-e', script(`import * as m from ${JSON.stringify(path.join(root, 'lib/esm/index.js'))}`)], { encoding: 'utf8' }),
  )
  expect(esm.names).toEqual(cjs.names)
  expect(cjs.names).toEqual(expect.arrayContaining(['Client', 'JobError', 'Worker', 'BackpressureError', 'JobwireError']))
  expect(cjs.big).toBe('{"a":18446744073709551615}')
  expect(esm.big).toBe(cjs.big)
})

it('exports the test kit (@jobwire/sdk/testing) from the CJS and ESM builds', () => {
  const names = (imp: string, esm: boolean) =>
    JSON.parse(execFileSync('node', [...(esm ? ['--input-type=module'] : []), '-e', `${imp}; console.log(JSON.stringify(Object.keys(m).sort()))`], { encoding: 'utf8' }))
  const cjs = names(`const m = require(${JSON.stringify(path.join(root, 'lib/cjs/testing/index.js'))})`, false)
  const esm = names(`import * as m from ${JSON.stringify(path.join(root, 'lib/esm/testing/index.js'))}`, true)
  expect(cjs).toEqual(['TestEngine', 'makeJob', 'runHandler', 'startTestEngine'])
  expect(esm).toEqual(cjs)
})
