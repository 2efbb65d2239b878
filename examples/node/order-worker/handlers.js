// The handlers of order-worker, one per job type of examples/bpmn/order-fulfilment.bpmn
// (index.js runs them in workers; test/ tests them with @jobwire/sdk/testing).
'use strict'
const { JobError } = require('@jobwire/sdk')

const DECLINED_CARD = '4000000000000002' // the test card the payment handler declines

const handlers = {
  payment: async (job) => {
    const { orderId, card } = job.variables
    if (card === DECLINED_CARD) {
      // A BPMN error: caught by the PaymentDeclined boundary event.
      throw new JobError('PAYMENT_DECLINED', 'card declined', { declineReason: 'insufficient funds' })
    }
    return { paid: true, paymentId: `pay-${orderId}` } // completes the job with these variables
  },
  inventory: async () => ({ reserved: true }),
  shipping: async (job) => ({ shippingMethod: job.customHeaders.method, trackingNumber: `TRK-${job.key}` }),
  'notify-customer': async (job) => ({ notified: job.customHeaders.template }),
}

module.exports = { handlers, DECLINED_CARD }
