// prometheus serves the worker's OpenTelemetry metrics to Prometheus:
// @jobwire/sdk records its metrics (jobwire.worker.jobs.handled, ...) through
// the OpenTelemetry API; this program registers a meter provider whose reader
// is the Prometheus exporter, serves /metrics on 127.0.0.1, deploys
// examples/bpmn/order-fulfilment.bpmn and handles its four job types until
// SIGINT or SIGTERM. @opentelemetry/sdk-metrics and
// @opentelemetry/exporter-prometheus are this example's dependencies, not jobwire's.
//
//   npm ci && ZEEBE_ADDRESS=127.0.0.1:26500 node index.js
//   curl -s http://127.0.0.1:9464/metrics | grep jobwire_
//
// OTEL_EXPORTER_PROMETHEUS_PORT (default 9464; 0 = a free port) and
// OTEL_EXPORTER_PROMETHEUS_HOST (default 127.0.0.1) choose the address; BPMN
// the process to deploy (default ../../bpmn/order-fulfilment.bpmn).
'use strict'
const http = require('node:http')
const path = require('node:path')
const { metrics } = require('@opentelemetry/api')
const { MeterProvider } = require('@opentelemetry/sdk-metrics')
const { PrometheusExporter } = require('@opentelemetry/exporter-prometheus')
const { Client, JobError } = require('@jobwire/sdk')

const DECLINED_CARD = '4000000000000002' // the test card the payment handler declines
const log = (msg) => console.error(`prometheus (node): ${msg}`)

const workers = {
  payment: async (job) => {
    if (job.variables.card === DECLINED_CARD) {
      // counted as outcome="error": a BPMN error, caught by the boundary event
      throw new JobError('PAYMENT_DECLINED', 'card declined')
    }
    return { paid: true, paymentId: `pay-${job.variables.orderId}` }
  },
  inventory: async () => ({ reserved: true }),
  shipping: async (job) => ({ shippingMethod: job.customHeaders.method, trackingNumber: `TRK-${job.key}` }),
  'notify-customer': async (job) => ({ notified: job.customHeaders.template }),
}

async function main() {
  // 1. The OpenTelemetry metrics SDK with the Prometheus exporter: a reader that
  // collects on every scrape. The SDK advises bucket bounds in seconds for the
  // handler duration. This exporter does not append unit suffixes, so the view gives
  // the histogram the name the Go, Python and Java exporters give it:
  // jobwire_worker_job_duration_seconds (without the view: jobwire_worker_job_duration).
  const exporter = new PrometheusExporter({ preventServerStart: true }) // served below
  const provider = new MeterProvider({
    readers: [exporter],
    views: [{
      instrumentName: 'jobwire.worker.job.duration',
      name: 'jobwire.worker.job.duration_seconds',
    }],
  })
  metrics.setGlobalMeterProvider(provider) // before the client: its workers take their meter from it

  // 2. /metrics on 127.0.0.1:9464 (Prometheus scrapes it). The exporter can also
  // serve it alone (new PrometheusExporter({ host, port })).
  const host = process.env.OTEL_EXPORTER_PROMETHEUS_HOST || '127.0.0.1'
  const server = http.createServer((req, res) => {
    if (req.url === '/metrics' || req.url.startsWith('/metrics?')) return exporter.getMetricsRequestHandler(req, res)
    res.statusCode = 404
    res.end()
  })
  await new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(Number(process.env.OTEL_EXPORTER_PROMETHEUS_PORT || 9464), host, resolve)
  })
  log(`metrics on http://${host}:${server.address().port}/metrics`)

  // 3. A client and the order workers, as usual: they use the global provider.
  const client = new Client() // ZEEBE_ADDRESS etc., else 127.0.0.1:26500
  await client.deployFiles(process.env.BPMN || path.join(__dirname, '..', '..', 'bpmn', 'order-fulfilment.bpmn'))
  for (const [jobType, worker] of Object.entries(client.startWorkers(workers))) {
    worker.on('error', (err) => log(`${jobType}: ${err.message}`))
  }

  let stopping = false
  const shutdown = async () => {
    if (stopping) return
    stopping = true
    await client.close({ timeoutMs: 10_000 }) // stops taking jobs, lets running handlers finish
    server.close()
    await provider.shutdown()
    log('stopped')
  }
  process.on('SIGINT', shutdown)
  process.on('SIGTERM', shutdown)
}

main().catch((err) => {
  console.error('prometheus (node):', err)
  process.exit(1)
})
