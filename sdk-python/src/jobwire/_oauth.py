"""OAuth client-credentials token provider: one cached token, refreshed before it
expires (at 80 % of its lifetime, at most 30 s early), one fetch at a time."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Callable, Optional, Tuple

from .config import OAuthOptions
import grpc

from .errors import UnauthenticatedError

_CODE = grpc.StatusCode.UNAUTHENTICATED

_FETCH_TIMEOUT_S = 15.0


class OAuthProvider:
    """Fetches and caches bearer tokens for the gateway."""

    def __init__(self, opts: OAuthOptions, now: Callable[[], float] = time.monotonic) -> None:
        self._opts = opts
        self._now = now
        self._token: Optional[Tuple[str, float]] = None  # (value, refresh_at)
        self._inflight: Optional["asyncio.Future[str]"] = None

    async def get_token(self) -> str:
        """A valid bearer token (cached while fresh)."""
        t = self._token
        if t is not None and self._now() < t[1]:
            return t[0]
        if self._inflight is None or self._inflight.done():
            loop = asyncio.get_running_loop()
            fut: "asyncio.Future[str]" = loop.create_future()
            self._inflight = fut
            try:
                value, lifetime = await asyncio.to_thread(self._fetch)
                early = min(30.0, lifetime * 0.2)
                self._token = (value, self._now() + lifetime - early)
                fut.set_result(value)
            except BaseException as e:
                fut.set_exception(e)
                fut.exception()  # retrieved: other waiters re-raise it
                raise
            return value
        return await asyncio.shield(self._inflight)

    def invalidate(self, stale: Optional[str] = None) -> None:
        """Forgets the cached token (after UNAUTHENTICATED) so the next call fetches a new one."""
        if stale is None or (self._token is not None and self._token[0] == stale):
            self._token = None

    def _fetch(self) -> Tuple[str, float]:
        o = self._opts
        form = {"grant_type": "client_credentials", "client_id": o.client_id, "client_secret": o.client_secret}
        if o.audience:
            form["audience"] = o.audience
        if o.scope:
            form["scope"] = o.scope
        req = urllib.request.Request(
            o.authorization_server_url,
            data=urllib.parse.urlencode(form).encode(),
            headers={"content-type": "application/x-www-form-urlencoded", "accept": "application/json"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(req, timeout=_FETCH_TIMEOUT_S) as res:  # noqa: S310 (configured URL)
                text = res.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as e:
            body = e.read().decode("utf-8", "replace")[:200]
            raise UnauthenticatedError(f"oauth: token endpoint answered {e.code}: {body}", _CODE) from e
        except (urllib.error.URLError, OSError) as e:
            raise UnauthenticatedError(f"oauth: token request failed: {e}", _CODE) from e
        try:
            data = json.loads(text)
        except ValueError as e:
            raise UnauthenticatedError(f"oauth: token endpoint answered non-JSON: {text[:200]}", _CODE) from e
        token = data.get("access_token") if isinstance(data, dict) else None
        if not isinstance(token, str) or not token:
            raise UnauthenticatedError("oauth: token response has no access_token", _CODE)
        try:
            lifetime = float(data.get("expires_in") or 300)
        except (TypeError, ValueError):
            lifetime = 300.0
        if lifetime <= 0:
            lifetime = 300.0
        return token, lifetime
