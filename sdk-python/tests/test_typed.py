"""Typed handlers, retry policy, middleware and the transport back-off option, without a network:
the handlers run through the worker's own executor (jobwire.testing.run_handler)."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import warnings
from datetime import timedelta
from typing import Any, Dict, List, Literal, Optional, TypedDict

import pydantic
import pytest

import jobwire
from jobwire import (
    Backoff,
    Client,
    ConfigurationError,
    InvalidInputError,
    Job,
    JobError,
    JobRouter,
    NonRetryableError,
    RetryDecision,
    default_retry_policy,
    exponential_backoff,
)
from jobwire._backoff import Backoff as BackoffTimer
from jobwire._typed import TypedHandler
from jobwire.retry import decide
from jobwire.testing import Outcome, make_job, run_handler


# --- types -----------------------------------------------------------------------------------------
@dataclasses.dataclass
class Item:
    sku: str
    qty: int = 1


@dataclasses.dataclass
class Order:
    orderId: str
    amount: float
    items: List[Item] = dataclasses.field(default_factory=list)
    note: Optional[str] = None


class OrderDict(TypedDict):
    orderId: str
    amount: float


class Headers(TypedDict, total=False):
    channel: str


class PydOrder(pydantic.BaseModel):
    order_id: str = pydantic.Field(alias="orderId")
    amount: float


@dataclasses.dataclass
class Receipt:
    orderId: str
    total: float


def _route(router: JobRouter) -> Any:
    (job_type, handler, opts), = router._worker_args()
    return handler, opts


# --- fetchVariables derivation ----------------------------------------------------------------------
def test_fetch_variables_derived_from_dataclass_fields_and_named_params() -> None:
    async def h(order: Order, customer: str, job: Job, headers: Headers) -> None: ...

    assert TypedHandler(h).fetch_variables() == ["orderId", "amount", "items", "note", "customer", "traceparent"]


def test_fetch_variables_derived_from_typeddict_keys_and_pydantic_aliases() -> None:
    def a(o: OrderDict) -> None: ...

    def b(o: PydOrder) -> None: ...

    assert TypedHandler(a).fetch_variables() == ["orderId", "amount", "traceparent"]
    assert TypedHandler(b).fetch_variables() == ["orderId", "amount", "traceparent"]


def test_no_derivation_for_dict_or_kwargs_or_job_only() -> None:
    def a(variables: dict) -> None: ...

    def b(order: Order, **rest: Any) -> None: ...

    def c(job: Job) -> None: ...

    def d(v: Dict[str, Any]) -> None: ...

    assert [TypedHandler(f).fetch_variables() for f in (a, b, c, d)] == [None, None, None, None]


def test_router_passes_derived_fetch_variables_and_explicit_wins() -> None:
    r1 = JobRouter()

    @r1.job("t")
    async def h(order: Order) -> None: ...

    assert _route(r1)[1]["fetch_variables"] == ["orderId", "amount", "items", "note", "traceparent"]

    r2 = JobRouter()

    @r2.job("t", fetch_variables=["orderId"])
    async def h2(order: Order) -> None: ...

    assert _route(r2)[1]["fetch_variables"] == ["orderId"]

    r3 = JobRouter()

    @r3.job("t", fetch_variables=[])  # explicit empty: all variables, as before
    async def h3(order: Order) -> None: ...

    assert _route(r3)[1]["fetch_variables"] == []


class StrictOrder(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")
    orderId: str
    amount: float


class TracedOrder(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")
    orderId: str
    traceparent: str


TP = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


def test_derived_fetch_variables_keep_traceparent_and_a_strict_model_accepts_it() -> None:
    r = JobRouter()

    @r.job("t")
    async def h(order: StrictOrder) -> Dict[str, Any]:
        return {"seen": order.model_dump()}

    handler, opts = _route(r)
    assert opts["fetch_variables"] == ["orderId", "amount", "traceparent"]  # once, at the end
    done = asyncio.run(run_handler(handler, make_job(variables={"orderId": "o1", "amount": 2, "traceparent": TP})))
    assert done.outcome is Outcome.COMPLETED, done.error_message
    assert done.variables == {"seen": {"orderId": "o1", "amount": 2.0}}
    # an explicit list stays exactly as written; a model that declares traceparent receives it
    explicit = JobRouter()

    @explicit.job("t", fetch_variables=["orderId", "amount"])
    async def h2(order: StrictOrder) -> None: ...

    assert _route(explicit)[1]["fetch_variables"] == ["orderId", "amount"]
    assert TypedHandler(lambda order, job: None).fetch_variables() == ["order", "traceparent"]
    traced = JobRouter()

    @traced.job("t")
    async def h3(order: TracedOrder) -> Dict[str, Any]:
        return {"tp": order.traceparent}

    handler3, opts3 = _route(traced)
    assert opts3["fetch_variables"] == ["orderId", "traceparent"]
    done3 = asyncio.run(run_handler(handler3, make_job(variables={"orderId": "o1", "traceparent": TP})))
    assert done3.outcome is Outcome.COMPLETED and done3.variables == {"tp": TP}


def test_bad_signatures_and_options_fail_at_registration() -> None:
    r = JobRouter()
    with pytest.raises(ConfigurationError, match=r"\*args"):
        r.job("t")(lambda *a: None)
    with pytest.raises(ConfigurationError, match="unknown worker option"):
        r.job("t", max_jobs=3)
    with pytest.raises(ConfigurationError, match="max_jobs_active"):

        @r.job("t", max_jobs_active=0)
        async def h(job: Job) -> None: ...

    with pytest.raises(ConfigurationError, match="unknown worker option"):
        JobRouter(concurrencyy=2)


# --- validation --------------------------------------------------------------------------------------
def _bind(fn: Any, variables: Dict[str, Any], headers: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
    return TypedHandler(fn).bind(make_job(variables=variables, custom_headers=headers or {}))


def test_valid_input_is_converted_into_the_types() -> None:
    def h(order: Order, headers: Headers, job: Job, customer: str = "anon") -> None: ...

    kw = _bind(h, {"orderId": "o1", "amount": 3, "items": [{"sku": "A"}], "extra": True}, {"channel": "web"})
    assert kw["order"] == Order("o1", 3, [Item("A", 1)], None)
    assert kw["headers"] == {"channel": "web"}
    assert isinstance(kw["job"], Job)
    assert "customer" not in kw  # its default applies


def test_messages_name_every_field_with_the_problem() -> None:
    def h(order: Order) -> None: ...

    with pytest.raises(InvalidInputError) as ei:
        _bind(h, {"amount": "12", "items": [{"sku": "A"}, {"sku": 5, "qty": True}]})
    assert ei.value.issues == [
        ("orderId", "missing"),
        ("amount", "expected number, got string"),
        ("items[1].sku", "expected string, got integer"),
        ("items[1].qty", "expected integer, got boolean"),
    ]
    assert str(ei.value) == (
        "jobwire: invalid input: orderId: missing; amount: expected number, got string; "
        "items[1].sku: expected string, got integer; items[1].qty: expected integer, got boolean"
    )
    assert isinstance(ei.value, ValueError)


def test_simple_annotations_are_checked() -> None:
    def h(a: int, b: bool, c: Optional[str], d: Literal["x", "y"], e: Dict[str, int], f: list, g: Any) -> None: ...

    ok = _bind(h, {"a": 1, "b": False, "c": None, "d": "x", "e": {"k": 1}, "f": [1], "g": {"any": [1]}})
    assert ok["a"] == 1 and ok["c"] is None
    with pytest.raises(InvalidInputError) as ei:
        _bind(h, {"a": 1.5, "b": 1, "c": 3, "d": "z", "e": {"k": "1"}, "f": {}, "g": None})
    assert [f for f, _ in ei.value.issues] == ["a", "b", "c", "d", "e.k", "f"]
    assert ei.value.issues[2] == ("c", "expected string or null, got integer")


def test_typeddict_required_keys_and_headers_typed() -> None:
    def h(order: OrderDict, headers: Headers) -> None: ...

    with pytest.raises(InvalidInputError, match="amount: missing"):
        _bind(h, {"orderId": "o"})
    assert _bind(h, {"orderId": "o", "amount": 1.5})["order"] == {"orderId": "o", "amount": 1.5}


def test_single_variable_missing_unless_default_or_optional() -> None:
    def h(customer: str, note: Optional[str], count: int = 0) -> None: ...

    assert _bind(h, {"customer": "c"}) == {"customer": "c", "note": None}
    with pytest.raises(InvalidInputError, match="customer: missing"):
        _bind(h, {})


def test_pydantic_model_is_validated_by_pydantic_with_its_field_path() -> None:
    def h(order: PydOrder) -> None: ...

    assert _bind(h, {"orderId": "o", "amount": 2})["order"] == PydOrder(orderId="o", amount=2)
    with pytest.raises(InvalidInputError) as ei:
        _bind(h, {"orderId": "o", "amount": "many"})
    assert ei.value.issues[0][0] == "amount"
    assert "number" in ei.value.issues[0][1]


def test_invalid_input_never_reaches_the_handler_and_fails_the_job() -> None:
    router = JobRouter()
    called: List[Any] = []

    @router.job("t")
    async def h(order: Order) -> Receipt:
        called.append(order)
        return Receipt(order.orderId, order.amount * 2)

    handler, _ = _route(router)
    bad = asyncio.run(run_handler(handler, make_job(variables={"orderId": "o", "amount": "x"}, retries=3)))
    assert called == []
    assert bad.outcome is Outcome.FAILED and bad.retries == 2
    assert "invalid input" in (bad.error_message or "") and "amount" in (bad.error_message or "")
    assert isinstance(bad.exception, InvalidInputError)
    good = asyncio.run(run_handler(handler, make_job(variables={"orderId": "o", "amount": 2.5})))
    assert good.outcome is Outcome.COMPLETED and good.variables == {"orderId": "o", "total": 5.0}


def test_sync_typed_handler_runs_in_a_thread_and_pydantic_output_by_alias() -> None:
    router = JobRouter()

    @router.job("t")
    def h(order: PydOrder) -> PydOrder:
        return order

    handler, _ = _route(router)
    r = asyncio.run(run_handler(handler, make_job(variables={"orderId": "o", "amount": 1})))
    assert r.outcome is Outcome.COMPLETED and r.variables == {"orderId": "o", "amount": 1.0}


# --- retry policy --------------------------------------------------------------------------------------
def _job(retries: int) -> Job:
    return make_job(retries=retries)


def test_exponential_values_for_retries_3_2_1_without_jitter() -> None:
    p = exponential_backoff(jitter=0)
    err = RuntimeError("x")
    assert [p(_job(r), err) for r in (3, 2, 1)] == [RetryDecision.retry(1.0), RetryDecision.retry(2.0), RetryDecision.retry(4.0)]
    assert p(_job(7), err) == RetryDecision.retry(1.0)  # more retries than max_retries: attempt 0


def test_exponential_cap_and_jitter_bounds() -> None:
    p = exponential_backoff(initial=timedelta(seconds=10), max=25.0, jitter=0)
    assert p(_job(0), RuntimeError()) == RetryDecision.retry(25.0)
    j = exponential_backoff(jitter=0.1)
    seen = [j(_job(2), RuntimeError()).backoff for _ in range(400)]
    assert all(1.8 <= b <= 2.2 for b in seen)
    assert min(seen) < 1.9 and max(seen) > 2.1  # it does vary
    assert all(round(b * 1000) == b * 1000 or abs(round(b * 1000) - b * 1000) < 1e-6 for b in seen)  # whole ms


def test_default_policy_is_exponential_1s_x2_and_non_retryable_goes_to_incident() -> None:
    d = default_retry_policy(_job(3), RuntimeError("boom"))
    assert d.kind == "retry" and 0.9 <= d.backoff <= 1.1
    assert default_retry_policy(_job(3), NonRetryableError("account closed")) == RetryDecision.incident("account closed")
    try:
        try:
            raise NonRetryableError("root cause")
        except NonRetryableError as e:
            raise RuntimeError("wrapped") from e
    except RuntimeError as wrapped:
        assert default_retry_policy(_job(3), wrapped) == RetryDecision.incident("root cause")


def test_policy_that_raises_or_returns_garbage_falls_back_to_the_default(caplog: pytest.LogCaptureFixture) -> None:
    log = logging.getLogger("test")

    def broken(job: Job, e: BaseException) -> RetryDecision:
        raise ValueError("bug in policy")

    with caplog.at_level(logging.WARNING):
        d1 = decide(broken, _job(3), NonRetryableError("n"), log)
        d2 = decide(lambda j, e: None, _job(3), NonRetryableError("n"), log)  # type: ignore[arg-type,return-value]
    assert d1 == d2 == RetryDecision.incident("n")
    assert len([r for r in caplog.records if r.levelno == logging.WARNING]) == 2


def test_bad_exponential_options_are_configuration_errors() -> None:
    for kw in ({"initial": -1}, {"max": 0.5}, {"multiplier": 0.5}, {"jitter": 2}, {"max_retries": -1}):
        with pytest.raises(ConfigurationError):
            exponential_backoff(**kw)  # type: ignore[arg-type]


async def _boom(job: Job) -> None:
    raise RuntimeError("boom")


def test_precedence_retry_policy_over_retry_backoff_over_default() -> None:
    pol = lambda job, e: RetryDecision.retry(7.0)  # noqa: E731
    both = asyncio.run(run_handler(_boom, retry_policy=pol, retry_backoff=3.0))
    assert both.retry_backoff == 7.0 and both.retries == 2
    fixed = asyncio.run(run_handler(_boom, retry_backoff=3.0))
    assert fixed.retry_backoff == 3.0
    zero = asyncio.run(run_handler(_boom, retry_backoff=0))  # explicit 0 counts
    assert zero.retry_backoff == 0.0
    default = asyncio.run(run_handler(_boom, job=make_job(retries=2)))
    assert 1.8 <= (default.retry_backoff or 0) <= 2.2 and default.retries == 1


def test_decisions_map_to_outcomes() -> None:
    inc = asyncio.run(run_handler(_boom, retry_policy=lambda j, e: RetryDecision.incident("stop: " + str(e))))
    assert inc.outcome is Outcome.FAILED and inc.retries == 0 and inc.error_message == "stop: boom"
    bp = asyncio.run(run_handler(_boom, retry_policy=lambda j, e: RetryDecision.bpmn_error("E1", "m", {"v": 1})))
    assert bp.outcome is Outcome.BPMN_ERROR and bp.error_code == "E1" and bp.variables == {"v": 1}

    async def nr(job: Job) -> None:
        raise NonRetryableError("no way")

    r = asyncio.run(run_handler(nr, retry_backoff=5.0))
    assert r.retries == 0 and r.error_message == "no way"

    async def je(job: Job) -> None:
        raise JobError("CODE", "bpmn")

    called: List[int] = []
    r2 = asyncio.run(run_handler(je, retry_policy=lambda j, e: called.append(1) or RetryDecision.retry(1)))  # type: ignore[func-returns-value]
    assert r2.outcome is Outcome.BPMN_ERROR and called == []  # a JobError never reaches the policy


# --- middleware ----------------------------------------------------------------------------------------
def _mw(name: str, log: List[str], raise_msg: Optional[str] = None) -> Any:
    async def mw(job: Job, nxt: Any) -> Any:
        log.append(f"{name}:before")
        if raise_msg:
            raise RuntimeError(raise_msg)
        try:
            return await nxt()
        finally:
            log.append(f"{name}:after")

    return mw


def test_middleware_order_group_first_then_worker_each_in_registration_order() -> None:
    log: List[str] = []
    router = JobRouter(middleware=[_mw("g1", log)])
    router.use(_mw("g2", log))

    @router.job("t", middleware=[_mw("w1", log), _mw("w2", log)])
    async def h(order: Order) -> None:
        log.append("handler")

    handler, opts = _route(router)
    r = asyncio.run(run_handler(handler, make_job(variables={"orderId": "o", "amount": 1}), middleware=opts["middleware"]))
    assert r.outcome is Outcome.COMPLETED
    assert log == ["g1:before", "g2:before", "w1:before", "w2:before", "handler", "w2:after", "w1:after", "g2:after", "g1:after"]


def test_middleware_sees_invalid_input_from_next_and_a_raising_middleware_fails_the_job() -> None:
    seen: List[BaseException] = []

    async def watch(job: Job, nxt: Any) -> Any:
        try:
            return await nxt()
        except Exception as e:
            seen.append(e)
            raise

    router = JobRouter(middleware=[watch])

    @router.job("t")
    def h(order: Order) -> None: ...

    handler, opts = _route(router)
    r = asyncio.run(run_handler(handler, make_job(variables={"amount": 1}), middleware=opts["middleware"]))
    assert r.outcome is Outcome.FAILED and isinstance(seen[0], InvalidInputError)

    log: List[str] = []
    called: List[int] = []

    async def ok(job: Job) -> None:
        called.append(1)

    r2 = asyncio.run(run_handler(ok, middleware=[_mw("outer", log), _mw("inner", log, raise_msg="denied")], retry_backoff=0))
    assert called == [] and r2.outcome is Outcome.FAILED and r2.error_message == "denied" and r2.retries == 2
    assert log == ["outer:before", "inner:before", "outer:after"]


def test_middleware_that_returns_without_next_sets_the_outcome() -> None:
    async def short(job: Job, nxt: Any) -> Any:
        return {"cached": True}

    async def never(job: Job) -> None:
        raise AssertionError("not called")

    r = asyncio.run(run_handler(never, middleware=[short]))
    assert r.outcome is Outcome.COMPLETED and r.variables == {"cached": True}


# --- transport back-off, deprecations ------------------------------------------------------------------
def test_backoff_option_defaults_and_validation() -> None:
    assert Client(address="127.0.0.1:1").config.backoff == Backoff(initial=0.05, max=5.0, multiplier=1.6)
    c = Client(address="127.0.0.1:1", backoff=Backoff(initial=0.2, max=1.0, multiplier=2))
    t = BackoffTimer(rand=lambda: 0.5, settings=c.config.backoff)
    assert [round(t.next(), 3) for _ in range(5)] == [0.2, 0.4, 0.8, 1.0, 1.0]
    for kw in ({"initial": 0}, {"initial": 2.0, "max": 1.0}, {"multiplier": 0.9}, {"initial": float("nan")}):
        with pytest.raises(ConfigurationError):
            Backoff(**kw)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError):
        Client(address="127.0.0.1:1", backoff={"initial": 1})  # type: ignore[arg-type]


def test_job_worker_and_sync_module_are_deprecated() -> None:
    c = Client(address="127.0.0.1:1")
    with pytest.warns(DeprecationWarning, match="JobRouter"):
        c.job_worker("t")
    import importlib
    import sys

    sys.modules.pop("jobwire.sync", None)
    with pytest.warns(DeprecationWarning, match="jobwire.sync is deprecated"):
        importlib.import_module("jobwire.sync")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        importlib.reload(jobwire)  # the package itself imports nothing deprecated


def test_unresolvable_annotation_fails_at_registration() -> None:
    def make() -> Any:
        @dataclasses.dataclass
        class Local:
            x: int

        def h(v: "Local") -> None: ...  # a string naming a type the module cannot see

        return h

    with pytest.raises(ConfigurationError, match="cannot resolve the annotations"):
        JobRouter().job("t")(make())


class PydHeaders(pydantic.BaseModel):
    channel: str
    priority: int = 0


def test_sync_handler_behind_middleware_runs_in_a_thread_and_headers_validate_into_a_model() -> None:
    import threading

    threads: List[str] = []
    log: List[str] = []
    router = JobRouter(retry_backoff=0)

    @router.job("t", middleware=[_mw("m", log)])
    def h(headers: PydHeaders, amount: float) -> Dict[str, Any]:
        threads.append(threading.current_thread().name)
        return {"channel": headers.channel, "amount": amount}

    handler, opts = _route(router)
    assert opts["fetch_variables"] == ["amount", "traceparent"]  # headers are not variables
    ok = asyncio.run(run_handler(handler, make_job(variables={"amount": 2}, custom_headers={"channel": "web"}), middleware=opts["middleware"]))
    assert ok.variables == {"channel": "web", "amount": 2} and log == ["m:before", "m:after"]
    assert threads and threads[0] != threading.main_thread().name
    bad = asyncio.run(run_handler(handler, make_job(variables={"amount": 2}, custom_headers={}), middleware=opts["middleware"]))
    assert bad.outcome is Outcome.FAILED and "headers.channel: missing" in (bad.error_message or "")


def test_typed_output_is_lossless_and_works_from_any_handler() -> None:
    @dataclasses.dataclass
    class Big:
        n: int
        items: List[Item]

    async def plain(job: Job) -> Big:  # a low-level handler returning a dataclass
        return Big(2**60 + 7, [Item("A", 2)])

    r = asyncio.run(run_handler(plain))
    assert r.outcome is Outcome.COMPLETED and r.variables == {"n": 2**60 + 7, "items": [{"sku": "A", "qty": 2}]}
    assert isinstance(r.variables["n"], int)

    async def model(job: Job) -> PydOrder:
        return PydOrder(orderId="o", amount=1.5)

    assert asyncio.run(run_handler(model)).variables == {"orderId": "o", "amount": 1.5}

    async def not_an_object(job: Job) -> List[int]:
        return [1]

    bad = asyncio.run(run_handler(not_an_object, retry_backoff=0))
    assert bad.outcome is Outcome.FAILED and "must be a mapping" in (bad.error_message or "")


def test_pydantic_is_never_imported_by_jobwire_itself() -> None:
    import subprocess
    import sys

    code = (
        "import sys, dataclasses, asyncio\n"
        "import jobwire, jobwire.testing\n"
        "@dataclasses.dataclass\nclass O:\n    a: int\n"
        "r = jobwire.JobRouter()\n"
        "@r.job('t')\nasync def h(o: O) -> O:\n    return o\n"
        "res = asyncio.run(jobwire.testing.run_handler(r._worker_args()[0][1], jobwire.testing.make_job(variables={'a': 1})))\n"
        "assert res.variables == {'a': 1}, res\n"
        "assert 'pydantic' not in sys.modules, 'pydantic was imported'\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
