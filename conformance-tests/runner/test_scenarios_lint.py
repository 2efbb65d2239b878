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


def _bare_case(tmp_path):
    sc = case_mod.Scenario(name="commands/x", path=tmp_path, data={"name": "commands/x"})

    class T:
        has_admin = False
    return case_mod.Case(sc, "selftest", T(), tmp_path, "u1")


def test_placeholders_resolve_from_what_the_case_deployed_created_and_called(tmp_path):
    c = _bare_case(tmp_path)
    c.deployed = [{"kind": "process", "id": c.process_id, "version": 1, "key": 11},
                  {"kind": "process", "id": c.process_id, "version": 2, "key": 12},
                  {"kind": "process", "id": "other", "version": 1, "key": 21},
                  {"kind": "decision", "id": "d1", "version": 1, "key": 31, "drg": 30},
                  {"kind": "drg", "id": "g1", "version": 1, "key": 30}]
    c.instance_keys = [41, 42]
    c.calls = {"s": {"ok": True, "result": {"key": "51"}}, "bad": {"ok": False, "code": "UNAVAILABLE"}}
    req = {"a": "${process:2}", "b": ["${process:other:1}", "${decision:d1}", "${drg:g1}"],
           "c": {"k": "${instance:1}", "s": "${call:s:key}", "n": 5}, "d": "x-${instance:0}-y"}
    assert c.resolve(req) == {"a": "12", "b": ["21", "31", "30"], "c": {"k": "42", "s": "51", "n": 5}, "d": "x-41-y"}
    with pytest.raises(case_mod.ScenarioError, match="deployed no process"):
        c.resolve("${process:3}")
    with pytest.raises(case_mod.ScenarioError, match="created 2 instances"):
        c.resolve("${instance:2}")
    with pytest.raises(AssertionError, match="did not succeed"):
        c.resolve("${call:bad:key}")
    # call facts read the call_result; a call that never ran fails the fact, it is never "unchecked"
    c.calls["e"] = {"ok": True, "result": {"decisionOutput": '{"route":"review","n":12345678901234567}',
                                           "matchedRuleIds": ["r1"]}}
    assert c.fact("calls.e.ok") is True
    assert c.fact("calls.e.output") == {"route": "review", "n": 12345678901234567}
    assert c.fact("calls.e.result.matchedRuleIds") == ["r1"]
    assert c.fact("calls.bad.code") == "UNAVAILABLE"
    with pytest.raises(AssertionError, match="no call_result"):
        c.fact("calls.nope.ok")
    # conditions may hold placeholders: keys compare as the decimal strings the contract uses
    assert c.check_facts({"calls.s.result.key": "${call:s:key}"}, record=False) == []
    assert c.check_facts({"calls.s.result.key": "${process:1}"}, record=False) != []


def test_call_steps_are_validated(tmp_path):
    (tmp_path / "README.md").write_text("# commands/x\n**Spec.** s\n**Pain guarded.** p\n")
    data = {"name": "commands/x", "summary": "s", "pain": "p", "steps": [
        {"call": {"id": "c1", "method": "deleteResource", "request": {"resourceKey": "${call:c0:key}"}}},
        {"call": {"id": "c1", "method": "evaluateDecision", "request": {"decisionId": "d", "bogus": 1}}},
        {"call": {"id": "c2", "method": "frobnicate"}},
        {"call": {"id": "c3", "method": "modifyProcessInstance",
                  "request": {"processInstanceKey": "${instance:0}", "terminate": ["${element:0:A}"]}}},
        {"fault": {"reject": {"method": "DeleteResource", "code": 14, "after_aply": True}}},
        {"expect": {"calls.c9.ok": True}}],
        "expect": {"calls.c1.result": 1, "calls.c1.code": "NOT_FOUND"}}
    errs = "\n".join(case_mod.validate(case_mod.Scenario(name="commands/x", path=tmp_path, data=data)))
    for part in ["${call:c0:key} names no earlier call", "call id c1 used twice", "has no request fields ['bogus']",
                 "method one of", "${element:...} reads the admin view", "unknown reject fields ['after_aply']",
                 "no earlier call step has id c9", "name the result field"]:
        assert part in errs, f"{part!r} not in:\n{errs}"
    assert "calls.c1.code" not in errs
