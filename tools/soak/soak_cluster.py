"""The soak's cluster (soak.py): `jobwire-engine cluster` secured end to end, and the faults it
injects through the supervisor's admin API."""
from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUNNER = ROOT / "conformance-tests" / "runner"
if str(RUNNER) not in sys.path:  # soak.py has put it there already
    sys.path.insert(0, str(RUNNER))

import harness  # noqa: E402
from certs import make_ca_and_server_cert, make_client_cert  # noqa: E402

FAULTS = ["gateway_restart", "broker_kill", "stream_reset", "resource_exhausted", "stalled_stream", "token_expiry"]
READY_RE = re.compile(r"jobwire-engine cluster ready: gateways (\S+) admin (\S+)")


class SecureCluster:
    """`jobwire-engine cluster` with TLS + mTLS + OAuth (JWT) + an admin token; gRPC clients for the
    load generator (gateway) and the faults (the supervisor's admin port)."""

    def __init__(self, work: Path, token_ttl: str, history: int):
        import grpc
        self.grpc = grpc
        self.work = work
        self.gw_pb, gw_grpc, self.ad_pb, ad_grpc = harness.ensure_stubs()
        self.ca, cert, key = make_ca_and_server_cert(work / "certs")
        self.client_cert, self.client_key = make_client_cert(work / "certs", "soak-worker")
        self.secret = "soak-secret-" + secrets.token_hex(12)
        self.admin_token = "soak-admin-" + secrets.token_hex(16)
        tf = work / "admin-token"
        tf.write_text(self.admin_token)
        tf.chmod(0o600)
        args = [str(harness.ENGINE_BIN), "cluster", "--gateways", "2", "--brokers", "3", "--partitions", "6",
                "--no-ui", "--exit-on-stdin-close", "--data-dir", str(work / "cluster-data"),
                "--tls-cert", str(cert), "--tls-key", str(key), "--tls-client-ca", str(self.ca),
                "--oauth", "--oauth-client-secret", self.secret, "--oauth-token-ttl", token_ttl,
                "--admin-token-file", str(tf), "--history", str(history)]
        self.log = work / "cluster.log"
        self.proc = harness.spawn(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.reader = harness._LineReader(self.proc.stdout, self.log)
        m = self.reader.wait_for(READY_RE, 60)
        o = self.reader.wait_for(harness.OAUTH_RE, 5)
        if not m or not o:
            self.stop()
            raise RuntimeError(f"the cluster did not start; see {self.log}")
        self.gateways = m.group(1).split(",")
        self.admin_address = m.group(2)
        self.token_url = o.group(1)
        creds = grpc.ssl_channel_credentials(root_certificates=Path(self.ca).read_bytes(),
                                             private_key=Path(self.client_key).read_bytes(),
                                             certificate_chain=Path(self.client_cert).read_bytes())
        self.gw_channel = grpc.secure_channel(self.gateways[0], creds)
        self.gw2_channel = grpc.secure_channel(self.gateways[1], creds)
        self.gws = [gw_grpc.GatewayStub(self.gw_channel), gw_grpc.GatewayStub(self.gw2_channel)]
        self.ad_channel = grpc.secure_channel(self.admin_address, creds)
        self.admin = ad_grpc.AdminServiceStub(self.ad_channel)
        self._tok = None
        self._tok_lock = threading.Lock()

    def pid(self) -> int:
        return self.proc.pid

    def token(self, fresh: bool = False) -> str:
        with self._tok_lock:
            if fresh or self._tok is None or time.monotonic() - self._tok[1] > 20:
                for attempt in range(50):
                    try:
                        self._tok = (harness.fetch_oauth_token(self.token_url, client_secret=self.secret),
                                     time.monotonic())
                        break
                    except Exception:  # noqa: BLE001 — endpoint busy: retry
                        time.sleep(min(0.1 * (attempt + 1), 1.0))
            return self._tok[0]

    def md(self):
        return [("authorization", f"Bearer {self.token()}")]

    def a(self, method: str, req, timeout: float = 60):
        """An admin call (admin token), retrying UNAVAILABLE for a while."""
        end = time.monotonic() + timeout
        while True:
            try:
                return getattr(self.admin, method)(req, timeout=timeout,
                                                   metadata=[("authorization", f"Bearer {self.admin_token}")])
            except self.grpc.RpcError as e:
                if e.code() != self.grpc.StatusCode.UNAVAILABLE or time.monotonic() > end:
                    raise
                time.sleep(0.5)

    def gw_call(self, method: str, req, i: int = 0, budget: float = 30.0):
        """A gateway call that retries what a client should retry (and refreshes its token)."""
        g = self.grpc.StatusCode
        end = time.monotonic() + budget
        delay, deadlines = 0.05, 0
        while True:
            try:
                return getattr(self.gws[i % 2], method)(req, timeout=10, metadata=self.md())
            except self.grpc.RpcError as e:
                code = e.code()
                if code == g.UNAUTHENTICATED:
                    self.token(fresh=True)
                elif code == g.DEADLINE_EXCEEDED:
                    deadlines += 1
                elif code not in (g.UNAVAILABLE, g.RESOURCE_EXHAUSTED):
                    raise
                if deadlines > 1 or time.monotonic() + delay > end:
                    raise
                i += 1  # the other gateway next (one may be restarting)
                time.sleep(delay)
                delay = min(delay * 1.6, 1.0)

    def driver_env(self) -> dict:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("ZEEBE_", "CAMUNDA_", "JOBWIRE_DRIVER_", "OTEL_"))}
        env.update({"ZEEBE_ADDRESS": ",".join(self.gateways), "ZEEBE_INSECURE_CONNECTION": "false",
                    "ZEEBE_CA_CERTIFICATE_PATH": str(self.ca),
                    "ZEEBE_CLIENT_CERTIFICATE_PATH": str(self.client_cert),
                    "ZEEBE_CLIENT_PRIVATE_KEY_PATH": str(self.client_key),
                    "ZEEBE_CLIENT_ID": "jobwire", "ZEEBE_CLIENT_SECRET": self.secret,
                    "ZEEBE_AUTHORIZATION_SERVER_URL": self.token_url, "ZEEBE_TOKEN_AUDIENCE": "zeebe-api"})
        return env

    def stop(self):
        for ch in ("gw_channel", "gw2_channel", "ad_channel"):
            try:
                getattr(self, ch).close()
            except Exception:  # noqa: BLE001
                pass
        p, self.proc = self.proc, None
        if p:
            try:
                p.stdin.close()
            except Exception:  # noqa: BLE001
                pass
            harness.stop_proc(p, grace=12)


# ---------------------------------------------------------------- faults
class Faults:
    def __init__(self, c: SecureCluster, sdks: list[str]):
        self.c, self.sdks, self.ad = c, sdks, c.ad_pb

    def run(self, kind: str, k: int) -> str:
        c, ad = self.c, self.ad
        r = k // len(FAULTS)  # the round of the rotation: another gateway / broker each round
        if kind == "gateway_restart":
            c.a("RestartGateway", ad.RestartGatewayRequest(index=r % 2, graceful=False))
            return f"gateway {r % 2} killed and restarted"
        if kind == "broker_kill":
            node = r % 3
            c.a("StopBroker", ad.StopBrokerRequest(node_id=node, graceful=False))
            time.sleep(5)
            c.a("StartBroker", ad.StartBrokerRequest(node_id=node))
            return f"broker {node} killed, down 5 s, restarted"
        if kind == "stream_reset":
            r = c.a("ResetStreams", ad.ResetStreamsRequest(code=14, include_long_polls=True))
            return f"{r.streams_closed} streams and {r.long_polls_closed} long polls ended with UNAVAILABLE"
        if kind == "resource_exhausted":
            c.a("InjectFault", ad.InjectFaultRequest(reject=ad.RejectFault(
                method="", code=8, count=150, message="soak: RESOURCE_EXHAUSTED burst")))
            time.sleep(10)
            c.a("ClearFaults", ad.ClearFaultsRequest())
            return "the next 150 requests on each gateway answered RESOURCE_EXHAUSTED (cleared after 10 s)"
        if kind == "stalled_stream":
            for s in self.sdks:
                c.a("InjectFault", ad.InjectFaultRequest(stall_streams=ad.StallStreamsFault(
                    type=f"soak-{s}", duration_ms=15000)))
            time.sleep(15)
            return "push streams of every soak job type stalled for 15 s"
        if kind == "token_expiry":
            c.a("InjectFault", ad.InjectFaultRequest(expire_tokens=ad.ExpireTokensFault()))
            return "every token issued so far expired"
        raise ValueError(kind)
