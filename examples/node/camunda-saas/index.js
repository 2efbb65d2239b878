// camunda-saas connects a worker to a Camunda 8 SaaS cluster (or any Zeebe
// gateway behind OAuth) with client credentials, prints the cluster topology
// and handles jobs of JOB_TYPE until Ctrl-C.
//
// Create an API client in the Camunda console (scope Zeebe) and export what it shows:
//
//   export ZEEBE_ADDRESS=<cluster-id>.<region>.zeebe.camunda.io:443
//   export ZEEBE_CLIENT_ID=...  ZEEBE_CLIENT_SECRET=...
//   export ZEEBE_AUTHORIZATION_SERVER_URL=https://login.cloud.camunda.io/oauth/token   # the default
//   export ZEEBE_TOKEN_AUDIENCE=zeebe.camunda.io                                       # the default
//   node index.js
//
// `new Client()` alone would read the same variables; the options are spelled
// out here to show them. TLS is on because the address is not loopback.
'use strict'
const { Client, UnauthenticatedError } = require('@jobwire/sdk')

function must(name) {
  const v = process.env[name]
  if (!v) {
    console.error(`${name} is not set (see the comment at the top of index.js)`)
    process.exit(2)
  }
  return v
}
const log = (msg) => console.log(`${new Date().toISOString().slice(11, 19)} ${msg}`)

async function main() {
  const address = must('ZEEBE_ADDRESS')
  const client = new Client({
    address,
    oauth: {
      clientId: must('ZEEBE_CLIENT_ID'),
      clientSecret: must('ZEEBE_CLIENT_SECRET'),
      authorizationServerUrl: process.env.ZEEBE_AUTHORIZATION_SERVER_URL || 'https://login.cloud.camunda.io/oauth/token',
      audience: process.env.ZEEBE_TOKEN_AUDIENCE || 'zeebe.camunda.io',
    },
  })
  const stop = async () => {
    await client.close({ timeoutMs: 10_000 }) // stops taking jobs, lets running handlers finish
    log('stopped')
    process.exit(0)
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)

  let topo
  try {
    topo = await client.topology() // fetches a token, then calls the gateway
  } catch (err) {
    if (err instanceof UnauthenticatedError) console.error('the gateway refused the token: check the client id, secret and audience')
    throw err
  }
  log(`connected to ${address}: gateway ${topo.gatewayVersion}, ${topo.brokers.length} broker(s), ${topo.partitionsCount} partition(s)`)

  const jobType = process.env.JOB_TYPE || 'hello'
  client.createWorker({
    jobType,
    handler: async (job) => {
      log(`job ${job.key} of process ${job.bpmnProcessId}`)
      return { handledBy: 'jobwire' }
    },
  })
  log(`handling "${jobType}" jobs; Ctrl-C to stop`)
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
