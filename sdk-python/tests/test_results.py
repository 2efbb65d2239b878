"""The client's commands return the SDK's own frozen dataclasses (never protocol classes), and
jobs from activate_jobs are the same Job a handler gets, settled through the client."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest

import jobwire
from jobwire import Client
from conftest import one_task_bpmn, unique
from engine import Engine


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 90))


def _plain(value: Any) -> None:
    """Only the SDK's dataclasses, tuples, dicts and plain scalars: no generated message inside."""
    if dataclasses.is_dataclass(value):
        assert type(value).__module__ == "jobwire.results", type(value)
        for f in dataclasses.fields(value):
            _plain(getattr(value, f.name))
    elif isinstance(value, (tuple, list)):
        for v in value:
            _plain(v)
    elif isinstance(value, dict):
        for v in value.values():
            _plain(v)
    else:
        assert isinstance(value, (int, str, float, bool, type(None))), type(value)


def test_commands_return_frozen_dataclasses_and_jobs(engine: Engine) -> None:
    async def go() -> None:
        async with Client(address=engine.address) as client:
            topo = await client.topology()
            _plain(topo)
            assert isinstance(topo, jobwire.Topology) and topo.partitions_count >= 1
            assert topo.brokers and topo.brokers[0].partitions[0].role in ("LEADER", "FOLLOWER", "INACTIVE")
            with pytest.raises(dataclasses.FrozenInstanceError):
                topo.cluster_size = 9  # type: ignore[misc]

            jt, pid = unique("direct"), unique("p")
            dep = await client.deploy_resource((f"{pid}.bpmn", one_task_bpmn(pid, jt)))
            _plain(dep)
            assert isinstance(dep, jobwire.Deployment) and dep.key > 0
            assert [p.bpmn_process_id for p in dep.processes] == [pid]

            inst = await client.create_process_instance(pid, variables={"n": 1})
            _plain(inst)
            assert isinstance(inst, jobwire.ProcessInstance) and inst.bpmn_process_id == pid and inst.process_instance_key > 0
            assert isinstance(await client.publish_message("nobody-waits", "k"), int)
            assert isinstance(await client.set_variables(inst.process_instance_key, {"m": 2}), int)

            jobs = []
            while not jobs:
                jobs = await client.activate_jobs(jt, max_jobs=1, job_timeout=30, request_timeout=1)
            job = jobs[0]
            assert isinstance(job, jobwire.Job) and job.activation == "poll" and job.variables == {"n": 1, "m": 2}
            await job.complete({"done": True})
            with pytest.raises(jobwire.JobwireError):
                await job.complete()  # one outcome per job, nothing sent
            with pytest.raises(jobwire.NotFoundError):
                await client.complete_job(job.key)  # the first completion landed

    run(go())
