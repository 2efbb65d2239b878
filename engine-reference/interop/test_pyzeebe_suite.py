"""pyzeebe's own integration tests (pyzeebe 4.7.0 sdist, tests/integration:
deploy a BPMN with zeebe:ioMapping and a message start event, deploy a DMN,
run processes with and without result, cancel, publish a message that starts
an instance, evaluate a decision by id and by key, a missing decision and
process, topology, health) run unchanged against `jobwire-engine dev` and
against a `jobwire-engine cluster` (see below).
All 12 must pass on both.

Recorded Zeebe result (November 2026): against Zeebe 8.8.21's in-memory test
engine the suite passes 11 of
12; `test_ping` fails there because the test engine has no health service.
(The launcher this project used until then served grpc.health.v1 itself, so
its last recorded run, 2026-11-26, showed 12 of 12 with the same outcome per
test as jobwire-engine dev.) That run cannot be repeated here: no Zeebe engine
is downloaded or run any more.

On the cluster the suite gets the shape of the container its conftest asks
for (camunda/zeebe with its defaults: one broker, one partition;
`test_topology` asserts a cluster size of 1), as separate gateway and broker
processes.

How they run unchanged: pyzeebe_suite/run_suite.py (sdist fetched by pip,
sha256-pinned; shim/testcontainers starts a local jobwire-engine where their
conftest starts Docker).
"""
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "pyzeebe_suite"))
import run_suite  # noqa: E402

SUITE_TESTS = 12
# pyzeebe's test_cancel_process starts an instance and cancels it while the
# suite's own worker (an autouse fixture) works on the instance's job: when
# the worker completes the job first, the cancel finds no instance. A race in
# the suite itself (measured: 1 to 3 of 100 create-and-cancel rounds end that
# way on dev too); a failure of that test alone, for that reason, reruns the
# suite once, and the rerun must pass whole.
RACY = ("tests.integration.cancel_process_test::test_cancel_process", "ProcessInstanceNotFoundError")


def _lost_cancel_race(failed: dict) -> bool:
    return set(failed) == {RACY[0]} and RACY[1] in failed[RACY[0]][1]


@pytest.mark.parametrize("target", ["dev", "cluster"])
def test_pyzeebe_integration_suite(tmp_path, target):
    for attempt in (1, 2):
        results = run_suite.run(target, tmp_path / f"pyzeebe-suite-{target}-{attempt}.xml")
        for name, (outcome, msg) in sorted(results.items()):
            print(f"{target:7} {outcome:7} {name} {msg}")
        assert len(results) == SUITE_TESTS, f"pyzeebe's suite ran {len(results)} tests on {target}, expected its {SUITE_TESTS}"
        failed = {n: r for n, r in results.items() if r[0] != "passed"}
        if attempt == 1 and _lost_cancel_race(failed):
            print(f"{target}: test_cancel_process lost the race with the suite's worker; running the suite again")
            continue
        break
    assert not failed, f"pyzeebe integration tests failing on jobwire-engine {target}: {failed}"


def test_only_the_cancel_race_is_rerun():
    assert _lost_cancel_race({RACY[0]: ("failed", "pyzeebe.errors.process_errors.ProcessInstanceNotFoundError: ...")})
    assert not _lost_cancel_race({RACY[0]: ("failed", "AssertionError")})
    assert not _lost_cancel_race({RACY[0]: ("failed", "ProcessInstanceNotFoundError"),
                                  "tests.integration.topology_test::test_topology": ("failed", "AssertionError")})
