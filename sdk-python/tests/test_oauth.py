"""OAuth client credentials against a local token endpoint (127.0.0.1, free port): the
token is cached, refreshed before it expires, fetched once for concurrent callers, and the
endpoint's failures become UnauthenticatedError."""

from __future__ import annotations

import asyncio
import json
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any, Dict, Iterator, List

import pytest

from jobwire import UnauthenticatedError
from jobwire._oauth import OAuthProvider
from jobwire.config import OAuthOptions


class TokenServer:
    def __init__(self) -> None:
        self.requests: List[Dict[str, str]] = []
        self.expires_in = 300
        self.status = 200
        outer = self

        class H(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers["content-length"])).decode()
                form = {k: v[0] for k, v in urllib.parse.parse_qs(body).items()}
                outer.requests.append(form)
                if outer.status != 200:
                    self.send_response(outer.status)
                    self.end_headers()
                    self.wfile.write(b'{"error":"invalid_client"}')
                    return
                out = json.dumps({"access_token": f"tok-{len(outer.requests)}", "expires_in": outer.expires_in}).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.end_headers()
                self.wfile.write(out)

            def log_message(self, *a: Any) -> None:
                pass

        self.httpd = HTTPServer(("127.0.0.1", 0), H)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/oauth/token"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture()
def server() -> Iterator[TokenServer]:
    s = TokenServer()
    try:
        yield s
    finally:
        s.close()


def test_token_cached_shared_and_refreshed_before_expiry(server: TokenServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("http_proxy", raising=False)
    monkeypatch.delenv("HTTP_PROXY", raising=False)
    now = [1000.0]
    p = OAuthProvider(OAuthOptions("id", "secret", server.url, audience="zeebe-api", scope="s1"), now=lambda: now[0])

    async def go() -> None:
        toks = await asyncio.gather(*(p.get_token() for _ in range(5)))
        assert set(toks) == {"tok-1"} and len(server.requests) == 1  # one fetch for concurrent callers
        assert server.requests[0] == {
            "grant_type": "client_credentials", "client_id": "id", "client_secret": "secret", "audience": "zeebe-api", "scope": "s1",
        }
        now[0] += 269  # 300 s token: refreshed 30 s early
        assert await p.get_token() == "tok-1"
        now[0] += 2
        assert await p.get_token() == "tok-2"
        p.invalidate("stale-other")  # only the token that was refused is dropped
        assert await p.get_token() == "tok-2"
        p.invalidate("tok-2")
        assert await p.get_token() == "tok-3"

    asyncio.run(go())


def test_token_endpoint_errors_are_unauthenticated(server: TokenServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("http_proxy", raising=False)
    monkeypatch.delenv("HTTP_PROXY", raising=False)
    server.status = 401
    p = OAuthProvider(OAuthOptions("id", "wrong", server.url))
    with pytest.raises(UnauthenticatedError, match="401"):
        asyncio.run(p.get_token())
    dead = OAuthProvider(OAuthOptions("id", "s", "http://127.0.0.1:9/token"))
    with pytest.raises(UnauthenticatedError, match="token request failed"):
        asyncio.run(dead.get_token())
