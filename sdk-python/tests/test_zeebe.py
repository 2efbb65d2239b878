"""Against the real Zeebe engine (tools/zeebe-engine, Zeebe 8.8 in memory): 500 one-task
instances complete through a jobwire worker (push + poll), int64 variables intact.
The launcher is started here (127.0.0.1, free port) and always stopped; it is skipped only
with JOBWIRE_SKIP_ZEEBE=1 (visible in the test summary), never silently."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import threading
import time
from typing import Iterator, List, Set

import pytest

from jobwire import Client, Job
from conftest import one_task_bpmn, unique
from engine import ROOT

LAUNCHER = ROOT / "tools" / "zeebe-engine" / "start.sh"


@pytest.fixture(scope="module")
def zeebe() -> Iterator[str]:
    if os.environ.get("JOBWIRE_SKIP_ZEEBE") == "1":
        pytest.skip("JOBWIRE_SKIP_ZEEBE=1")
    if os.environ.get("JOBWIRE_ZEEBE_ADDRESS"):
        yield os.environ["JOBWIRE_ZEEBE_ADDRESS"]
        return
    assert LAUNCHER.exists(), f"{LAUNCHER} missing"
    proc = subprocess.Popen([str(LAUNCHER), "--port", "0"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    found: List[str] = []
    ev = threading.Event()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            m = re.search(r"listening on (127\.0\.0\.1:\d+)", line)
            if m:
                found.append(m.group(1))
                ev.set()
        ev.set()

    threading.Thread(target=pump, daemon=True).start()
    try:
        ev.wait(240)
        if not found:
            pytest.fail("the Zeebe launcher did not come up within 240 s")
        yield found[0]
    finally:
        proc.kill()
        proc.wait(timeout=20)


def test_500_instances_complete_on_real_zeebe(zeebe: str) -> None:
    async def go() -> None:
        async with Client(address=zeebe) as client:
            jt, pid = unique("zeebe-py"), unique("zeebe_py").replace("-", "_")
            d = await client.deploy_resource((f"{pid}.bpmn", one_task_bpmn(pid, jt)))
            assert d.deployments[0].process.bpmnProcessId == pid
            done: Set[int] = set()
            activations: Set[str] = set()

            async def handler(job: Job) -> dict:
                activations.add(job.activation)
                done.add(job.process_instance_key)
                return {"big": 2**60 + 7}

            w = client.worker(jt, handler)
            created: List[int] = []
            for i in range(0, 500, 50):
                batch = await asyncio.gather(*(client.create_process_instance(pid, variables={"i": i + k}) for k in range(50)))
                created.extend(b.processInstanceKey for b in batch)
            end = time.monotonic() + 90
            while len(done) < 500 and time.monotonic() < end:
                await asyncio.sleep(0.05)
            assert set(created) <= done, f"{len(set(created) - done)} of 500 instances not handled"
            res = await client.create_process_instance_with_result(pid, request_timeout=20)
            assert res.variables["big"] == 2**60 + 7
            await w.close(2)

    asyncio.run(asyncio.wait_for(go(), 150))
