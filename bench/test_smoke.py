"""Smoke test of `make bench` (the `bench` suite of `make test`): runs `bench.py --smoke` once on the
jobwire engine (every client, closed loop, push; the open-loop, backpressure and ceiling workloads for
the first client; the parked-jobs workload for python-jobwire and the fairness one for node-jobwire, the
SDKs whose own benchmarks measured them before bench/ did) and checks what it wrote: every client completed its instances through its own
worker process, the measured numbers are sane, the JSON, the plots and the page exist."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

import pytest

HERE = Path(__file__).resolve().parent
CLIENTS = ["go-jobwire", "go-official", "node-jobwire", "node-official",
           "python-jobwire", "python-official", "java-jobwire", "java-official",
           "go-raw"]  # the floor: no client library (workload 1 only)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Dict[str, Any]:
    out = tmp_path_factory.mktemp("bench")
    subprocess.run([str(HERE / "bootstrap.sh")], check=True)
    p = subprocess.run([str(HERE / ".venv" / "bin" / "python"), str(HERE / "bench.py"), "--smoke",
                        "--workloads", "1,2,5,7,8,9", "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=600)
    sys.stdout.write(p.stdout[-6000:])
    assert p.returncode == 0, p.stdout[-3000:]
    res = json.loads((out / "bench.json").read_text())
    return {"out": out, "res": res, "rows": res["rows"], "log": p.stdout}


def rows(run: Dict[str, Any], w: int) -> List[Dict[str, Any]]:
    return [r for r in run["rows"] if r["workload"] == w]


@pytest.mark.parametrize("client", CLIENTS)
def test_closed_loop_every_client_completes_its_instances(run: Dict[str, Any], client: str) -> None:
    r = next((r for r in rows(run, 1) if r["client"] == client), None)
    assert r is not None, f"no workload-1 result for {client}"
    assert r["errors"] == 0 and r["completed"] == r["n"] == 200
    # the driver's own count: its handler ran for every instance (the load generator is another process)
    assert r["driverJobs"] == r["n"] and r["allHandled"]
    assert 1 < r["jobsPerS"] < 100000
    assert 0 < r["p50Ms"] <= r["p99Ms"] < 60000
    # the driver process's own CPU clock (ns resolution) over the measured round: a worker that received and
    # completed 200 jobs over gRPC used at least 1 us per job, and no client needs 100 ms per no-op job
    assert 0.001 < r["clientCpuMsPerJob"] < 100, f"worker CPU per job {r['clientCpuMsPerJob']} ms out of range"
    assert 5 < r["peakRssMb"] < 4096
    assert r["version"] and r["version"] != "None"


def test_open_loop_measures_activation_latency(run: Dict[str, Any]) -> None:
    rs = rows(run, 2)
    assert {r["mode"] for r in rs} == {"push", "poll"}
    for r in rs:
        assert r["handled"] == r["n"] == r["created"], r
        assert 0 < r["p50Ms"] <= r["p99Ms"] <= r["p999Ms"] < 60000


def test_backpressure_loses_nothing_and_tracks_memory(run: Dict[str, Any]) -> None:
    (r,) = rows(run, 5)
    assert r["backlog"] == 300 and r["drained"]
    assert r["lost"] == 0 and r["slowJobs"] + r["fastJobs"] == 300
    assert r["slowJobs"] > 0 and r["fastJobs"] > r["slowJobs"]
    assert 0 < r["rssStartMb"] <= r["rssPeakMb"] and r["rssEndMb"] > 0
    assert len(r["rssSamples"]) >= 1


def test_engine_ceiling(run: Dict[str, Any]) -> None:
    rs = rows(run, 7)
    assert {r["mode"] for r in rs} == {"push", "poll"}
    assert all(r["jobsPerS"] and r["jobsPerS"] > 1 for r in rs)


def test_paused_worker_parks_a_bounded_share_and_strands_nothing(run: Dict[str, Any]) -> None:
    (r,) = rows(run, 8)
    assert r["client"] == "python-jobwire" and r["padKb"] == 1 and r["n"] == 100
    assert r["running"] == 1, r  # capacity 1, its handler blocked
    # bounded by the connection's receive window (64 KiB: ~60-75 jobs of 1 KiB), not by the backlog: the
    # probe collects the rest (with grpc's BDP probing on, the paused worker took nearly every job)
    assert 0 < r["parked"] <= 90, r
    assert r["held"] == r["running"] + r["parked"] == r["n"] - r["collected"]
    # the close hands every job back (drain + ReleaseUnread): none waits for its activation timeout
    assert r["strandedAfterClose"] == 0, r


def test_fairness_under_push_overload(run: Dict[str, Any]) -> None:
    (r,) = rows(run, 9)
    assert r["client"] == "node-jobwire" and r["inflight"] == 256 and r["capacity"] == 16
    assert r["errors"] == 0 and r["completed"] == r["n"] == 1000
    assert r["handled"] >= r["n"], r  # every job's handler ran (a redelivered job counts twice)
    assert 0 <= r["waitP50Ms"] <= r["waitP99Ms"] <= r["waitMaxMs"] < 60000, r
    assert 0 <= r["over1s"] <= r["handled"] and 1 < r["jobsPerS"] < 100000


def svg_size(p: Path) -> tuple:
    """(width, height) in pt of an SVG plot, which must carry no date (the same rows draw the same bytes)."""
    root = ET.fromstring(p.read_bytes())
    assert root.tag == "{http://www.w3.org/2000/svg}svg", f"{p.name} is not an SVG"
    assert b"<dc:date>" not in p.read_bytes(), f"{p.name} carries a date"
    return tuple(float(root.get(k).removesuffix("pt")) for k in ("width", "height"))


def test_plots_and_page_written(run: Dict[str, Any]) -> None:
    out: Path = run["out"]
    for name in ("w1-throughput-jobwire.svg", "w1-cpu-per-job-jobwire.svg", "w1-peak-rss-jobwire.svg",
                 "w2-latency-jobwire.svg", "w5-rss-jobwire.svg"):
        w, h = svg_size(out / name)
        assert w > 300 and h > 150
    assert not list(out.glob("*.png"))
    md = (out / "latest.md").read_text()
    assert run["res"]["machine"] in md and run["res"]["date"] in md
    for client in CLIENTS:
        assert f"| jobwire | {client} | push |" in md
    # a run outside bench/results/ keeps only its JSON and page: the page links no plot, it says how to draw them
    assert "## Targets (ratios from this run)" in md and "![" not in md
    # the floor: worker CPU per job of every client against a worker with no client library
    assert "Worker CPU per job against the floor" in md and "| push |" in md
    assert f"--render {out}/bench.json --out {out}` draws them" in md
    assert "## 8. Jobs a paused worker parks" in md and "| jobwire | python-jobwire | 1 | 100 |" in md
    assert "## 9. Fairness under push overload" in md and "| jobwire | node-jobwire | 1000 |" in md
    # progress is printed while it runs
    assert run["log"].count(" w1 jobwire ") == len(CLIENTS)
    # only our engine is measured; the Zeebe rows are the dated history section at the end
    assert set(run["res"]["engines"]) == {"jobwire"}
    assert {r["engine"] for r in run["res"]["rows"]} <= {"jobwire", "cluster"}
    measured, _, history = md.partition("## History: Zeebe 8.8.21 (2026-11-26), no longer reproducible here")
    assert history and "| zeebe | go-jobwire | push |" in history
    assert "zeebe |" not in measured


def test_committed_plots_are_drawn_from_the_committed_json(tmp_path: Path) -> None:
    """bench/results/ commits the latest run's plots as SVG beside its page: --render of its bench.json
    draws exactly those bytes (fixed id salt, no date), and the page links every one of them."""
    subprocess.run([str(HERE / "bootstrap.sh")], check=True)
    res = HERE / "results"
    p = subprocess.run([str(HERE / ".venv" / "bin" / "python"), str(HERE / "bench.py"), "--render",
                        str(res / "bench.json"), "--out", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    drawn = sorted(x.name for x in tmp_path.glob("*.svg"))
    assert drawn and drawn == sorted(x.name for x in res.glob("*.svg")), "bench/results/*.svg are not this run's plots"
    for name in drawn:
        assert (tmp_path / name).read_bytes() == (res / name).read_bytes(), f"{name} differs from its redraw"
    page = (res / "latest.md").read_text()
    for name in drawn:
        assert f"![{name}]({name})" in page, f"latest.md does not show {name}"
