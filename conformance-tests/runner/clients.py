"""The runner's own gRPC clients for the gateway and admin APIs, and the
connection settings of an external gateway.
"""
from __future__ import annotations

import json
import os
import time
import urllib.parse
import urllib.request
from pathlib import Path

from engines import EngineError
from protostubs import ensure_stubs


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
