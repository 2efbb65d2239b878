"""Connections of a Client: one command channel (per address) for every unary call,
and long-call connections for the workers' long polls and push streams (at most
WORKERS_PER_LONG_CONNECTION workers each, with a small HTTP/2 receive window)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, List, Optional, Sequence, Tuple

import grpc
import grpc.aio

from ._oauth import OAuthProvider
from ._proto import gateway_pb2_grpc, stream_pb2_grpc
from .config import ClientConfig
from .errors import RequestCancelledError, JobwireError, from_rpc_error

WORKERS_PER_LONG_CONNECTION = 32
"""Workers whose long-lived calls (a parked ActivateJobs and a StreamActivatedJobs each)
share one long-call connection: 2 x 32 = 64 calls stay under common MAX_CONCURRENT_STREAMS
limits (100 in many proxies). Same value in every jobwire SDK."""

LONG_CALL_LOOKAHEAD_BYTES = 8192
"""``grpc.http2.lookahead_bytes`` of the long-call connections. With BDP probing off
(``grpc.http2.bdp_probe=0``) grpc's C core keeps each stream's receive window near its
minimum instead of growing it, so a paused worker parks few jobs in transport buffers."""

Metadata = Tuple[Tuple[str, str], ...]


def _base_options(config: ClientConfig) -> List[Tuple[str, Any]]:
    ka_timeout_ms = max(1000, int(config.keep_alive * 1000 * 20 / 45))
    opts: List[Tuple[str, Any]] = [
        ("grpc.keepalive_time_ms", int(config.keep_alive * 1000)),
        # 20 s at the default 45 s interval, scaled with it (as in Go): a silent connection is
        # detected within about 1.5 keepalive intervals.
        ("grpc.keepalive_timeout_ms", ka_timeout_ms),
        # grpc's C core times keepalive PINGs out by this setting (default 1 min), not by
        # keepalive_timeout_ms alone: without it a blackholed connection is never detected.
        ("grpc.http2.ping_timeout_ms", ka_timeout_ms),
        ("grpc.http2.max_pings_without_data", 0),
        ("grpc.max_receive_message_length", 5 * 1024 * 1024),
        ("grpc.max_send_message_length", 5 * 1024 * 1024),
        # A restarted gateway should be found again quickly (grpc defaults: 1 s -> 120 s).
        ("grpc.initial_reconnect_backoff_ms", 100),
        ("grpc.min_reconnect_backoff_ms", 100),
        ("grpc.max_reconnect_backoff_ms", 5_000),
    ]
    return opts


class _LongConnection:
    def __init__(self, channels: List[grpc.aio.Channel]) -> None:
        self.channels = channels
        self.stubs = [gateway_pb2_grpc.GatewayStub(c) for c in channels]  # type: ignore[no-untyped-call]
        # jobwire's StreamControlService (ReleaseUnread), one per channel like the stubs
        self.controls = [stream_pb2_grpc.StreamControlServiceStub(c) for c in channels]  # type: ignore[no-untyped-call]
        self.workers = 0


class LongLease:
    """A worker's place on a long-call connection."""

    def __init__(self, transport: "Transport", conn: _LongConnection) -> None:
        self._t = transport
        self._conn = conn
        self._next = 0
        self.released = False

    def stub(self) -> Any:
        """The next stub (round robin over the addresses) for a long call."""
        if self.released or self._t.closed:
            raise RequestCancelledError("jobwire: client is closed", grpc.StatusCode.CANCELLED)
        s = self._conn.stubs[self._next % len(self._conn.stubs)]
        self._next += 1
        return s

    def control_for(self, stub: Any) -> Any:
        """The StreamControlService stub on the same channel as ``stub`` (the one a stream used, so the
        gateway sees the stream's cancel before the ReleaseUnread call)."""
        return self._conn.controls[self._conn.stubs.index(stub)]

    async def unary(self, method: str, req: Any, *, timeout: Optional[float] = None) -> Any:
        """A unary call over this lease's connection (used to hand jobs back at close)."""
        return await self._t.unary(method, req, timeout=timeout, stubs=None if self.released else self._conn.stubs)

    def release(self) -> None:
        """Gives the place back (idempotent); an unused connection is closed."""
        if self.released:
            return
        self.released = True
        self._t._release(self._conn)


class Transport:
    """Channels, typed errors and auth metadata of a Client. Channels are created on
    first use, inside the running event loop."""

    def __init__(self, config: ClientConfig) -> None:
        self.config = config
        self.closed = False
        self._oauth = OAuthProvider(config.oauth) if config.oauth else None
        self._cmd: Optional[List[Any]] = None
        self._cmd_channels: List[grpc.aio.Channel] = []
        self._long: List[_LongConnection] = []
        self._next = 0
        self._creds: Optional[grpc.ChannelCredentials] = None
        if not config.insecure:
            root = Path(config.ca_certificate_path).read_bytes() if config.ca_certificate_path else None
            chain = key = None
            if config.client_certificate_path and config.client_private_key_path:  # mutual TLS
                chain = Path(config.client_certificate_path).read_bytes()
                key = Path(config.client_private_key_path).read_bytes()
            self._creds = grpc.ssl_channel_credentials(root_certificates=root, private_key=key, certificate_chain=chain)

    @property
    def has_auth(self) -> bool:
        """True when OAuth is configured."""
        return self._oauth is not None

    def _new_channel(self, address: str, options: Sequence[Tuple[str, Any]]) -> grpc.aio.Channel:
        opts = list(options)
        if address.startswith("dns:///"):
            opts.append(("grpc.service_config", json.dumps({"loadBalancingConfig": [{"round_robin": {}}]})))
        opts.extend(self.config.channel_options)
        if self._creds is None:
            return grpc.aio.insecure_channel(address, options=opts)
        return grpc.aio.secure_channel(address, self._creds, options=opts)

    def _command_stubs(self) -> List[Any]:
        if self._cmd is None:
            opts = _base_options(self.config)
            self._cmd_channels = [self._new_channel(a, opts) for a in self.config.addresses]
            self._cmd = [gateway_pb2_grpc.GatewayStub(c) for c in self._cmd_channels]  # type: ignore[no-untyped-call]
        return self._cmd

    async def metadata(self) -> Tuple[Optional[Metadata], Optional[str]]:
        """Call metadata (a bearer token when OAuth is on) and the token used."""
        if self._oauth is None:
            return None, None
        token = await self._oauth.get_token()
        return (("authorization", f"Bearer {token}"),), token

    def invalidate_token(self, token: Optional[str] = None) -> None:
        """Called after UNAUTHENTICATED so the next call fetches a fresh token."""
        if self._oauth is not None:
            self._oauth.invalidate(token)

    async def unary(
        self, method: str, req: Any, *, timeout: Optional[float] = None, stubs: Optional[List[Any]] = None
    ) -> Any:
        """A unary call; raises a typed JobwireError. One retry after a token refresh on UNAUTHENTICATED."""
        try:
            return await self._unary_once(method, req, timeout, stubs)
        except JobwireError as e:
            if e.code == grpc.StatusCode.UNAUTHENTICATED and self._oauth is not None:
                self._oauth.invalidate()
                return await self._unary_once(method, req, timeout, stubs)
            raise

    async def _unary_once(self, method: str, req: Any, timeout: Optional[float], stubs: Optional[List[Any]]) -> Any:
        if self.closed:
            raise RequestCancelledError(f"{method}: client is closed", grpc.StatusCode.CANCELLED)
        md = None if self._oauth is None else (await self.metadata())[0]
        pool = stubs if stubs is not None else self._command_stubs()
        stub = pool[self._next % len(pool)]
        self._next += 1
        try:
            # Commands wait (until their deadline) for a connection instead of failing at once
            # while the channel reconnects (a gateway restart). Polls and streams fail fast.
            return await getattr(stub, method)(
                req,
                timeout=timeout if timeout is not None else self.config.command_timeout,
                metadata=md,
                wait_for_ready=True,
            )
        except grpc.RpcError as e:
            raise from_rpc_error(e, method) from None

    def lease_long(self) -> LongLease:
        """A place for one worker's long-lived calls (a new connection when all are full)."""
        conn = next((c for c in self._long if c.workers < WORKERS_PER_LONG_CONNECTION), None)
        if conn is None:
            opts = _base_options(self.config) + [
                ("grpc.http2.bdp_probe", 0),
                ("grpc.http2.lookahead_bytes", LONG_CALL_LOOKAHEAD_BYTES),
                # grpc would otherwise share one connection between channels with equal arguments.
                ("grpc.use_local_subchannel_pool", 1),
            ]
            conn = _LongConnection([self._new_channel(a, opts) for a in self.config.addresses])
            self._long.append(conn)
        conn.workers += 1
        return LongLease(self, conn)

    def _release(self, conn: _LongConnection) -> None:
        conn.workers -= 1
        if conn.workers == 0 and conn in self._long:
            self._long.remove(conn)
            for ch in conn.channels:
                _close_soon(ch)

    @property
    def long_connections(self) -> int:
        """Long-call connections open now."""
        return len(self._long)

    async def close(self) -> None:
        """Closes every channel; later calls raise RequestCancelledError."""
        self.closed = True
        chans = list(self._cmd_channels)
        for c in self._long:
            chans.extend(c.channels)
        self._long.clear()
        self._cmd_channels = []
        self._cmd = None
        await asyncio.gather(*(ch.close(None) for ch in chans), return_exceptions=True)


_closing: "set[asyncio.Task[None]]" = set()


def _close_soon(ch: grpc.aio.Channel) -> None:
    try:
        t = asyncio.get_running_loop().create_task(ch.close(None))
    except RuntimeError:
        return
    _closing.add(t)
    t.add_done_callback(_closing.discard)
