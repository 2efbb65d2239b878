// Process tests of order-fulfilment.bpmn with the real handlers in real workers, on an engine the
// test kit starts (@jobwire/engine, or the binary named by JOBWIRE_ENGINE). `npm test`.
'use strict'
const test = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { startTestEngine } = require('@jobwire/sdk/testing')
const { workers: definitions, DECLINED_CARD } = require('../handlers')

const BPMN = path.join(__dirname, '..', '..', '..', 'bpmn', 'order-fulfilment.bpmn')
let engine
let workers = []
test.before(async () => { engine = await startTestEngine() })
test.beforeEach(async () => {
  await engine.reset()
  await engine.deploy(BPMN)
  workers = Object.values(engine.client.startWorkers(definitions))
})
test.afterEach(() => Promise.all(workers.map((w) => w.close())))
test.after(() => engine.close())

test('a paid order over 100 ships express and is confirmed', async () => {
  const order = await engine.createInstance('order-fulfilment', { orderId: 'o-1', amount: 250, card: '4242424242424242' })
  const vars = await engine.awaitCompleted(order)
  assert.equal(vars.paymentId, 'pay-o-1')
  assert.equal(vars.reserved, true)
  assert.equal(vars.shippingMethod, 'express')
  assert.equal(vars.notified, 'order-confirmed')
})

test('a declined card ends in the declined branch', async () => {
  const order = await engine.createInstance('order-fulfilment', { orderId: 'o-2', amount: 20, card: DECLINED_CARD })
  const vars = await engine.awaitCompleted(order)
  assert.equal(vars.notified, 'payment-declined')
  assert.equal(vars.paid, undefined)
})
