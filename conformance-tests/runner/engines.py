"""The reference engine the runner starts: one `jobwire-engine dev` process
(``Engine``) or the multi-process cluster (``Cluster``).
"""
from __future__ import annotations

import re
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

from processes import CLUSTERS, _LineReader, _procs_lock, spawn, stop_proc
from protostubs import REPO, ensure_stubs


ENGINE_BIN = REPO / "engine-reference" / "bin" / "jobwire-engine"
LISTEN_RE = re.compile(r"listening on 127\.0\.0\.1:(\d+)")
OAUTH_RE = re.compile(r"oauth token endpoint (http://127\.0\.0\.1:\d+/\S+)")


class EngineError(RuntimeError):
    pass


class Engine:
    """One `jobwire-engine dev` process with its own data dir. ``restart()``
    stops it and starts it again on the same port and data dir."""

    def __init__(self, workdir: Path, extra_args=(), tls: tuple[str, str] | None = None,
                 oauth: bool = False, name="engine", client_ca: str | None = None):
        self.workdir = Path(workdir)
        self.client_ca = client_ca  # mutual TLS: clients need a certificate signed by this CA
        self.data_dir = self.workdir / f"{name}-data"
        self.log = self.workdir / f"{name}.log"
        self.extra_args = list(extra_args)
        self.tls = tls
        self.oauth = oauth
        self.port = 0
        self.proc = None
        self.oauth_url = None
        self.starts = 0
        # With --oauth the admin API needs its own token (the engine turns it
        # off otherwise), and the OAuth client secret is random per engine so
        # that scenarios can grep logs for it.
        self.admin_token = None
        self.client_secret = "secret"
        if oauth:
            self.workdir.mkdir(parents=True, exist_ok=True)
            self.admin_token = "admin-" + secrets.token_hex(16)
            self.admin_token_file = self.workdir / f"{name}-admin-token"
            self.admin_token_file.write_text(self.admin_token)
            self.client_secret = "jw-secret-" + secrets.token_hex(12)

    def _help(self) -> str:
        try:
            return subprocess.run([str(ENGINE_BIN), "dev", "--help"], capture_output=True,
                                  text=True, timeout=10).stdout + subprocess.run(
                [str(ENGINE_BIN), "dev", "--help"], capture_output=True, text=True, timeout=10).stderr
        except Exception:
            return ""

    def start(self, timeout=30.0):
        if not ENGINE_BIN.exists():
            raise EngineError(f"{ENGINE_BIN} missing: run `make engine`")
        self.data_dir.mkdir(parents=True, exist_ok=True)
        args = [str(ENGINE_BIN), "dev", "--port", str(self.port), "--data-dir", str(self.data_dir)]
        if not hasattr(Engine, "_help_text"):
            Engine._help_text = self._help()
        if "exit-on-stdin-close" in Engine._help_text:
            args.append("--exit-on-stdin-close")
        if self.tls:
            args += ["--tls-cert", self.tls[0], "--tls-key", self.tls[1]]
        if self.client_ca:
            args += ["--tls-client-ca", self.client_ca]
        if self.oauth:
            args += ["--oauth", "--oauth-client-secret", self.client_secret,
                     "--admin-token-file", str(self.admin_token_file)]
        args += self.extra_args
        shown = [a if a != self.client_secret else "<client secret>" for a in args]
        with open(self.log, "a") as f:
            f.write(f"[runner] start: {' '.join(shown)}\n")
        self.proc = spawn(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.reader = _LineReader(self.proc.stdout, self.log)
        m = self.reader.wait_for(LISTEN_RE, timeout)
        if not m:
            self.stop()
            tail = "\n".join(self.log.read_text().splitlines()[-20:])
            raise EngineError(f"engine did not print 'listening on' within {timeout}s:\n{tail}")
        self.port = int(m.group(1))
        if self.oauth:
            m2 = self.reader.wait_for(OAUTH_RE, 5)
            if not m2:
                self.stop()
                raise EngineError("engine started with --oauth but printed no token endpoint")
            self.oauth_url = m2.group(1)
        self.starts += 1
        return self

    @property
    def address(self):
        return f"127.0.0.1:{self.port}"

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def stop(self, kill=False):
        p, self.proc = self.proc, None
        if p is None:
            return
        if kill:
            stop_proc(p, grace=2, sig=signal.SIGKILL)
        else:
            try:
                p.stdin.close()
            except Exception:
                pass
            stop_proc(p, grace=5)

    def restart(self, down_ms=500, kill=True):
        self.stop(kill=kill)
        time.sleep(down_ms / 1000.0)
        deadline = time.monotonic() + 10
        while True:  # the port may linger for a moment
            try:
                return self.start()
            except EngineError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.3)


CLUSTER_HELPER = REPO / "engine-reference" / "cluster"


def cluster_supported() -> bool:
    """The engine binary has the `cluster` subcommand (issue 4) and the Python helper exists."""
    if not ENGINE_BIN.exists() or not (CLUSTER_HELPER / "jobwire_cluster.py").exists():
        return False
    try:
        r = subprocess.run([str(ENGINE_BIN), "cluster", "--help"], capture_output=True, text=True, timeout=10)
    except Exception:  # noqa: BLE001
        return False
    return "gateways" in r.stdout + r.stderr


class Cluster:
    """The multi-process reference cluster (`jobwire-engine cluster`) through
    engine-reference/cluster/jobwire_cluster.py: brokers + gateways as child
    processes of one supervisor. The supervisor exits when its stdin closes
    (this process exiting closes it too) and takes every child with it; it is
    also stopped from kill_all()."""

    def __init__(self, workdir: Path, gateways=2, brokers=3, partitions=6):
        if str(CLUSTER_HELPER) not in sys.path:
            sys.path.insert(0, str(CLUSTER_HELPER))
        from jobwire_cluster import JobwireCluster  # noqa: PLC0415
        _, _, admin_pb2, admin_pb2_grpc = ensure_stubs()
        self.workdir = Path(workdir)
        self.log = self.workdir / "cluster.log"
        self.c = JobwireCluster(gateways=gateways, brokers=brokers, partitions=partitions, engine_bin=ENGINE_BIN,
                                data_dir=self.workdir / "cluster-data", admin_stubs=(admin_pb2, admin_pb2_grpc))

    def start(self):
        if not ENGINE_BIN.exists():
            raise EngineError(f"{ENGINE_BIN} missing: run `make engine`")
        with _procs_lock:
            CLUSTERS.append(self)
        try:
            self.c.start()
        except Exception as e:
            self.stop()
            raise EngineError(f"cluster did not start: {e}") from e
        return self

    @property
    def gateways(self) -> list[str]:
        return list(self.c.gateways)

    @property
    def admin_address(self) -> str:
        return self.c.admin_address

    def stop_broker(self, node: int, graceful=False):
        self.c.stop_broker(node, graceful=graceful)

    def start_broker(self, node: int):
        self.c.start_broker(node)

    def restart_gateway(self, index: int, graceful=False):
        self.c.restart_gateway(index, graceful=graceful)

    def stop(self):
        try:
            self.c.stop()
        finally:
            with open(self.log, "a") as f:
                f.write("\n".join(self.c.lines) + "\n")
            with _procs_lock:
                if self in CLUSTERS:
                    CLUSTERS.remove(self)
