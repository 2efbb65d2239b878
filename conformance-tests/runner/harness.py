"""Processes the conformance runner owns: the reference engine, the fault
proxy, the SDK drivers, plus gRPC clients for the gateway and admin APIs.

Every child process is started in its own process group and registered in
``PROCS``; ``kill_all()`` (called from fixture teardown, atexit and signal
handlers) terminates whatever is still running, so a failing or interrupted
run leaves no orphans.

The one name to import them by; each part lives in its own module:
protostubs.py (paths, generated stubs), processes.py (the process registry),
engines.py (engine, cluster), clients.py (the runner's gRPC clients, external
gateway settings), sdkdriver.py (the SDK driver), faultproxy.py (the proxy).
"""
from __future__ import annotations

from clients import Clients, GatewaySettings, fetch_oauth_token, fetch_oauth_token_ttl  # noqa: F401
from engines import (CLUSTER_HELPER, ENGINE_BIN, LISTEN_RE, OAUTH_RE, Cluster, Engine, EngineError,  # noqa: F401
                     cluster_supported)
from faultproxy import PROXY_BIN, PROXY_DIR, Proxy, build_proxy  # noqa: F401
from processes import CLUSTERS, PROCS, _LineReader, _procs_lock, kill_all, spawn, stop_proc  # noqa: F401
from protostubs import GEN, HERE, REPO, SUITE, ensure_stubs  # noqa: F401
from sdkdriver import Driver, DriverError  # noqa: F401
