"""Bookkeeping for `make run`: counts handled jobs and measures the hand-off latency
(time from the previous task's handler returning to this handler starting: completion,
engine, job push). Not needed in your own worker."""

from __future__ import annotations

import json
import math
import sys
import time
from typing import Any, Awaitable, Callable, Dict, List

from jobwire import Job, JobError


class Histogram:
    """Log buckets of 5 % width from 10 us up (same as the Go example)."""

    def __init__(self) -> None:
        self.counts: List[int] = [0] * 400

    def add(self, ms: float) -> None:
        i = int(math.floor(math.log(ms / 0.01) / math.log(1.05))) if ms > 0.01 else 0
        self.counts[min(max(i, 0), len(self.counts) - 1)] += 1

    def quantile(self, q: float) -> float:
        n = sum(self.counts)
        if n == 0:
            return 0.0
        rank = math.ceil(q * n)
        seen = 0
        for i, c in enumerate(self.counts):
            seen += c
            if seen >= rank:
                return 0.01 * 1.05 ** (i + 1)
        return 0.0


class Stats:
    def __init__(self, sdk: str) -> None:
        self.sdk = sdk
        self.start = self.last_time = time.monotonic()
        self.by_type: Dict[str, int] = {}
        self.handled = self.bpmn_errors = self.failed = self.inflight = self.last_n = 0
        self.total = Histogram()
        self.window = Histogram()

    def wrap(self, job_type: str, handler: Callable[[Job], Awaitable[Dict[str, Any]]]) -> Callable[[Job], Awaitable[Any]]:
        """Counts a handler's jobs and passes the hand-off timestamp on."""

        async def wrapped(job: Job) -> Any:
            started_at = time.time() * 1000
            self.inflight += 1
            try:
                out = dict(await handler(job) or {})
                out["handedOffAt"] = time.time() * 1000
                return out
            except JobError:
                self.bpmn_errors += 1
                raise
            except Exception:
                self.failed += 1
                raise
            finally:
                self.inflight -= 1
                self.handled += 1
                self.by_type[job_type] = self.by_type.get(job_type, 0) + 1
                at = job.variables.get("handedOffAt")
                if isinstance(at, (int, float)) and at > 0:
                    self.total.add(started_at - at)
                    self.window.add(started_at - at)

        return wrapped

    async def middleware(self, job: Job, call_next: Callable[[], Awaitable[Any]]) -> Any:
        """The same as jobwire middleware (around every handler of the router)."""
        return await self.wrap(job.type, lambda _job: call_next())(job)

    def print(self, final: bool) -> None:
        """Writes one JSON line to stdout (read by examples/go/load)."""
        now = time.monotonic()
        rate = (self.handled - self.last_n) / max(0.001, now - self.last_time)
        line = {
            "stats": "order-worker", "sdk": self.sdk, "final": final, "uptime_s": now - self.start,
            "handled": self.handled, "by_type": self.by_type, "bpmn_errors": self.bpmn_errors, "failed": self.failed,
            "inflight": self.inflight, "jobs_per_s": rate,
            "p50_ms": self.window.quantile(0.5), "p99_ms": self.window.quantile(0.99),
            "total_p50_ms": self.total.quantile(0.5), "total_p99_ms": self.total.quantile(0.99),
        }
        sys.stdout.write(json.dumps(line) + "\n")
        sys.stdout.flush()
        self.window = Histogram()
        self.last_n = self.handled
        self.last_time = now
