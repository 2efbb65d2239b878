"""Smoke test of `make soak` (the `soak` suite of `make test`): a 45-second soak of every SDK's workers
against the secured cluster (TLS + mTLS + JWT + admin token) with two fault kinds (a gateway restart and
token expiry, one every 15 s), then checks the report: nothing lost, nothing completed twice, every fault
survived by every SDK, RSS (and, for Node and Java, what it is made of) and per-minute latency measured,
JSON and plot written."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SDKS = ["go", "node", "python", "java"]


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("soak")
    env = dict(os.environ, SOAK_MINUTES="0.75", SOAK_FAULT_EVERY_S="15", SOAK_FAULTS="gateway_restart,token_expiry",
               SOAK_SDKS=",".join(SDKS))
    p = subprocess.run([sys.executable, str(HERE / "soak.py"), "--out", str(out), "--drain-s", "45"], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
    sys.stdout.write(p.stdout[-5000:])
    assert (out / "soak.json").exists(), p.stdout[-3000:]
    r = json.loads((out / "soak.json").read_text())
    r["_rc"], r["_out"] = p.returncode, out
    return r


def test_nothing_lost_nothing_completed_twice(report: dict) -> None:
    s = report["summary"]
    assert s["created"] > 0
    assert s["lost"] == 0, {k: v["lost_ids"] for k, v in report["sdks"].items()}
    assert s["completed_more_than_once"] == 0


@pytest.mark.parametrize("sdk", SDKS)
def test_every_sdk_worked_through_the_faults(report: dict, sdk: str) -> None:
    v = report["sdks"][sdk]
    assert v["created"] >= 100, v["created"]  # 4/s for 45 s, minus what the faults held up
    assert v["completed"] == v["created"] and v["handler_starts"] >= v["created"]
    assert v["driver_alive_at_end"]
    for f in report["faults"]:
        assert f["ok"], f
        assert f["recovered_s"][sdk] is not None, f"{sdk} never completed a job after {f['kind']}: {f}"
    assert v["rss"]["start_mb"] and v["rss"]["peak_mb"] >= v["rss"]["start_mb"] and v["rss"]["end_mb"]
    assert v["rss"]["first_sample_mb"] and "end_vs_first_sample_pct" in v["rss"]
    if sdk == "node":  # what the RSS is made of: the driver's own V8 counters
        rows = v["runtime"]["per_minute"]
        assert rows and all(0 < r["heap_used_min_mb"] <= r["heap_total_mb"] < r["rss_mb"] for r in rows), rows
    if sdk == "java":  # jcmd: heap generations and native memory tracking
        x = v["runtime"]["samples"][0]
        assert x["young_committed_mb"] > 0 and x["nmt_committed_mb"]["Java Heap"] > 0, x
    lat = [m for m in v["latency_per_minute"] if m["p99_ms"] is not None]
    assert lat and all(0 <= m["p50_ms"] <= m["p99_ms"] for m in lat)


def test_both_fault_kinds_ran_and_the_report_is_complete(report: dict) -> None:
    assert [f["kind"] for f in report["faults"]] == ["gateway_restart", "token_expiry"]
    assert all(f["survived"] for f in report["faults"])
    assert report["engine"]["rss"]["peak_mb"] > 10
    assert report["ok"] and report["_rc"] == 0
    png = (report["_out"] / "soak.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10000
