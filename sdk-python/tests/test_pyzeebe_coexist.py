"""jobwire and pyzeebe in one interpreter: both clients import, and on one reference engine a
pyzeebe worker (first task) and a jobwire worker (second task) complete the jobs of the same
process instances. jobwire registers its gateway_protocol messages in its own descriptor pool,
so pyzeebe's registration in protobuf's default pool does not clash with it."""

from __future__ import annotations

import asyncio
from typing import Any, Dict, List

import pyzeebe
from google.protobuf import descriptor_pool

import jobwire
from conftest import unique
from engine import Engine
from jobwire._proto import gateway_pb2

INSTANCES = 20


def two_task_bpmn(process_id: str, type_a: str, type_b: str) -> bytes:
    """start -> task a (type_a) -> task b (type_b) -> end."""
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="http://jobwire.io/test">
  <bpmn:process id="{process_id}" isExecutable="true">
    <bpmn:startEvent id="start"/>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="a"/>
    <bpmn:serviceTask id="a"><bpmn:extensionElements><zeebe:taskDefinition type="{type_a}" retries="3"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="a" targetRef="b"/>
    <bpmn:serviceTask id="b"><bpmn:extensionElements><zeebe:taskDefinition type="{type_b}" retries="3"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f3" sourceRef="b" targetRef="end"/>
    <bpmn:endEvent id="end"/>
  </bpmn:process>
</bpmn:definitions>""".encode()


def test_both_clients_registered_the_gateway_messages() -> None:
    # pyzeebe's stubs are in the default pool, jobwire's in its own: the same full names twice.
    assert descriptor_pool.Default().FindMessageTypeByName("gateway_protocol.ActivateJobsRequest") is not None
    assert gateway_pb2.ActivateJobsRequest.DESCRIPTOR.full_name == "gateway_protocol.ActivateJobsRequest"
    assert gateway_pb2.DESCRIPTOR.pool is not descriptor_pool.Default()
    assert gateway_pb2.DESCRIPTOR.services_by_name["Gateway"].full_name == "gateway_protocol.Gateway"


def test_pyzeebe_and_jobwire_workers_complete_jobs_in_one_process(engine: Engine) -> None:
    type_a, type_b = unique("pyzeebe-a"), unique("jobwire-b")
    pid = unique("coexist")
    done_a: List[int] = []
    done_b: List[int] = []

    async def go() -> None:
        zchannel = pyzeebe.create_insecure_channel(grpc_address=engine.address)
        zworker = pyzeebe.ZeebeWorker(zchannel, name="pyzeebe-coexist", stream_enabled=True, poll_retry_delay=1)

        @zworker.task(task_type=type_a, max_jobs_to_activate=32, max_running_jobs=100)
        async def task_a(n: int) -> Dict[str, Any]:
            done_a.append(n)
            return {"a": n * 2}

        async with jobwire.Client(address=engine.address) as client:
            await client.deploy_resource((f"{pid}.bpmn", two_task_bpmn(pid, type_a, type_b)))

            async def task_b(job: jobwire.Job) -> Dict[str, Any]:
                done_b.append(job.variables["n"])
                return {"b": job.variables["a"] + 1}

            jworker = client.worker(type_b, task_b, max_jobs_active=8)
            ztask = asyncio.create_task(zworker.work())
            try:
                # half the instances started by jobwire, half by pyzeebe's client
                zclient = pyzeebe.ZeebeClient(zchannel)
                results = await asyncio.gather(
                    *(client.create_process_instance_with_result(pid, variables={"n": i}, request_timeout=30) for i in range(0, INSTANCES, 2)),
                    *(zclient.run_process_with_result(pid, variables={"n": i}, timeout=30_000) for i in range(1, INSTANCES, 2)),
                )
            finally:
                await jworker.close(5)
                await zworker.stop()
                await asyncio.wait_for(ztask, 10)
        for r in results:
            variables = r.variables
            n = variables["n"]
            assert variables["a"] == n * 2 and variables["b"] == n * 2 + 1, variables

    asyncio.run(asyncio.wait_for(go(), 90))
    assert sorted(done_a) == list(range(INSTANCES)), done_a
    assert sorted(done_b) == list(range(INSTANCES)), done_b
