"""What a fact is made of, shared by case.py (which evaluates facts) and
checks.py (custom checks over a running Case): the errors a fact raises and
the pure functions over the driver's events. A leaf: it imports no other
runner module, so case.py and checks.py both import it and not each other.
"""
from __future__ import annotations


class Unavailable(Exception):
    """A fact whose source this target does not have (e.g. no admin API)."""


class ScenarioError(ValueError):
    pass


def max_concurrent(events) -> int:
    """Max number of handlers running at once per worker (job_start without
    its job_end), over every worker present."""
    open_: dict = {}
    best = 0
    for e in events:
        if e.get("event") == "job_start":
            s = open_.setdefault(e.get("worker"), set())
            s.add(e["key"])
            best = max(best, len(s))
        elif e.get("event") == "job_end":
            open_.get(e.get("worker"), set()).discard(e["key"])
    return best


def metric_value(metric_events, f):
    """Sum of the matching metric's points in the latest `metrics` event
    (values are cumulative); filters other than name/since match point attributes."""
    if not metric_events:
        return None
    name = f.get("name")
    attrs = {k: v for k, v in f.items() if k not in ("name", "since")}
    latest = {}
    for ev in metric_events:  # later events override: keep the newest per name
        for m in ev.get("metrics", []):
            latest[m.get("name")] = m
    m = latest.get(name)
    if m is None:
        return None
    total = 0
    for p in m.get("points", []):
        pa = {k: str(v) for k, v in (p.get("attributes") or {}).items()}
        if all(pa.get(k) == v for k, v in attrs.items()):
            v = p.get("value")
            if isinstance(v, dict):  # histogram: count
                v = v.get("count", 0)
            total += v or 0
    return total
