"""Stand-in for the `testcontainers` package, used only to run pyzeebe's own
integration tests (tests/integration of the pinned pyzeebe sdist) unchanged.

Their conftest starts Zeebe in Docker with `DockerContainer("camunda/zeebe:…")`.
Here the "container" is a local jobwire-engine on 127.0.0.1 (JOBWIRE_ENGINE_BIN)
chosen by the environment:

  PYZEEBE_SUITE_ENGINE=dev      → `jobwire-engine dev --port 0`
  PYZEEBE_SUITE_ENGINE=cluster  → `jobwire-engine cluster` with the container's shape (1 broker,
                                   1 partition) as separate gateway and broker processes

Nothing else of testcontainers exists here.
"""
