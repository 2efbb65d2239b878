"""A typed worker end to end on the reference engine (127.0.0.1, free port): the derived
fetchVariables reach the gateway (only the declared variables arrive), a typed result completes
the job, and an instance with an invalid variable has its job failed by the default retry policy
(retries - 1, about 1 s back-off) with the field in the message, the handler never called."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from typing import Any, List, Tuple

import grpc

from jobwire import Client, Job, JobRouter
from conftest import one_task_bpmn, unique
from engine import Engine
from test_engine_view import admin_pb  # noqa: F401 - the fixture

__all__ = ["admin_pb"]


@dataclasses.dataclass
class Order:
    orderId: str
    amount: float


@dataclasses.dataclass
class Receipt:
    orderId: str
    total: float


TP = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


def test_typed_worker_end_to_end(engine: Engine, admin_pb: Tuple[Any, Any]) -> None:  # noqa: F811
    pb, pbg = admin_pb
    channel = grpc.insecure_channel(engine.address)
    admin = pbg.AdminServiceStub(channel)
    jt, pid = unique("typed"), unique("p")
    seen: List[Job] = []
    orders: List[Order] = []
    mw_log: List[str] = []

    async def outer(job: Job, nxt: Any) -> Any:
        mw_log.append(f"outer:{job.key}")
        return await nxt()

    router = JobRouter(middleware=[outer])

    @router.job(jt, stream_enabled=False)
    async def charge(order: Order, job: Job) -> Receipt:
        seen.append(job)
        orders.append(order)
        return Receipt(order.orderId, order.amount * 2)

    async def go() -> None:
        async with Client(address=engine.address) as client:
            await client.deploy_resource((f"{pid}.bpmn", one_task_bpmn(pid, jt, retries=3)))
            workers = client.include_router(router)
            assert [w.options.fetch_variables for w in workers] == [("orderId", "amount", "traceparent")]
            res = await client.create_process_instance_with_result(
                pid, variables={"orderId": "o1", "amount": 2.5, "secret": "not fetched", "traceparent": TP}, request_timeout=20
            )
            assert res.variables["total"] == 5.0 and res.variables["orderId"] == "o1"
            assert seen[0].variables == {"orderId": "o1", "amount": 2.5, "traceparent": TP}  # only the derived variables
            assert orders == [Order("o1", 2.5)]

            bad = await client.create_process_instance(pid, variables={"orderId": "o2", "amount": "lots"})
            end = time.monotonic() + 20
            job = None
            while time.monotonic() < end:
                jobs = admin.ListJobs(pb.ListJobsRequest(type=jt, include_jobs=True)).jobs
                mine = [j for j in jobs if j.process_instance_key == bad.process_instance_key and j.fail_count >= 1]
                if mine:
                    job = mine[0]
                    break
                await asyncio.sleep(0.05)
            assert job is not None, "the invalid instance's job was not failed"
            failed_at_ms = time.time() * 1000
            assert "invalid input" in job.error_message and "amount" in job.error_message, job.error_message
            assert job.retries == 2
            assert 500 <= job.retry_at - failed_at_ms <= 1200, job.retry_at - failed_at_ms  # default policy: ~1 s
            assert [o.orderId for o in orders] == ["o1"]  # the handler never saw o2
            assert len(mw_log) >= 2  # the middleware ran around both jobs
            for w in workers:
                await w.close(5)

    try:
        asyncio.run(asyncio.wait_for(go(), 90))
    finally:
        channel.close()
