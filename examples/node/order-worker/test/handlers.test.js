// Handler tests of order-worker with the test kit: each handler runs through the worker's own
// execution path (no engine). `npm test`.
'use strict'
const test = require('node:test')
const assert = require('node:assert/strict')
const { makeJob, runHandler } = require('@jobwire/sdk/testing')
const { handlers, DECLINED_CARD } = require('../handlers')

test('payment completes with a payment id', async () => {
  const r = await runHandler(handlers.payment, makeJob({ jobType: 'payment', variables: { orderId: 'o-1', card: '4242424242424242' } }))
  assert.equal(r.outcome, 'completed')
  assert.deepEqual(r.variables, { paid: true, paymentId: 'pay-o-1' })
})

test('payment with the declined test card throws PAYMENT_DECLINED', async () => {
  const r = await runHandler(handlers.payment, makeJob({ jobType: 'payment', variables: { orderId: 'o-2', card: DECLINED_CARD } }))
  assert.equal(r.outcome, 'bpmnError')
  assert.equal(r.errorCode, 'PAYMENT_DECLINED')
  assert.deepEqual(r.variables, { declineReason: 'insufficient funds' })
})

test('shipping and notify-customer read their task headers', async () => {
  const ship = await runHandler(handlers.shipping, makeJob({ jobType: 'shipping', key: '42', customHeaders: { method: 'express' } }))
  assert.deepEqual(ship.variables, { shippingMethod: 'express', trackingNumber: 'TRK-42' })
  const notify = await runHandler(handlers['notify-customer'], makeJob({ customHeaders: { template: 'order-confirmed' } }))
  assert.deepEqual(notify.variables, { notified: 'order-confirmed' })
})
