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
