"""The extender: auto-extends the activation timeout of a long-running handler's job."""

from __future__ import annotations

import asyncio
import logging
import time

from ._backoff import Backoff
from .errors import BENIGN_OUTCOME_CODES, JobwireError
from .job import Job

EXTEND_MIN_WAIT_S = 0.05
EXTEND_MIN_RETRY_S = 0.02


def extend_wait(left: float, retry: bool, bo: Backoff) -> float:
    """Seconds to wait before the next UpdateJobTimeout (docs/worker-semantics.md, the same in every
    SDK): half of the time left until the deadline (at least 50 ms); after a failed attempt, the
    backoff's next delay alone, capped at half of the time still left (at least 20 ms), so that the
    retries fall before the deadline."""
    if retry:
        return min(bo.next(), max(left / 2, EXTEND_MIN_RETRY_S))
    return max(EXTEND_MIN_WAIT_S, left / 2)


async def run_extender(job: Job, timeout: float, logger: logging.Logger) -> None:
    """Auto-extend: push the deadline out by ``timeout`` (the worker's job_timeout) whenever half of
    the remaining time passed; a failed UpdateJobTimeout is retried after the shared backoff alone
    (capped at half the time still left) until it lands or the job is gone (extend_wait). Runs until
    cancelled (the handler ended)."""
    bo = Backoff()
    retry = False
    while True:
        await asyncio.sleep(extend_wait(job.deadline / 1000 - time.time(), retry, bo))
        try:
            await job.extend_timeout(timeout)
            bo.reset()
            retry = False
        except JobwireError as e:
            if e.code in BENIGN_OUTCOME_CODES:
                return  # the job is gone: stop extending
            logger.debug("auto-extend of job %s failed (%s); retrying", job.key, e.code_name)
            retry = True
