"""jobwire.testing level 1: make_job and run_handler run handlers through the worker's own
executor (no network), and report exactly what the worker would send."""

from __future__ import annotations

import asyncio
import threading
import time
from datetime import datetime, timedelta, timezone
from typing import Any, Dict

import pytest

from jobwire import Job, JobError, JobwireError
from jobwire.testing import HandlerResult, Outcome, make_job, run_handler, run_handler_sync


def charge(job: Job) -> Dict[str, Any]:
    if job.variables["amount"] > 100:
        raise JobError("LIMIT", "over the limit", variables={"limit": 100})
    if job.variables["amount"] < 0:
        raise ValueError("negative amount")
    return {"charged": job.variables["amount"], "currency": job.custom_headers.get("currency", "EUR")}


async def charge_async(job: Job) -> Dict[str, Any]:
    await asyncio.sleep(0)
    return charge(job)


def test_make_job_builds_a_real_job() -> None:
    deadline = datetime.now(timezone.utc) + timedelta(minutes=1)
    job = make_job(variables={"amount": 2**63 - 1, "x": [1, 2]}, custom_headers={"currency": "USD"}, retries=5, deadline=deadline,
                   job_type="charge", key=42, process_instance_key=7, element_id="charge-card")
    assert isinstance(job, Job)
    assert (job.key, job.type, job.retries, job.process_instance_key, job.element_id) == (42, "charge", 5, 7, "charge-card")
    assert job.variables == {"amount": 2**63 - 1, "x": [1, 2]} and isinstance(job.variables["amount"], int)
    assert job.custom_headers == {"currency": "USD"}
    assert abs(job.deadline - deadline.timestamp() * 1000) < 1
    other = make_job(variables='{"a": 1}')
    assert other.variables == {"a": 1} and other.key != make_job().key and other.retries == 3 and other.type == "test"
    with pytest.raises(JobwireError, match="make_job"):
        asyncio.run(job.complete({"a": 1}))


@pytest.mark.parametrize("handler", [charge, charge_async], ids=["sync", "async"])
def test_completed_with_the_handler_variables(handler: Any) -> None:
    job = make_job(variables={"amount": 5}, custom_headers={"currency": "USD"})
    r = run_handler_sync(handler, job)
    assert r.outcome == Outcome.COMPLETED == "completed"
    assert r.variables == {"charged": 5, "currency": "USD"}
    assert r.exception is None and r.retries is None and r.extensions == ()
    assert r.job is not None and r.job.key == job.key and r.job is not job


@pytest.mark.parametrize("handler", [charge, charge_async], ids=["sync", "async"])
def test_a_raising_handler_fails_the_job_with_retries_minus_one(handler: Any) -> None:
    r = run_handler_sync(handler, make_job(variables={"amount": -1}, retries=3), retry_backoff=timedelta(seconds=7))
    assert r.outcome == Outcome.FAILED
    assert r.retries == 2 and r.error_message == "negative amount" and r.retry_backoff == 7.0
    assert isinstance(r.exception, ValueError)


def test_job_error_throws_a_bpmn_error() -> None:
    r = run_handler_sync(charge, make_job(variables={"amount": 500}))
    assert r.outcome == Outcome.BPMN_ERROR
    assert (r.error_code, r.error_message, r.variables) == ("LIMIT", "over the limit", {"limit": 100})
    assert isinstance(r.exception, JobError)

    def returns_error(job: Job) -> JobError:
        return JobError("RETURNED")

    r2 = run_handler_sync(returns_error)
    assert r2.outcome == Outcome.BPMN_ERROR and r2.error_code == "RETURNED" and r2.exception is None


def test_returning_nothing_completes_without_variables() -> None:
    assert run_handler_sync(lambda job: None).variables == {}


def test_unserializable_result_fails_the_job_as_the_worker_does() -> None:
    r = run_handler_sync(lambda job: {"when": object()}, make_job(retries=1))
    assert r.outcome == Outcome.FAILED and r.retries == 0 and "variables returned by the handler" in (r.error_message or "")


def test_manual_completion_through_the_job_api() -> None:
    async def complete(job: Job) -> None:
        await job.complete({"manual": True})

    async def fail(job: Job) -> None:
        await job.fail("try later", retries=9, retry_backoff=30, variables={"attempt": 2})

    def throw(job: Job) -> None:  # a sync handler uses the *_sync methods
        job.throw_error_sync("NOPE", "declined", variables={"why": "x"})

    r = run_handler_sync(complete, auto_complete=False)
    assert (r.outcome, r.variables) == (Outcome.COMPLETED, {"manual": True})
    r = run_handler_sync(fail, auto_complete=False)
    assert (r.outcome, r.retries, r.retry_backoff, r.error_message, r.variables) == (Outcome.FAILED, 9, 30.0, "try later", {"attempt": 2})
    r = run_handler_sync(throw)
    assert (r.outcome, r.error_code, r.variables) == (Outcome.BPMN_ERROR, "NOPE", {"why": "x"})


def test_cancel_after_hands_an_async_job_back_with_retries_unchanged() -> None:
    cancelled = []

    async def slow(job: Job) -> Dict[str, Any]:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.append(job.cancelled)
            raise
        return {}

    t0 = time.monotonic()
    r = run_handler_sync(slow, make_job(retries=4), cancel_after=0.2)
    assert time.monotonic() - t0 < 5
    assert r.outcome == Outcome.CANCELLED and r.retries == 4 and cancelled == [True]


def test_cancel_after_signals_a_sync_handler() -> None:
    def polite(job: Job) -> Dict[str, Any]:
        job.cancel_event.wait(10)
        assert job.cancelled
        raise RuntimeError("stopped")

    r = run_handler_sync(polite, make_job(retries=2), cancel_after=0.1)
    assert r.outcome == Outcome.CANCELLED and r.retries == 2 and isinstance(r.exception, RuntimeError)


def test_a_handler_faster_than_cancel_after_completes() -> None:
    r = run_handler_sync(charge, make_job(variables={"amount": 1}), cancel_after=5)
    assert r.outcome == Outcome.COMPLETED and r.variables["charged"] == 1


def test_auto_extend_is_reported() -> None:
    async def long(job: Job) -> Dict[str, Any]:
        await asyncio.sleep(0.5)
        return {"done": True}

    soon = int(time.time() * 1000) + 300
    r = run_handler_sync(long, make_job(deadline=soon), auto_extend=True, job_timeout=0.4)
    assert r.outcome == Outcome.COMPLETED
    assert len(r.extensions) >= 1 and all(e == 0.4 for e in r.extensions)
    r2 = run_handler_sync(long, make_job(deadline=int(time.time() * 1000) + 2000))
    assert r2.extensions == ()


def test_explicit_extend_timeout_is_reported() -> None:
    async def extend(job: Job) -> None:
        await job.extend_timeout(timedelta(minutes=10))

    assert run_handler_sync(extend).extensions == (600.0,)


def test_a_handler_that_never_settles_times_out() -> None:
    async def forgets(job: Job) -> None:
        return None

    with pytest.raises(AssertionError, match="did not settle"):
        run_handler_sync(forgets, auto_complete=False, timeout=0.3)


def test_run_handler_on_a_running_loop() -> None:
    async def main() -> HandlerResult:
        return await run_handler(charge_async, make_job(variables={"amount": 3}))

    r = asyncio.run(main())
    assert r.outcome == "completed" and r.variables["charged"] == 3


def test_sync_handler_runs_in_a_worker_thread() -> None:
    names = []

    def where(job: Job) -> None:
        names.append(threading.current_thread().name)

    run_handler_sync(where)
    assert names and names[0] != threading.main_thread().name
