"""The HTTP/2 fault proxy (conformance-tests/proxy), built on first use.
"""
from __future__ import annotations

import json
import re
import subprocess
import urllib.parse
import urllib.request
from pathlib import Path

from processes import _LineReader, spawn, stop_proc
from protostubs import SUITE


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
