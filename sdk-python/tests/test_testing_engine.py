"""jobwire.testing level 2 against the real engine: the fixtures, the clock, reset, faults, the
failure messages, and the shared cases of conformance-tests/vectors/testkit.json run through the
public kit API (the step interpreter below)."""

from __future__ import annotations

import json
import os
import statistics
import time
from datetime import timedelta
from pathlib import Path
from typing import Any, Dict, List

import pytest

ROOT = Path(__file__).resolve().parents[2]
os.environ.setdefault("JOBWIRE_ENGINE", str(ROOT / "engine-reference" / "bin" / "jobwire-engine"))

from jobwire import BackpressureError, JobwireError  # noqa: E402
from jobwire.testing import TestEngine, start_test_engine  # noqa: E402
from jobwire.testing import jobwire_engine, jobwire_test  # noqa: E402,F401  (the kit's fixtures; users write pytest_plugins = ["jobwire.testing"] in conftest.py)

VECTORS = ROOT / "conformance-tests" / "vectors"
CASES = json.loads((VECTORS / "testkit.json").read_text())["cases"]

ONE_TASK = """<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="t">
  <bpmn:process id="py-kit" isExecutable="true">
    <bpmn:startEvent id="s"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="t"/>
    <bpmn:serviceTask id="t"><bpmn:extensionElements><zeebe:taskDefinition type="py-kit-work" retries="1"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="t" targetRef="e"/>
    <bpmn:endEvent id="e"/>
  </bpmn:process>
</bpmn:definitions>
"""


def run_case(engine: TestEngine, case: Dict[str, Any]) -> None:
    """The testkit.json step interpreter, on the public kit API only."""
    inst: Dict[str, int] = {}
    for step in case["steps"]:
        where = f"{case['name']}: {step}"
        if "deploy" in step:
            assert engine.deploy(VECTORS / "testkit" / step["deploy"]), where
        elif "create" in step:
            inst[step["as"]] = engine.create_instance(step["create"], step.get("variables"))
        elif "advance_clock_ms" in step:
            engine.advance_clock(timedelta(milliseconds=step["advance_clock_ms"]))
        elif "set_clock_from_now_ms" in step:
            engine.set_clock(engine.clock() + timedelta(milliseconds=step["set_clock_from_now_ms"]))
        elif "expect_clock_near_wall_ms" in step:
            assert abs(engine.clock().timestamp() - time.time()) * 1000 <= step["expect_clock_near_wall_ms"], where
        elif "await_completed" in step:
            got = engine.await_completed(inst[step["await_completed"]])
            for k, v in step.get("variables", {}).items():
                assert got.get(k) == v, f"{where}: {k}={got.get(k)!r}"
        elif "await_incident" in step:
            inc = engine.await_incident(inst[step["await_incident"]])
            if "type" in step:
                assert inc.type == step["type"], f"{where}: {inc}"
        elif "complete_jobs" in step:
            if "expect_error" in step:
                with pytest.raises(JobwireError) as e:
                    engine.complete_jobs(step["complete_jobs"], step.get("variables"))
                assert e.value.code_name == step["expect_error"], where
            else:
                n = engine.complete_jobs(step["complete_jobs"], step.get("variables"))
                if "expect_count" in step:
                    assert n == step["expect_count"], f"{where}: completed {n}"
        elif "jobs" in step:
            assert len(engine.jobs(step["jobs"])) == step["expect_count"], where
        elif "reset" in step:
            engine.reset()
        elif "expect_no_instance" in step:
            with pytest.raises(KeyError):
                engine.variables(inst[step["expect_no_instance"]])
        elif "fault" in step:
            assert step["fault"] == "resource_exhausted", where
            engine.inject_resource_exhausted(step["count"])
        elif "clear_faults" in step:
            engine.clear_faults()
        else:
            raise AssertionError(f"unknown step {where}")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_shared_case(jobwire_test: TestEngine, case: Dict[str, Any]) -> None:
    run_case(jobwire_test, case)


def test_thirty_day_timer_in_under_a_second(jobwire_test: TestEngine) -> None:
    t0 = time.perf_counter()
    jobwire_test.deploy(VECTORS / "testkit" / "timer-30d.bpmn")
    key = jobwire_test.create_instance("kit-timer-30d", {"order": 1})
    assert jobwire_test.jobs("kit-remind") == []
    before = jobwire_test.clock()
    after = jobwire_test.advance_clock(timedelta(days=30))
    assert after - before >= timedelta(days=30)
    assert jobwire_test.complete_jobs("kit-remind") == 1
    assert jobwire_test.await_completed(key) == {"order": 1}
    took = time.perf_counter() - t0
    print(f"\n[measure] 30-day timer test: {took * 1000:.0f} ms")
    assert took < 1.0


def test_reset_isolates_tests_part_one(jobwire_test: TestEngine) -> None:
    jobwire_test.deploy(ONE_TASK)
    jobwire_test.create_instance("py-kit")
    jobwire_test.advance_clock(timedelta(hours=1))
    assert len(jobwire_test.jobs("py-kit-work")) == 1


def test_reset_isolates_tests_part_two(jobwire_test: TestEngine) -> None:
    # runs after part one on the same engine: the fixture's reset dropped its instance, job and clock
    assert jobwire_test.jobs("py-kit-work") == []
    assert abs(jobwire_test.clock().timestamp() - time.time()) < 60
    with pytest.raises(JobwireError):
        jobwire_test.create_instance("py-kit")


def test_real_worker_on_the_engine(jobwire_test: TestEngine) -> None:
    jobwire_test.deploy(ONE_TASK)
    seen: List[int] = []

    def work(job: Any) -> Dict[str, Any]:
        seen.append(job.variables["n"])
        return {"doubled": job.variables["n"] * 2}

    worker = jobwire_test.client.worker("py-kit-work", work, request_timeout=1.0)
    try:
        key = jobwire_test.create_instance("py-kit", {"n": 21})
        assert jobwire_test.await_completed(key) == {"n": 21, "doubled": 42}
        assert seen == [21]
    finally:
        worker.close(timeout=2.0)


def test_failing_worker_gives_an_incident_and_a_clear_failure(jobwire_test: TestEngine) -> None:
    jobwire_test.deploy(ONE_TASK)

    def work(job: Any) -> None:
        raise RuntimeError("card declined")

    worker = jobwire_test.client.worker("py-kit-work", work, request_timeout=1.0)
    try:
        key = jobwire_test.create_instance("py-kit", {"n": 1})
        inc = jobwire_test.await_incident(key)
        assert inc.type == "JOB_NO_RETRIES" and "card declined" in inc.message and inc.job_key != 0
        with pytest.raises(AssertionError) as e:
            jobwire_test.await_completed(key, timeout=0.5)
        text = str(e.value)
        assert f"process instance {key}" in text and "INCIDENT" in text and "card declined" in text and '"n":1' in text.replace(" ", "")
    finally:
        worker.close(timeout=2.0)


def test_await_completed_times_out_with_the_open_jobs(jobwire_test: TestEngine) -> None:
    jobwire_test.deploy(ONE_TASK)
    key = jobwire_test.create_instance("py-kit", {"n": 3})
    t0 = time.monotonic()
    with pytest.raises(AssertionError) as e:
        jobwire_test.await_completed(key, timeout=0.3)
    assert time.monotonic() - t0 < 2
    assert "did not complete within 0.3 s" in str(e.value) and "py-kit-work ACTIVATABLE" in str(e.value)


def test_faults(jobwire_test: TestEngine) -> None:
    jobwire_test.deploy(ONE_TASK)
    jobwire_test.create_instance("py-kit")
    jobwire_test.inject_resource_exhausted(2)
    for _ in range(2):
        with pytest.raises(BackpressureError):
            jobwire_test.complete_jobs("py-kit-work")
    assert jobwire_test.complete_jobs("py-kit-work") == 1
    jobwire_test.inject_resource_exhausted(5)
    jobwire_test.clear_faults()
    assert jobwire_test.complete_jobs("py-kit-work") == 0
    assert jobwire_test.drop_streams() == 0
    jobwire_test.restart_gateway()  # clients reconnect
    jobwire_test.create_instance("py-kit")
    assert jobwire_test.complete_jobs("py-kit-work") == 1


def test_set_clock_refuses_the_past(jobwire_test: TestEngine) -> None:
    now = jobwire_test.clock()
    with pytest.raises(JobwireError) as e:
        jobwire_test.set_clock(now - timedelta(hours=1))
    assert e.value.code_name == "FAILED_PRECONDITION"
    assert jobwire_test.set_clock(now + timedelta(days=2)) >= now + timedelta(days=2)


def test_measure_start_and_reset(jobwire_engine: TestEngine) -> None:
    """Prints (does not assert) engine start-to-ready through the kit over 50 starts, and reset time."""
    starts: List[float] = []
    for _ in range(50):
        t0 = time.perf_counter()
        e = start_test_engine()
        try:
            e.clock()  # ready: the admin API answers
            starts.append(time.perf_counter() - t0)
        finally:
            e.close()
    resets: List[float] = []
    for _ in range(50):
        jobwire_engine.deploy(ONE_TASK)
        jobwire_engine.create_instance("py-kit")
        t0 = time.perf_counter()
        jobwire_engine.reset()
        resets.append(time.perf_counter() - t0)
    q = statistics.quantiles(starts, n=100)
    r = statistics.quantiles(resets, n=100)
    print(f"\n[measure] engine start-to-ready: p50 {q[49] * 1000:.0f} ms, p99 {q[98] * 1000:.0f} ms (50 starts)")
    print(f"[measure] reset: p50 {r[49] * 1000:.1f} ms, p99 {r[98] * 1000:.1f} ms (50 resets)")
    assert len(starts) == 50


def test_reset_clears_faults_and_closes_workers(jobwire_test: TestEngine) -> None:
    jobwire_test.deploy(ONE_TASK)
    worker = jobwire_test.client.worker("py-kit-work", lambda job: {}, request_timeout=1.0)
    jobwire_test.inject_resource_exhausted(3)
    jobwire_test.reset()
    assert worker.state.value == "closed"
    jobwire_test.deploy(ONE_TASK)
    jobwire_test.create_instance("py-kit")
    assert jobwire_test.complete_jobs("py-kit-work") == 1  # no fault left, no worker took the job
