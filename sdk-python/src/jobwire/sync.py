"""A small synchronous facade for scripts and sync frameworks. **Deprecated**: importing it warns.

Use the asyncio client with ``asyncio.run(main())``; handlers written as plain functions keep
working there (they run in a thread pool bounded by ``concurrency``, and ``Job.*_sync`` settles a
job from them). This module duplicated every client method in a second, blocking surface; it
stays importable (unchanged) for existing code.

    from jobwire.sync import Client

    def charge(job):
        return {"charged": job.variables["amount"]}

    with Client() as client:
        client.worker("charge", charge, max_jobs_active=8)
        client.run_workers()          # blocks; Ctrl-C closes the workers gracefully
"""

from __future__ import annotations

import warnings

from ._sync import Client, Worker

__all__ = ["Client", "Worker"]

warnings.warn(
    "jobwire.sync is deprecated: use the asyncio Client (asyncio.run); plain-function handlers and Job.*_sync keep working there",
    DeprecationWarning,
    stacklevel=2,
)
