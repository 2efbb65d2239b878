"""jobwire.fastapi against the reference engine: FastAPI / Starlette apps (driven by Starlette's
TestClient, which runs the ASGI lifespan) whose workers start with the app and close with it.

- jobs complete while the app runs; the health endpoint says UP (200) with the JSON shape of the
  other SDKs' integrations;
- shutdown under load leaves no job stranded (the assertion of the conformance scenario
  lifecycle/close-strands-no-job: no job ACTIVATED, none timed out, every job completed or
  activatable again);
- a killed engine turns health DOWN (503) within the watchdog bound;
- the app's own lifespan runs inside (client there before, workers closed before it ends);
- bad configuration fails the app's startup with ConfigurationError.
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
import time
from typing import Any, AsyncIterator, Dict, List

import grpc
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from jobwire import Client, ConfigurationError, Job, JobRouter
from jobwire._proto import admin_pb2, admin_pb2_grpc
from jobwire.fastapi import JobwireLifespan, health, health_report
from conftest import one_task_bpmn, unique
from engine import Engine


def admin_jobs(address: str, job_type: str) -> List[Any]:
    with grpc.insecure_channel(address) as ch:
        stub = admin_pb2_grpc.AdminServiceStub(ch)  # type: ignore[no-untyped-call]
        r = stub.ListJobs(admin_pb2.ListJobsRequest(type=job_type, include_jobs=True), timeout=10)
        return list(r.jobs)


def state_name(j: Any) -> str:
    return str(admin_pb2.JobState.Name(j.state)).replace("JOB_STATE_", "")


def deploy(address: str, job_type: str) -> str:
    pid = unique("p")

    async def go() -> None:
        async with Client(address=address) as c:
            await c.deploy_resource((f"{pid}.bpmn", one_task_bpmn(pid, job_type)))

    asyncio.run(go())
    return pid


def start_route(pid: str) -> Route:
    """POST /start?n=N creates N instances with the app's own client."""

    async def start(request: Request) -> JSONResponse:
        client: Client = request.app.state.jobwire
        n = int(request.query_params.get("n", "1"))
        keys = [(await client.create_process_instance(pid, variables={"i": i})).process_instance_key for i in range(n)]
        return JSONResponse({"keys": keys})

    return Route("/start", start, methods=["POST"])


def wait_for(cond: Any, timeout: float, what: str) -> float:
    t0 = time.monotonic()
    while not cond():
        if time.monotonic() - t0 > timeout:
            raise AssertionError(f"not within {timeout} s: {what}")
        time.sleep(0.01)
    return time.monotonic() - t0


def test_importing_jobwire_does_not_import_starlette() -> None:
    code = "import jobwire, jobwire.sync, sys; print(sorted(m for m in sys.modules if m.split('.')[0] in ('starlette', 'fastapi', 'anyio', 'httpx')))"
    r = subprocess.run([sys.executable, "-W", "ignore", "-c", code], capture_output=True, text=True, check=True)
    assert r.stdout.strip() == "[]"


def test_fastapi_app_runs_the_workers_and_reports_health(engine: Engine) -> None:
    from fastapi import FastAPI  # a test dependency only (scripts/min-deps.sh runs without it)

    jt = unique("fa-charge")
    pid = deploy(engine.address, jt)
    router = JobRouter(max_jobs_active=8)

    @router.job(jt, worker_name="charger")
    async def charge(i: int) -> Dict[str, Any]:
        return {"charged": i * 2}

    app = FastAPI(lifespan=JobwireLifespan(router, address=engine.address))
    app.add_route("/health/jobwire", health)

    @app.post("/orders/{i}")
    async def order(i: int, request: Request) -> Dict[str, Any]:
        client: Client = request.app.state.jobwire
        res = await client.create_process_instance_with_result(pid, variables={"i": i}, request_timeout=10)
        return res.variables

    with TestClient(app) as http:
        assert isinstance(app.state.jobwire, Client)
        for i in range(20):
            r = http.post(f"/orders/{i}")
            assert r.status_code == 200 and r.json()["charged"] == i * 2, r.text
        wait_for(lambda: http.get("/health/jobwire").json()["workers"][0]["state"] == "streaming", 10, "streaming")
        r = http.get("/health/jobwire")
        assert r.status_code == 200
        assert r.json() == {"status": "UP", "workers": [{"name": "charger", "type": jt, "state": "streaming", "heldJobs": 0}]}
    # after shutdown: the workers are closed, the report says so
    report = health_report(app)
    assert report["status"] == "DOWN" and [w["state"] for w in report["workers"]] == ["closed"]
    jobs = admin_jobs(engine.address, jt)
    assert len(jobs) == 20 and {state_name(j) for j in jobs} == {"COMPLETED"}


def test_shutdown_under_load_strands_no_job(engine: Engine) -> None:
    jt = unique("fa-slow")
    pid = deploy(engine.address, jt)
    router = JobRouter(max_jobs_active=4, job_timeout=60.0, stream_enabled=True)
    started: List[int] = []
    finished: List[int] = []

    @router.job(jt)
    async def slow(job: Job) -> None:
        started.append(job.key)
        await asyncio.sleep(0.4)
        finished.append(job.key)

    app = Starlette(routes=[start_route(pid)], lifespan=JobwireLifespan(router, address=engine.address, close_timeout=5.0))
    t0 = 0.0
    with TestClient(app) as http:
        assert http.post("/start?n=60").status_code == 200
        wait_for(lambda: len(started) >= 6, 10, "handlers under load")
        t0 = time.monotonic()
    closed_in = time.monotonic() - t0

    jobs = admin_jobs(engine.address, jt)
    states = [state_name(j) for j in jobs]
    assert len(jobs) == 60
    assert states.count("ACTIVATED") == 0, states
    assert all(j.timeout_count == 0 for j in jobs)
    assert set(states) <= {"COMPLETED", "ACTIVATABLE"}, states
    assert states.count("ACTIVATABLE") > 0  # the load was real: jobs were handed back
    # every handler that started finished (close_timeout was enough), and its job completed
    completed = {j.key for j in jobs if state_name(j) == "COMPLETED"}
    assert sorted(started) == sorted(finished) and set(finished) == completed
    assert closed_in < 5.0, closed_in


def test_shutdown_with_blocked_handlers_hands_every_job_back(engine: Engine) -> None:
    """The conformance scenario lifecycle/close-strands-no-job through the lifespan: a capacity-2
    push worker whose handlers never finish, 80 jobs of ~1 KiB; the app stops with a 300 ms close
    timeout: every job is activatable again (none ACTIVATED, none timed out), two handlers ran."""
    jt = unique("fa-block")
    pid = deploy(engine.address, jt)
    router = JobRouter(max_jobs_active=2, job_timeout=60.0, stream_enabled=True)
    started: List[int] = []

    @router.job(jt, fetch_variables=[])
    async def blocked(job: Job) -> None:
        started.append(job.key)
        await asyncio.Event().wait()  # never set: cancelled by the close timeout

    async def start(request: Request) -> JSONResponse:
        client: Client = request.app.state.jobwire
        for i in range(80):
            await client.create_process_instance(pid, variables={"i": i, "pad": "x" * 1024})
        return JSONResponse({})

    app = Starlette(routes=[Route("/start", start, methods=["POST"])], lifespan=JobwireLifespan(router, address=engine.address, close_timeout=0.3))
    with TestClient(app) as http:
        wait_for(lambda: health_report(app)["workers"][0]["state"] == "streaming", 10, "streaming")
        assert http.post("/start").status_code == 200
        wait_for(lambda: len(started) >= 2, 10, "two handlers running")
        time.sleep(0.5)
        t0 = time.monotonic()
    closed_in = time.monotonic() - t0
    jobs = admin_jobs(engine.address, jt)
    states = [state_name(j) for j in jobs]
    assert len(jobs) == 80 and states.count("ACTIVATABLE") == 80, states
    assert all(j.timeout_count == 0 for j in jobs)
    assert len(started) == 2 and closed_in < 3.0, (started, closed_in)


def test_health_goes_down_when_the_engine_dies(own_engine: Engine) -> None:
    jt = unique("fa-health")
    deploy(own_engine.address, jt)
    router = JobRouter()

    @router.job(jt)
    async def noop(job: Job) -> None:
        return None

    keep_alive = 1.0
    app = Starlette(routes=[Route("/health/jobwire", health)], lifespan=JobwireLifespan(router, address=own_engine.address, keep_alive=keep_alive, close_timeout=1.0))
    with TestClient(app) as http:
        wait_for(lambda: http.get("/health/jobwire").status_code == 200 and http.get("/health/jobwire").json()["workers"][0]["state"] == "streaming", 10, "UP")
        own_engine.stop()  # killed
        bound = keep_alive * (1 + 20 / 45)
        took = wait_for(lambda: http.get("/health/jobwire").status_code == 503, bound, "DOWN after the engine died")
        body = http.get("/health/jobwire").json()
        assert body["status"] == "DOWN" and body["workers"][0]["state"] == "backoff", body
        print(f"health DOWN {took:.3f} s after the engine was killed (bound {bound:.2f} s)")


def test_composes_with_the_apps_own_lifespan(engine: Engine) -> None:
    jt = unique("fa-compose")
    pid = deploy(engine.address, jt)
    router = JobRouter()
    events: List[str] = []

    @router.job(jt)
    async def work(job: Job) -> None:
        events.append("handled")

    @contextlib.asynccontextmanager
    async def own(app: Any) -> AsyncIterator[Dict[str, Any]]:
        client = app.state.jobwire
        assert isinstance(client, Client) and client.workers == []  # client there, workers not yet
        events.append("own-start")

        async def audit(job: Job) -> None:
            return None

        client.worker(unique("fa-own"), audit)  # a worker the app adds itself
        yield {"greeting": "hello"}
        assert all(w.closed for w in client._workers) and len(client._workers) == 2  # every worker closed first
        assert not client._closed  # the client closes after
        events.append("own-stop")

    async def greet(request: Request) -> JSONResponse:
        return JSONResponse({"greeting": request.state.greeting, "workers": len(request.app.state.jobwire.workers)})

    app = Starlette(routes=[Route("/greet", greet), start_route(pid)], lifespan=JobwireLifespan(router, address=engine.address, lifespan=own))
    with TestClient(app) as http:
        assert http.get("/greet").json() == {"greeting": "hello", "workers": 2}
        http.post("/start?n=1")
        wait_for(lambda: "handled" in events, 10, "job handled")
    assert events == ["own-start", "handled", "own-stop"]
    assert app.state.jobwire._closed


def test_bad_configuration_fails_startup(engine: Engine) -> None:
    router = JobRouter()

    @router.job(unique("fa-bad"))
    async def never(job: Job) -> None:
        raise AssertionError("must not run")

    entered: List[str] = []

    @contextlib.asynccontextmanager
    async def own(app: Any) -> AsyncIterator[None]:
        entered.append("own")
        yield

    app = Starlette(lifespan=JobwireLifespan(router, address=engine.address, keep_alive=-1, lifespan=own))
    with pytest.raises(ConfigurationError, match="keep_alive"):
        with TestClient(app):
            pass
    assert entered == []  # the app never started

    # the app's own startup fails after the client was created: the client is closed again
    made: List[Client] = []

    def factory() -> Client:
        made.append(Client(address=engine.address))
        return made[-1]

    @contextlib.asynccontextmanager
    async def broken(app: Any) -> AsyncIterator[None]:
        raise RuntimeError("database down")
        yield

    app2 = Starlette(lifespan=JobwireLifespan(router, client_factory=factory, lifespan=broken))
    with pytest.raises(RuntimeError, match="database down"):
        with TestClient(app2):
            pass
    assert len(made) == 1 and made[0]._closed and made[0].workers == []

    with pytest.raises(ConfigurationError, match="not both"):
        JobwireLifespan(router, client_factory=factory, address=engine.address)
    with pytest.raises(ConfigurationError, match="JobRouter"):
        JobwireLifespan(object())  # type: ignore[arg-type]


def test_health_before_startup_is_down() -> None:
    app = Starlette(routes=[Route("/health/jobwire", health)])
    with TestClient(app) as http:
        r = http.get("/health/jobwire")
    assert r.status_code == 503 and r.json() == {"status": "DOWN", "workers": []}
    # a client without workers is UP
    async def go() -> Dict[str, Any]:
        async with Client(address="127.0.0.1:1") as c:
            app.state.jobwire = c
            return health_report(app)

    assert asyncio.run(go()) == {"status": "UP", "workers": []}
