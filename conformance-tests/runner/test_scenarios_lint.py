"""Every scenario follows the documented vocabulary (conformance-tests/README.md)."""
from __future__ import annotations

import pytest

import case as case_mod


def test_scenario_is_valid(scenario):
    problems = case_mod.validate(scenario)
    assert not problems, "\n".join(problems)


def test_catalogue_is_not_empty():
    assert len(case_mod.load_all()) >= 10


@pytest.mark.parametrize("fact,cond,actual,ok", [
    ("jobs.completed", 3, 3, True),
    ("jobs.completed", {"gte": 2, "lte": 3}, 4, False),
    ("driver.max_concurrent", {"lte": 2}, 2, True),
    ("driver.last_state", {"in": ["closed", "idle"]}, "closed", True),
    ("driver.last_state", {"ne": "backoff"}, None, True),
    ("jobs.min_retries", {"gte": 1}, None, False),
])
def test_compare(fact, cond, actual, ok):
    assert case_mod.FACT_RE.match(fact)
    assert case_mod.compare(actual, cond) is ok


def test_max_concurrent_per_worker():
    evs = [{"event": "job_start", "worker": "a", "key": "1"}, {"event": "job_start", "worker": "b", "key": "2"},
           {"event": "job_start", "worker": "a", "key": "3"}, {"event": "job_end", "worker": "a", "key": "1"},
           {"event": "job_start", "worker": "a", "key": "4"}]
    assert case_mod.max_concurrent(evs) == 2


def test_metric_value_latest_event_and_attributes():
    evs = [{"event": "metrics", "metrics": [{"name": "m", "points": [{"attributes": {"outcome": "completed"}, "value": 1}]}]},
           {"event": "metrics", "metrics": [{"name": "m", "points": [
               {"attributes": {"outcome": "completed"}, "value": 5}, {"attributes": {"outcome": "failed"}, "value": 2}]}]}]
    assert case_mod.metric_value(evs, {"name": "m", "outcome": "completed"}) == 5
    assert case_mod.metric_value(evs, {"name": "m"}) == 7
    assert case_mod.metric_value(evs, {"name": "x"}) is None


def test_expectation_files_name_real_scenarios():
    """expectations/<sdk>.yaml: every key is a scenario; every value a reason (known-failing) or
    {skip: reason} (an official client that cannot express the scenario). Every peer has a file."""
    import yaml
    from pathlib import Path

    import case as case_mod
    from execute import PEERS

    root = Path(__file__).resolve().parent.parent / "expectations"
    names = {s.name for s in case_mod.load_all()}
    for f in sorted(root.glob("*.yaml")):
        data = yaml.safe_load(f.read_text()) or {}
        for k, v in data.items():
            assert k in names, f"{f.name}: {k} is not a scenario"
            if isinstance(v, dict):
                assert set(v) == {"skip"} and str(v["skip"]).strip(), f"{f.name}: {k}: a mapping must be {{skip: reason}}"
            else:
                assert isinstance(v, str) and v.strip(), f"{f.name}: {k}: the reason is empty"
    for p in sorted(PEERS.iterdir()) if PEERS.is_dir() else []:
        if (p / "run").is_file():
            assert (root / f"{p.name}.yaml").is_file(), f"peer {p.name} has no expectations/{p.name}.yaml"
