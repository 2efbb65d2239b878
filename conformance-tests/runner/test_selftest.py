"""End-to-end self-test of the runner with its own Python reference driver
(runner/selftest_driver.py) on the reference engine. Proves the runner, the
fact sources (admin, proxy, driver events) and the check functions work; the
selftest driver is not an SDK and never appears in the matrix."""
from __future__ import annotations

import uuid

import pytest

import case as case_mod
from execute import run_case

SELFTEST_SCENARIOS = ["polling/complete-basic", "polling/int64-variables-lossless",
                      "commands/evaluate-decision", "commands/modify-process-instance", "commands/migrate-process-instance",
                      "commands/delete-resource", "commands/broadcast-signal",
                      "streaming/reconnect-after-goaway", "resilience/backoff-on-resource-exhausted"]


@pytest.mark.parametrize("name", SELFTEST_SCENARIOS)
def test_runner_selftest(name, target, work_dir):
    if target.kind != "reference":
        pytest.skip("the runner self-test runs on the reference engine only")
    sc = next(s for s in case_mod.load_all() if s.name == name)
    wd = work_dir / "selftest" / name.replace("/", "__")
    wd.mkdir(parents=True, exist_ok=True)
    case = run_case(sc, "selftest", target, wd, uuid.uuid4().hex[:6])
    assert case.results and all(r[3] in ("ok", "unchecked") for r in case.results)
    assert not case.unchecked, case.unchecked


def test_case_time_budget_stops_a_hung_case(target, work_dir, tmp_path):
    """A case that exceeds its `timeout_s` fails fast and leaves no process behind."""
    import time

    import harness
    from execute import CaseTimeout
    if target.kind != "reference":
        pytest.skip("the runner self-test runs on the reference engine only")
    sc = case_mod.Scenario(name="selftest/hung", path=tmp_path, data={
        "name": "selftest/hung", "timeout_s": 2,
        "steps": [{"start_worker": {"id": "w1", "options": {"streamEnabled": False}}}, {"sleep": 30000}]})
    t0 = time.monotonic()
    with pytest.raises(CaseTimeout):
        run_case(sc, "selftest", target, tmp_path, "hung01")
    assert time.monotonic() - t0 < 10
    alive = [p for p in harness.PROCS if p.poll() is None and "selftest_driver" in " ".join(map(str, p.args))]
    assert not alive, "driver left running after the case timed out"
