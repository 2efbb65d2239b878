"""Unit tests of the worker's parts: backoff, ledger, error table, state machine,
configuration (options over environment over defaults), lossless JSON, options."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Optional

import grpc
import pytest

import jobwire
from jobwire import ConfigurationError, InvalidVariablesError
from jobwire._backoff import Backoff
from jobwire._extender import extend_wait
from jobwire._json import parse_variables, variables_to_json
from jobwire._ledger import Ledger
from jobwire._options import resolve_worker_options
from jobwire._state import StateMachine, WorkerState
from jobwire.config import OAuthOptions, parse_addresses, resolve_client_config
from jobwire.errors import error_class, from_rpc_error


# --- backoff -------------------------------------------------------------------------------
def test_backoff_grows_by_1_6_from_50ms_to_5s_and_resets() -> None:
    b = Backoff(rand=lambda: 0.5)  # no jitter
    seq = [b.next() for _ in range(12)]
    assert seq[0] == pytest.approx(0.05)
    assert seq[1] == pytest.approx(0.08)
    assert seq[2] == pytest.approx(0.128)
    assert all(x <= 5.0 for x in seq) and seq[-1] == pytest.approx(5.0)
    assert all(b2 >= a for a, b2 in zip(seq, seq[1:]))
    b.reset()
    assert b.next() == pytest.approx(0.05)
    assert b.max() == pytest.approx(5.0)


def test_backoff_jitter_is_within_10_percent() -> None:
    lo, hi = Backoff(rand=lambda: 0.0), Backoff(rand=lambda: 1.0)
    assert lo.next() == pytest.approx(0.045)
    assert hi.next() == pytest.approx(0.055)


# --- ledger --------------------------------------------------------------------------------
def test_auto_extend_waits_half_the_time_left_and_retries_after_the_backoff_alone() -> None:
    b = Backoff(rand=lambda: 0.5)  # no jitter
    assert extend_wait(10.0, False, b) == pytest.approx(5.0)
    assert extend_wait(0.06, False, b) == pytest.approx(0.05)  # floor
    assert extend_wait(5.0, True, b) == pytest.approx(0.05)  # back-off alone, not plus a share of the time left
    assert extend_wait(4.95, True, b) == pytest.approx(0.08)
    assert extend_wait(0.2, True, b) == pytest.approx(0.1)  # 0.128 capped at half of 0.2
    assert extend_wait(0.01, True, b) == pytest.approx(0.02)  # floor


def test_ledger_never_exceeds_max_and_releases_once() -> None:
    led = Ledger(3)
    slots = [led.try_take() for _ in range(5)]
    assert sum(s is not None for s in slots) == 3 and led.held == 3 and led.free == 0
    s0 = slots[0]
    assert s0 is not None
    s0.release()
    s0.release()  # idempotent
    assert led.held == 2


def test_ledger_reservation_counts_against_free_slots() -> None:
    led = Ledger(2)
    assert led.reserve_stream()
    assert led.reserve_stream() and led.reserved == 1  # one reservation at a time
    assert led.free == 1
    a = led.try_take()
    assert a is not None and led.try_take() is None  # the reserved slot is not handed to a poll
    s = led.claim_stream()
    assert s is not None and led.held == 2 and led.reserved == 0
    s.release()
    a.release()
    assert led.held == 0 and led.free == 2
    assert led.reserve_stream()
    led.drop_stream()
    assert led.free == 2


def test_ledger_poll_pool_hard_unless_parked() -> None:
    led = Ledger(3)
    assert led.reserve_poll(5, parks=False) == 3 and led.free == 0
    assert not led.reserve_stream()  # a backfill/fairness pool is not shared with the stream
    s1 = led.take_poll()
    assert s1 is not None and led.held == 1 and led.poll_reserved == 2
    led.return_poll()
    assert led.free == 2 and led.poll_reserved == 0
    assert led.reserve_poll(2, parks=True) == 2
    assert led.reserve_stream() and led.poll_reserved == 1  # the stream takes from a parked poll
    assert led.take_poll() is not None
    assert led.take_poll() is None  # overflow: the caller hands the job back
    assert led.held + led.reserved + led.poll_reserved <= led.max
    led.return_poll()


def test_ledger_rejects_bad_capacity() -> None:
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError):
            Ledger(bad)  # type: ignore[arg-type]


def test_ledger_changed_wakes_waiters() -> None:
    async def go() -> None:
        led = Ledger(1)
        s = led.try_take()
        assert s is not None
        waiter = asyncio.ensure_future(led.changed())
        await asyncio.sleep(0)
        assert not waiter.done()
        s.release()
        await asyncio.wait_for(waiter, 1)

    asyncio.run(go())


# --- errors --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "code,cls",
    [
        (grpc.StatusCode.RESOURCE_EXHAUSTED, jobwire.BackpressureError),
        (grpc.StatusCode.UNAVAILABLE, jobwire.UnavailableError),
        (grpc.StatusCode.NOT_FOUND, jobwire.NotFoundError),
        (grpc.StatusCode.INVALID_ARGUMENT, jobwire.InvalidArgumentError),
        (grpc.StatusCode.FAILED_PRECONDITION, jobwire.FailedPreconditionError),
        (grpc.StatusCode.ALREADY_EXISTS, jobwire.AlreadyExistsError),
        (grpc.StatusCode.DEADLINE_EXCEEDED, jobwire.DeadlineExceededError),
        (grpc.StatusCode.CANCELLED, jobwire.RequestCancelledError),
        (grpc.StatusCode.UNAUTHENTICATED, jobwire.UnauthenticatedError),
        (grpc.StatusCode.PERMISSION_DENIED, jobwire.PermissionDeniedError),
        (grpc.StatusCode.UNIMPLEMENTED, jobwire.UnimplementedError),
        (grpc.StatusCode.INTERNAL, jobwire.InternalError),
        (grpc.StatusCode.UNKNOWN, jobwire.InternalError),
        (grpc.StatusCode.DATA_LOSS, jobwire.InternalError),
    ],
)
def test_error_table(code: grpc.StatusCode, cls: type) -> None:
    assert error_class(code) is cls

    class Fake(grpc.RpcError):
        def code(self) -> grpc.StatusCode:
            return code

        def details(self) -> str:
            return "because"

    e = from_rpc_error(Fake(), "CompleteJob")
    assert isinstance(e, cls) and isinstance(e, jobwire.JobwireError)
    assert e.code == code and e.details == "because" and e.code_name == code.name
    assert str(e) == f"CompleteJob: {code.name}: because"


def test_job_error_needs_a_code() -> None:
    with pytest.raises(TypeError):
        jobwire.JobError("")
    e = jobwire.JobError("E42", "boom", variables={"a": 1})
    assert e.code == "E42" and e.message == "boom" and e.variables == {"a": 1}


# --- state machine -------------------------------------------------------------------------
def test_state_machine_transitions() -> None:
    seen: list = []
    m = StateMachine(seen.append)
    m.start()
    m.stream_active = True
    m.stream_open = True
    m.update()
    m.poll_backoff = True
    m.update()  # an open stream wins over a poll in backoff
    m.stream_open = False
    m.stream_backoff = True
    m.update()
    m.stream_backoff = False
    m.stream_open = True
    m.update()
    m.closing()
    m.closed()
    assert [s.value for s in seen] == ["polling", "streaming", "backoff", "streaming", "closing", "closed"]


def test_state_machine_poll_only_backoff() -> None:
    seen: list = []
    m = StateMachine(seen.append)
    m.start()
    m.poll_backoff = True
    m.update()
    m.poll_backoff = False
    m.update()
    assert seen == [WorkerState.POLLING, WorkerState.BACKOFF, WorkerState.POLLING]
    assert str(WorkerState.BACKOFF) == "backoff"


# --- configuration -------------------------------------------------------------------------
def test_config_defaults() -> None:
    c = resolve_client_config(env={})
    assert c.addresses == ["127.0.0.1:26500"] and c.insecure is True
    assert c.keep_alive == 45.0 and c.command_timeout == 30.0 and c.oauth is None


def test_config_env_precedence_and_address_forms() -> None:
    env = {"ZEEBE_ADDRESS": "b:1", "ZEEBE_GRPC_ADDRESS": "a:2", "CAMUNDA_GRPC_ADDRESS": "c:3"}
    c = resolve_client_config(env=env)
    assert c.addresses == ["a:2"] and c.insecure is False  # not loopback: TLS
    assert resolve_client_config(address="x:9", env=env).addresses == ["x:9"]  # option wins
    assert parse_addresses("grpcs://h, grpc://127.0.0.1:5 ,dns:///svc:7") == ["h:26500", "127.0.0.1:5", "dns:///svc:7"]
    assert resolve_client_config(address="grpc://remote:1", env={}).insecure is True
    assert resolve_client_config(address="grpcs://127.0.0.1:1", env={}).insecure is False
    assert resolve_client_config(env={"ZEEBE_INSECURE_CONNECTION": "yes", "ZEEBE_ADDRESS": "r:1"}).insecure is True
    assert resolve_client_config(env={"ZEEBE_KEEP_ALIVE": "30000"}).keep_alive == 30.0


@pytest.mark.parametrize(
    "env,msg",
    [
        ({"ZEEBE_INSECURE_CONNECTION": "maybe"}, 'jobwire: ZEEBE_INSECURE_CONNECTION="maybe": want true or false'),
        ({"ZEEBE_KEEP_ALIVE": "soon"}, 'jobwire: ZEEBE_KEEP_ALIVE="soon": want milliseconds'),
        ({"ZEEBE_CLIENT_ID": "id"}, "jobwire: OAuth needs ZEEBE_CLIENT_ID, ZEEBE_CLIENT_SECRET and ZEEBE_AUTHORIZATION_SERVER_URL"),
        ({"ZEEBE_ADDRESS": " , "}, "jobwire: no gateway address given"),
    ],
)
def test_config_errors_are_typed_and_clear(env: dict, msg: str) -> None:
    with pytest.raises(ConfigurationError) as ei:
        resolve_client_config(env=env)
    assert str(ei.value) == msg


def test_config_oauth_from_env() -> None:
    c = resolve_client_config(
        env={
            "CAMUNDA_CLIENT_ID": "i",
            "CAMUNDA_CLIENT_SECRET": "s",
            "CAMUNDA_OAUTH_URL": "http://127.0.0.1:1/token",
            "CAMUNDA_TOKEN_AUDIENCE": "zeebe-api",
        }
    )
    assert c.oauth == OAuthOptions("i", "s", "http://127.0.0.1:1/token", "zeebe-api", None)


def test_config_ca_file_must_exist(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ConfigurationError):
        resolve_client_config(ca_certificate_path=str(tmp_path / "missing.pem"), env={})


# --- worker options ------------------------------------------------------------------------
def test_worker_option_defaults_and_units() -> None:
    async def h(job: object) -> None:
        return None

    o = resolve_worker_options("t", h)
    assert (o.max_jobs_active, o.concurrency, o.job_timeout, o.request_timeout, o.poll_interval) == (32, 32, 300.0, 10.0, 0.1)
    assert o.stream_enabled and o.auto_complete and not o.auto_extend and o.is_async
    o2 = resolve_worker_options("t", lambda j: None, max_jobs_active=4, concurrency=10, job_timeout=timedelta(seconds=7), request_timeout=-1)
    assert o2.concurrency == 4 and o2.job_timeout == 7.0 and o2.request_timeout == -1.0 and not o2.is_async


@pytest.mark.parametrize(
    "kw",
    [{"max_jobs_active": 0}, {"concurrency": -1}, {"job_timeout": "5s"}, {"poll_interval": -1}, {"fetch_variables": "a"}],
)
def test_worker_option_errors(kw: dict) -> None:
    with pytest.raises(ConfigurationError):
        resolve_worker_options("t", lambda j: None, **kw)


def test_worker_needs_type_and_handler() -> None:
    with pytest.raises(ConfigurationError):
        resolve_worker_options("", lambda j: None)
    with pytest.raises(ConfigurationError):
        resolve_worker_options("t", None)  # type: ignore[arg-type]


# --- lossless JSON -------------------------------------------------------------------------
def test_int64_beyond_2_53_survives_both_ways() -> None:
    big = 2**60 + 7
    text = '{"id": 1152921504606846983, "neg": -9223372036854775808, "f": 1.5}'
    v = parse_variables(text)
    assert v["id"] == big and isinstance(v["id"], int) and v["neg"] == -(2**63)
    out = variables_to_json({"id": big, "nested": [{"x": 2**63 - 1}]})
    assert out == '{"id":1152921504606846983,"nested":[{"x":9223372036854775807}]}'
    assert variables_to_json(text) == text  # JSON text is sent unchanged (byte-exact)


@pytest.mark.parametrize(
    "bad",
    [[1, 2], "[1]", "not json", {"x": float("nan")}, {"x": object()}, {1: "a"}, 42, '{"a": NaN}'],
)
def test_invalid_variables_rejected_before_sending(bad: object) -> None:
    with pytest.raises(InvalidVariablesError):
        variables_to_json(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ['{"e": 1e400}', '{"e": -1844674E2073709551616}', '{"a": [1.5E+309]}'])
def test_numbers_beyond_a_double_are_a_typed_error_not_inf(text: str) -> None:
    # found by the Jazzer run on the Java SDK: 1e400 used to parse as inf, which then could not be sent back
    with pytest.raises(InvalidVariablesError, match="outside the range of a double"):
        parse_variables(text)
    with pytest.raises(InvalidVariablesError):
        variables_to_json(text)
    assert parse_variables('{"e": 1e-400}') == {"e": 0.0}


def test_variables_none_and_empty() -> None:
    assert variables_to_json(None) == "" and variables_to_json("  ") == ""
    assert parse_variables("") == {}
    with pytest.raises(InvalidVariablesError):
        parse_variables("[]")


def test_variables_over_4_mib_rejected_before_sending() -> None:
    ok = {"pad": "x" * (3 * 1024 * 1024)}
    assert len(variables_to_json(ok)) > 3 * 1024 * 1024
    with pytest.raises(InvalidVariablesError, match="4 MiB"):
        variables_to_json({"pad": "x" * (4 * 1024 * 1024)})
    with pytest.raises(InvalidVariablesError, match="4 MiB"):
        variables_to_json('{"pad": "' + "y" * (4 * 1024 * 1024) + '"}')


def test_config_client_certificate_for_mutual_tls(tmp_path) -> None:  # type: ignore[no-untyped-def]
    cert, key = tmp_path / "c.pem", tmp_path / "k.pem"
    cert.write_text("cert")
    key.write_text("key")
    env = {"ZEEBE_ADDRESS": "127.0.0.1:1", "ZEEBE_CLIENT_CERTIFICATE_PATH": str(cert),
           "CAMUNDA_CLIENT_PRIVATE_KEY_PATH": str(key)}
    c = resolve_client_config(env=env)
    # a client certificate implies TLS, even on loopback
    assert (c.client_certificate_path, c.client_private_key_path, c.insecure) == (str(cert), str(key), False)
    # options win over the environment
    c = resolve_client_config(client_certificate_path=str(key), client_private_key_path=str(cert), env=env)
    assert (c.client_certificate_path, c.client_private_key_path) == (str(key), str(cert))
    with pytest.raises(ConfigurationError, match="ZEEBE_CLIENT_PRIVATE_KEY_PATH"):
        resolve_client_config(env={"ZEEBE_CLIENT_CERTIFICATE_PATH": str(cert)})
    with pytest.raises(ConfigurationError, match="plaintext"):
        resolve_client_config(env={**env, "ZEEBE_INSECURE_CONNECTION": "true"})
    with pytest.raises(ConfigurationError, match="client private key file"):
        resolve_client_config(client_certificate_path=str(cert), client_private_key_path=str(tmp_path / "no"), env={})


def test_stall_evidence_only_a_parked_poll_with_late_jobs() -> None:
    """Rule 6: only a long poll (requestTimeout >= 0, not a backfill) whose first job came >= 500 ms after sending."""
    from jobwire._pollplan import after_poll

    def stall(backfill: bool, parks: bool, first: Optional[float], got: int = 1) -> bool:
        return after_poll(True, False, 4, got, backfill, parks, first).stall

    # a fairness / "more waiting" poll (requestTimeout -1, does not park) with jobs: answered at once, says nothing
    assert not stall(False, False, 0.0)
    assert not stall(False, False, 0.6)
    # a long poll answered with jobs after 10 ms found a backlog: says nothing
    assert not stall(False, True, 0.010)
    assert not stall(False, True, 0.499)
    # a backfill never counts, even when it parked (no stream yet)
    assert not stall(True, True, 0.6)
    # no job at all
    assert not stall(False, True, None, got=0)
    # a long poll whose first job came after 600 ms (or exactly 500 ms) is evidence
    assert stall(False, True, 0.6)
    assert stall(False, True, 0.5)
