"""Start a multi-process jobwire-engine cluster for a test, and always stop it.

    from jobwire_cluster import JobwireCluster

    with JobwireCluster(gateways=2, brokers=3, partitions=6) as cluster:
        cluster.gateways        # ["127.0.0.1:41001", "127.0.0.1:41002"] (Zeebe gateway API + health + admin)
        cluster.admin_address   # "127.0.0.1:41000" (supervisor AdminService: faults, merged inspection)
        cluster.startup_seconds # time until every gateway reported every partition healthy
        admin_pb2, admin = cluster.admin()          # generated stubs + AdminServiceStub on admin_address
        cluster.stop_broker(1)                      # SIGKILL (graceful=True: SIGTERM)
        cluster.start_broker(1)                     # returns once every gateway sees it healthy
        cluster.restart_gateway(0)                  # same port; returns once healthy

It runs `jobwire-engine cluster ... --exit-on-stdin-close` and waits for its
line `jobwire-engine cluster ready: gateways <a>,<b> admin <c>`. Children die
with the supervisor (Pdeathsig + stdin close), and the supervisor dies with
this process's stdin pipe, so nothing outlives the test even if it crashes.
Only the standard library is needed to start/stop; `admin()` and the fault
helpers need grpcio, and generate the admin stubs with grpc_tools (from this
interpreter or from `protoc_python`, default $JOBWIRE_PROTOC_PYTHON, else
<repo>/.tools/venv/bin/python) as module `jwcluster.admin_pb2` — unless the
caller passes its own `admin_stubs=(admin_pb2, admin_pb2_grpc)` (do that when
the process already loaded admin.proto stubs, e.g. the conformance runner's
`jwconf`, to keep one copy of jobwire.admin.v1 in the descriptor pool).
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
DEFAULT_BIN = HERE.parent / "bin" / "jobwire-engine"
READY_RE = re.compile(r"jobwire-engine cluster ready: gateways (\S+) admin (\S+)")


class ClusterError(RuntimeError):
    """The cluster did not start (the message carries its output)."""


class JobwireCluster:
    def __init__(self, gateways: int = 2, brokers: int = 3, partitions: int = 6, *, engine_bin=None,
                 data_dir=None, base_port: int = 0, no_fsync: bool = False, start_timeout: float = 30.0,
                 protoc_python=None, admin_stubs=None, echo: bool = False):
        self.engine_bin = Path(engine_bin or os.environ.get("JOBWIRE_ENGINE_BIN") or DEFAULT_BIN)
        self.args = ["cluster", "--gateways", str(gateways), "--brokers", str(brokers), "--partitions", str(partitions),
                     "--base-port", str(base_port), "--exit-on-stdin-close"]
        if data_dir:
            self.args += ["--data-dir", str(data_dir)]
        if no_fsync:
            self.args.append("--no-fsync")
        self.start_timeout = start_timeout
        self.protoc_python = protoc_python
        self.echo = echo
        self.proc = None
        self.lines: list[str] = []
        self.gateways: list[str] = []
        self.admin_address = ""
        self.startup_seconds = 0.0
        self._stubs = admin_stubs  # (admin_pb2, admin_pb2_grpc) the caller already loaded, if any
        self._channel = None

    @property
    def gateway(self) -> str:
        return self.gateways[0]

    def start(self) -> "JobwireCluster":
        if not self.engine_bin.exists():
            raise ClusterError(f"engine binary {self.engine_bin} missing (run `make engine`)")
        t0 = time.time()
        self.proc = subprocess.Popen([str(self.engine_bin), *self.args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=sys.stderr, text=True)
        ready = threading.Event()

        def pump():
            for line in self.proc.stdout:
                line = line.rstrip("\n")
                self.lines.append(line)
                if self.echo:
                    print(line, flush=True)
                m = READY_RE.search(line)
                if m and not ready.is_set():
                    self.gateways = m.group(1).split(",")
                    self.admin_address = m.group(2)
                    ready.set()

        threading.Thread(target=pump, daemon=True).start()
        deadline = time.time() + self.start_timeout
        while not ready.wait(0.05):
            if self.proc.poll() is not None or time.time() > deadline:
                out = "\n".join(self.lines)
                self.stop()
                raise ClusterError(f"jobwire-engine cluster did not become ready:\n{out}")
        self.startup_seconds = time.time() - t0
        return self

    def stop(self) -> None:
        if self._channel is not None:
            self._channel.close()
            self._channel = None
        p, self.proc = self.proc, None
        if p is None:
            return
        try:
            p.stdin.close()  # --exit-on-stdin-close: clean shutdown of every child
            p.wait(timeout=15)
        except Exception:
            p.kill()
            p.wait(timeout=10)

    def __enter__(self) -> "JobwireCluster":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # ---- admin API ----
    def admin(self):
        """(admin_pb2, AdminServiceStub) connected to the supervisor's admin port."""
        if self._stubs is None:
            self._stubs = load_admin_stubs(self.protoc_python)
        import grpc  # noqa: PLC0415
        admin_pb2, admin_pb2_grpc = self._stubs
        if self._channel is None:
            self._channel = grpc.insecure_channel(self.admin_address)
        return admin_pb2, admin_pb2_grpc.AdminServiceStub(self._channel)

    def stop_broker(self, node_id: int, graceful: bool = False) -> None:
        pb, stub = self.admin()
        stub.StopBroker(pb.StopBrokerRequest(node_id=node_id, graceful=graceful), timeout=30)

    def start_broker(self, node_id: int) -> None:
        pb, stub = self.admin()
        stub.StartBroker(pb.StartBrokerRequest(node_id=node_id), timeout=60)

    def restart_gateway(self, index: int, graceful: bool = False) -> None:
        pb, stub = self.admin()
        stub.RestartGateway(pb.RestartGatewayRequest(index=index, graceful=graceful), timeout=60)


_STUBS = None


def load_admin_stubs(protoc_python=None):
    """Generates (once per process) and imports jobwire.admin.v1 stubs."""
    global _STUBS
    if _STUBS is not None:
        return _STUBS
    out = Path(tempfile.mkdtemp(prefix="jobwire-admin-stubs-"))
    gen = protoc_python or os.environ.get("JOBWIRE_PROTOC_PYTHON") or str(REPO / ".tools" / "venv" / "bin" / "python")
    src = out / "jwcluster"
    src.mkdir()
    (src / "admin.proto").write_bytes((REPO / "proto" / "jobwire" / "admin" / "v1" / "admin.proto").read_bytes())
    (src / "__init__.py").touch()
    subprocess.run([gen, "-m", "grpc_tools.protoc", f"-I{out}", f"--python_out={out}",
                    f"--grpc_python_out={out}", str(src / "admin.proto")], check=True)
    sys.path.insert(0, str(out))
    from jwcluster import admin_pb2, admin_pb2_grpc  # type: ignore  # noqa: PLC0415
    _STUBS = (admin_pb2, admin_pb2_grpc)
    return _STUBS
