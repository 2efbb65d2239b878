"""Conformance driver (conformance-tests/DRIVER-CONTRACT.md) for pyzeebe, the community Python
client the issue names as Python's official-client peer (pinned in bench/requirements.txt,
installed in the bench venv). Started by conformance-tests/peers/official-python/run. Each contract step is written as a pyzeebe user writes it: a task function taking
``job: Job`` whose return value completes the job, exceptions routed through an exception handler
that fails the job (retries − 1, the worker's back-off) or throws a BPMN error. Nothing pyzeebe
lacks is added: no worker states, spans or metrics, no UpdateJobTimeout (not in its public API),
no auto-extension.

pyzeebe has no "client from the environment" constructor: it reads ZEEBE_ADDRESS and the OAuth
variables through its own helpers (``create_insecure_channel()``, ``create_oauth2_client_credentials_channel()``
with their defaults); TLS and the CA file are read here, the way its documentation has users do it.
"""

import asyncio
import json
import os
import sys
import time
from importlib.metadata import version
from typing import Any

import grpc
from pyzeebe import Job, JobController, ZeebeWorker, create_insecure_channel, create_secure_channel
from pyzeebe.channel.oauth_channel import create_oauth2_client_credentials_channel


def emit(event: str, **fields: Any) -> None:
    sys.stdout.write(json.dumps({"t": time.time() * 1000, "event": event, **fields}) + "\n")
    sys.stdout.flush()


def log(*a: Any) -> None:
    print("[official-python]", *a, file=sys.stderr, flush=True)


def make_channel() -> grpc.aio.Channel:
    if os.getenv("ZEEBE_CLIENT_ID"):
        creds = None
        if os.getenv("ZEEBE_CA_CERTIFICATE_PATH"):
            with open(os.environ["ZEEBE_CA_CERTIFICATE_PATH"], "rb") as f:
                creds = grpc.ssl_channel_credentials(root_certificates=f.read())
        return create_oauth2_client_credentials_channel(channel_credentials=creds) if creds else \
            create_oauth2_client_credentials_channel()
    if os.getenv("ZEEBE_INSECURE_CONNECTION", "").lower() == "true":
        return create_insecure_channel()
    root = key = chain = None
    if os.getenv("ZEEBE_CA_CERTIFICATE_PATH"):
        root = open(os.environ["ZEEBE_CA_CERTIFICATE_PATH"], "rb").read()
    if os.getenv("ZEEBE_CLIENT_CERTIFICATE_PATH") and os.getenv("ZEEBE_CLIENT_PRIVATE_KEY_PATH"):
        chain = open(os.environ["ZEEBE_CLIENT_CERTIFICATE_PATH"], "rb").read()
        key = open(os.environ["ZEEBE_CLIENT_PRIVATE_KEY_PATH"], "rb").read()
    return create_secure_channel(channel_credentials=grpc.ssl_channel_credentials(root, key, chain))


class Gate:
    """The counting gate of `block` steps, opened by `release`."""

    def __init__(self) -> None:
        self.permits = 0
        self.waiters: list[asyncio.Future[None]] = []

    async def wait(self) -> None:
        if self.permits > 0:
            self.permits -= 1
            return
        f: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.waiters.append(f)
        await f

    def release(self, count: int | None) -> int:
        if count is None:
            n = len(self.waiters)
            for f in self.waiters:
                if not f.done():
                    f.set_result(None)
            self.waiters = []
            return n
        n = count
        while n > 0 and self.waiters:
            f = self.waiters.pop(0)
            if not f.done():
                f.set_result(None)
            n -= 1
        self.permits += n
        return count


class Thrown(Exception):
    def __init__(self, code: str, message: str, variables: dict[str, Any] | None) -> None:
        super().__init__(message)
        self.code, self.message, self.variables = code, message, variables


class Crash(TypeError):
    pass


class Driver:
    def __init__(self) -> None:
        self.channel = make_channel()
        self.workers: dict[str, tuple[ZeebeWorker, asyncio.Task[None], Gate]] = {}

    def start_worker(self, cmd: dict[str, Any]) -> None:
        wid, o = cmd["id"], cmd.get("options") or {}
        behavior = cmd.get("behavior") or []
        gate = Gate()
        backoff = int(o.get("retryBackOffMs") or 0)
        wkw: dict[str, Any] = {"name": o.get("workerName") or "pyzeebe-worker"}
        if o.get("requestTimeoutMs") is not None:
            wkw["request_timeout"] = int(o["requestTimeoutMs"])
        if o.get("streamEnabled") is not None:
            wkw["stream_enabled"] = bool(o["streamEnabled"])
        if o.get("streamTimeoutMs") is not None:
            wkw["stream_request_timeout"] = max(1, int(o["streamTimeoutMs"]) // 1000)
        if o.get("pollIntervalMs") is not None:
            wkw["poll_retry_delay"] = max(1, round(int(o["pollIntervalMs"]) / 1000))

        async def on_exception(e: Exception, job: Job, ctl: JobController) -> None:
            try:
                if isinstance(e, Thrown):
                    await ctl.set_error_status(e.message, error_code=e.code, variables=e.variables)
                else:
                    await ctl.set_failure_status(str(e), retry_back_off_ms=backoff)
            except Exception as err:  # noqa: BLE001 - what pyzeebe returns to the application
                emit("error", worker=wid, message=str(err), **code_of(err))

        worker = ZeebeWorker(self.channel, exception_handler=on_exception, **wkw)
        tkw: dict[str, Any] = {}
        if o.get("maxJobsActive") is not None:
            tkw["max_jobs_to_activate"] = int(o["maxJobsActive"])
            tkw["max_running_jobs"] = int(o.get("concurrency") or o["maxJobsActive"])
        elif o.get("concurrency") is not None:
            tkw["max_running_jobs"] = int(o["concurrency"])
        if o.get("jobTimeoutMs") is not None:
            tkw["timeout_ms"] = int(o["jobTimeoutMs"])
        if o.get("fetchVariables"):
            tkw["variables_to_fetch"] = list(o["fetchVariables"])
        if o.get("autoExtend"):
            log("autoExtend: pyzeebe has no automatic job-timeout extension; ignored")

        async def task(job: Job, **_fetched: Any) -> dict[str, Any]:  # pyzeebe passes fetched variables as keywords
            t0 = time.monotonic()
            key = str(job.key)
            emit("job_start", worker=wid, key=key, type=job.type, retries=job.retries,
                 variables=json.dumps(dict(job.variables)), deadline=job.deadline)
            steps = job.variables.get("jwBehavior") if isinstance(job.variables.get("jwBehavior"), list) else behavior
            outcome = "completed"
            try:
                for st in steps:
                    if "sleep" in st:
                        await asyncio.sleep(float(st["sleep"]) / 1000)
                    elif "block" in st:
                        await gate.wait()
                    elif "extendTimeout" in st:
                        log("extendTimeout: pyzeebe's public API has no UpdateJobTimeout; skipped")
                    elif "complete" in st:
                        return st["complete"] or {}
                    elif "completeEcho" in st:
                        return dict(job.variables)
                    elif "fail" in st:
                        outcome = "failed"
                        raise RuntimeError(str(st["fail"]))
                    elif "throwError" in st:
                        outcome = "error"
                        e = st["throwError"] or {}
                        raise Thrown(str(e.get("code", "")), e.get("message", ""), e.get("variables"))
                    elif "crash" in st:
                        outcome = "crashed"
                        raise Crash(str(st["crash"]))
                    else:
                        log("unknown step", st)
                return {}
            except asyncio.CancelledError:
                outcome = "cancelled"
                raise
            finally:
                emit("job_end", worker=wid, key=key, outcome=outcome, durationMs=int((time.monotonic() - t0) * 1000))

        worker.task(task_type=cmd["jobType"], **tkw)(task)
        run = asyncio.ensure_future(self._work(wid, worker))
        self.workers[wid] = (worker, run, gate)
        emit("worker_started", worker=wid)

    async def _work(self, wid: str, worker: ZeebeWorker) -> None:
        try:
            await worker.work()
        except Exception as e:  # noqa: BLE001 - work() raising is what the application sees
            emit("error", worker=wid, message=str(e) or type(e).__name__, **code_of(e))

    async def stop_worker(self, wid: str) -> None:
        entry = self.workers.pop(wid, None)
        if entry is None:
            emit("error", worker=wid, message=f"unknown worker {wid}")
            return
        worker, run, _ = entry
        t0 = time.monotonic()
        await worker.stop()  # pyzeebe's close takes no timeout
        await asyncio.gather(run, return_exceptions=True)
        emit("worker_closed", worker=wid, durationMs=int((time.monotonic() - t0) * 1000))

    async def close_all(self) -> None:
        try:
            await asyncio.wait_for(asyncio.gather(*(self.stop_worker(w) for w in list(self.workers))), 5)
        except asyncio.TimeoutError:
            log("close: workers still busy after 5 s")
        await self.channel.close()


def code_of(e: BaseException) -> dict[str, str]:
    cause = e
    for _ in range(5):
        if isinstance(cause, grpc.aio.AioRpcError):
            return {"code": cause.code().name}
        if cause.__cause__ is None and cause.__context__ is None:
            break
        cause = cause.__cause__ or cause.__context__  # type: ignore[assignment]
    return {}


async def main() -> None:
    d = Driver()
    emit("ready", sdk="official-python", version=version("pyzeebe"))
    loop = asyncio.get_running_loop()
    lines: asyncio.Queue[str] = asyncio.Queue()

    def on_line() -> None:
        line = sys.stdin.readline()
        lines.put_nowait(line)
        if line == "":
            loop.remove_reader(sys.stdin)

    loop.add_reader(sys.stdin, on_line)
    pending: set[asyncio.Task[None]] = set()
    while True:
        line = await lines.get()
        if line == "":
            break
        if not line.strip():
            continue
        try:
            cmd = json.loads(line)
        except ValueError:
            emit("error", message=f"bad command: {line[:200]}")
            continue
        c = cmd.get("cmd")
        if c == "start_worker":
            d.start_worker(cmd)
        elif c == "stop_worker":
            t = asyncio.ensure_future(d.stop_worker(cmd["id"]))
            pending.add(t)
            t.add_done_callback(pending.discard)
        elif c == "release":
            w = d.workers.get(cmd["id"])
            emit("released", worker=cmd["id"], count=w[2].release(cmd.get("count")) if w else 0)
        elif c == "exit":
            break
        else:
            emit("error", message=f"unknown command {c}")
    await d.close_all()
    os._exit(0)


if __name__ == "__main__":
    asyncio.run(main())
