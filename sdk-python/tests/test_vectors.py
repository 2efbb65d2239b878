"""The shared status-code vectors (conformance-tests/vectors/status-codes.json) against the SDK.

The file is read where it lies in the repository (found by walking up from this file), never
copied. Every case of every section is checked against the one function that decides it
(jobwire.errors: outcome_decision, is_retryable, activation_decision, error_class), and the outcome
and poll cases also through the code paths that use those functions (the outcome sender, the
poller's error handling, from_rpc_error)."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Dict, List, Optional

import grpc
import pytest

import jobwire
from jobwire import errors
from jobwire._backoff import Backoff
from jobwire._outcome import RetryingOutcomeSender
from jobwire._poller import Poller
from jobwire.errors import (
    JobwireError,
    activation_decision,
    error_class,
    from_rpc_error,
    is_retryable,
    outcome_decision,
)

VECTORS = Path("conformance-tests") / "vectors" / "status-codes.json"


def _find_vectors() -> Path:
    for d in Path(__file__).resolve().parents:
        p = d / VECTORS
        if p.is_file():
            return p
    raise FileNotFoundError(f"{VECTORS} not found above {Path(__file__).resolve().parent}")


DATA: Dict[str, Any] = json.loads(_find_vectors().read_text(encoding="utf-8"))
CODES: Dict[str, int] = DATA["codes"]


def _cases(section: str) -> List[Dict[str, Any]]:
    return list(DATA[section]["cases"])


def _id(case: Dict[str, Any]) -> str:
    parts = [case.get("call", ""), case["code"], (case.get("message") or "")[:30]]
    return "-".join(p for p in parts if p)


def _code(name: str) -> grpc.StatusCode:
    code = grpc.StatusCode[name]
    assert code.value[0] == CODES[name], f"{name}: vectors say {CODES[name]}, grpc says {code.value[0]}"
    return code


class _FakeRpcError(grpc.RpcError):
    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__()
        self._code = code
        self._details = details

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details


# --- the file itself --------------------------------------------------------------------------------


def test_vectors_cover_every_non_ok_code_in_every_section() -> None:
    non_ok = {c.name for c in grpc.StatusCode if c is not grpc.StatusCode.OK}
    assert set(CODES) == non_ok
    for name in CODES:
        _code(name)
    assert {c["code"] for c in _cases("outcome")} == non_ok
    assert {c["code"] for c in _cases("command")} == non_ok
    assert {c["code"] for c in _cases("errors")} == non_ok
    for call in ("poll", "stream"):
        assert {c["code"] for c in _cases("activation") if c["call"] == call} == non_ok
    assert {c["call"] for c in _cases("activation")} == {"poll", "stream"}


# --- outcome ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", _cases("outcome"), ids=_id)
def test_outcome_decision(case: Dict[str, Any]) -> None:
    assert outcome_decision(_code(case["code"]), case["message"]) == case["decision"], case


class _FailOnceTransport:
    """The part of Transport the outcome sender uses: the first call fails with the case's status."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        self.config = SimpleNamespace(command_timeout=1.0)
        self.closed = False
        self.calls = 0
        self.err = from_rpc_error(_FakeRpcError(code, message), "CompleteJob")

    async def unary(self, method: str, req: Any, timeout: Optional[float] = None) -> Any:
        self.calls += 1
        if self.calls == 1:
            raise self.err
        return None


@pytest.mark.parametrize("case", _cases("outcome"), ids=_id)
def test_outcome_sender_follows_the_vector(case: Dict[str, Any]) -> None:
    transport = _FailOnceTransport(_code(case["code"]), case["message"])
    sender = RetryingOutcomeSender(transport, None, logging.getLogger("jobwire.test"), 0.0)  # type: ignore[arg-type]
    deadline_ms = int(time.time() * 1000) + 10_000
    got = asyncio.run(sender.complete(1, "{}", deadline_ms))
    want = {"retry": ("ok", 2), "benign": ("not_found", 1), "give_up": ("undelivered", 1)}[case["decision"]]
    assert (got, transport.calls) == want, case
    assert sender.last_error(1) is transport.err


# --- command ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", _cases("command"), ids=_id)
def test_command_retryable(case: Dict[str, Any]) -> None:
    code = _code(case["code"])
    assert is_retryable(code) is case["retryable"], case
    assert (code in errors.RETRYABLE_CODES) is case["retryable"], case
    err = from_rpc_error(_FakeRpcError(code, "x"), "CreateProcessInstance")
    assert is_retryable(err.code) is case["retryable"], case


# --- activation -------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", _cases("activation"), ids=_id)
def test_activation_decision(case: Dict[str, Any]) -> None:
    assert activation_decision(case["call"], _code(case["code"])) == case["decision"], case


def _poller_on_error(err: JobwireError) -> SimpleNamespace:
    """Runs the poller's error handling on a fake worker context; returns what it did."""
    seen = SimpleNamespace(reported=[], polls=[], updates=0, rests=[])

    def update() -> None:
        seen.updates += 1

    stop = asyncio.Event()
    stop.set()  # the backoff wait returns at once
    ctx = SimpleNamespace(
        telemetry=SimpleNamespace(poll_request=seen.polls.append),
        transport=SimpleNamespace(has_auth=False),
        report_error=seen.reported.append,
        logger=logging.getLogger("jobwire.test"),
        state=SimpleNamespace(poll_backoff=False, update=update),
        stop=stop,
        ledger=SimpleNamespace(rest_poll=seen.rests.append),
    )
    poller = Poller.__new__(Poller)
    poller.ctx = ctx  # type: ignore[assignment]
    poller.backoff = Backoff(rand=lambda: 0.5)
    poller._auth_retried = False
    asyncio.run(poller._on_error(err))
    seen.current = poller.backoff._current
    return seen


@pytest.mark.parametrize("case", [c for c in _cases("activation") if c["call"] == "poll"], ids=_id)
def test_poller_follows_the_vector(case: Dict[str, Any]) -> None:
    err = from_rpc_error(_FakeRpcError(_code(case["code"]), "x"), "ActivateJobs")
    seen = _poller_on_error(err)
    assert seen.polls == ["error"]
    assert seen.rests == [True, False], "the back-off is a rest: no poll is due while it lasts"
    if case["decision"] == "max_backoff_report":
        assert (seen.reported, seen.current) == ([err], Backoff.MAX_S), case
    else:
        assert case["decision"] == "backoff"
        assert (seen.reported, seen.current) == ([], Backoff.MIN_S), case


# --- errors -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", _cases("errors"), ids=_id)
def test_error_type(case: Dict[str, Any]) -> None:
    code = _code(case["code"])
    cls = error_class(code)
    assert cls.__name__ == case["error"], case
    assert getattr(jobwire, case["error"]) is cls  # exported under that name
    err = from_rpc_error(_FakeRpcError(code, "details"), "Call")
    assert type(err) is cls and isinstance(err, JobwireError)
    assert (err.code, err.details, err.code_name) == (code, "details", case["code"])
