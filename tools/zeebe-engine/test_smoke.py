"""Smoke test of tools/zeebe-engine/start.sh against the real Zeebe engine.

Starts the launcher, then talks to it with the project's generated gateway stubs:
Topology, deploy a one-task BPMN, create 5 instances, activate and complete the
5 jobs, and check that a StreamActivatedJobs stream without tenantIds receives a
pushed job. Also checks the launcher's contract: 127.0.0.1 only, 4 MB inbound
limit, health service, exit on stdin end of file and on SIGTERM.

Run: .tools/venv/bin/python -m pytest tools/zeebe-engine/test_smoke.py
The first run builds the launcher with Maven (set ZEEBE_ENGINE_START_TIMEOUT,
in seconds, when the dependency download is slow; default 600).
"""
import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import grpc
import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "sdk-python" / "src"))

from jobwire._proto import gateway_pb2 as pb  # noqa: E402
from jobwire._proto import gateway_pb2_grpc as pb_grpc  # noqa: E402

START = HERE / "start.sh"
BPMN = (HERE / "testdata" / "one-task.bpmn").read_text(encoding="utf-8")
LISTEN_RE = re.compile(r"^zeebe-engine listening on 127\.0\.0\.1:(\d+)$")
START_TIMEOUT = float(os.environ.get("ZEEBE_ENGINE_START_TIMEOUT", "600"))
RPC_TIMEOUT = 15


class EngineProcess:
    """start.sh as a child process; stdout lines are collected by a reader thread."""

    def __init__(self, *args, env=None):
        self.stderr_path = Path(os.environ.get("TMPDIR", "/tmp")) / f"zeebe-engine-{uuid.uuid4().hex}.log"
        self._stderr = open(self.stderr_path, "wb")
        self.proc = subprocess.Popen(
            [str(START), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env={**os.environ, **(env or {})},
        )
        self.lines = queue.Queue()
        self.stdout_lines = []
        threading.Thread(target=self._read, daemon=True).start()
        self.port = None

    def _read(self):
        for raw in self.proc.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            self.stdout_lines.append(line)
            self.lines.put(line)
        self.lines.put(None)

    def wait_listening(self, timeout=START_TIMEOUT):
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no listening line within {timeout}s; stderr:\n{self.stderr()}")
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise AssertionError(
                    f"start.sh exited ({self.proc.wait()}) before listening; stderr:\n{self.stderr()}")
            m = LISTEN_RE.match(line)
            if m:
                self.port = int(m.group(1))
                return self.port

    def stderr(self):
        self._stderr.flush()
        return self.stderr_path.read_text(errors="replace")[-4000:]

    def stop(self):
        """Closes stdin (the normal way to stop it), then escalates; never leaves the process behind."""
        try:
            if self.proc.poll() is None:
                try:
                    self.proc.stdin.close()
                except OSError:
                    pass
                try:
                    self.proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    self.proc.terminate()
                    try:
                        self.proc.wait(timeout=10)
                    except subprocess.TimeoutExpired:
                        self.proc.kill()
                        self.proc.wait()
        finally:
            self._stderr.close()
            self.stderr_path.unlink(missing_ok=True)


def listening_sockets(port):
    """Local addresses of the TCP sockets listening on `port` (from /proc, no network I/O)."""
    found = []
    for table, v6 in (("/proc/net/tcp", False), ("/proc/net/tcp6", True)):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            cols = row.split()
            addr, p = cols[1].split(":")
            if cols[3] == "0A" and int(p, 16) == port:  # 0A = LISTEN
                found.append((v6, addr))
    return found


def is_loopback(v6, hexaddr):
    if not v6:
        return bytes.fromhex(hexaddr)[::-1][0] == 127  # little-endian IPv4
    raw = bytes.fromhex(hexaddr)
    # /proc prints IPv6 as four little-endian 32-bit words
    words = b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4))
    return words == bytes(15) + b"\x01" or (words[:12] == bytes(10) + b"\xff\xff" and words[12] == 127)


@pytest.fixture(scope="module")
def engine():
    eng = EngineProcess("--port", "0")
    try:
        eng.wait_listening()
        yield eng
    finally:
        eng.stop()


@pytest.fixture(scope="module")
def channel(engine):
    ch = grpc.insecure_channel(f"127.0.0.1:{engine.port}")
    grpc.channel_ready_future(ch).result(timeout=RPC_TIMEOUT)
    yield ch
    ch.close()


@pytest.fixture(scope="module")
def gateway(channel):
    return pb_grpc.GatewayStub(channel)


def deploy(gateway, process_id, job_type):
    xml = BPMN.replace('<bpmn:process id="jobwire-smoke"', f'<bpmn:process id="{process_id}"')
    xml = xml.replace('type="jobwire-smoke"', f'type="{job_type}"')
    assert f'id="{process_id}"' in xml and f'type="{job_type}"' in xml
    resp = gateway.DeployResource(
        pb.DeployResourceRequest(resources=[pb.Resource(name=f"{process_id}.bpmn", content=xml.encode())]),
        timeout=RPC_TIMEOUT,
    )
    assert len(resp.deployments) == 1
    meta = resp.deployments[0].process
    assert meta.bpmnProcessId == process_id
    assert meta.version == 1
    assert meta.processDefinitionKey > 0
    assert meta.tenantId == "<default>"
    return meta


def activate(gateway, job_type, max_jobs, worker="smoke-worker"):
    jobs = []
    for resp in gateway.ActivateJobs(
        pb.ActivateJobsRequest(type=job_type, worker=worker, timeout=60_000,
                               maxJobsToActivate=max_jobs, requestTimeout=1_000),
        timeout=RPC_TIMEOUT,
    ):
        jobs.extend(resp.jobs)
    return jobs


def test_listening_line_is_the_only_stdout_and_port_is_loopback_only(engine):
    assert 0 < engine.port < 65536
    assert engine.stdout_lines == [f"zeebe-engine listening on 127.0.0.1:{engine.port}"]
    socks = listening_sockets(engine.port)
    assert socks, "no listening socket found for the announced port"
    assert all(is_loopback(v6, a) for v6, a in socks), socks


def test_topology(gateway, engine):
    topo = gateway.Topology(pb.TopologyRequest(), timeout=RPC_TIMEOUT)
    assert topo.clusterSize == 1
    assert topo.partitionsCount == 1
    assert topo.replicationFactor == 1
    assert topo.gatewayVersion.startswith("8.8."), topo.gatewayVersion
    assert len(topo.brokers) == 1
    broker = topo.brokers[0]
    assert broker.port == engine.port
    assert broker.host == "127.0.0.1"
    assert [(p.partitionId, p.role, p.health) for p in broker.partitions] == [
        (1, pb.Partition.LEADER, pb.Partition.HEALTHY)]


def test_health_service_reports_serving(channel):
    check = channel.unary_unary("/grpc.health.v1.Health/Check",
                                request_serializer=lambda b: b, response_deserializer=lambda b: b)
    # HealthCheckRequest{service:"gateway_protocol.Gateway"} -> HealthCheckResponse{status: SERVING(1)}
    service = b"gateway_protocol.Gateway"
    assert check(b"\x0a" + bytes([len(service)]) + service, timeout=RPC_TIMEOUT) == b"\x08\x01"


def test_deploy_create_activate_complete_five_jobs(gateway):
    suffix = uuid.uuid4().hex[:8]
    process_id, job_type = f"smoke-{suffix}", f"smoke-job-{suffix}"
    meta = deploy(gateway, process_id, job_type)

    created = {}
    for i in range(5):
        r = gateway.CreateProcessInstance(
            pb.CreateProcessInstanceRequest(bpmnProcessId=process_id, version=-1,
                                            variables=json.dumps({"i": i, "city": "Zürich"})),
            timeout=RPC_TIMEOUT,
        )
        assert r.processDefinitionKey == meta.processDefinitionKey
        assert r.tenantId == "<default>"
        created[r.processInstanceKey] = i
    assert len(created) == 5

    jobs = {}
    deadline = time.monotonic() + 20
    while len(jobs) < 5 and time.monotonic() < deadline:
        for job in activate(gateway, job_type, 10):
            assert job.key not in jobs, "job activated twice"
            jobs[job.key] = job
        if len(jobs) < 5:
            time.sleep(0.05)  # no long polling on this engine: jobs may not be created yet
    assert len(jobs) == 5, f"activated {len(jobs)} of 5 jobs"

    for job in jobs.values():
        assert job.type == job_type
        assert job.bpmnProcessId == process_id
        assert job.elementId == "charge"
        assert job.worker == "smoke-worker"
        assert job.retries == 3
        assert job.tenantId == "<default>"
        assert job.kind == pb.ActivatedJob.BPMN_ELEMENT
        assert job.listenerEventType == pb.ActivatedJob.UNSPECIFIED
        assert json.loads(job.customHeaders) == {"note": "naïve ☕"}
        assert job.processInstanceKey in created
        assert json.loads(job.variables) == {"i": created[job.processInstanceKey], "city": "Zürich"}
    assert {j.processInstanceKey for j in jobs.values()} == set(created)

    for key in jobs:
        gateway.CompleteJob(pb.CompleteJobRequest(jobKey=key, variables='{"ok":true}'), timeout=RPC_TIMEOUT)

    # Completed jobs are gone: nothing left to activate, and completing again is NOT_FOUND.
    assert activate(gateway, job_type, 10) == []
    with pytest.raises(grpc.RpcError) as err:
        gateway.CompleteJob(pb.CompleteJobRequest(jobKey=next(iter(jobs))), timeout=RPC_TIMEOUT)
    assert err.value.code() == grpc.StatusCode.NOT_FOUND


def test_stream_without_tenant_ids_receives_pushed_job(gateway):
    suffix = uuid.uuid4().hex[:8]
    process_id, job_type = f"stream-{suffix}", f"stream-job-{suffix}"
    deploy(gateway, process_id, job_type)

    stream = gateway.StreamActivatedJobs(
        pb.StreamActivatedJobsRequest(type=job_type, worker="stream-worker", timeout=60_000),
        timeout=60,
    )
    assert len(pb.StreamActivatedJobsRequest(type=job_type).tenantIds) == 0
    pushed = queue.Queue()

    def read():
        try:
            for job in stream:
                pushed.put(job)
        except grpc.RpcError as e:
            pushed.put(e)

    threading.Thread(target=read, daemon=True).start()
    try:
        # Only jobs that become activatable after the stream is registered are pushed and the
        # stream has no "registered" signal, so create instances until one job arrives.
        created = set()
        job = None
        for _ in range(10):
            r = gateway.CreateProcessInstance(
                pb.CreateProcessInstanceRequest(bpmnProcessId=process_id, version=-1), timeout=RPC_TIMEOUT)
            created.add(r.processInstanceKey)
            try:
                job = pushed.get(timeout=2)
                break
            except queue.Empty:
                continue
        assert job is not None, "no job pushed to a stream with empty tenantIds"
        assert not isinstance(job, grpc.RpcError), job
        assert job.type == job_type
        assert job.worker == "stream-worker"
        assert job.tenantId == "<default>"
        assert job.listenerEventType == pb.ActivatedJob.UNSPECIFIED
        assert job.processInstanceKey in created
        gateway.CompleteJob(pb.CompleteJobRequest(jobKey=job.key), timeout=RPC_TIMEOUT)
    finally:
        stream.cancel()


def test_inbound_messages_over_4mb_are_rejected(gateway):
    big = pb.DeployResourceRequest(resources=[pb.Resource(name="big.bpmn", content=b"x" * (4 * 1024 * 1024 + 1))])
    with pytest.raises(grpc.RpcError) as err:
        gateway.DeployResource(big, timeout=RPC_TIMEOUT)
    assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED


def _wait_exit(eng, timeout=15):
    try:
        return eng.proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        return None


def test_exits_when_stdin_closes():
    eng = EngineProcess("--port", "0")
    try:
        port = eng.wait_listening()
        eng.proc.stdin.close()
        assert _wait_exit(eng) == 0, "engine kept running after stdin closed"
        assert listening_sockets(port) == []
    finally:
        eng.stop()


def test_exits_on_sigterm():
    eng = EngineProcess("--port", "0")
    try:
        port = eng.wait_listening()
        eng.proc.send_signal(signal.SIGTERM)
        rc = _wait_exit(eng)
        assert rc is not None, "engine kept running after SIGTERM"
        assert rc in (0, 143, -signal.SIGTERM), rc
        assert listening_sockets(port) == []
    finally:
        eng.stop()


def test_rejects_bad_arguments():
    r = subprocess.run([str(START), "--port", "nope"], stdin=subprocess.DEVNULL,
                       capture_output=True, timeout=30)
    assert r.returncode == 2
    assert r.stdout == b""
    assert b"--port needs a number" in r.stderr
