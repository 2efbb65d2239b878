"""long-running shows auto_extend: the handler works longer than the job timeout,
and the worker keeps extending the job's deadline (UpdateJobTimeout) so the engine
never hands the job to another worker. The program deploys a one-task process, runs
two workers (as two replicas would), starts an instance, waits for its result and exits.

    ZEEBE_ADDRESS=127.0.0.1:26500 python main.py    # JOB_TIMEOUT_MS=2000 WORK_DURATION_MS=5000 by default
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from typing import Any, Dict

from jobwire import Client, Job

PROCESS = b"""<?xml version="1.0" encoding="UTF-8"?>
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
</bpmn:definitions>"""


async def main() -> int:
    job_timeout = int(os.environ.get("JOB_TIMEOUT_MS", "2000")) / 1000
    work = int(os.environ.get("WORK_DURATION_MS", "5000")) / 1000
    runs = 0
    async with Client() as client:  # ZEEBE_ADDRESS etc., else 127.0.0.1:26500
        await client.deploy_resource(("monthly-report.bpmn", PROCESS))

        # Two workers, as if two replicas of your service were running: without
        # auto_extend the job would time out and the other replica would run it again.
        for name in ("replica-1", "replica-2"):

            async def handler(job: Job, name: str = name) -> Dict[str, Any]:
                nonlocal runs
                runs += 1
                print(f"long-running (python): {name} got job {job.key}: working for {work:g} s (job timeout {job_timeout:g} s)", file=sys.stderr)
                await asyncio.sleep(work)  # cancelled if the worker's close timeout runs out
                return {"report": "ready", "by": name}

            client.worker("generate-report", handler, worker_name=name, job_timeout=job_timeout, auto_extend=True)

        start = time.monotonic()
        res = await client.create_process_instance_with_result("monthly-report", request_timeout=work + 30)
        took = time.monotonic() - start
        print(
            f"instance {res.process_instance_key} completed after {took:.1f}s (job timeout {job_timeout:g}s): "
            f"the handler ran {runs} time(s), variables {res.variables_json}"
        )
    if runs != 1:
        print(f"long-running (python): the job was handled {runs} times: the deadline was not extended", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
