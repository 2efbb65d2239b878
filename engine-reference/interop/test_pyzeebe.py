"""pyzeebe 4.7.0 against jobwire-engine (issue 3 and 4 interop requirement).

Runs twice: against `jobwire-engine dev --port 0` (1,000 instances) and
against a multi-process `jobwire-engine cluster` (2 gateways, 3 brokers,
6 partitions; 500 instances, client on gateway 0 and worker on gateway 1 so
pushes and jobs-available notifications cross processes). Deploys a BPMN with
pyzeebe, creates the instances with pyzeebe, completes them with a pyzeebe
worker (push stream enabled, so both push and long polling are exercised),
and checks through the engine's admin API that every instance COMPLETED
exactly once with the worker's output variables.
"""
import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import grpc
import pytest
from pyzeebe import ZeebeClient, ZeebeWorker, create_insecure_channel

HERE = Path(__file__).resolve().parent
ENGINE = Path(os.environ.get("JOBWIRE_ENGINE_BIN", HERE.parent / "bin" / "jobwire-engine"))
sys.path.insert(0, str(HERE.parent / "cluster"))
from jobwire_cluster import JobwireCluster, load_admin_stubs  # noqa: E402


@pytest.fixture(scope="module", params=["dev", "cluster"])
def engine(request):
    """(client address, worker address, admin address, instances)."""
    if request.param == "dev":
        for addr in _dev():
            yield addr, addr, addr, 1000
        return
    with JobwireCluster(gateways=2, brokers=3, partitions=6, engine_bin=ENGINE) as cluster:
        print(f"cluster ready in {cluster.startup_seconds:.3f}s", flush=True)
        yield cluster.gateways[0], cluster.gateways[1], cluster.admin_address, 500


def _dev():
    """A fresh engine process; killed at teardown whatever happens."""
    if not ENGINE.exists():
        pytest.fail(f"engine binary {ENGINE} missing (run `make engine`)")
    data = tempfile.mkdtemp(prefix="jobwire-pyzeebe-")
    proc = subprocess.Popen([str(ENGINE), "dev", "--port", "0", "--data-dir", data, "--exit-on-stdin-close"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=sys.stderr, text=True)
    try:
        deadline = time.time() + 15
        addr = None
        while time.time() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            m = re.search(r"listening on (127\.0\.0\.1:\d+)", line)
            if m:
                addr = m.group(1)
                break
        if addr is None:
            pytest.fail("jobwire-engine did not start")
        yield addr
    finally:
        proc.kill()
        proc.wait(timeout=10)


def test_pyzeebe_instances(engine):
    client_addr, worker_addr, admin_addr, INSTANCES = engine
    admin_pb2, admin_pb2_grpc = load_admin_stubs()
    admin = admin_pb2_grpc.AdminServiceStub(grpc.insecure_channel(admin_addr))

    async def scenario():
        channel = create_insecure_channel(grpc_address=client_addr)
        worker_channel = create_insecure_channel(grpc_address=worker_addr)
        client = ZeebeClient(channel)
        deployment = await client.deploy_resource(str(HERE / "pyzeebe-task.bpmn"))
        assert deployment.deployments[0].bpmn_process_id == "pyzeebe-interop"

        # pyzeebe sleeps poll_retry_delay seconds whenever max_running_jobs
        # are in hand (pushed jobs count too), so keep both generous.
        worker = ZeebeWorker(worker_channel, name="pyzeebe-interop", stream_enabled=True, poll_retry_delay=1)
        handled = []

        @worker.task(task_type="pyzeebe-work", max_jobs_to_activate=64, max_running_jobs=1000)
        async def work(n: int, big: int) -> dict:
            handled.append(n)
            return {"doubled": n * 2, "big_back": big}

        worker_task = asyncio.create_task(worker.work())
        try:
            keys = []
            t0 = time.time()
            for start in range(0, INSTANCES, 100):
                batch = await asyncio.gather(*[
                    client.run_process("pyzeebe-interop", variables={"n": i, "big": 9007199254740993})
                    for i in range(start, min(start + 100, INSTANCES))])
                keys.extend(r.process_instance_key for r in batch)
            assert len(set(keys)) == INSTANCES
            print(f"created {INSTANCES} instances in {time.time() - t0:.1f}s", flush=True)
            deadline = time.time() + 90
            while time.time() < deadline:
                r = admin.ListProcessInstances(admin_pb2.ListProcessInstancesRequest(bpmn_process_id="pyzeebe-interop"))
                if r.counts_by_state.get("COMPLETED", 0) == INSTANCES:
                    print(f"all completed after {time.time() - t0:.1f}s", flush=True)
                    break
                if os.environ.get("DEBUG_INTEROP"):
                    st = admin.ListStreams(admin_pb2.ListStreamsRequest())
                    lp = admin.ListLongPolls(admin_pb2.ListLongPollsRequest())
                    rc = admin.GetRequestCounts(admin_pb2.GetRequestCountsRequest())
                    print(dict(r.counts_by_state), [(x.jobs_pushed, x.jobs_yielded, x.ready) for x in st.streams], len(lp.long_polls),
                          [(c.method, c.count, dict(c.by_code)) for c in rc.counts], flush=True)
                await asyncio.sleep(0.2 if not os.environ.get("DEBUG_INTEROP") else 2)
            return keys, handled
        finally:
            await worker.stop()
            worker_task.cancel()
            try:
                await worker_task
            except (asyncio.CancelledError, Exception):
                pass
            await channel.close()
            await worker_channel.close()

    keys, handled = asyncio.run(scenario())
    r = admin.ListProcessInstances(admin_pb2.ListProcessInstancesRequest(bpmn_process_id="pyzeebe-interop", include_instances=True))
    assert r.counts_by_state.get("COMPLETED", 0) == INSTANCES, dict(r.counts_by_state)
    assert {i.key for i in r.instances} == set(keys)
    for inst in r.instances:
        assert inst.completion_count == 1
        v = json.loads(inst.variables)
        assert v["doubled"] == v["n"] * 2
        assert v["big_back"] == 9007199254740993  # int64 beyond 2^53 survives both ways
    jobs = admin.ListJobs(admin_pb2.ListJobsRequest(type="pyzeebe-work", include_jobs=True))
    assert len(jobs.jobs) == INSTANCES
    assert all(j.complete_count == 1 for j in jobs.jobs)
    assert sorted(handled) == list(range(INSTANCES)) or len(handled) >= INSTANCES
