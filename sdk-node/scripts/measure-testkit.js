#!/usr/bin/env node
// Measures the test kit (@jobwire/sdk/testing) from the build (npm run build first) and prints:
// engine start-to-ready through startTestEngine (p50/p99 over 50 starts), reset() time (p50/p99
// over 50 resets, each after a deployment and 20 instances), the 30-day-timer test, and the wall
// time of the kit's own suites (Jest and node:test). Prints, asserts nothing about times.
// The engine: JOBWIRE_ENGINE, else the repository's engine-reference/bin/jobwire-engine.
'use strict'
const { execFileSync } = require('node:child_process')
const path = require('node:path')
const root = path.resolve(__dirname, '..')
process.env.JOBWIRE_ENGINE ??= path.resolve(root, '..', 'engine-reference', 'bin', 'jobwire-engine')
const { startTestEngine } = require(path.join(root, 'lib', 'cjs', 'testing', 'index.js'))
const BPMN = path.resolve(root, '..', 'conformance-tests', 'vectors', 'testkit')

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]
}
const fmt = (xs) => `p50 ${pct(xs, 50).toFixed(1)} ms, p99 ${pct(xs, 99).toFixed(1)} ms (n=${xs.length})`

async function main() {
  const starts = []
  for (let i = 0; i < 50; i++) {
    const t0 = performance.now()
    const e = await startTestEngine()
    starts.push(performance.now() - t0)
    await e.close()
  }
  console.log(`testkit-node: engine start-to-ready (startTestEngine): ${fmt(starts)}`)

  const engine = await startTestEngine()
  try {
    const resets = []
    for (let i = 0; i < 50; i++) {
      await engine.deploy(path.join(BPMN, 'one-task.bpmn'))
      for (let j = 0; j < 20; j++) await engine.createInstance('kit-one-task', { j })
      const t0 = performance.now()
      await engine.reset()
      resets.push(performance.now() - t0)
    }
    console.log(`testkit-node: reset() after a deployment and 20 instances: ${fmt(resets)}`)
    const t0 = performance.now()
    await engine.deploy(path.join(BPMN, 'timer-30d.bpmn'))
    const a = await engine.createInstance('kit-timer-30d', { order: 1 })
    await engine.advanceClock(30 * 24 * 3600 * 1000)
    if ((await engine.completeJobs('kit-remind', { reminded: true })) !== 1) throw new Error('the 30-day timer did not fire')
    await engine.awaitCompleted(a)
    console.log(`testkit-node: 30-day timer test: ${(performance.now() - t0).toFixed(1)} ms`)
  } finally {
    await engine.close()
  }

  const wall = (argv) => {
    const t0 = performance.now()
    execFileSync(argv[0], argv.slice(1), { cwd: root, stdio: 'ignore' })
    return ((performance.now() - t0) / 1000).toFixed(2)
  }
  console.log(`testkit-node: kit suite wall time, Jest (testing.handler + testing.engine, process start included): ${wall(['npx', 'jest', '--ci', 'test/testing.handler.test.ts', 'test/testing.engine.test.ts'])} s`)
  console.log(`testkit-node: kit suite wall time, node:test (test/node): ${wall(['node', '--test', 'test/node/'])} s`)
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
