// The workers of order-worker, one per job type of examples/bpmn/order-fulfilment.bpmn
// (index.js starts them; test/ tests their handlers with @jobwire/sdk/testing).
'use strict'
const { JobError, defineWorker } = require('@jobwire/sdk')
const { z } = require('zod')

const DECLINED_CARD = '4000000000000002' // the test card the payment handler declines

// The input of the payment step: checked before the handler runs (a job without a string
// orderId fails with "jobwire: invalid input: orderId: ..."), and only these variables are fetched.
const Payment = z.object({ orderId: z.string(), amount: z.number(), card: z.string() })
// The shipping step's task header.
const ShippingHeaders = z.object({ method: z.enum(['express', 'standard']) })

const workers = {
  payment: defineWorker({
    variables: Payment,
    handler: async (job) => {
      const { orderId, card } = job.variables
      if (card === DECLINED_CARD) {
        // A BPMN error: caught by the PaymentDeclined boundary event.
        throw new JobError('PAYMENT_DECLINED', 'card declined', { declineReason: 'insufficient funds' })
      }
      return { paid: true, paymentId: `pay-${orderId}` } // completes the job with these variables
    },
  }),
  inventory: async () => ({ reserved: true }), // a plain handler: every variable, nothing checked
  shipping: defineWorker({
    customHeaders: ShippingHeaders,
    handler: async (job) => ({ shippingMethod: job.customHeaders.method, trackingNumber: `TRK-${job.key}` }),
  }),
  'notify-customer': async (job) => ({ notified: job.customHeaders.template }),
}

/** The handler functions alone (what the handler tests run). */
const handlers = Object.fromEntries(Object.entries(workers).map(([type, w]) => [type, typeof w === 'function' ? w : w.handler]))

module.exports = { workers, handlers, DECLINED_CARD }
