"""The capacity ledger: the only place that counts the jobs a worker holds."""

from __future__ import annotations

import asyncio
from typing import Callable, List, Optional, Tuple


class Slot:
    """One held job's place in the ledger; release() is idempotent, so it counts once."""

    __slots__ = ("_ledger", "released")

    def __init__(self, ledger: "Ledger") -> None:
        self._ledger = ledger
        self.released = False

    def release(self) -> None:
        """Gives the slot back; later calls do nothing."""
        if self.released:
            return
        self.released = True
        self._ledger._give_back()


class Ledger:
    """Counts the jobs a worker holds, pushed and polled alike, the slots set aside for the
    poll in flight, and the one slot the stream reader reserves before each read.
    Invariant: ``0 <= held + poll_reserved + reserved <= max``.

    A slot is taken when a job is received and released exactly once (outcome
    acknowledged, given up, or job dropped). A poll sets aside the slots it asks for from
    just before sending until the call ends (``reserve_poll`` ... ``return_poll``); the
    reader's reservation counts as taken when a poll is sized, so a poll never takes the
    slot a pushed job will land in. The reader may take a slot from the pool of a poll that
    *parks* (a long poll never stops the stream); a polled job that then finds no slot is
    handed back (overflow). Backfill and fairness polls do not park and their pools are not
    shared. While a poll is due (``set_poll_due``) and none is in flight, the reader does not
    reserve: the poll gets the next free slot. Single-threaded: used on the event loop only.
    """

    def __init__(self, max_jobs: int) -> None:
        if isinstance(max_jobs, bool) or not isinstance(max_jobs, int) or max_jobs < 1:
            raise ValueError(f"jobwire: max_jobs_active must be an integer >= 1, got {max_jobs!r}")
        self.max = max_jobs
        self.held = 0
        """Jobs received and not yet released."""
        self.reserved = 0
        """1 while the stream reader holds its reservation."""
        self.poll_reserved = 0
        """Slots reserved for the poll in flight."""
        self.poll_in_flight = False
        """A poll is in flight (from reserve_poll to return_poll, whatever its pool holds)."""
        self.poll_parks = False
        """The poll in flight may park: the reader may take a slot of its pool."""
        self.poll_due = False
        """A poll waits for a free slot: the reader does not reserve."""
        self.poll_rests = False
        """The poller sleeps (poll interval, back-off): no poll is due."""
        self._waiters: List["asyncio.Future[None]"] = []
        self._listeners: List[Callable[[], None]] = []

    @property
    def free(self) -> int:
        """Slots neither held by a job nor reserved."""
        return self.max - self.held - self.reserved - self.poll_reserved

    def try_take(self) -> Optional[Slot]:
        """Takes a free slot, or returns None when none is free."""
        if self.free <= 0:
            return None
        self.held += 1
        self._notify()
        return Slot(self)

    def poll_wanted(self) -> Tuple[int, bool]:
        """How many jobs a poll may ask for now (max - held - reserved: the reader's reservation
        counts) and whether the jobs held are at most 30 % of the capacity. With a poll in
        flight: ``(0, False)``."""
        if self.poll_in_flight:
            return 0, False
        return self.free, self.held * 10 <= self.max * 3

    def set_poll_due(self, due: bool) -> None:
        """Marks (or clears) a poll waiting for a free slot; while it is set (and no poll is in
        flight) the stream reader does not reserve. While the poller rests (``rest_poll``) no poll
        is due and marking one does nothing."""
        if self.poll_rests:
            due = False
        if self.poll_due != due:
            self.poll_due = due
            if not due:
                self._notify()

    def rest_poll(self, resting: bool) -> None:
        """The poller sleeps (``resting`` True: poll interval after an empty answer, back-off after
        an error) or woke up (False). A sleeping poller has no poll due: the mark is cleared and
        ``set_poll_due(True)`` does nothing until it wakes, so the stream reader is never held back
        through a pause (a stream that reopens during a long back-off is read at once). Awake, the
        poller plans again and marks its poll due anew if it still finds no free slot."""
        self.poll_rests = resting
        if resting and self.poll_due:
            self.poll_due = False
            self._notify()

    def reserve_poll(self, n: int, parks: bool) -> int:
        """Sets aside up to ``n`` free slots for the poll being sent; returns how many it got.
        ``parks``: a long poll that may park (the reader may take slots of its pool). Clears
        the poll-due mark."""
        got = max(0, min(n, self.free))
        self.poll_reserved += got
        self.poll_in_flight = got > 0
        self.poll_parks = parks
        self.poll_due = False
        self._notify()
        return got

    def take_poll(self) -> Optional[Slot]:
        """Turns one slot of the poll pool (else a free slot) into the slot of a received job."""
        if self.poll_reserved > 0:
            self.poll_reserved -= 1
            self.held += 1
            self._notify()
            return Slot(self)
        return self.try_take()

    def return_poll(self) -> None:
        """Gives back what is left of the poll pool once the poll ended."""
        self.poll_reserved = 0
        self.poll_in_flight = False
        self.poll_parks = False
        self._notify()

    def reserve_stream(self) -> bool:
        """Reserves the stream reader's slot without waiting: a free one, else one of a parked
        poll's pool; never while a poll is due and none is in flight. False: wait for a change. A
        reservation the reader holds stays its own, a due poll or not: the read has started and
        its job lands there."""
        if self.reserved:
            return True
        if self.poll_due and not self.poll_in_flight:
            return False  # a due poll gets the next free slot (one in flight ends first anyway)
        if self.free > 0:
            self.reserved = 1
            self._notify()
            return True
        if self.poll_reserved > 0 and self.poll_parks:
            self.poll_reserved -= 1
            self.reserved = 1
            self._notify()
            return True
        return False

    def claim_stream(self) -> Optional[Slot]:
        """Turns the reservation into the slot of the job just read (None: no slot, hand it back)."""
        if self.reserved:
            self.reserved = 0
            self.held += 1
            self._notify()
            return Slot(self)
        return self.try_take()

    def drop_stream(self) -> None:
        """Gives the reservation back (the read failed or the stream is drained)."""
        if self.reserved:
            self.reserved = 0
            self._notify()

    def on_change(self, fn: Callable[[], None]) -> Callable[[], None]:
        """Registers a callback run after every change; returns the unsubscribe function."""
        self._listeners.append(fn)

        def off() -> None:
            if fn in self._listeners:
                self._listeners.remove(fn)

        return off

    async def changed(self) -> None:
        """Returns at the next change."""
        fut: "asyncio.Future[None]" = asyncio.get_running_loop().create_future()
        self._waiters.append(fut)
        try:
            await fut
        finally:
            if fut in self._waiters:
                self._waiters.remove(fut)

    def _give_back(self) -> None:
        if self.held <= 0:
            raise RuntimeError("jobwire: ledger underflow (a slot was released twice)")
        self.held -= 1
        self._notify()

    def _notify(self) -> None:
        if self._waiters:
            waiters, self._waiters = self._waiters, []
            for w in waiters:
                if not w.done():
                    w.set_result(None)
        for fn in tuple(self._listeners):
            fn()
