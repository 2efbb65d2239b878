// otel-console shows the worker's OpenTelemetry traces: @jobwire/sdk records a
// span "process job <type>" per job through the OpenTelemetry API; this
// program registers a tracer provider with the console exporter, deploys a
// one-task process, runs one instance and prints the span. The OpenTelemetry
// SDK (@opentelemetry/sdk-trace-base) is this example's dependency, not jobwire's.
//
//   npm install && ZEEBE_ADDRESS=127.0.0.1:26500 node index.js
'use strict'
const { trace } = require('@opentelemetry/api')
const { BasicTracerProvider, SimpleSpanProcessor, ConsoleSpanExporter } = require('@opentelemetry/sdk-trace-base')
const { Client } = require('@jobwire/sdk')

const PROCESS = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0"
                  id="Definitions_Greeting" targetNamespace="http://jobwire.dev/examples">
  <bpmn:process id="greeting" isExecutable="true">
    <bpmn:startEvent id="Start" />
    <bpmn:sequenceFlow id="f1" sourceRef="Start" targetRef="SendGreeting" />
    <bpmn:serviceTask id="SendGreeting" name="Send a greeting">
      <bpmn:extensionElements><zeebe:taskDefinition type="send-greeting" /></bpmn:extensionElements>
    </bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="SendGreeting" targetRef="End" />
    <bpmn:endEvent id="End" />
  </bpmn:process>
</bpmn:definitions>`

async function main() {
  // 1. The OpenTelemetry SDK: every span is printed when it ends.
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new ConsoleSpanExporter())] })
  trace.setGlobalTracerProvider(provider)

  // 2. A client and a worker, as usual: they use the global provider.
  const client = new Client()
  await client.deployResource({ name: 'greeting.bpmn', content: PROCESS })
  client.createWorker({
    jobType: 'send-greeting',
    handler: async (job) => ({ greeting: `Hello, ${job.variables.name}` }),
  })
  const res = await client.createProcessInstanceWithResult({ bpmnProcessId: 'greeting', variables: { name: 'Ada' } })
  await client.close() // the span ends when the job's outcome is sent
  await provider.shutdown() // flushes the spans
  console.error(`otel-console (node): instance ${res.processInstanceKey} completed with ${res.variablesJson}`)
}

main().catch((err) => {
  console.error('otel-console (node):', err)
  process.exit(1)
})
