// order-worker handles the jobs of examples/bpmn/order-fulfilment.bpmn with
// the jobwire Node SDK (@jobwire/sdk).
//
//   ZEEBE_ADDRESS=127.0.0.1:26500 node index.js                 # all four job types
//   JOB_TYPES=inventory,notify-customer node index.js           # only some
//
// The SDK reads ZEEBE_ADDRESS, ZEEBE_CLIENT_ID, ... (docs/configuration.md);
// this program reads JOB_TYPES, MAX_JOBS_ACTIVE and STATS_INTERVAL_MS (print a
// JSON stats line to stdout that often). SIGINT / SIGTERM close it gracefully.
'use strict'
const { Client } = require('@jobwire/sdk')
const { workers: definitions } = require('./handlers')
const { Stats } = require('./stats')

const log = (msg) => console.error(`order-worker (node): ${msg}`)
const types = (process.env.JOB_TYPES || Object.keys(definitions).join(',')).split(',').map((t) => t.trim())
const maxJobsActive = Number(process.env.MAX_JOBS_ACTIVE || 32)

const selected = {}
for (const jobType of types) {
  if (!definitions[jobType]) {
    log(`JOB_TYPES: unknown job type "${jobType}"`)
    process.exit(2)
  }
  selected[jobType] = definitions[jobType]
}

const client = new Client() // ZEEBE_ADDRESS etc., else 127.0.0.1:26500
const stats = new Stats('node')
// every worker of the group: the stats middleware around its handler, the same capacity
const workers = client.startWorkers(selected, { middleware: [stats.middleware()], defaults: { maxJobsActive } })
let waiting = types.length
for (const [jobType, worker] of Object.entries(workers)) {
  worker.on('error', (err) => log(`${jobType}: ${err.message}`))
  let streaming = false
  worker.on('state', (state) => {
    if (state === 'streaming' && !streaming) {
      streaming = true
      if (--waiting === 0) log(`ready: handling ${types.join(', ')}`)
    }
  })
}

const interval = Number(process.env.STATS_INTERVAL_MS || 0)
const timer = interval > 0 ? setInterval(() => stats.print(false), interval) : undefined

let stopping = false
async function shutdown(signal) {
  if (stopping) return
  stopping = true
  log(`${signal}: shutting down`)
  if (timer) clearInterval(timer)
  await client.close({ timeoutMs: 10_000 }) // stops taking jobs, lets running handlers finish
  stats.print(true)
  process.exit(0)
}
process.on('SIGINT', shutdown)
process.on('SIGTERM', shutdown)
