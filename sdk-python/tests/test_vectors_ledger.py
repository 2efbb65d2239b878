"""The shared ledger and poller vectors (conformance-tests/vectors/ledger.json and poller.json)
against the capacity ledger (jobwire._ledger.Ledger) and the poller's decisions
(jobwire._pollplan: plan_poll, after_poll, empty_poll_pause, poll_deadline), which the real poller
and stream reader use.

The files are read where they lie in the repository (found by walking up from this file), never
copied. Times in the files are milliseconds; the SDK's are seconds.

The two modules are loaded from their source files on their own (both import only the standard
library), so this test also runs without the SDK's runtime dependencies, as the vector mutation
proof (conformance-tests/scripts/vector_mutants.py) runs it."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Dict, List, Optional

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "jobwire"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"jobwire_vectors_{name}", SRC / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


_ledger = _load("_ledger")
_pollplan = _load("_pollplan")
Ledger, Slot = _ledger.Ledger, _ledger.Slot
PollDecision, PollInput, plan_poll = _pollplan.PollDecision, _pollplan.PollInput, _pollplan.plan_poll
after_poll, empty_poll_pause, poll_deadline = _pollplan.after_poll, _pollplan.empty_poll_pause, _pollplan.poll_deadline

VECTORS = Path("conformance-tests") / "vectors"


def _read(name: str) -> Dict[str, Any]:
    for d in Path(__file__).resolve().parents:
        p = d / VECTORS / name
        if p.is_file():
            data: Dict[str, Any] = json.loads(p.read_text(encoding="utf-8"))
            return data
    raise FileNotFoundError(f"{VECTORS / name} not found above {Path(__file__).resolve().parent}")


LEDGER = _read("ledger.json")
POLLER = _read("poller.json")


def _s(ms: Optional[float]) -> Optional[float]:
    return None if ms is None else ms / 1000.0


def test_vector_files_are_complete() -> None:
    assert len(LEDGER["cases"]) >= 10
    assert len(POLLER["plan"]["cases"]) >= 10
    for section in ("deadline", "emptyPause", "afterPoll"):
        assert POLLER[section]["cases"], section


@pytest.mark.parametrize("case", LEDGER["cases"], ids=[c["name"] for c in LEDGER["cases"]])
def test_ledger_vector(case: Dict[str, Any]) -> None:
    led = Ledger(case["max"])
    slots: Dict[str, Any] = {}

    def slot_want(i: int, step: Dict[str, Any], got: Any) -> None:
        want = step["want"]
        where = f"step {i} {step['op']}"
        if want is None:
            assert got is None, f"{where}: got a slot, want none"
        else:
            assert got is not None, f"{where}: got no slot, want slot {want!r}"
            slots[want] = got

    for i, step in enumerate(case["steps"]):
        op = step["op"]
        where = f"step {i} {op}"
        if op == "pollWanted":
            want = step["want"]
            assert led.poll_wanted() == (want["free"], want["below"]), where
        elif op == "setPollDue":
            led.set_poll_due(step["due"])
        elif op == "restPoll":
            led.rest_poll(step["resting"])
        elif op == "reservePoll":
            assert led.reserve_poll(step["n"], step["parks"]) == step["want"], where
        elif op == "takePoll":
            slot_want(i, step, led.take_poll())
        elif op == "returnPoll":
            led.return_poll()
        elif op == "reserveStream":
            assert led.reserve_stream() is step["want"], where
        elif op == "claimStream":
            slot_want(i, step, led.claim_stream())
        elif op == "dropStream":
            led.drop_stream()
        elif op == "release":
            assert step["slot"] in slots, f"{where}: no slot {step['slot']!r}"
            slots[step["slot"]].release()
        elif op == "check":
            got = {"jobs": led.held, "free": led.free}
            assert got == {"jobs": step["jobs"], "free": step["free"]}, where
        else:
            pytest.fail(f"{where}: unknown op")
        # the invariant holds after every step
        assert 0 <= led.held + led.reserved + led.poll_reserved <= led.max, where


def _plan_cases() -> List[Dict[str, Any]]:
    return list(POLLER["plan"]["cases"])


@pytest.mark.parametrize("case", _plan_cases(), ids=[c["name"] for c in _plan_cases()])
def test_plan_vector(case: Dict[str, Any]) -> None:
    i, o = case["in"], case["out"]
    got = plan_poll(
        PollInput(
            free=i["free"],
            below=i["below"],
            pushing=i["pushing"],
            backfill=i["backfill"],
            due=i["due"],
            since_last_end=i["sinceLastEndMs"] / 1000.0,
            stream_enabled=i["streamEnabled"],
            request_timeout=i["requestTimeoutMs"] / 1000.0,
        )
    )
    if o["send"]:
        rt = o["requestTimeoutMs"] / 1000.0 if o["requestTimeoutMs"] >= 0 else -1.0
        want = PollDecision(send=True, ask=o["ask"], request_timeout=rt, parks=o["parks"], mark_due=o["markDue"])
        assert got == want
    else:
        assert (got.send, got.mark_due) == (False, o["markDue"])
        fair = _s(o.get("fairnessInMs"))
        if fair is None:
            assert got.fairness_in is None
        else:
            assert got.fairness_in == pytest.approx(fair)


@pytest.mark.parametrize("case", POLLER["deadline"]["cases"], ids=lambda c: f"rt={c['requestTimeoutMs']}")
def test_deadline_vector(case: Dict[str, Any]) -> None:
    assert poll_deadline(case["requestTimeoutMs"] / 1000.0) == pytest.approx(case["deadlineMs"] / 1000.0)


@pytest.mark.parametrize(
    "case", POLLER["emptyPause"]["cases"], ids=lambda c: f"rt={c['requestTimeoutMs']},elapsed={c['elapsedMs']}"
)
def test_empty_pause_vector(case: Dict[str, Any]) -> None:
    assert empty_poll_pause(case["requestTimeoutMs"] / 1000.0, case["elapsedMs"] / 1000.0) is case["pause"]


@pytest.mark.parametrize("case", POLLER["afterPoll"]["cases"], ids=lambda c: json.dumps(c, sort_keys=True))
def test_after_poll_vector(case: Dict[str, Any]) -> None:
    got = after_poll(
        case["pushing"], case["failed"], case["asked"], case["got"], case["backfill"], case["parks"], _s(case["firstJobMs"])
    )
    assert (got.due, got.stall) == (case["due"], case["stall"])
