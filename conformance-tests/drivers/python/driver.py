#!/usr/bin/env python3
"""jobwire conformance driver for Python: runs workers with the jobwire SDK's public API
under the runner's control (JSON lines: commands on stdin, events on stdout).
Connection settings come only from the SDK's own environment variables."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import os
import sys
import time
from typing import Any, Dict, List, Optional, TypedDict

import jobwire
from jobwire import Client, Job, JobError, JobRouter, JobwireError, NonRetryableError, exponential_backoff


logging.basicConfig(stream=sys.stderr, level=logging.DEBUG, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
logging.getLogger("asyncio").setLevel(logging.WARNING)


def emit(event: str, **fields: Any) -> None:
    fields = {k: v for k, v in fields.items() if v is not None}
    sys.stdout.write(json.dumps({"t": time.time() * 1000, "event": event, **fields}) + "\n")
    sys.stdout.flush()


def log(*a: Any) -> None:
    sys.stderr.write("[driver-python] " + " ".join(str(x) for x in a) + "\n")
    sys.stderr.flush()


# --- optional OpenTelemetry (the driver's dependency, never the SDK's) -------------------
class Otel:
    def __init__(self) -> None:
        from opentelemetry import metrics, trace
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import InMemoryMetricReader
        from opentelemetry.sdk.trace import SpanProcessor, TracerProvider

        class Emitter(SpanProcessor):
            def on_end(self, span: Any) -> None:
                parent = span.parent
                emit(
                    "span",
                    name=span.name,
                    kind=span.kind.name,
                    attributes=dict(span.attributes or {}),
                    status=span.status.status_code.name,
                    traceId=format(span.context.trace_id, "032x"),
                    spanId=format(span.context.span_id, "016x"),
                    parentSpanId=format(parent.span_id, "016x") if parent is not None else None,
                )

        tp = TracerProvider()
        tp.add_span_processor(Emitter())
        trace.set_tracer_provider(tp)
        self.reader = InMemoryMetricReader()
        metrics.set_meter_provider(MeterProvider(metric_readers=[self.reader]))

    def report(self) -> None:
        from opentelemetry.sdk.metrics.export import Gauge, Histogram, Sum

        out: List[Dict[str, Any]] = []
        data = self.reader.get_metrics_data()
        for rm in (data.resource_metrics if data else []):
            for sm in rm.scope_metrics:
                for m in sm.metrics:
                    d = m.data
                    if isinstance(d, Histogram):
                        typ = "histogram"
                        points = [{"attributes": dict(p.attributes or {}), "value": {"count": p.count, "sum": p.sum}} for p in d.data_points]
                    else:
                        typ = "counter" if isinstance(d, Sum) else "gauge" if isinstance(d, Gauge) else type(d).__name__
                        points = [{"attributes": dict(p.attributes or {}), "value": p.value} for p in d.data_points]
                    out.append({"name": m.name, "type": typ, "points": points})
        emit("metrics", metrics=out)


otel: Optional[Otel] = Otel() if os.environ.get("JOBWIRE_DRIVER_OTEL") == "1" else None


class Gate:
    """Counting gate for `block` steps, opened by `release` commands."""

    def __init__(self) -> None:
        self.permits = 0
        self.waiters: List["asyncio.Future[None]"] = []

    async def wait(self) -> None:
        if self.permits > 0:
            self.permits -= 1
            return
        fut: "asyncio.Future[None]" = asyncio.get_running_loop().create_future()
        self.waiters.append(fut)
        try:
            await fut
        finally:
            if fut in self.waiters:
                self.waiters.remove(fut)

    def release(self, count: Optional[int]) -> int:
        n = len(self.waiters) if count is None else count
        released = 0
        while n > 0 and self.waiters:
            f = self.waiters.pop(0)
            if not f.done():
                f.set_result(None)
            n -= 1
            released += 1
        if count is not None:
            self.permits += n
            return count
        return released


class Crash(TypeError):
    """An unexpected exception type (the `crash` step)."""


OPTION_MAP = {
    "workerName": ("worker_name", None),
    "maxJobsActive": ("max_jobs_active", None),
    "concurrency": ("concurrency", None),
    "jobTimeoutMs": ("job_timeout", 1000),
    "requestTimeoutMs": ("request_timeout", 1000),
    "pollIntervalMs": ("poll_interval", 1000),
    "streamEnabled": ("stream_enabled", None),
    "streamTimeoutMs": ("stream_timeout", 1000),
    "fetchVariables": ("fetch_variables", None),
    "autoExtend": ("auto_extend", None),
    "retryBackOffMs": ("retry_backoff", 1000),
    "tenantIds": ("tenant_ids", None),
}


def worker_options(o: Dict[str, Any]) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for k, v in (o or {}).items():
        if v is None or k not in OPTION_MAP:
            continue
        name, div = OPTION_MAP[k]
        out[name] = v / div if div else v
    rp = (o or {}).get("retryPolicy")
    if isinstance(rp, dict):  # the SDK's exponential policy; absent fields keep its defaults
        kw: Dict[str, Any] = {}
        for key, name, div in (("initialMs", "initial", 1000), ("maxMs", "max", 1000), ("multiplier", "multiplier", None),
                               ("jitter", "jitter", None), ("maxRetries", "max_retries", None)):
            if rp.get(key) is not None:
                kw[name] = rp[key] / div if div else rp[key]
        out["retry_policy"] = exponential_backoff(**kw)
    return out


# --- the typed worker (options.typed = "order"): the SDK's declarative style ----------------
@dataclasses.dataclass
class Order:
    orderId: str
    amount: float


class OrderHeaders(TypedDict, total=False):
    channel: str


@dataclasses.dataclass
class Receipt:
    orderId: str
    total: float
    channel: str


def middleware_of(wid: str, specs: Any) -> List[Any]:
    """options.middleware: [{name, raise?}] -> worker-level middleware, in this order."""
    out = []
    for spec in specs if isinstance(specs, list) else []:
        name, raise_msg = str(spec.get("name")), spec.get("raise")

        def mw(job: Job, nxt: Any, name: str = name, raise_msg: Any = raise_msg) -> Any:
            async def run() -> Any:
                emit("middleware", worker=wid, name=name, phase="before", key=str(job.key))
                if raise_msg is not None:
                    raise RuntimeError(str(raise_msg))
                try:
                    r = await nxt()
                except BaseException:
                    emit("middleware", worker=wid, name=name, phase="after", key=str(job.key), error=True)
                    raise
                emit("middleware", worker=wid, name=name, phase="after", key=str(job.key), error=False)
                return r

            return run()

        out.append(mw)
    return out


class Driver:
    def __init__(self) -> None:
        self.client = Client()  # from the environment, as a user's process would
        self.workers: Dict[str, Any] = {}
        self.gates: Dict[str, Gate] = {}
        self.tasks: set = set()

    def spawn(self, coro: Any) -> None:
        t = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(t)
        t.add_done_callback(self.tasks.discard)

    def start_worker(self, cmd: Dict[str, Any]) -> None:
        wid = cmd["id"]
        gate = Gate()
        behavior = cmd.get("behavior") if isinstance(cmd.get("behavior"), list) else []

        async def handler(job: Job, result: Any = None) -> Any:
            t0 = time.monotonic()
            emit("job_start", worker=wid, key=str(job.key), processInstanceKey=str(job.process_instance_key), type=job.type, retries=job.retries, activation=job.activation,
                 variables=job.variables_json, deadline=job.deadline)
            steps = job.variables.get("jwBehavior")
            if not isinstance(steps, list):
                steps = behavior
            outcome = "completed"
            try:
                return await run_steps(steps, job, gate, result)
            except asyncio.CancelledError:
                outcome = "cancelled"
                raise
            except JobError:
                outcome = "error"
                raise
            except Crash:
                outcome = "crashed"
                raise
            except Exception:
                outcome = "failed"
                raise
            finally:
                emit("job_end", worker=wid, key=str(job.key), outcome=outcome, durationMs=(time.monotonic() - t0) * 1000)

        options = cmd.get("options") or {}
        opts = worker_options(options)
        mws = middleware_of(wid, options.get("middleware"))
        if options.get("typed") == "order":
            router = JobRouter()

            @router.job(cmd["jobType"], middleware=mws, **opts)
            async def typed(order: Order, headers: OrderHeaders, job: Job) -> Any:
                return await handler(job, Receipt(order.orderId, order.amount * 2, headers.get("channel", "")))

            (w,) = self.client.include_router(router)
        else:
            w = self.client.worker(cmd["jobType"], handler, middleware=mws, **opts)
        w.on_state(lambda s: emit("state", worker=wid, state=s.value))

        def on_error(e: BaseException) -> None:
            code = e.code_name if isinstance(e, JobwireError) and e.code is not None else None
            emit("error", worker=wid, message=str(e), code=code)

        w.on_error(on_error)
        self.workers[wid] = w
        self.gates[wid] = gate
        emit("worker_started", worker=wid)

    async def stop_worker(self, wid: str, timeout_ms: Optional[float]) -> None:
        w = self.workers.get(wid)
        if w is None:
            emit("error", worker=wid, message=f"unknown worker {wid}")
            return
        t0 = time.monotonic()
        await w.close((timeout_ms if timeout_ms is not None else 5000) / 1000)
        self.workers.pop(wid, None)
        emit("worker_closed", worker=wid, durationMs=(time.monotonic() - t0) * 1000)
        if otel is not None:
            otel.report()

    async def close_all(self, timeout_ms: float) -> None:
        await asyncio.gather(*(self.stop_worker(wid, timeout_ms) for wid in list(self.workers)), return_exceptions=True)
        await self.client.close(timeout_ms / 1000)

    async def call(self, cid: Any, method: Any, req: Dict[str, Any]) -> None:
        """The `call` command: one client command through the SDK's public client API; answers
        `call_result` once it returned (after the SDK's own resends, if any)."""
        try:
            fn = CALLS.get(str(method))
            if fn is None:
                raise ValueError(f"unknown call method {method!r}")
            result = await fn(self.client, req)
        except Exception as e:  # noqa: BLE001
            code = e.code_name if isinstance(e, JobwireError) else "UNKNOWN"
            emit("call_result", id=cid, ok=False, code=code, errorType=type(e).__name__, message=str(e))
            return
        emit("call_result", id=cid, ok=True, result=result)

    async def handle(self, cmd: Dict[str, Any]) -> bool:
        c = cmd.get("cmd")
        if c == "start_worker":
            self.start_worker(cmd)
        elif c == "stop_worker":
            self.spawn(self.stop_worker(cmd["id"], cmd.get("timeoutMs")))
        elif c == "release":
            g = self.gates.get(cmd["id"])
            n = g.release(cmd.get("count")) if g else 0
            emit("released", worker=cmd["id"], count=n)
        elif c == "call":
            self.spawn(self.call(cmd.get("id"), cmd.get("method"), cmd.get("request") or {}))
        elif c == "exit":
            await self.close_all(5000)
            return False
        else:
            emit("error", message=f"unknown command {c}")
        return True


# --- the `call` command: request fields (keys as decimal strings) -> the SDK's client methods ---
def _opt(req: Dict[str, Any], name: str, kw: str, out: Dict[str, Any], conv: Any = None) -> None:
    if req.get(name) is not None:
        out[kw] = conv(req[name]) if conv else req[name]


async def call_evaluate_decision(client: Client, req: Dict[str, Any]) -> Dict[str, Any]:
    kw: Dict[str, Any] = {}
    _opt(req, "decisionKey", "decision_key", kw, int)
    _opt(req, "variables", "variables", kw)
    _opt(req, "tenantId", "tenant_id", kw)
    r = await client.evaluate_decision(req.get("decisionId"), **kw)
    own = next((d for d in r.evaluated_decisions if d.decision_key == r.decision_key and d.decision_id == r.decision_id), None)
    return {
        "decisionKey": str(r.decision_key),
        "decisionId": r.decision_id,
        "decisionVersion": r.decision_version,
        "decisionOutput": r.decision_output_json,
        "evaluatedDecisionIds": [d.decision_id for d in r.evaluated_decisions],
        "matchedRuleIds": [m.rule_id for m in own.matched_rules] if own is not None else [],
        "failedDecisionId": r.failed_decision_id,
        "failureMessage": r.failure_message,
    }


async def call_modify_process_instance(client: Client, req: Dict[str, Any]) -> Dict[str, Any]:
    activate = []
    for a in req.get("activate") or []:
        scoped = [jobwire.ScopedVariables(v.get("variables"), scope_id=v.get("scopeId") or "") for v in a.get("variables") or []]
        ancestor = a.get("ancestorElementInstanceKey")
        activate.append(jobwire.ActivateElement(a["elementId"], ancestor_element_instance_key=int(ancestor) if ancestor is not None else None, variables=scoped))
    await client.modify_process_instance(int(req["processInstanceKey"]), activate=activate, terminate=[int(k) for k in req.get("terminate") or []])
    return {}


async def call_migrate_process_instance(client: Client, req: Dict[str, Any]) -> Dict[str, Any]:
    mappings = [jobwire.MappingInstruction(m["sourceElementId"], m["targetElementId"]) for m in req.get("mappings") or []]
    await client.migrate_process_instance(
        int(req["processInstanceKey"]), target_process_definition_key=int(req["targetProcessDefinitionKey"]), mappings=mappings
    )
    return {}


async def call_delete_resource(client: Client, req: Dict[str, Any]) -> Dict[str, Any]:
    await client.delete_resource(int(req["resourceKey"]))
    return {}


async def call_broadcast_signal(client: Client, req: Dict[str, Any]) -> Dict[str, Any]:
    kw: Dict[str, Any] = {}
    _opt(req, "variables", "variables", kw)
    _opt(req, "tenantId", "tenant_id", kw)
    return {"key": str(await client.broadcast_signal(req["signalName"], **kw))}


CALLS = {
    "evaluateDecision": call_evaluate_decision,
    "modifyProcessInstance": call_modify_process_instance,
    "migrateProcessInstance": call_migrate_process_instance,
    "deleteResource": call_delete_resource,
    "broadcastSignal": call_broadcast_signal,
}


async def run_steps(steps: List[Dict[str, Any]], job: Job, gate: Gate, result: Any = None) -> Any:
    """The behaviour steps; without an outcome step the job completes with ``result`` (the typed
    worker's Receipt, else nothing)."""
    for step in steps:
        if "sleep" in step:
            await asyncio.sleep(float(step["sleep"]) / 1000)
        elif "block" in step:
            await gate.wait()
        elif "extendTimeout" in step:
            try:
                await job.extend_timeout(float(step["extendTimeout"]) / 1000)
            except JobwireError as e:
                log("extend_timeout failed:", e)
        elif "complete" in step:
            return step["complete"] or {}
        elif "completeEcho" in step:
            return job.variables_json  # the raw JSON text: lossless by construction
        elif "completePad" in step:
            return {"out": "y" * int(step["completePad"])}
        elif "fail" in step:
            raise RuntimeError(str(step["fail"]))
        elif "throwError" in step:
            e = step["throwError"] or {}
            raise JobError(str(e.get("code")), e.get("message") or "", variables=e.get("variables"))
        elif "crash" in step:
            raise Crash(str(step["crash"]))
        elif "failNonRetryable" in step:
            raise NonRetryableError(str(step["failNonRetryable"]))
        else:
            log("unknown step", json.dumps(step))
    return result


async def main() -> int:
    try:
        driver = Driver()
    except Exception as e:  # noqa: BLE001
        log("client:", e)
        emit("error", message=str(e))
        return 1
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=64 * 1024 * 1024)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    emit("ready", sdk="python", version=jobwire.__version__)
    while True:
        line = await reader.readline()
        if not line:
            break
        text = line.decode().strip()
        if not text:
            continue
        try:
            cmd = json.loads(text)
        except ValueError:
            emit("error", message=f"bad command: {text[:200]}")
            continue
        try:
            if not await driver.handle(cmd):
                return 0
        except Exception as e:  # noqa: BLE001
            emit("error", message=str(e))
    await driver.close_all(5000)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
