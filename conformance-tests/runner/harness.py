"""Processes the conformance runner owns: the reference engine, the fault
proxy, the SDK drivers, plus gRPC clients for the gateway and admin APIs.

Every child process is started in its own process group and registered in
``PROCS``; ``kill_all()`` (called from fixture teardown, atexit and signal
handlers) terminates whatever is still running, so a failing or interrupted
run leaves no orphans.
"""
from __future__ import annotations

import atexit
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
SUITE = HERE.parent
REPO = SUITE.parent
GEN = HERE / "_gen"


# --------------------------------------------------------------------------
# generated stubs
# --------------------------------------------------------------------------
def ensure_stubs():
    """Generates Python stubs for gateway.proto and admin.proto into
    runner/_gen (ignored) when missing or older than the .proto files, then
    imports them. Returns (gateway_pb2, gateway_pb2_grpc, admin_pb2, admin_pb2_grpc)."""
    sources = {"gateway.proto": REPO / "proto" / "gateway.proto",
               "admin.proto": REPO / "proto" / "jobwire" / "admin" / "v1" / "admin.proto"}
    pkg = GEN / "jwconf"
    stamp = GEN / "stamp"
    want = ";".join(f"{n}:{p.stat().st_mtime_ns}" for n, p in sources.items())
    if not stamp.exists() or stamp.read_text() != want:
        from grpc_tools import protoc  # imported lazily: heavy
        tmp = Path(tempfile.mkdtemp(prefix="jwgen-"))
        try:
            (tmp / "jwconf").mkdir()
            for n, p in sources.items():
                shutil.copy(p, tmp / "jwconf" / n)
            pkg.mkdir(parents=True, exist_ok=True)
            args = ["protoc", f"-I{tmp}", f"--python_out={GEN}", f"--grpc_python_out={GEN}"]
            args += [str(tmp / "jwconf" / n) for n in sources]
            if protoc.main(args) != 0:
                raise RuntimeError("grpc_tools.protoc failed")
            (pkg / "__init__.py").write_text("")
            (GEN / ".gitignore").write_text("*\n")
            stamp.write_text(want)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    if str(GEN) not in sys.path:
        sys.path.insert(0, str(GEN))
    from jwconf import gateway_pb2, gateway_pb2_grpc, admin_pb2, admin_pb2_grpc  # noqa: E402
    return gateway_pb2, gateway_pb2_grpc, admin_pb2, admin_pb2_grpc


# --------------------------------------------------------------------------
# process registry
# --------------------------------------------------------------------------
PROCS: list[subprocess.Popen] = []
_procs_lock = threading.Lock()


def spawn(args, **kw) -> subprocess.Popen:
    kw.setdefault("start_new_session", True)
    p = subprocess.Popen(args, **kw)
    with _procs_lock:
        PROCS.append(p)
    return p


def stop_proc(p: subprocess.Popen | None, grace: float = 3.0, sig=signal.SIGTERM):
    if p is None:
        return
    if p.poll() is None:
        try:
            os.killpg(p.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            p.wait(grace)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            p.wait(5)
    else:
        # the leader exited; make sure nothing it left in its group survives
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    with _procs_lock:
        if p in PROCS:
            PROCS.remove(p)


def kill_all():
    with _procs_lock:
        procs = list(PROCS)
        clusters = list(CLUSTERS)
    for c in clusters:
        try:
            c.stop()
        except Exception:  # noqa: BLE001
            pass
    for p in procs:
        stop_proc(p, grace=1.0)


atexit.register(kill_all)


def _on_signal(signum, frame):
    kill_all()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


for _s in (signal.SIGTERM, signal.SIGHUP):
    try:
        signal.signal(_s, _on_signal)
    except ValueError:  # not the main thread
        pass


class _LineReader(threading.Thread):
    """Reads a child's output line by line into a log file and a list,
    waking waiters on each line."""

    def __init__(self, stream, log_path: Path, on_line=None):
        super().__init__(daemon=True)
        self.stream, self.log_path, self.on_line = stream, log_path, on_line
        self.lines: list[str] = []
        self.cond = threading.Condition()
        self.closed = False
        self.start()

    def run(self):
        with open(self.log_path, "a", encoding="utf-8") as log:
            for raw in iter(self.stream.readline, b""):
                line = raw.decode("utf-8", "replace").rstrip("\n")
                log.write(line + "\n")
                log.flush()
                if self.on_line:
                    try:
                        self.on_line(line)
                    except Exception as e:  # a bad line must not kill the reader
                        log.write(f"[runner] bad line: {e}\n")
                with self.cond:
                    self.lines.append(line)
                    self.cond.notify_all()
        with self.cond:
            self.closed = True
            self.cond.notify_all()

    def wait_for(self, pattern: re.Pattern, timeout: float):
        end = time.monotonic() + timeout
        with self.cond:
            i = 0
            while True:
                while i < len(self.lines):
                    m = pattern.search(self.lines[i])
                    if m:
                        return m
                    i += 1
                if self.closed:
                    return None
                left = end - time.monotonic()
                if left <= 0:
                    return None
                self.cond.wait(left)


# --------------------------------------------------------------------------
# the reference engine
# --------------------------------------------------------------------------
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
CLUSTERS: list = []


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


class GatewaySettings:
    """Connection settings of an external gateway, read from the environment
    variables the official clients read (ZEEBE_ADDRESS, ZEEBE_CLIENT_ID,
    ZEEBE_CLIENT_SECRET, ZEEBE_AUTHORIZATION_SERVER_URL, ZEEBE_TOKEN_AUDIENCE,
    ZEEBE_TOKEN_SCOPE, ZEEBE_CA_CERTIFICATE_PATH, ZEEBE_INSECURE_CONNECTION).
    TLS unless ZEEBE_INSECURE_CONNECTION=true; a loopback address with neither
    a CA file nor OAuth credentials is plaintext unless the variable says
    otherwise (as the jobwire SDKs do)."""

    def __init__(self, env=None):
        env = os.environ if env is None else env

        def get(*names):
            for n in names:
                v = env.get(n, "").strip()
                if v:
                    return v
            return ""
        self.address = get("ZEEBE_ADDRESS", "ZEEBE_GRPC_ADDRESS", "CAMUNDA_GRPC_ADDRESS")
        for prefix in ("grpcs://", "https://", "grpc://", "http://"):
            if self.address.startswith(prefix):
                self.address = self.address[len(prefix):].rstrip("/")
                self._scheme_plain = prefix in ("grpc://", "http://")
                break
        else:
            self._scheme_plain = None
        if self.address and "," not in self.address and ":" not in self.address.rsplit("]", 1)[-1]:
            self.address += ":443" if not self._scheme_plain else ":26500"
        self.client_id = get("ZEEBE_CLIENT_ID", "CAMUNDA_CLIENT_ID")
        self.client_secret = get("ZEEBE_CLIENT_SECRET", "CAMUNDA_CLIENT_SECRET")
        self.auth_url = get("ZEEBE_AUTHORIZATION_SERVER_URL", "CAMUNDA_OAUTH_URL", "CAMUNDA_AUTHORIZATION_SERVER_URL")
        self.audience = get("ZEEBE_TOKEN_AUDIENCE", "CAMUNDA_TOKEN_AUDIENCE")
        self.scope = get("ZEEBE_TOKEN_SCOPE", "CAMUNDA_TOKEN_SCOPE")
        self.ca_path = get("ZEEBE_CA_CERTIFICATE_PATH", "CAMUNDA_CA_CERTIFICATE_PATH")
        flag = get("ZEEBE_INSECURE_CONNECTION", "CAMUNDA_INSECURE_CONNECTION").lower()
        host = self.address.split(",")[0].strip().rsplit(":", 1)[0].strip("[]")
        if flag in ("true", "1", "yes"):
            self.insecure = True
        elif flag in ("false", "0", "no"):
            self.insecure = False
        elif self._scheme_plain is not None:
            self.insecure = self._scheme_plain
        else:
            self.insecure = host in ("localhost", "127.0.0.1", "::1") and not self.ca_path and not self.client_id
        if self.client_id and not self.auth_url:
            # the official Go client's default: Camunda 8 SaaS
            self.auth_url = "https://login.cloud.camunda.io/oauth/token/"

    @property
    def oauth(self) -> bool:
        return bool(self.client_id and self.client_secret)

    def problems(self) -> list[str]:
        p = []
        if not self.address:
            p.append("ZEEBE_ADDRESS is not set (the gateway's HOST:PORT)")
        if bool(self.client_id) != bool(self.client_secret):
            p.append("set both ZEEBE_CLIENT_ID and ZEEBE_CLIENT_SECRET, or neither")
        if self.ca_path and not Path(self.ca_path).is_file():
            p.append(f"ZEEBE_CA_CERTIFICATE_PATH {self.ca_path} is not a file")
        if self.ca_path and self.insecure:
            p.append("ZEEBE_CA_CERTIFICATE_PATH is set but ZEEBE_INSECURE_CONNECTION=true asks for plaintext")
        return p

    def driver_env(self) -> dict:
        """The variables handed to each SDK driver (the SDK reads them itself)."""
        env = {"ZEEBE_ADDRESS": self.address, "ZEEBE_INSECURE_CONNECTION": "true" if self.insecure else "false"}
        if self.ca_path:
            env["ZEEBE_CA_CERTIFICATE_PATH"] = self.ca_path
        if self.oauth:
            env.update(ZEEBE_CLIENT_ID=self.client_id, ZEEBE_CLIENT_SECRET=self.client_secret,
                       ZEEBE_AUTHORIZATION_SERVER_URL=self.auth_url)
            if self.audience:
                env["ZEEBE_TOKEN_AUDIENCE"] = self.audience
            if self.scope:
                env["ZEEBE_TOKEN_SCOPE"] = self.scope
        return env

    def describe(self) -> str:
        """For the report: never the secret."""
        tls = "plaintext" if self.insecure else ("TLS (CA " + Path(self.ca_path).name + ")" if self.ca_path
                                                  else "TLS (system roots)")
        auth = f"OAuth client credentials (client id {self.client_id}, audience {self.audience or '-'})" if self.oauth \
            else "no credentials"
        return f"{self.address}, {tls}, {auth}"


def fetch_oauth_token_ttl(url, client_id="jobwire", client_secret="secret", audience="zeebe-api", scope=""):
    """(access token, lifetime in seconds) from an OAuth client-credentials endpoint."""
    form = {"grant_type": "client_credentials", "client_id": client_id, "client_secret": client_secret}
    if audience:
        form["audience"] = audience
    if scope:
        form["scope"] = scope
    req = urllib.request.Request(url, data=urllib.parse.urlencode(form).encode(),
                                 headers={"Content-Type": "application/x-www-form-urlencoded",
                                          "Accept": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        body = json.loads(r.read())
    return body["access_token"], float(body.get("expires_in") or 60)


def fetch_oauth_token(url, client_id="jobwire", client_secret="secret", audience="zeebe-api"):
    body = urllib.parse.urlencode({"grant_type": "client_credentials", "client_id": client_id,
                                   "client_secret": client_secret, "audience": audience}).encode()
    req = urllib.request.Request(url, data=body, headers={"Content-Type": "application/x-www-form-urlencoded"})
    with urllib.request.urlopen(req, timeout=5) as r:
        return json.loads(r.read())["access_token"]


# --------------------------------------------------------------------------
# gRPC clients for the runner itself
# --------------------------------------------------------------------------
class Clients:
    """The runner's own gateway + admin stubs (deploy, create instances,
    inspect, inject faults)."""

    def __init__(self, address, ca_path=None, oauth_url=None, admin=True, admin_address=None, tls_server_name=None,
                 client_secret="secret", admin_token=None, client_cert=None, settings: GatewaySettings | None = None):
        import grpc
        self.grpc = grpc
        self.gw_pb, gw_grpc, self.ad_pb, ad_grpc = ensure_stubs()
        self.address = address
        self.oauth_url = oauth_url
        self.client_secret = client_secret
        self.admin_token = admin_token
        self._token = None
        self._token_at = 0.0
        self._token_ttl = 0.5  # the reference engine's tokens: re-fetched often (scenarios expire them)
        self.settings = settings
        if settings is not None:  # an external gateway: its own address, TLS and OAuth settings
            # a comma-separated list (several gateways): the SDKs balance over all, the runner uses the first
            address, ca_path, admin = settings.address.split(",")[0].strip(), settings.ca_path or None, False
            self.address = address
            self.oauth_url = settings.auth_url if settings.oauth else None
            self.client_secret = settings.client_secret
        opts = [("grpc.max_receive_message_length", 16 << 20)]
        if tls_server_name:  # the server certificate names another host (the hostname-mismatch case)
            opts.append(("grpc.ssl_target_name_override", tls_server_name))
        if settings is not None and not settings.insecure:
            roots = Path(ca_path).read_bytes() if ca_path else None  # None: the system's roots
            self.channel = grpc.secure_channel(address, grpc.ssl_channel_credentials(root_certificates=roots),
                                               options=opts)
        elif ca_path:
            cc = {}
            if client_cert:  # mutual TLS: (certificate chain path, private key path)
                cc = {"certificate_chain": Path(client_cert[0]).read_bytes(),
                      "private_key": Path(client_cert[1]).read_bytes()}
            creds = grpc.ssl_channel_credentials(root_certificates=Path(ca_path).read_bytes(), **cc)
            self.channel = grpc.secure_channel(address, creds, options=opts)
        else:
            self.channel = grpc.insecure_channel(address, options=opts)
        self.gw = gw_grpc.GatewayStub(self.channel)
        # a cluster serves the merged admin view on the supervisor's own port
        self.admin_channel = grpc.insecure_channel(admin_address, options=opts) if admin_address else None
        self.admin = ad_grpc.AdminServiceStub(self.admin_channel or self.channel) if admin else None

    def md(self):
        if not self.oauth_url:
            return None
        if self._token is None or time.monotonic() - self._token_at > self._token_ttl:
            # the token endpoint may be down on purpose (a scenario's fault):
            # retry for a moment, then go on with the last token
            for attempt in range(6):
                try:
                    if self.settings is not None:
                        st = self.settings
                        self._token, ttl = fetch_oauth_token_ttl(self.oauth_url, st.client_id, st.client_secret,
                                                                 st.audience, st.scope)
                        self._token_ttl = max(1.0, ttl * 0.8)  # a real server's tokens are cached
                    else:
                        self._token = fetch_oauth_token(self.oauth_url, client_secret=self.client_secret)
                    self._token_at = time.monotonic()
                    break
                except Exception:  # noqa: BLE001
                    if attempt == 5 and self._token is None:
                        raise
                    time.sleep(0.1 * (attempt + 1))
        return [("authorization", f"Bearer {self._token}")]

    def close(self):
        for ch in (self.channel, self.admin_channel):
            try:
                if ch is not None:
                    ch.close()
            except Exception:
                pass

    def wait_ready(self, timeout=15.0):
        end = time.monotonic() + timeout
        last = None
        while time.monotonic() < end:
            try:
                self.gw.Topology(self.gw_pb.TopologyRequest(), timeout=2, metadata=self.md())
                return
            except Exception as e:  # noqa: BLE001
                last = e
                time.sleep(0.2)
        raise EngineError(f"gateway at {self.address} not ready: {last}")

    # gateway --------------------------------------------------------------
    def deploy(self, name: str, content: bytes):
        req = self.gw_pb.DeployResourceRequest(resources=[self.gw_pb.Resource(name=name, content=content)])
        return self._retry(lambda: self.gw.DeployResource(req, timeout=10, metadata=self.md()))

    def create_instance(self, process_id: str, variables: dict):
        req = self.gw_pb.CreateProcessInstanceRequest(bpmnProcessId=process_id, version=-1,
                                                      variables=json.dumps(variables))
        return self._retry(lambda: self.gw.CreateProcessInstance(req, timeout=10, metadata=self.md()))

    def create_instance_with_result(self, process_id: str, variables: dict, timeout_ms: int):
        req = self.gw_pb.CreateProcessInstanceWithResultRequest(
            request=self.gw_pb.CreateProcessInstanceRequest(bpmnProcessId=process_id, version=-1,
                                                            variables=json.dumps(variables)),
            requestTimeout=timeout_ms)
        return self.gw.CreateProcessInstanceWithResult(req, timeout=timeout_ms / 1000 + 10, metadata=self.md())

    def cancel_instance(self, key: int):
        req = self.gw_pb.CancelProcessInstanceRequest(processInstanceKey=int(key))
        return self._retry(lambda: self.gw.CancelProcessInstance(req, timeout=10, metadata=self.md()), budget_s=10)

    def activate_jobs(self, job_type: str, max_jobs=100, request_timeout_ms=500, worker="jobwire-conformance-cleanup"):
        """Activates jobs of this (the case's own, unique) type: the runner's clean-up sweep."""
        req = self.gw_pb.ActivateJobsRequest(type=job_type, worker=worker, timeout=60000, maxJobsToActivate=max_jobs,
                                             requestTimeout=request_timeout_ms, fetchVariable=["jwNone"])
        jobs = []
        for resp in self.gw.ActivateJobs(req, timeout=request_timeout_ms / 1000 + 10, metadata=self.md()):
            jobs += list(resp.jobs)
        return jobs

    def _retry(self, fn, budget_s=30.0):
        """The runner's own calls retry transient errors (a restarting engine,
        an injected fault meant for the SDK) within a time budget; a hung
        engine (DEADLINE_EXCEEDED) is retried once at most."""
        delay = 0.05
        end = time.monotonic() + budget_s
        deadlines = 0
        while True:
            try:
                return fn()
            except self.grpc.RpcError as e:
                code = e.code()
                if code == self.grpc.StatusCode.DEADLINE_EXCEEDED:
                    deadlines += 1
                if code not in (self.grpc.StatusCode.UNAVAILABLE, self.grpc.StatusCode.RESOURCE_EXHAUSTED,
                                self.grpc.StatusCode.DEADLINE_EXCEEDED) or deadlines > 1 \
                        or time.monotonic() + delay > end:
                    raise
                time.sleep(delay)
                delay = min(delay * 1.6, 1.0)

    # admin ----------------------------------------------------------------
    def admin_md(self):
        """The admin API's own credential (an engine with --oauth needs it)."""
        if self.admin_token:
            return [("authorization", f"Bearer {self.admin_token}")]
        return self.md()

    def a(self, method, req):
        return self._retry(lambda: getattr(self.admin, method)(req, timeout=10, metadata=self.admin_md()))


# --------------------------------------------------------------------------
# the SDK driver
# --------------------------------------------------------------------------
class DriverError(RuntimeError):
    pass


class Driver:
    """A running `drivers/<lang>/run` speaking JSON lines."""

    def __init__(self, cmd: list[str], env: dict, log: Path, cwd: Path | None = None):
        self.events: list[dict] = []
        self.cond = threading.Condition()
        self.log = log
        self.bad_lines: list[str] = []
        self.proc = spawn(cmd, env=env, cwd=str(cwd) if cwd else None, stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=open(str(log) + ".stderr", "ab"))
        self.reader = _LineReader(self.proc.stdout, log, self._on_line)

    def _on_line(self, line):
        line = line.strip()
        if not line:
            return
        try:
            ev = json.loads(line)
            if not isinstance(ev, dict) or "event" not in ev:
                raise ValueError("not an event object")
        except ValueError:
            self.bad_lines.append(line)
            return
        ev["_rt"] = time.time() * 1000.0  # runner's receive time (ms)
        with self.cond:
            self.events.append(ev)
            self.cond.notify_all()

    def send(self, **cmd):
        if self.proc.poll() is not None:
            raise DriverError(f"driver exited (code {self.proc.returncode}); see {self.log}.stderr")
        data = (json.dumps(cmd) + "\n").encode()
        with open(self.log, "a") as f:
            f.write(f"-> {data.decode().strip()}\n")
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as e:
            raise DriverError(f"driver stdin closed: {e}") from e

    def wait_event(self, pred, timeout: float, what: str):
        end = time.monotonic() + timeout
        with self.cond:
            i = 0
            while True:
                while i < len(self.events):
                    if pred(self.events[i]):
                        return self.events[i]
                    i += 1
                if self.proc.poll() is not None and self.reader.closed:
                    raise DriverError(f"driver exited (code {self.proc.returncode}) while waiting for {what}; "
                                      f"see {self.log}.stderr")
                left = end - time.monotonic()
                if left <= 0:
                    raise DriverError(f"timed out after {timeout}s waiting for {what}")
                self.cond.wait(min(left, 0.5))

    def snapshot(self):
        with self.cond:
            return list(self.events)

    def close(self, timeout=8.0):
        p = self.proc
        if p.poll() is None:
            try:
                p.stdin.close()  # contract: driver closes its workers and exits 0
            except Exception:
                pass
            try:
                p.wait(timeout)
            except subprocess.TimeoutExpired:
                pass
        stop_proc(p, grace=2)
        return p.returncode


# --------------------------------------------------------------------------
# the fault proxy (conformance-tests/proxy)
# --------------------------------------------------------------------------
PROXY_DIR = SUITE / "proxy"
PROXY_BIN = PROXY_DIR / "bin" / "jwproxy"


def build_proxy():
    srcs = list(PROXY_DIR.glob("*.go")) + [PROXY_DIR / "go.mod"]
    if PROXY_BIN.exists() and all(s.stat().st_mtime <= PROXY_BIN.stat().st_mtime for s in srcs):
        return PROXY_BIN
    r = subprocess.run(["go", "build", "-o", str(PROXY_BIN), "."], cwd=PROXY_DIR, capture_output=True, text=True,
                       timeout=300)
    if r.returncode != 0:
        raise RuntimeError(f"building the proxy failed:\n{r.stdout}{r.stderr}")
    return PROXY_BIN


class Proxy:
    """The HTTP/2 fault proxy: `jwproxy --upstream H:P` prints
    `proxy listening on 127.0.0.1:P` and `control listening on 127.0.0.1:C`."""

    def __init__(self, upstream: str, log: Path, max_concurrent_streams: int | None = None):
        build_proxy()
        self.log = log
        extra = ["--max-concurrent-streams", str(int(max_concurrent_streams))] if max_concurrent_streams else []
        self.proc = spawn([str(PROXY_BIN), "--upstream", upstream, *extra], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.reader = _LineReader(self.proc.stdout, log)
        m = self.reader.wait_for(re.compile(r"proxy listening on (127\.0\.0\.1:\d+)"), 10)
        c = self.reader.wait_for(re.compile(r"control listening on (127\.0\.0\.1:\d+)"), 10)
        if not m or not c:
            self.stop()
            raise RuntimeError(f"proxy did not start; see {log}")
        self.address = m.group(1)
        self.control = "http://" + c.group(1)

    def cmd(self, action: str, **params):
        q = urllib.parse.urlencode({k: v for k, v in params.items() if v is not None})
        req = urllib.request.Request(f"{self.control}/{action}?{q}", method="POST", data=b"")
        with urllib.request.urlopen(req, timeout=5) as r:
            return json.loads(r.read() or b"{}")

    def stats(self):
        with urllib.request.urlopen(f"{self.control}/stats", timeout=5) as r:
            return json.loads(r.read())

    def set_upstream(self, upstream: str):
        return self.cmd("upstream", addr=upstream)

    def stop(self):
        p, self.proc = self.proc, None
        if p:
            try:
                p.stdin.close()
            except Exception:
                pass
            stop_proc(p, grace=2)
