"""pyzeebe's own integration tests (pyzeebe 4.7.0 sdist, tests/integration:
deploy a BPMN with zeebe:ioMapping and a message start event, deploy a DMN,
run processes with and without result, cancel, publish a message that starts
an instance, evaluate a decision by id and by key, a missing decision and
process, topology, health) run unchanged against jobwire-engine dev and
against the real in-memory Zeebe engine (tools/zeebe-engine). Every test must
pass on jobwire-engine, and each must end the same way on both engines.

How they run unchanged: pyzeebe_suite/run_suite.py (sdist fetched by pip,
sha256-pinned; shim/testcontainers starts a local engine where their conftest
starts Docker).
"""
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "pyzeebe_suite"))
import run_suite  # noqa: E402


def test_pyzeebe_integration_suite(tmp_path):
    results = {}
    for engine in ("zeebe", "jobwire"):
        results[engine] = run_suite.run(engine, tmp_path / f"pyzeebe-suite-{engine}.xml")
        for name, (outcome, msg) in sorted(results[engine].items()):
            print(f"{engine:7} {outcome:7} {name} {msg}")
    jw, zb = results["jobwire"], results["zeebe"]
    assert len(jw) >= 12, f"pyzeebe's suite ran {len(jw)} tests, expected its 12"
    failed = {n: r for n, r in jw.items() if r[0] != "passed"}
    assert not failed, f"pyzeebe integration tests failing on jobwire-engine dev: {failed}"
    differ = {n: (zb.get(n), jw.get(n)) for n in set(jw) | set(zb) if (zb.get(n) or ("missing",))[0] != (jw.get(n) or ("missing",))[0]}
    assert not differ, f"tests ending differently on Zeebe and jobwire-engine (zeebe, jobwire): {differ}"
