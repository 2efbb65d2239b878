"""jobwire.testing: test your workers, without Docker, in milliseconds.

Level 1, handler tests without network: :func:`make_job` builds a :class:`jobwire.Job` and
:func:`run_handler` (or :func:`run_handler_sync`) runs a handler through the worker's own executor,
returning a :class:`HandlerResult` (completed, failed, bpmn_error or cancelled)::

    from jobwire.testing import make_job, run_handler_sync

    def test_charge():
        result = run_handler_sync(charge, make_job(variables={"amount": 5}))
        assert result.outcome == "completed" and result.variables == {"charged": 5}

Level 2, process tests on a real engine (``pip install "jobwire[testing]"``): :class:`TestEngine`
deploys, starts instances, moves the engine clock and waits for outcomes. With pytest, enable the
fixtures in ``conftest.py``::

    pytest_plugins = ["jobwire.testing"]

``jobwire_engine`` (session-scoped: one engine per test run) and ``jobwire_test`` (function-scoped:
the same engine, reset before the test). Without pytest: :func:`start_test_engine`.
"""

from __future__ import annotations

from typing import Iterator

from ._engine import EngineJob, Incident, TestEngine, start_test_engine
from ._handler import HandlerResult, Outcome, make_job, run_handler, run_handler_sync

__all__ = [
    "EngineJob",
    "HandlerResult",
    "Incident",
    "Outcome",
    "TestEngine",
    "make_job",
    "run_handler",
    "run_handler_sync",
    "start_test_engine",
]

try:
    import pytest
except ImportError:  # the plain API works without pytest
    pass
else:

    @pytest.fixture(scope="session")
    def jobwire_engine() -> Iterator[TestEngine]:
        """One engine for the whole test run, stopped at its end."""
        engine = start_test_engine()
        try:
            yield engine
        finally:
            engine.close()

    @pytest.fixture
    def jobwire_test(jobwire_engine: TestEngine) -> TestEngine:
        """The session's engine, reset (no deployments, instances, jobs or faults; clock at wall time)."""
        jobwire_engine.reset()
        return jobwire_engine
