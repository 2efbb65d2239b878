"""Integration tests against a real `jobwire-engine dev` (started by the fixtures on
127.0.0.1 and a free port, always stopped)."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any, Dict, List

import pytest

import jobwire
from jobwire import Client, Job, JobError, WorkerState
from conftest import one_task_bpmn, unique
from engine import Engine


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 90))


async def deploy(client: Client, job_type: str, **kw: Any) -> str:
    pid = unique("p")
    await client.deploy_resource((f"{pid}.bpmn", one_task_bpmn(pid, job_type, **kw)))
    return pid


async def wait_for(cond: Any, timeout: float = 15.0, what: str = "condition") -> None:
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


def test_poll_worker_completes_with_lossless_variables(engine: Engine) -> None:
    async def go() -> None:
        async with Client(address=engine.address) as client:
            jt = unique("poll")
            pid = await deploy(client, jt)
            seen: List[Job] = []

            async def handler(job: Job) -> Dict[str, Any]:
                seen.append(job)
                return {"out": job.variables["id"] + 1, "raw": job.variables_json}

            w = client.worker(jt, handler, stream_enabled=False, max_jobs_active=4)
            big = 2**60 + 7
            res = await client.create_process_instance_with_result(pid, variables={"id": big}, request_timeout=20)
            assert res.variables["out"] == big + 1 and isinstance(res.variables["out"], int)
            assert '"id":1152921504606846983' in res.variables_json.replace(" ", "")
            assert seen[0].activation == "poll" and seen[0].retries == 3 and seen[0].bpmn_process_id == pid
            assert seen[0].deadline > time.time() * 1000
            assert w.state == WorkerState.POLLING
            await w.close(5)
            assert w.state == WorkerState.CLOSED

    run(go())


def test_push_worker_receives_streamed_jobs(engine: Engine) -> None:
    async def go() -> None:
        async with Client(address=engine.address) as client:
            jt = unique("push")
            pid = await deploy(client, jt)
            activations: List[str] = []

            async def handler(job: Job) -> None:
                activations.append(job.activation)

            w = client.worker(jt, handler, max_jobs_active=8)
            await wait_for(lambda: w.state == WorkerState.STREAMING, what="streaming")
            await asyncio.sleep(0.3)  # the backfill poll has parked
            results = await asyncio.gather(*(client.create_process_instance_with_result(pid, request_timeout=20) for _ in range(20)))
            assert len(results) == 20
            assert activations.count("push") >= 15, activations  # the stream delivers new jobs
            await w.close(5)

    run(go())


def test_capacity_bounds_held_jobs_with_slow_handler(engine: Engine) -> None:
    async def go() -> None:
        async with Client(address=engine.address) as client:
            jt = unique("slow")
            pid = await deploy(client, jt)
            running = 0
            peak = 0
            held_peak = 0

            async def handler(job: Job) -> None:
                nonlocal running, peak
                running += 1
                peak = max(peak, running)
                await asyncio.sleep(0.15)
                running -= 1

            w = client.worker(jt, handler, max_jobs_active=3)

            async def sample() -> None:
                nonlocal held_peak
                while True:
                    held_peak = max(held_peak, w.held_jobs)
                    await asyncio.sleep(0.005)

            s = asyncio.ensure_future(sample())
            await asyncio.gather(*(client.create_process_instance_with_result(pid, request_timeout=30) for _ in range(15)))
            s.cancel()
            assert peak <= 3 and held_peak <= 3, (peak, held_peak)
            assert peak >= 2  # it did run jobs in parallel
            await w.close(5)

    run(go())


def test_sync_handlers_run_in_threads_without_blocking_the_loop(engine: Engine) -> None:
    async def go() -> None:
        async with Client(address=engine.address) as client:
            jt = unique("sync")
            pid = await deploy(client, jt)
            threads = set()

            def handler(job: Job) -> Dict[str, Any]:
                threads.add(threading.get_ident())
                time.sleep(0.4)  # blocking
                return {"done": True}

            w = client.worker(jt, handler, max_jobs_active=4, stream_enabled=False)
            t0 = time.monotonic()
            ticks = 0

            async def tick() -> None:
                nonlocal ticks
                while True:
                    ticks += 1
                    await asyncio.sleep(0.01)

            tk = asyncio.ensure_future(tick())
            rs = await asyncio.gather(*(client.create_process_instance_with_result(pid, request_timeout=20) for _ in range(4)))
            elapsed = time.monotonic() - t0
            tk.cancel()
            assert all(r.variables["done"] is True for r in rs)
            assert threading.get_ident() not in threads and len(threads) >= 2
            assert elapsed < 1.6, elapsed  # four 0.4 s handlers ran in parallel
            assert ticks > elapsed / 0.01 * 0.3  # the event loop kept running
            await w.close(5)

    run(go())


def test_outcomes_fail_retries_and_bpmn_error(engine: Engine) -> None:
    async def go() -> None:
        async with Client(address=engine.address) as client:
            jt = unique("outcome")
            pid = await deploy(client, jt, error_boundary="E42")
            retries_seen: List[int] = []

            async def handler(job: Job) -> Any:
                retries_seen.append(job.retries)
                if job.variables.get("mode") == "bpmn":
                    raise JobError("E42", "declined", variables={"why": "limit"})
                if job.retries > 1:
                    raise RuntimeError("transient")
                return {"finally": job.retries}

            w = client.worker(jt, handler, stream_enabled=False)
            res = await client.create_process_instance_with_result(pid, variables={"mode": "fail"}, request_timeout=30)
            assert res.variables["finally"] == 1 and retries_seen == [3, 2, 1]
            # Caught by the error boundary event: the instance completes (an uncaught error would
            # raise an incident), with one handler call and no retry. Zeebe scopes the error's
            # variables to the boundary event, so they are not in the result.
            res2 = await client.create_process_instance_with_result(pid, variables={"mode": "bpmn"}, request_timeout=30)
            assert res2.process_instance_key > 0 and retries_seen == [3, 2, 1, 3]
            await w.close(5)

    run(go())


def test_manual_mode_outcome_methods_report_truthfully(engine: Engine) -> None:
    async def go() -> None:
        async with Client(address=engine.address) as client:
            jt = unique("manual")
            pid = await deploy(client, jt)
            errors: List[BaseException] = []

            async def handler(job: Job) -> None:
                await job.complete({"m": 1})
                try:
                    await job.complete({"m": 2})  # a second outcome sends nothing and raises
                except jobwire.JobwireError as e:
                    errors.append(e)
                with pytest.raises(jobwire.InvalidVariablesError):
                    await job.fail(variables=[1, 2])  # type: ignore[arg-type]

            w = client.worker(jt, handler, auto_complete=False, stream_enabled=False)
            res = await client.create_process_instance_with_result(pid, request_timeout=20)
            assert res.variables["m"] == 1
            await wait_for(lambda: len(errors) == 1, what="second outcome refused")
            with pytest.raises(jobwire.NotFoundError):
                await client.complete_job(2**60 + 7)
            await w.close(5)

    run(go())


def test_close_is_fast_and_hands_back_unstarted_and_cancelled_jobs(engine: Engine) -> None:
    async def go() -> None:
        async with Client(address=engine.address) as client:
            jt = unique("close")
            pid = await deploy(client, jt)
            started: List[int] = []
            cancelled: List[int] = []

            async def blocked(job: Job) -> None:
                started.append(job.key)
                try:
                    await asyncio.sleep(60)
                except asyncio.CancelledError:
                    cancelled.append(job.key)
                    raise

            # idle worker with a parked 30 s long poll closes in well under a second
            idle = client.worker(unique("idle"), blocked, request_timeout=30, stream_enabled=False)
            await asyncio.sleep(0.5)
            t0 = time.monotonic()
            await idle.close(5)
            assert time.monotonic() - t0 < 1.0

            inst = [await client.create_process_instance(pid) for _ in range(3)]
            w = client.worker(jt, blocked, max_jobs_active=4, concurrency=1, stream_enabled=False)
            await wait_for(lambda: len(started) == 1 and w.held_jobs == 3, what="3 held, 1 running")
            t0 = time.monotonic()
            await w.close(0.3)
            assert 0.25 < time.monotonic() - t0 < 2.0
            assert cancelled == started
            # every job is activatable again at once, retries unchanged
            retries: List[int] = []

            async def done(job: Job) -> None:
                retries.append(job.retries)

            w2 = client.worker(jt, done, stream_enabled=False)
            await wait_for(lambda: len(retries) == 3, timeout=5, what="redelivery")
            assert retries == [3, 3, 3] and len(inst) == 3
            await w2.close(5)

    run(go())


def test_gateway_restart_backoff_then_recovery(own_engine: Engine) -> None:
    async def go() -> None:
        async with Client(address=own_engine.address) as client:
            jt = unique("restart")
            pid = await deploy(client, jt)
            states: List[str] = []
            done: List[int] = []

            async def handler(job: Job) -> None:
                done.append(job.key)

            w = client.worker(jt, handler)
            w.on_state(lambda s: states.append(s.value))
            await client.create_process_instance_with_result(pid, request_timeout=20)
            own_engine.stop()
            await wait_for(lambda: "backoff" in states, what="backoff")
            await asyncio.sleep(1.0)
            own_engine.restart()
            await wait_for(lambda: w.state == WorkerState.STREAMING, timeout=15, what="streaming again")
            res = await client.create_process_instance_with_result(pid, request_timeout=20)
            assert res.process_instance_key > 0 and len(done) >= 2
            assert w.state != WorkerState.CLOSED
            await w.close(5)

    run(go())


def test_oauth_client_credentials(tmp_path: Any) -> None:
    e = Engine(tmp_path / "data", ["--oauth"])
    try:
        assert e.oauth_url

        async def go() -> None:
            env = {
                "ZEEBE_ADDRESS": e.address,
                "ZEEBE_CLIENT_ID": "jobwire",
                "ZEEBE_CLIENT_SECRET": "secret",
                "ZEEBE_AUTHORIZATION_SERVER_URL": e.oauth_url,
                "ZEEBE_TOKEN_AUDIENCE": "zeebe-api",
            }
            async with Client(env=env) as client:
                topo = await client.topology()
                assert topo.partitions_count >= 1
            async with Client(address=e.address, env={}) as anon:
                with pytest.raises(jobwire.UnauthenticatedError):
                    await anon.topology()

        run(go())
    finally:
        e.stop()


def test_sync_facade(engine: Engine) -> None:
    from jobwire.sync import Client as SyncClient

    with SyncClient(address=engine.address) as client:
        jt = unique("facade")
        pid = unique("p")
        client.deploy_resource((f"{pid}.bpmn", one_task_bpmn(pid, jt)))
        w = client.worker(jt, lambda job: {"n": job.variables["n"] * 2}, max_jobs_active=2)
        res = client.create_process_instance_with_result(pid, variables={"n": 21}, request_timeout=20)
        assert res.variables["n"] == 42
        w.close(5)
        assert w.state == WorkerState.CLOSED


def test_paused_push_worker_parks_few_jobs_and_close_strands_none(engine: Engine) -> None:
    """A full worker stops reading its stream; close drains it and hands every job back."""

    async def go() -> None:
        async with Client(address=engine.address) as client:
            jt = unique("parked")
            pid = await deploy(client, jt)
            gate = asyncio.Event()
            started: List[int] = []

            async def blocked(job: Job) -> None:
                started.append(job.key)
                await gate.wait()

            w = client.worker(jt, blocked, max_jobs_active=1, request_timeout=1)
            await wait_for(lambda: w.state == WorkerState.STREAMING, what="streaming")
            await asyncio.sleep(0.3)
            n = 120
            await asyncio.gather(*(client.create_process_instance(pid, variables={"pad": "x" * 1024}) for _ in range(n)))
            await asyncio.sleep(1.5)
            assert len(started) == 1 and w.held_jobs == 1
            t0 = time.monotonic()
            await w.close(0.2)
            assert time.monotonic() - t0 < 2.0
            back: List[Any] = []
            end = time.monotonic() + 3
            while len(back) < n and time.monotonic() < end:
                back.extend(await client.activate_jobs(jt, max_jobs=n, job_timeout=60, request_timeout=0.3))
            assert len(back) == n, f"{n - len(back)} jobs stranded after close"
            assert all(j.retries == 3 for j in back)  # handed back with retries unchanged

    run(go())


def test_many_workers_spread_over_long_call_connections(engine: Engine) -> None:
    """40 workers on one client: 2 long-call connections (32 workers each at most), one command
    channel; every worker gets its jobs; closing them closes the connections."""

    async def go() -> None:
        async with Client(address=engine.address) as client:
            types = [unique(f"many{i}") for i in range(40)]
            pids = [await deploy(client, t) for t in types]
            seen: Dict[str, int] = {}

            async def handler(job: Job) -> None:
                seen[job.type] = seen.get(job.type, 0) + 1

            workers = [client.worker(t, handler, max_jobs_active=2) for t in types]
            assert client._transport.long_connections == 2
            await asyncio.gather(*(client.create_process_instance_with_result(p, request_timeout=20) for p in pids))
            assert set(seen) == set(types)
            await asyncio.gather(*(w.close(2) for w in workers))
            await asyncio.sleep(0)
            assert client._transport.long_connections == 0

    run(go())


def test_result_over_4_mib_fails_the_job_clearly_and_worker_goes_on(engine: Engine) -> None:
    async def go() -> None:
        async with Client(address=engine.address) as client:
            jt = unique("huge")
            pid = await deploy(client, jt)
            errors: List[BaseException] = []

            async def handler(job: Job) -> Dict[str, Any]:
                if job.retries == 3:
                    return {"pad": "x" * (5 * 1024 * 1024)}  # too large for one gRPC message
                return {"small": job.retries}

            w = client.worker(jt, handler, stream_enabled=False)
            w.on_error(errors.append)
            res = await client.create_process_instance_with_result(pid, request_timeout=20)
            assert res.variables["small"] == 2  # failed with retries - 1, then completed
            assert len(errors) == 1 and isinstance(errors[0], jobwire.InvalidVariablesError)
            assert "4 MiB" in str(errors[0])
            await w.close(2)

    run(go())


def test_close_with_sync_handlers_cooperative_and_stuck(engine: Engine) -> None:
    """Sync handlers cannot be interrupted: one watching job.cancel_event stops and its job is
    handed back; one that ignores it is abandoned after the 1 s grace, its job handed back too,
    and close returns without waiting for it."""

    async def go() -> None:
        async with Client(address=engine.address) as client:
            jt = unique("syncclose")
            pid = await deploy(client, jt)
            running: List[int] = []

            def handler(job: Job) -> Dict[str, Any]:
                running.append(job.key)
                if job.variables.get("cooperative"):
                    job.cancel_event.wait(30)
                    raise RuntimeError("stopped")
                time.sleep(3)  # ignores the cancellation
                return {"late": True}

            await client.create_process_instance(pid, variables={"cooperative": True})
            await client.create_process_instance(pid, variables={"cooperative": False})
            w = client.worker(jt, handler, stream_enabled=False, max_jobs_active=2)
            await wait_for(lambda: len(running) == 2, what="both handlers running")
            t0 = time.monotonic()
            await w.close(0.2)
            took = time.monotonic() - t0
            assert 1.0 <= took < 2.5, took  # timeout + 1 s grace, not the stuck handler's 3 s
            retries: List[int] = []

            async def again(job: Job) -> None:
                retries.append(job.retries)

            w2 = client.worker(jt, again, stream_enabled=False)
            await wait_for(lambda: len(retries) == 2, timeout=5, what="both jobs handed back")
            assert retries == [3, 3]  # no retry burnt by the shutdown
            await w2.close(1)
            await asyncio.sleep(2.5)  # the stuck handler returns later: nothing is sent for it

    run(go())


SYNC_SCRIPT = """
from jobwire.sync import Client
with Client() as client:
    client.worker("sigterm-sync", lambda job: {"ok": True})
    print("ready", flush=True)
    client.run_workers(close_timeout=2)
print("exited cleanly", flush=True)
"""

ASYNC_SCRIPT = """
import asyncio
from jobwire import Client
async def main():
    async with Client() as client:
        async def h(job):
            return {"ok": True}
        client.worker("sigterm-async", h)
        print("ready", flush=True)
        await client.run_workers(close_timeout=2)
    print("exited cleanly", flush=True)
asyncio.run(main())
"""


@pytest.mark.parametrize("script", [SYNC_SCRIPT, ASYNC_SCRIPT], ids=["sync", "async"])
def test_run_workers_closes_gracefully_on_sigterm(engine: Engine, tmp_path: Any, script: str) -> None:
    import os
    import signal
    import subprocess
    import sys

    f = tmp_path / "w.py"
    f.write_text(script)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ZEEBE_", "CAMUNDA_"))}
    env["ZEEBE_ADDRESS"] = engine.address
    p = subprocess.Popen([sys.executable, str(f)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert p.stdout is not None
        assert p.stdout.readline().strip() == "ready"
        time.sleep(0.5)
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=15)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 0, err
    assert "exited cleanly" in out


def test_a_pushed_job_makes_two_tasks_its_handlers_and_its_outcome_call(engine: Engine) -> None:
    """The stream is read in its session's own task: a pushed job makes the task its handler runs
    in and grpc's task for its CompleteJob call, no task (nor waiter) for the read. The instances
    are created from another thread's event loop, so every task counted here is the worker's."""

    async def go() -> None:
        loop = asyncio.get_running_loop()
        made: List[str] = []
        counting = [False]

        def factory(lp: asyncio.AbstractEventLoop, coro: Any, **kw: Any) -> "asyncio.Task[Any]":
            if counting[0]:
                made.append(getattr(coro, "__qualname__", repr(coro)))
            return asyncio.Task(coro, loop=lp, **kw)

        loop.set_task_factory(factory)
        async with Client(address=engine.address) as client:
            jt = unique("tasks")
            pid = await deploy(client, jt)
            done: List[str] = []

            async def handler(job: Job) -> None:
                done.append(job.activation)

            w = client.worker(jt, handler, max_jobs_active=8)
            await wait_for(lambda: w.state == WorkerState.STREAMING, what="streaming")

            def create(n: int) -> None:
                async def many() -> None:
                    async with Client(address=engine.address) as c:
                        for _ in range(n):
                            await c.create_process_instance(pid)

                asyncio.run(many())

            await asyncio.to_thread(create, 1)
            await wait_for(lambda: len(done) == 1, what="the first job")
            await asyncio.sleep(0.3)  # the backfill poll after the stream opened has ended
            n = 60
            counting[0] = True
            await asyncio.to_thread(create, n)
            await wait_for(lambda: len(done) == n + 1, what="all jobs")
            await asyncio.sleep(0.2)
            counting[0] = False
            pushed = done[1:].count("push")
            await w.close(5)
        assert pushed >= n - 5, done
        # n jobs: n handler tasks and n CompleteJob calls; a few more for a poll in between
        assert len(made) <= 2 * n + 4, sorted(set(made))

    run(go())
