"""Exponential backoff shared by polls, stream reopens and outcome retries."""

from __future__ import annotations

import random
from typing import Any, Callable, Optional


class Backoff:
    """50 ms -> 5 s, x1.6 per failure, +-10 % jitter, back to the start on success.

    ``delay(n) = min(max, min * 1.6**n) * (1 +- 0.1 * random)`` (seconds). The bounds and the
    factor come from the client's ``backoff`` option (:class:`jobwire.Backoff`) when given;
    the jitter is fixed.
    """

    MIN_S = 0.05
    MAX_S = 5.0
    FACTOR = 1.6
    JITTER = 0.1

    def __init__(self, rand: Callable[[], float] = random.random, settings: Optional[Any] = None) -> None:
        self._rand = rand
        self._current = 0.0
        if settings is not None:  # a jobwire.Backoff (validated by the client config)
            self.MIN_S = float(settings.initial)
            self.MAX_S = float(settings.max)
            self.FACTOR = float(settings.multiplier)

    def next(self) -> float:
        """The delay before the next attempt, in seconds; grows on every call until reset()."""
        self._current = self.MIN_S if self._current == 0 else min(self.MAX_S, self._current * self.FACTOR)
        return self._jitter(self._current)

    def max(self) -> float:
        """The longest delay (with jitter): used after errors that need a human (auth, bad request)."""
        self._current = self.MAX_S
        return self._jitter(self.MAX_S)

    def reset(self) -> None:
        """Back to the first step; called after every success."""
        self._current = 0.0

    def _jitter(self, s: float) -> float:
        return s * (1 + self.JITTER * (2 * self._rand() - 1))
