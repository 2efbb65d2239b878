#!/usr/bin/env python3
"""The runner's own reference driver, used ONLY to test the conformance
runner (never listed as an SDK in the matrix). It implements
DRIVER-CONTRACT.md with plain grpc stubs and a small worker that follows
WORKER-SEMANTICS.md: one capacity ledger for push and poll, long polling,
a stream with backfill and reconnect, backoff, graceful close.

Run: .tools/venv/bin/python runner/selftest_driver.py  (env ZEEBE_ADDRESS ...)
"""
from __future__ import annotations

import json
import os
import random
import sys
import threading
import time
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import ensure_stubs  # noqa: E402

import grpc  # noqa: E402

pb, pbg, _, _ = ensure_stubs()
OUT = threading.Lock()
OTEL = os.environ.get("JOBWIRE_DRIVER_OTEL") == "1"
RETRYABLE = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.DEADLINE_EXCEEDED}
BENIGN = {grpc.StatusCode.NOT_FOUND, grpc.StatusCode.FAILED_PRECONDITION}


def emit(event, **kw):
    kw = {"t": time.time() * 1000, "event": event, **kw}
    line = json.dumps(kw)
    with OUT:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def log(msg):
    sys.stderr.write(f"[selftest-driver] {msg}\n")
    sys.stderr.flush()


class Backoff:
    def __init__(self):
        self.cur = 0.0

    def next(self):
        self.cur = 0.05 if self.cur == 0 else min(self.cur * 1.6, 5.0)
        return self.cur * random.uniform(0.9, 1.1)

    def reset(self):
        self.cur = 0.0


class Auth:
    def __init__(self):
        self.url = os.environ.get("ZEEBE_AUTHORIZATION_SERVER_URL")
        self.token, self.exp = None, 0.0
        self.lock = threading.Lock()

    def metadata(self, force=False):
        if not self.url:
            return None
        with self.lock:
            if force or self.token is None or time.time() > self.exp - 1:
                body = urllib.parse.urlencode({
                    "grant_type": "client_credentials", "client_id": os.environ.get("ZEEBE_CLIENT_ID", ""),
                    "client_secret": os.environ.get("ZEEBE_CLIENT_SECRET", ""),
                    "audience": os.environ.get("ZEEBE_TOKEN_AUDIENCE", "")}).encode()
                with urllib.request.urlopen(urllib.request.Request(self.url, data=body), timeout=5) as r:
                    d = json.loads(r.read())
                self.token = d["access_token"]
                self.exp = time.time() + float(d.get("expires_in", 60))
            return [("authorization", f"Bearer {self.token}")]


def make_channel():
    addr = os.environ.get("ZEEBE_ADDRESS", "127.0.0.1:26500")
    opts = [("grpc.keepalive_time_ms", 45000), ("grpc.max_receive_message_length", 4 << 20)]
    insecure = os.environ.get("ZEEBE_INSECURE_CONNECTION", "true").lower() == "true"
    if insecure:
        return grpc.insecure_channel(addr, options=opts)
    ca = os.environ.get("ZEEBE_CA_CERTIFICATE_PATH")
    creds = grpc.ssl_channel_credentials(root_certificates=Path(ca).read_bytes() if ca else None)
    return grpc.secure_channel(addr, creds, options=opts)


class Worker:
    def __init__(self, client, wid, job_type, options, behavior):
        self.c, self.id, self.type, self.behavior = client, wid, job_type, behavior
        o = options
        self.cap = int(o.get("maxJobsActive", 32))
        self.concurrency = int(o.get("concurrency", self.cap))
        self.job_timeout = int(o.get("jobTimeoutMs", 300000))
        self.req_timeout = int(o.get("requestTimeoutMs", 10000))
        self.poll_interval = int(o.get("pollIntervalMs", 100)) / 1000
        self.stream_enabled = bool(o.get("streamEnabled", True))
        self.stream_timeout = int(o.get("streamTimeoutMs", 3600000)) / 1000
        self.fetch = list(o.get("fetchVariables") or [])
        self.auto_extend = bool(o.get("autoExtend", False))
        self.retry_backoff = int(o.get("retryBackOffMs", 0))
        self.name = o.get("workerName", "selftest")
        self.held = 0
        self.cond = threading.Condition()
        self.closing = threading.Event()
        self.backfill = threading.Event()
        self.pool = ThreadPoolExecutor(self.concurrency)
        self.running = 0
        self.poll_call = None
        self.stream_call = None
        self.blocked: list[threading.Event] = []
        self.permits = 0
        self.state = None
        self.stats = {"activated": {"push": 0, "poll": 0}, "handled": {}, "reconnects": 0, "polls": {}}
        self.durations = []
        self.threads = []

    # ----------------------------------------------------------- bookkeeping
    def set_state(self, s):
        if s != self.state and not (self.closing.is_set() and s not in ("closing", "closed")):
            self.state = s
            emit("state", worker=self.id, state=s)

    def free(self):
        with self.cond:
            return self.cap - self.held

    def take(self, n=1):
        with self.cond:
            self.held += n

    def give(self):
        with self.cond:
            self.held -= 1
            assert self.held >= 0
            self.cond.notify_all()

    def wait_slot(self):
        with self.cond:
            while self.held >= self.cap and not self.closing.is_set():
                self.cond.wait(0.2)
            return not self.closing.is_set()

    def md(self, force=False):
        return self.c.auth.metadata(force)

    # ----------------------------------------------------------- loops
    def start(self):
        if self.stream_enabled:
            self.threads.append(threading.Thread(target=self.stream_loop, daemon=True))
        else:
            self.backfill.set()
        self.threads.append(threading.Thread(target=self.poll_loop, daemon=True))
        for t in self.threads:
            t.start()
        emit("worker_started", worker=self.id)

    def poll_loop(self):
        bo = Backoff()
        while not self.closing.is_set():
            free = self.free()
            if self.stream_enabled and not self.backfill.is_set():
                # with a stream up, poll only for backfill or when mostly free
                if free <= 0 or self.held > 0.3 * self.cap:
                    self.backfill.wait(0.1)
                    continue
            if free <= 0 or (self.held > 0.3 * self.cap and not self.backfill.is_set()):
                with self.cond:
                    self.cond.wait(0.1)
                continue
            self.backfill.clear()
            if not self.stream_enabled or self.state != "streaming":
                self.set_state("polling")
            req = pb.ActivateJobsRequest(type=self.type, worker=self.name, timeout=self.job_timeout,
                                         maxJobsToActivate=free, fetchVariable=self.fetch,
                                         requestTimeout=self.req_timeout)
            got = 0
            try:
                call = self.c.stub.ActivateJobs(req, timeout=self.req_timeout / 1000 + 10, metadata=self.md())
                self.poll_call = call
                for resp in call:
                    for job in resp.jobs:
                        self.take()
                        got += 1
                        self.submit(job, "poll")
                self.stats["polls"]["ok"] = self.stats["polls"].get("ok", 0) + 1
                bo.reset()
                if got == 0 and not self.closing.is_set():
                    time.sleep(self.poll_interval)
            except grpc.RpcError as e:
                if self.closing.is_set():
                    break
                code = e.code()
                self.stats["polls"][code.name] = self.stats["polls"].get(code.name, 0) + 1
                if code == grpc.StatusCode.UNAUTHENTICATED:
                    try:
                        self.md(force=True)
                    except Exception:  # noqa: BLE001
                        pass
                if code not in RETRYABLE:
                    emit("error", worker=self.id, message=f"ActivateJobs: {e.details()}", code=code.name)
                self.set_state("backoff")
                d = bo.next() if code != grpc.StatusCode.UNAUTHENTICATED else 0.05
                self.closing.wait(d)
            finally:
                self.poll_call = None

    def stream_loop(self):
        bo = Backoff()
        while not self.closing.is_set():
            req = pb.StreamActivatedJobsRequest(type=self.type, worker=self.name, timeout=self.job_timeout,
                                                fetchVariable=self.fetch)
            try:
                call = self.c.stub.StreamActivatedJobs(req, timeout=self.stream_timeout, metadata=self.md())
                self.stream_call = call
                self.set_state("streaming")
                self.backfill.set()
                it = iter(call)
                while self.wait_slot():
                    job = next(it)
                    bo.reset()
                    self.take()
                    self.submit(job, "push")
                break
            except StopIteration:
                pass
            except grpc.RpcError as e:
                if self.closing.is_set():
                    break
                code = e.code()
                if code == grpc.StatusCode.UNIMPLEMENTED:
                    log("StreamActivatedJobs unimplemented: polling only")
                    self.stream_enabled = False
                    self.backfill.set()
                    self.set_state("polling")
                    return
                if code == grpc.StatusCode.UNAUTHENTICATED:
                    try:
                        self.md(force=True)
                    except Exception:  # noqa: BLE001
                        pass
                if code not in RETRYABLE and code != grpc.StatusCode.CANCELLED:
                    emit("error", worker=self.id, message=f"StreamActivatedJobs: {e.details()}", code=code.name)
            finally:
                self.stream_call = None
            if self.closing.is_set():
                break
            self.stats["reconnects"] += 1
            self.set_state("backoff")
            self.closing.wait(bo.next())

    # ----------------------------------------------------------- handling
    def submit(self, job, activation):
        self.stats["activated"][activation] += 1
        self.pool.submit(self.handle, job, activation)

    def handle(self, job, activation):
        key = str(job.key)
        try:
            if self.closing.is_set():  # received but not started: fail back, retries unchanged
                self.send(lambda: self.c.stub.FailJob(pb.FailJobRequest(
                    jobKey=job.key, retries=job.retries, errorMessage="worker closing"), timeout=5,
                    metadata=self.md()), job)
                return
            if job.deadline and job.deadline < time.time() * 1000:
                self.count("expired")
                return
            self.run_job(job, key, activation)
        finally:
            self.give()

    def count(self, outcome):
        self.stats["handled"][outcome] = self.stats["handled"].get(outcome, 0) + 1

    def run_job(self, job, key, activation):
        t0 = time.time()
        variables = json.loads(job.variables or "{}")
        steps = variables.get("jwBehavior") if isinstance(variables.get("jwBehavior"), list) else self.behavior
        emit("job_start", worker=self.id, key=key, processInstanceKey=str(job.processInstanceKey), type=job.type, retries=job.retries, activation=activation,
             variables=job.variables, deadline=job.deadline)
        stop_extend = threading.Event()
        if self.auto_extend:
            threading.Thread(target=self.extender, args=(job, stop_extend), daemon=True).start()
        outcome, result = "completed", {}
        try:
            for st in steps:
                (k, v), = st.items()
                if k == "sleep":
                    if self.closing.wait(v / 1000) and self.closing_deadline_passed():
                        outcome = "cancelled"
                        break
                elif k == "block":
                    ev = threading.Event()
                    with self.cond:
                        if self.permits > 0:
                            self.permits -= 1
                            ev.set()
                        else:
                            self.blocked.append(ev)
                    while not ev.wait(0.1):
                        if self.closing_deadline_passed():
                            outcome = "cancelled"
                            break
                    if outcome == "cancelled":
                        break
                elif k == "extendTimeout":
                    self.c.stub.UpdateJobTimeout(pb.UpdateJobTimeoutRequest(jobKey=job.key, timeout=int(v)),
                                                 timeout=10, metadata=self.md())
                elif k == "complete":
                    outcome, result = "completed", v or {}
                    break
                elif k == "completeEcho":
                    outcome, result = "completed", None
                    break
                elif k == "completePad":
                    outcome, result = "completed", {"out": "y" * int(v)}
                    break
                elif k == "fail":
                    outcome, result = "failed", str(v)
                    break
                elif k == "throwError":
                    outcome, result = "error", v
                    break
                elif k == "crash":
                    raise RuntimeError(str(v))
        except grpc.RpcError as e:
            outcome, result = "failed", f"{e.code().name}: {e.details()}"
        except Exception as e:  # noqa: BLE001
            outcome, result = "crashed", f"{type(e).__name__}: {e}"
        stop_extend.set()
        sent = False
        dur = (time.time() - t0) * 1000
        emit("job_end", worker=self.id, key=key, outcome=outcome, durationMs=round(dur, 1))
        self.durations.append(dur / 1000)
        if outcome == "completed":
            vars_ = job.variables if result is None else json.dumps(result)
            sent = self.send(lambda: self.c.stub.CompleteJob(pb.CompleteJobRequest(jobKey=job.key, variables=vars_),
                                                      timeout=10, metadata=self.md()), job)
        elif outcome in ("failed", "crashed"):
            sent = self.send(lambda: self.c.stub.FailJob(pb.FailJobRequest(
                jobKey=job.key, retries=max(job.retries - 1, 0), errorMessage=str(result)[:500],
                retryBackOff=self.retry_backoff), timeout=10, metadata=self.md()), job)
        elif outcome == "error":
            sent = self.send(lambda: self.c.stub.ThrowError(pb.ThrowErrorRequest(
                jobKey=job.key, errorCode=str(result.get("code", "")), errorMessage=str(result.get("message", "")),
                variables=json.dumps(result.get("variables") or {})), timeout=10, metadata=self.md()), job)
        elif outcome == "cancelled":
            sent = self.send(lambda: self.c.stub.FailJob(pb.FailJobRequest(
                jobKey=job.key, retries=job.retries, errorMessage="handler cancelled by close"), timeout=5,
                metadata=self.md()), job)
        if sent and outcome in ("completed", "failed", "error"):
            self.count(outcome)
        if OTEL:
            emit("span", name=f"process job {job.type}", kind="CONSUMER", status="OK" if outcome == "completed"
                 else "ERROR", attributes={"jobwire.job.key": key, "jobwire.job.type": job.type,
                                           "jobwire.job.retries": job.retries,
                                           "jobwire.process_instance.key": str(job.processInstanceKey),
                                           "jobwire.bpmn_process_id": job.bpmnProcessId,
                                           "jobwire.element_id": job.elementId, "jobwire.worker.name": self.name,
                                           "jobwire.activation": activation, "jobwire.job.outcome": outcome})

    def extender(self, job, stop):
        deadline = job.deadline / 1000
        while not stop.is_set():
            wait = max((deadline - time.time()) * 0.5, 0.05)
            if stop.wait(wait):
                return
            try:
                self.c.stub.UpdateJobTimeout(pb.UpdateJobTimeoutRequest(jobKey=job.key, timeout=self.job_timeout),
                                             timeout=5, metadata=self.md())
                deadline = time.time() + self.job_timeout / 1000
            except grpc.RpcError as e:
                log(f"auto-extend failed: {e.code().name}")

    def send(self, fn, job):
        bo = Backoff()
        while True:
            try:
                fn()
                return True
            except grpc.RpcError as e:
                code = e.code()
                if code in BENIGN:
                    self.count("not_found")
                    log(f"outcome for {job.key} refused ({code.name}): benign")
                    return False
                if code in RETRYABLE and time.time() * 1000 < job.deadline:
                    time.sleep(bo.next())
                    continue
                emit("error", worker=self.id, message=f"sending outcome: {e.details()}", code=code.name)
                return False

    def closing_deadline_passed(self):
        return self.closing.is_set() and time.time() > getattr(self, "close_deadline", 0)

    # ----------------------------------------------------------- control
    def release(self, count=None):
        with self.cond:
            if count is None:
                evs, self.blocked = self.blocked, []
            else:
                evs, self.blocked = self.blocked[:count], self.blocked[count:]
                self.permits += count - len(evs)
        for e in evs:
            e.set()
        emit("released", worker=self.id, count=len(evs) if count is None else count)

    def close(self, timeout_ms):
        t0 = time.time()
        self.set_state("closing")
        self.close_deadline = t0 + timeout_ms / 1000
        self.closing.set()
        for call in (self.poll_call, self.stream_call):
            if call is not None:
                call.cancel()
        self.pool.shutdown(wait=True)
        for t in self.threads:
            t.join(2)
        self.state = None
        self.set_state("closed")
        emit("worker_closed", worker=self.id, durationMs=round((time.time() - t0) * 1000, 1))
        if OTEL:
            st = self.stats
            emit("metrics", metrics=[
                {"name": "jobwire.worker.jobs.activated", "type": "counter",
                 "points": [{"attributes": {"activation": a}, "value": n} for a, n in st["activated"].items()]},
                {"name": "jobwire.worker.jobs.handled", "type": "counter",
                 "points": [{"attributes": {"outcome": o}, "value": n} for o, n in st["handled"].items()]},
                {"name": "jobwire.worker.job.duration", "type": "histogram",
                 "points": [{"attributes": {}, "value": {"count": len(self.durations),
                                                         "sum": sum(self.durations)}}]},
                {"name": "jobwire.worker.capacity.used", "type": "gauge",
                 "points": [{"attributes": {}, "value": self.held}]},
                {"name": "jobwire.worker.stream.reconnects", "type": "counter",
                 "points": [{"attributes": {}, "value": st["reconnects"]}]},
                {"name": "jobwire.worker.poll.requests", "type": "counter",
                 "points": [{"attributes": {"result": r}, "value": n} for r, n in st["polls"].items()]}])


class Client:
    def __init__(self):
        self.channel = make_channel()
        self.stub = pbg.GatewayStub(self.channel)
        self.auth = Auth()


# ------------------------------------------------------------ client commands
# docs/worker-semantics.md, "Client commands: which are resent": EvaluateDecision after UNAVAILABLE or
# RESOURCE_EXHAUSTED, the others only after RESOURCE_EXHAUSTED (an UNAVAILABLE may come after the command was
# applied); the shared backoff, at most 5 attempts, never past the call's deadline
RESEND = {"EvaluateDecision": {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.RESOURCE_EXHAUSTED}}
RESEND_DEFAULT = {grpc.StatusCode.RESOURCE_EXHAUSTED}
CALL_DEADLINE_S = 20.0
MAX_ATTEMPTS = 5


def _vars(v):
    return json.dumps(v if v is not None else {})


def _request(method, r):
    """(gRPC method name, request message) for a `call` command's method and request (keys: decimal strings)."""
    if method == "evaluateDecision":
        return "EvaluateDecision", pb.EvaluateDecisionRequest(
            decisionId=r.get("decisionId", ""), decisionKey=int(r.get("decisionKey") or 0),
            variables=_vars(r.get("variables")), tenantId=r.get("tenantId", ""))
    if method == "modifyProcessInstance":
        M = pb.ModifyProcessInstanceRequest
        return "ModifyProcessInstance", M(
            processInstanceKey=int(r["processInstanceKey"]),
            activateInstructions=[M.ActivateInstruction(
                elementId=a["elementId"], ancestorElementInstanceKey=int(a.get("ancestorElementInstanceKey") or 0),
                variableInstructions=[M.VariableInstruction(variables=_vars(v.get("variables")),
                                                            scopeId=v.get("scopeId", ""))
                                      for v in a.get("variables") or []]) for a in r.get("activate") or []],
            terminateInstructions=[M.TerminateInstruction(elementInstanceKey=int(k)) for k in r.get("terminate") or []])
    if method == "migrateProcessInstance":
        M = pb.MigrateProcessInstanceRequest
        return "MigrateProcessInstance", M(
            processInstanceKey=int(r["processInstanceKey"]),
            migrationPlan=M.MigrationPlan(
                targetProcessDefinitionKey=int(r["targetProcessDefinitionKey"]),
                mappingInstructions=[M.MappingInstruction(sourceElementId=m["sourceElementId"],
                                                          targetElementId=m["targetElementId"])
                                     for m in r.get("mappings") or []]))
    if method == "deleteResource":
        return "DeleteResource", pb.DeleteResourceRequest(resourceKey=int(r["resourceKey"]))
    if method == "broadcastSignal":
        return "BroadcastSignal", pb.BroadcastSignalRequest(signalName=r["signalName"],
                                                            variables=_vars(r.get("variables")),
                                                            tenantId=r.get("tenantId", ""))
    raise ValueError(f"unknown call method {method!r}")


def _result(rpc, resp):
    if rpc == "EvaluateDecision":
        own = [d for d in resp.evaluatedDecisions if d.decisionId == resp.decisionId]
        return {"decisionKey": str(resp.decisionKey), "decisionId": resp.decisionId,
                "decisionVersion": resp.decisionVersion, "decisionOutput": resp.decisionOutput,
                "evaluatedDecisionIds": [d.decisionId for d in resp.evaluatedDecisions],
                "matchedRuleIds": [m.ruleId for d in own[-1:] for m in d.matchedRules],
                "failedDecisionId": resp.failedDecisionId, "failureMessage": resp.failureMessage}
    if rpc == "BroadcastSignal":
        return {"key": str(resp.key)}
    return {}


def _error_type(code):
    return "".join(p.capitalize() for p in code.name.split("_")) + "Error"


def call(client, cmd):
    cid = cmd.get("id")
    try:
        rpc, req = _request(cmd.get("method"), cmd.get("request") or {})
    except (KeyError, ValueError, TypeError) as e:
        emit("call_result", id=cid, ok=False, code="INVALID_ARGUMENT", errorType="ValueError", message=str(e))
        return
    resend = RESEND.get(rpc, RESEND_DEFAULT)
    deadline = time.monotonic() + CALL_DEADLINE_S
    bo = Backoff()
    attempt = 0
    while True:
        attempt += 1
        try:
            resp = getattr(client.stub, rpc)(req, timeout=max(0.05, deadline - time.monotonic()),
                                             metadata=client.auth.metadata())
            emit("call_result", id=cid, ok=True, result=_result(rpc, resp))
            return
        except grpc.RpcError as e:
            code = e.code()
            wait = bo.next()
            if code in resend and attempt < MAX_ATTEMPTS and time.monotonic() + wait < deadline:
                log(f"call {cid} {rpc}: {code.name}, resent in {wait * 1000:.0f} ms")
                time.sleep(wait)
                continue
            emit("call_result", id=cid, ok=False, code=code.name, errorType=_error_type(code),
                 message=e.details() or "")
            return


def main():
    client = Client()
    workers: dict[str, Worker] = {}
    emit("ready", sdk="selftest", version="0")

    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            cmd = json.loads(line)
            c = cmd.get("cmd")
            if c == "start_worker":
                w = Worker(client, cmd["id"], cmd["jobType"], cmd.get("options") or {}, cmd.get("behavior") or [])
                workers[cmd["id"]] = w
                w.start()
            elif c == "stop_worker":
                w = workers.get(cmd["id"])
                if w:
                    threading.Thread(target=w.close, args=(int(cmd.get("timeoutMs", 5000)),), daemon=True).start()
            elif c == "release":
                w = workers.get(cmd["id"])
                if w:
                    w.release(cmd.get("count"))
            elif c == "call":
                threading.Thread(target=call, args=(client, cmd), daemon=True).start()
            elif c == "exit":
                break
        except Exception as e:  # noqa: BLE001
            emit("error", message=f"bad command {line[:100]}: {e}")
    for w in workers.values():
        if not w.closing.is_set():
            w.close(5000)
    client.channel.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
