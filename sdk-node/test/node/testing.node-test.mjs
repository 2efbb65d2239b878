// The test kit under node:test (no Jest), from the built package through its "./testing" export
// (npm run build first; scripts/test.sh does). The engine: JOBWIRE_ENGINE, else the repository's.
import { after, before, beforeEach, test } from 'node:test'
import assert from 'node:assert/strict'
import * as path from 'node:path'
import { fileURLToPath } from 'node:url'
import { JobError } from '@jobwire/sdk'
import { makeJob, runHandler, startTestEngine } from '@jobwire/sdk/testing'

const here = path.dirname(fileURLToPath(import.meta.url))
process.env.JOBWIRE_ENGINE ??= path.resolve(here, '..', '..', '..', 'engine-reference', 'bin', 'jobwire-engine')
const bpmn = (f) => path.resolve(here, '..', '..', '..', 'conformance-tests', 'vectors', 'testkit', f)

test('runHandler: completed with the handler variables', async () => {
  const r = await runHandler(async (job) => ({ doubled: job.variables.n * 2 }), makeJob({ variables: { n: 21 } }))
  assert.equal(r.outcome, 'completed')
  assert.deepEqual(r.variables, { doubled: 42 })
})

test('runHandler: a JobError is a BPMN error', async () => {
  const r = await runHandler(async () => { throw new JobError('NOPE', 'no') }, makeJob())
  assert.equal(r.outcome, 'bpmnError')
  assert.equal(r.errorCode, 'NOPE')
})

let engine
before(async () => { engine = await startTestEngine() })
beforeEach(() => engine.reset())
after(() => engine?.close())

test('TestEngine: a 30-day timer fires on advanceClock', async () => {
  await engine.deploy(bpmn('timer-30d.bpmn'))
  const a = await engine.createInstance('kit-timer-30d', { order: 7 })
  assert.equal((await engine.jobs('kit-remind')).length, 0)
  await engine.advanceClock(30 * 24 * 3600 * 1000)
  assert.equal(await engine.completeJobs('kit-remind', { reminded: true }), 1)
  const vars = await engine.awaitCompleted(a)
  assert.equal(vars.order, 7)
  assert.equal(vars.reminded, true)
})
