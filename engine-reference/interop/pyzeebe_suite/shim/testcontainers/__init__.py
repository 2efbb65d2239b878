"""Stand-in for the `testcontainers` package, used only to run pyzeebe's own
integration tests (tests/integration of the pinned pyzeebe sdist) unchanged.

Their conftest starts Zeebe in Docker with `DockerContainer("camunda/zeebe:…")`.
Here the "container" is a local engine on 127.0.0.1 chosen by the environment:

  PYZEEBE_SUITE_ENGINE=jobwire  JOBWIRE_ENGINE_BIN=…/jobwire-engine   → `jobwire-engine dev --port 0`
  PYZEEBE_SUITE_ENGINE=zeebe    ZEEBE_ENGINE_START=…/start.sh         → the real in-memory Zeebe engine

Nothing else of testcontainers exists here.
"""
