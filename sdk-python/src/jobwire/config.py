"""Client configuration: options over ``ZEEBE_*`` / ``CAMUNDA_*`` environment variables over defaults.

The same names, precedence and error messages as the Go and Node SDKs
(``docs/configuration.md``).
"""

from __future__ import annotations

import json
import logging
import os
import re
from dataclasses import dataclass
from datetime import timedelta
from typing import List, Mapping, Optional, Sequence, Union

from .errors import ConfigurationError

__all__ = ["Backoff", "OAuthOptions", "ClientConfig", "Duration", "resolve_client_config", "parse_addresses", "to_seconds"]

Duration = Union[timedelta, float, int]
"""A duration: a ``timedelta`` or a number of seconds."""

DEFAULT_ADDRESS = "127.0.0.1:26500"
DEFAULT_KEEP_ALIVE_S = 45.0
DEFAULT_COMMAND_TIMEOUT_S = 30.0


def to_seconds(value: Duration, name: str, *, minimum: Optional[float] = 0.0, allow_negative: bool = False) -> float:
    """Converts a timedelta or seconds into float seconds; raises ConfigurationError on bad input."""
    if isinstance(value, bool):
        raise ConfigurationError(f"jobwire: {name} must be a timedelta or seconds, got {value!r}")
    if isinstance(value, timedelta):
        s = value.total_seconds()
    elif isinstance(value, (int, float)):
        s = float(value)
    else:
        raise ConfigurationError(f"jobwire: {name} must be a timedelta or seconds, got {type(value).__name__}")
    if s != s or s in (float("inf"), float("-inf")):
        raise ConfigurationError(f"jobwire: {name} must be finite, got {value!r}")
    if not allow_negative and minimum is not None and s < minimum:
        raise ConfigurationError(f"jobwire: {name} must be at least {minimum} s, got {s} s")
    return s


@dataclass(frozen=True)
class Backoff:
    """Bounds of the transport back-off: the wait before a poll, a stream reopen, an outcome or a
    command is sent again after an error. It starts at ``initial`` seconds, grows by
    ``multiplier`` per failure up to ``max`` seconds, with +-10 % jitter (fixed), and starts over
    after a success. The defaults are the SDK's built-in values.

    Example::

        Client(backoff=Backoff(initial=0.1, max=10.0))
    """

    initial: float = 0.05
    """First wait, seconds (> 0)."""
    max: float = 5.0
    """Longest wait, seconds (>= initial)."""
    multiplier: float = 1.6
    """Growth per failure (>= 1)."""

    def __post_init__(self) -> None:
        for name in ("initial", "max", "multiplier"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v or v in (float("inf"), float("-inf")):
                raise ConfigurationError(f"jobwire: backoff {name} must be a finite number, got {v!r}")
        if self.initial <= 0:
            raise ConfigurationError(f"jobwire: backoff initial must be > 0, got {self.initial!r}")
        if self.max < self.initial:
            raise ConfigurationError(f"jobwire: backoff max must be >= initial ({self.initial!r}), got {self.max!r}")
        if self.multiplier < 1:
            raise ConfigurationError(f"jobwire: backoff multiplier must be >= 1, got {self.multiplier!r}")


@dataclass(frozen=True)
class OAuthOptions:
    """OAuth client-credentials settings (env ``ZEEBE_CLIENT_ID``, ``ZEEBE_CLIENT_SECRET``,
    ``ZEEBE_AUTHORIZATION_SERVER_URL``, ``ZEEBE_TOKEN_AUDIENCE``, ``ZEEBE_TOKEN_SCOPE``
    or their ``CAMUNDA_*`` forms)."""

    client_id: str
    """OAuth client id."""
    client_secret: str
    """OAuth client secret."""
    authorization_server_url: str
    """Token endpoint of the authorization server."""
    audience: Optional[str] = None
    """Token audience; ``None``: none sent."""
    scope: Optional[str] = None
    """Token scope; ``None``: none sent."""


@dataclass(frozen=True)
class ClientConfig:
    """Client settings after options, environment and defaults were merged."""

    addresses: List[str]
    """Gateway addresses ``host:port``; several are balanced round-robin."""
    insecure: bool
    """Plaintext (``True``) or TLS (``False``)."""
    ca_certificate_path: Optional[str]
    """PEM file of the CA that signed the gateway's certificate; ``None``: the system roots."""
    oauth: Optional[OAuthOptions]
    """OAuth client credentials; ``None``: no token is sent."""
    keep_alive: float
    """HTTP/2 keepalive ping interval, seconds."""
    command_timeout: float
    """Deadline of client commands and of workers' outcome calls, seconds."""
    channel_options: Sequence[tuple[str, Union[int, str]]]
    """Extra gRPC channel options, passed as given."""
    logger: logging.Logger
    """The logger the client and its workers log to."""
    client_certificate_path: Optional[str] = None
    """PEM client certificate for mutual TLS; ``None``: none."""
    client_private_key_path: Optional[str] = None
    """PEM private key of the client certificate; ``None``: none."""
    backoff: Backoff = Backoff()
    """Transport back-off bounds (polls, stream reopens, outcome and command resends)."""


def _env(env: Mapping[str, str], *names: str) -> Optional[str]:
    for n in names:
        v = env.get(n)
        if v is not None and v.strip() != "":
            return v.strip()
    return None


_TRUE = re.compile(r"^(1|true|yes|on)$", re.I)
_FALSE = re.compile(r"^(0|false|no|off)$", re.I)


def parse_bool(name: str, v: Optional[str]) -> Optional[bool]:
    """Boolean env values, the same in every SDK: true/false, 1/0, yes/no, on/off (any case); else an error."""
    if v is None:
        return None
    if _TRUE.match(v):
        return True
    if _FALSE.match(v):
        return False
    raise ConfigurationError(f"jobwire: {name}={json.dumps(v)}: want true or false")


_SCHEME = re.compile(r"^(grpcs?|https?)://", re.I)
_DNS = re.compile(r"^dns:///?", re.I)
_PORT = re.compile(r":\d+$")


def parse_addresses(raw: Union[str, Sequence[str]]) -> List[str]:
    """Strips a scheme (``grpc://``, ``grpcs://``, ``http(s)://``), adds the default port
    ``26500`` and splits a comma-separated list; keeps ``dns:///`` targets."""
    items = raw.split(",") if isinstance(raw, str) else list(raw)
    out: List[str] = []
    for a in items:
        if not isinstance(a, str):
            raise ConfigurationError(f"jobwire: address must be a string, got {type(a).__name__}")
        a = a.strip()
        if not a:
            continue
        dns = bool(_DNS.match(a))
        a = _DNS.sub("", _SCHEME.sub("", a)).rstrip("/")
        if not _PORT.search(a):
            a += ":26500"
        out.append(f"dns:///{a}" if dns else a)
    if not out:
        raise ConfigurationError("jobwire: no gateway address given")
    return out


def _is_loopback(address: str) -> bool:
    host = _PORT.sub("", address.replace("dns:///", ""))
    host = host.strip("[]")
    return host == "localhost" or host == "::1" or host.startswith("127.")


def resolve_client_config(
    *,
    address: Union[str, Sequence[str], None] = None,
    insecure: Optional[bool] = None,
    ca_certificate_path: Optional[str] = None,
    client_certificate_path: Optional[str] = None,
    client_private_key_path: Optional[str] = None,
    oauth: Optional[OAuthOptions] = None,
    keep_alive: Optional[Duration] = None,
    command_timeout: Optional[Duration] = None,
    channel_options: Optional[Sequence[tuple[str, Union[int, str]]]] = None,
    logger: Optional[logging.Logger] = None,
    env: Optional[Mapping[str, str]] = None,
    backoff: Optional[Backoff] = None,
) -> ClientConfig:
    """Merges options over the environment over the defaults (raises ConfigurationError)."""
    e: Mapping[str, str] = os.environ if env is None else env
    addr_env = _env(e, "ZEEBE_GRPC_ADDRESS", "ZEEBE_ADDRESS", "CAMUNDA_GRPC_ADDRESS")
    raw = address if address is not None else addr_env
    addresses = parse_addresses(raw if raw is not None else DEFAULT_ADDRESS)
    ca = ca_certificate_path if ca_certificate_path is not None else _env(
        e, "ZEEBE_CA_CERTIFICATE_PATH", "CAMUNDA_CA_CERTIFICATE_PATH"
    )
    # mutual TLS: options win over the environment; both or neither
    if client_certificate_path is None and client_private_key_path is None:
        cert = _env(e, "ZEEBE_CLIENT_CERTIFICATE_PATH", "CAMUNDA_CLIENT_CERTIFICATE_PATH")
        key = _env(e, "ZEEBE_CLIENT_PRIVATE_KEY_PATH", "CAMUNDA_CLIENT_PRIVATE_KEY_PATH")
    else:
        cert, key = client_certificate_path, client_private_key_path
    if (cert is None) != (key is None):
        raise ConfigurationError(
            "jobwire: mutual TLS needs both a client certificate and its private key "
            "(ZEEBE_CLIENT_CERTIFICATE_PATH and ZEEBE_CLIENT_PRIVATE_KEY_PATH)"
        )
    first = ""
    if raw is not None:
        first = (raw.split(",")[0] if isinstance(raw, str) else (raw[0] if len(raw) else "")).strip()
    scheme_insecure: Optional[bool] = None
    if re.match(r"^(grpcs|https)://", first, re.I):
        scheme_insecure = False
    elif re.match(r"^(grpc|http)://", first, re.I):
        scheme_insecure = True
    resolved_insecure: bool
    if insecure is not None:
        resolved_insecure = bool(insecure)
    elif ca_certificate_path is not None or client_certificate_path is not None:
        resolved_insecure = False
    elif scheme_insecure is not None:
        resolved_insecure = scheme_insecure
    else:
        env_insecure = parse_bool(
            "ZEEBE_INSECURE_CONNECTION", _env(e, "ZEEBE_INSECURE_CONNECTION", "CAMUNDA_INSECURE_CONNECTION")
        )
        if env_insecure is not None:
            resolved_insecure = env_insecure
        elif ca is not None or cert is not None:
            resolved_insecure = False
        else:
            resolved_insecure = all(_is_loopback(a) for a in addresses)
    if ca is not None and not resolved_insecure and not os.path.isfile(ca):
        raise ConfigurationError(f"jobwire: CA certificate file {ca!r} does not exist")
    if cert is not None:
        if resolved_insecure:
            raise ConfigurationError(
                "jobwire: a client certificate needs TLS, but the connection is set to plaintext "
                "(ZEEBE_INSECURE_CONNECTION)"
            )
        for what, path in (("client certificate", cert), ("client private key", key)):
            if not os.path.isfile(str(path)):
                raise ConfigurationError(f"jobwire: {what} file {path!r} does not exist")

    if oauth is None:
        client_id = _env(e, "ZEEBE_CLIENT_ID", "CAMUNDA_CLIENT_ID")
        client_secret = _env(e, "ZEEBE_CLIENT_SECRET", "CAMUNDA_CLIENT_SECRET")
        url = _env(e, "ZEEBE_AUTHORIZATION_SERVER_URL", "CAMUNDA_OAUTH_URL", "CAMUNDA_AUTHORIZATION_SERVER_URL")
        if client_id or client_secret:
            if not client_id or not client_secret or not url:
                raise ConfigurationError(
                    "jobwire: OAuth needs ZEEBE_CLIENT_ID, ZEEBE_CLIENT_SECRET and ZEEBE_AUTHORIZATION_SERVER_URL"
                )
            oauth = OAuthOptions(
                client_id=client_id,
                client_secret=client_secret,
                authorization_server_url=url,
                audience=_env(e, "ZEEBE_TOKEN_AUDIENCE", "CAMUNDA_TOKEN_AUDIENCE"),
                scope=_env(e, "ZEEBE_TOKEN_SCOPE", "CAMUNDA_TOKEN_SCOPE"),
            )
    elif not (oauth.client_id and oauth.client_secret and oauth.authorization_server_url):
        raise ConfigurationError("jobwire: OAuth needs client_id, client_secret and authorization_server_url")

    keep_env = _env(e, "ZEEBE_KEEP_ALIVE", "CAMUNDA_KEEP_ALIVE")
    if keep_alive is not None:
        keep = to_seconds(keep_alive, "keep_alive", minimum=0.001)
    elif keep_env is not None:
        if not re.match(r"^\d+$", keep_env) or int(keep_env) <= 0:
            raise ConfigurationError(f"jobwire: ZEEBE_KEEP_ALIVE={json.dumps(keep_env)}: want milliseconds")
        keep = int(keep_env) / 1000.0
    else:
        keep = DEFAULT_KEEP_ALIVE_S
    cmd_timeout = (
        to_seconds(command_timeout, "command_timeout", minimum=0.001)
        if command_timeout is not None
        else DEFAULT_COMMAND_TIMEOUT_S
    )
    return ClientConfig(
        addresses=addresses,
        insecure=resolved_insecure,
        ca_certificate_path=ca,
        client_certificate_path=cert,
        client_private_key_path=key,
        oauth=oauth,
        keep_alive=keep,
        command_timeout=cmd_timeout,
        channel_options=tuple(channel_options or ()),
        logger=logger or logging.getLogger("jobwire"),
        backoff=_backoff(backoff),
    )


def _backoff(b: Optional[Backoff]) -> Backoff:
    if b is None:
        return Backoff()
    if not isinstance(b, Backoff):
        raise ConfigurationError(f"jobwire: backoff must be a jobwire.Backoff, got {type(b).__name__}")
    return b
