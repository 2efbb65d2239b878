"""otel-console shows the worker's OpenTelemetry traces: jobwire records a span
"process job <type>" per job through the OpenTelemetry API; this program installs a
tracer provider with the console exporter, deploys a one-task process, runs one
instance and prints the span. The OpenTelemetry SDK (opentelemetry-sdk) is this
example's dependency, not jobwire's.

    ZEEBE_ADDRESS=127.0.0.1:26500 python main.py
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any, Dict

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SimpleSpanProcessor

from jobwire import Client, Job

PROCESS = b"""<?xml version="1.0" encoding="UTF-8"?>
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
</bpmn:definitions>"""


async def greet(job: Job) -> Dict[str, Any]:
    return {"greeting": f"Hello, {job.variables['name']}"}


async def main() -> None:
    # 1. The OpenTelemetry SDK: every span is printed when it ends.
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter()))
    trace.set_tracer_provider(provider)

    # 2. A client and a worker, as usual: they use the global provider.
    async with Client() as client:
        await client.deploy_resource(("greeting.bpmn", PROCESS))
        client.worker("send-greeting", greet)
        res = await client.create_process_instance_with_result("greeting", variables={"name": "Ada"})
    # closing the client ended the span (its outcome was sent); flush the exporter
    provider.shutdown()
    print(f"otel-console (python): instance {res.process_instance_key} completed with {res.variables_json}", file=sys.stderr)


if __name__ == "__main__":
    asyncio.run(main())
