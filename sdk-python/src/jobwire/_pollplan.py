"""The poller's decisions as pure functions (docs/worker-semantics.md, "Push and poll"), so the
shared vectors (conformance-tests/vectors/poller.json) check the same rules in every SDK: which
poll to send now, and what a poll's answer means for the next one. Times are in seconds."""

from __future__ import annotations

from typing import NamedTuple, Optional

FAIRNESS_AFTER_S = 1.0
"""While the stream keeps held above the threshold, a fairness poll is due this long after the last poll ended."""
STALL_PARKED_MIN_S = 0.5
"""Stall evidence (rule 6): a parked poll whose first job came at least this long after the call was sent."""
DEADLINE_OFFSET_S = 10.0
"""The ActivateJobs deadline is the long-poll duration plus this."""
GATEWAY_LONG_POLL_S = 10.0
"""The gateway's long-poll duration for requestTimeout 0."""


class PollInput(NamedTuple):
    """What the poller knows when it decides (a tuple: cheap to make on every wake)."""

    free: int
    """max - held - reserved (Ledger.poll_wanted)."""
    below: bool
    """Jobs held are at most 30 % of the capacity."""
    pushing: bool
    """A stream is open."""
    backfill: bool
    """The first poll, or one after the stream (re)opened."""
    due: bool
    """The last poll got all it asked for while pushing."""
    since_last_end: float
    stream_enabled: bool
    request_timeout: float
    """The worker's option (0: the gateway's default, < 0: no long polling)."""


class PollDecision(NamedTuple):
    """Send a poll for ``ask`` jobs, or wait for a change."""

    send: bool = False
    ask: int = 0
    request_timeout: float = 0.0
    """Of this request (-1: answer at once)."""
    parks: bool = False
    """A long poll: the stream reader may borrow from its pool."""
    mark_due: bool = False
    """The stream reader leaves the next free slot to this poll."""
    fairness_in: Optional[float] = None
    """Look again after this long even if nothing changes (None: only on a change)."""


def plan_poll(i: PollInput) -> PollDecision:
    """A poll is sent when a slot is free and held is at or below the threshold, or a backfill or
    fairness poll is due (rule 8: pushing above the threshold, a fairness poll is due 1 s after the
    last poll ended, at once after a full one). Backfill (with streaming) and fairness polls do not
    park."""
    fairness = False
    fairness_in: Optional[float] = None
    if not i.backfill and not i.below and i.pushing:
        if i.due or i.since_last_end >= FAIRNESS_AFTER_S:
            fairness = True
        else:
            fairness_in = FAIRNESS_AFTER_S - i.since_last_end
    special = i.backfill or fairness
    if i.free <= 0 or not (special or i.below):
        return PollDecision(mark_due=special and i.free <= 0, fairness_in=fairness_in)
    rt = i.request_timeout
    if fairness or (i.backfill and i.stream_enabled) or rt < 0:
        rt = -1.0
    return PollDecision(send=True, ask=i.free, request_timeout=rt, parks=rt >= 0)


class PollAfter(NamedTuple):
    """What a poll's answer means."""

    due: bool = False
    """The next poll is due at once: it got all it asked for while pushing."""
    stall: bool = False
    """Evidence for the stall watchdog (rule 6)."""


def after_poll(
    pushing: bool, failed: bool, asked: int, got: int, backfill: bool, parks: bool, first_job: Optional[float]
) -> PollAfter:
    """A poll that got as many jobs as it asked for while pushing makes the next poll due at once.
    A long poll (not a backfill) whose first job came >= STALL_PARKED_MIN_S after sending is stall
    evidence: its jobs became activatable while the stream should have been pushing them (a backlog
    is answered at once)."""
    if failed:
        return PollAfter()
    return PollAfter(
        due=pushing and got > 0 and got >= asked,
        stall=got > 0 and not backfill and parks and first_job is not None and first_job >= STALL_PARKED_MIN_S,
    )


def empty_poll_pause(request_timeout: float, elapsed: float) -> bool:
    """Whether an empty poll is followed by a pause of poll_interval: unless the gateway parked it
    for at least half its long-poll time (request_timeout, or the gateway's 10 s when it is 0).
    Without long polling (negative) every empty poll pauses."""
    if request_timeout < 0:
        return True
    if request_timeout == 0:
        return elapsed < GATEWAY_LONG_POLL_S / 2
    return elapsed < request_timeout / 2


def poll_deadline(request_timeout: float) -> float:
    """The ActivateJobs RPC deadline: request_timeout + 10 s; 20 s for 0 (the gateway's default
    10 s long poll); 10 s without long polling. The same in every SDK."""
    if request_timeout > 0:
        return request_timeout + DEADLINE_OFFSET_S
    if request_timeout == 0:
        return GATEWAY_LONG_POLL_S + DEADLINE_OFFSET_S
    return DEADLINE_OFFSET_S
