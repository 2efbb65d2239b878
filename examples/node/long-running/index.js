// long-running shows autoExtend: the handler works longer than the job
// timeout, and the worker keeps extending the job's deadline (UpdateJobTimeout)
// so the engine never hands the job to another worker. The program deploys a
// one-task process, runs two workers (as two replicas would), starts an
// instance, waits for its result and exits.
//
//   ZEEBE_ADDRESS=127.0.0.1:26500 node index.js     # JOB_TIMEOUT_MS=2000 WORK_DURATION_MS=5000 by default
'use strict'
const { setTimeout: sleep } = require('node:timers/promises')
const { Client } = require('@jobwire/sdk')

const PROCESS = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0"
                  id="Definitions_Report" targetNamespace="http://jobwire.dev/examples">
  <bpmn:process id="monthly-report" isExecutable="true">
    <bpmn:startEvent id="Start" />
    <bpmn:sequenceFlow id="f1" sourceRef="Start" targetRef="Generate" />
    <bpmn:serviceTask id="Generate" name="Generate the report">
      <bpmn:extensionElements><zeebe:taskDefinition type="generate-report" retries="1" /></bpmn:extensionElements>
    </bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="Generate" targetRef="End" />
    <bpmn:endEvent id="End" />
  </bpmn:process>
</bpmn:definitions>`

async function main() {
  const jobTimeoutMs = Number(process.env.JOB_TIMEOUT_MS || 2000)
  const workMs = Number(process.env.WORK_DURATION_MS || 5000)
  const client = new Client() // ZEEBE_ADDRESS etc., else 127.0.0.1:26500
  process.once('SIGINT', () => client.close().then(() => process.exit(130)))
  process.once('SIGTERM', () => client.close().then(() => process.exit(143)))
  await client.deployResource({ name: 'monthly-report.bpmn', content: PROCESS })

  // Two workers, as if two replicas of your service were running: without
  // autoExtend the job would time out and the other replica would run it again.
  let runs = 0
  for (const workerName of ['replica-1', 'replica-2']) {
    client.createWorker({
      jobType: 'generate-report',
      workerName,
      jobTimeoutMs,
      autoExtend: true, // extend the deadline while the handler runs
      handler: async (job, { signal }) => {
        runs++
        console.error(`long-running (node): ${workerName} got job ${job.key}: working for ${workMs} ms (job timeout ${jobTimeoutMs} ms)`)
        await sleep(workMs, undefined, { signal }) // aborted if the worker's close timeout runs out
        return { report: 'ready', by: workerName }
      },
    })
  }

  const start = Date.now()
  const res = await client.createProcessInstanceWithResult({ bpmnProcessId: 'monthly-report', requestTimeoutMs: workMs + 30_000 })
  const took = (Date.now() - start) / 1000
  console.log(`instance ${res.processInstanceKey} completed after ${took.toFixed(1)}s (job timeout ${jobTimeoutMs / 1000}s): ` +
    `the handler ran ${runs} time(s), variables ${res.variablesJson}`)
  await client.close()
  if (runs !== 1) {
    console.error(`long-running (node): the job was handled ${runs} times: the deadline was not extended`)
    process.exitCode = 1
  }
}

main().catch((err) => {
  console.error('long-running (node):', err)
  process.exit(1)
})
