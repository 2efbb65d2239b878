"""`make bench`: every jobwire SDK beside the official client of its language, on the same engine, in
the same run. See bench/README.md for the workloads and bench/DRIVERS.md for the driver interface.

    bench.py [--smoke] [--out DIR] [--clients go-jobwire,...] [--workloads 1,2,3,4,5,6,7] [--scale F]

Every worker runs in a driver process of its own (one per client and case); the load generator
(bench/go loadgen) is another process, so the worker's CPU time (user + sys, the process's CPU-time clock)
and peak RSS (VmHWM) are the worker's alone. Engine: `jobwire-engine dev` with fsync on (and
`jobwire-engine cluster` for the scaling workload). All servers bind 127.0.0.1 on free ports and are
stopped at the end. Results: <out>/bench.json, <out>/*.png, <out>/latest.md; latest.md ends with
results/history-zeebe-8.8.21.md, the Zeebe rows of the last run that still measured Zeebe (history,
no longer reproducible here).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List

# the parts (interop.py uses bench.Engine, bench.Driver, ...): bench_rig.py (engines, load generator, worker
# drivers), bench_workloads.py (workloads 1-7), bench_report.py (targets, plots, the results page)
from bench_report import machine, markdown, plots, targets
from bench_rig import (CLIENTS, ENGINE_BIN, ENGINE_LABEL, GO_RUN, HERE, ROOT, Driver, Engine,  # noqa: F401
                       bpmn, guarded, log, new_type)
from bench_workloads import per_client, w1_closed, w2_open, w3_idle, w4_mixed, w5_backpressure, w6_scaling, w7_ceiling


def build(clients: List[str], engines: List[str]) -> None:
    log("building: engine, Go programs, drivers (quick when up to date)")
    subprocess.run(["make", "-s", "-C", str(ROOT), "engine"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([str(GO_RUN), "--build-only"], check=True)
    for c in sorted({CLIENTS[c][0] for c in clients}):
        if c != str(GO_RUN):
            subprocess.run([c, "--build-only"], check=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--smoke", action="store_true", help="small and quick (the make test suite)")
    ap.add_argument("--out", default=str(HERE / "results"))
    ap.add_argument("--clients", default=",".join(CLIENTS))
    ap.add_argument("--workloads", default="1,2,3,4,5,6,7")
    ap.add_argument("--scale", type=float, default=1.0, help="multiplies the instance counts and durations")
    ap.add_argument("--render", metavar="BENCH_JSON", help="only re-render the page and plots from a bench.json into --out")
    a = ap.parse_args()
    if a.render:
        res = json.loads(Path(a.render).read_text())
        out = Path(a.out)
        out.mkdir(parents=True, exist_ok=True)
        made = plots(res["rows"], out)
        (out / "latest.md").write_text(markdown(res, made))
        log(f"rendered {out / 'latest.md'} and {len(made)} plots from {a.render}")
        return 0
    clients = [c for c in a.clients.split(",") if c]
    for c in clients:
        if c not in CLIENTS:
            ap.error(f"unknown client {c!r} (known: {', '.join(CLIENTS)})")
    engines = ["jobwire"]
    wl = {int(x) for x in a.workloads.split(",") if x}
    s = a.scale
    if a.smoke:
        # the `make test` suite: every client once (push), the other workloads for the first client only
        P = dict(n=200, warm=50, cap=32, inflight=32, rate=100, secs=2, warm_s=1, idle_workers=20, idle_secs=3,
                 mix_n=25, backlog=300, pad_kb=10, scale_n=200, ceiling=500)
    else:
        # warm-up: 1,000 instances (x scale) before the measured closed loop and 3 s before the open loop, so
        # JIT compilation of the JVM and V8 workers falls before the measurement (250 and 1 s were too short
        # on a loaded machine: see w2_open)
        P = dict(n=int(3000 * s), warm=int(1000 * s), cap=32, inflight=32, rate=200, secs=max(3, int(10 * s)), warm_s=3,
                 idle_workers=100,
                 idle_secs=max(5, int(20 * s)), mix_n=int(250 * s), backlog=int(5000 * s), pad_kb=10, scale_n=int(2000 * s),
                 ceiling=int(5000 * s))
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="jobwire-bench-"))
    t_start = time.time()
    res: Dict[str, Any] = {"date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "machine": machine(),
                           "loadavg": " ".join(open("/proc/loadavg").read().split()[:3]),
                           "command": "make bench" + (" (smoke)" if a.smoke else "") + (f" scale {s}" if s != 1 else ""),
                           "params": {}, "engines": {}, "rows": []}
    rows: List[Dict[str, Any]] = res["rows"]
    try:
        build(clients, engines)
        res["params"]["w1"] = (f"{P['n']} instances per case after {P['warm']} warm-up, {P['inflight']} in flight "
                               f"(CreateProcessInstanceWithResult), worker capacity {P['cap']}, no-op handler.")
        res["params"]["w2"] = (f"{P['rate']} instances/s, for {P['secs']} s after a closed-loop warm-up round of {P['warm']} "
                               f"instances (as in workload 1) and {P['warm_s']} s of open-loop warm-up; worker capacity {P['cap']}.")
        res["params"]["w3"] = (f"{P['idle_workers']} idle workers (go-jobwire driver, one process), engine CPU over "
                               f"{P['idle_secs']} s after 5 s settling; a fresh engine per mode; 'no workers' is the engine alone.")
        res["params"]["w4"] = (f"{P['mix_n']} instances, one every 40 ms, five task types in sequence, the third taking 2 s "
                               "(go-jobwire driver); published (1,000 instances): 1 s polling 21 % slower than 100 ms, long polling ≈ 100 ms.")
        res["params"]["w5"] = (f"backlog of {P['backlog']} jobs with a {P['pad_kb']} KiB variable, created first; the slow worker "
                               "(client under test, capacity 8, 100 ms per job, push) and a fast go-jobwire worker (capacity 32) then start.")
        res["params"]["w6"] = (f"go-jobwire workers in one process, {P['scale_n']} instances closed loop, {P['inflight']} in flight; "
                               "then `jobwire-engine cluster` (3 brokers, 2 gateways, 6 partitions): driver and load generator on one "
                               "gateway vs both gateways with the SDK's client-side balancing (2 workers).")
        for kind in engines:
            res["engines"][kind] = ENGINE_LABEL[kind]
            if 1 in wl:
                log(f"workload 1 ({kind}): closed loop, {len(clients)} clients × push/poll, a fresh engine per client")
                modes = ("push",) if a.smoke else ("push", "poll")
                rows += per_client(kind, work, clients, 1, lambda eng, c: w1_closed(
                    eng, work, [c], P["n"], P["warm"], P["cap"], P["inflight"], modes))
            if 2 in wl:
                rate = P["rate"]
                log(f"workload 2 ({kind}): open loop at {rate}/s")
                rows += per_client(kind, work, clients[:1] if a.smoke else clients, 2, lambda eng, c: w2_open(
                    eng, work, [c], rate, P["secs"], P["cap"], P["warm_s"], P["warm"]))
            if 5 in wl:
                log(f"workload 5 ({kind}): slow-worker backpressure")
                rows += per_client(kind, work, clients[:1] if a.smoke else clients, 5, lambda eng, c: w5_backpressure(
                    eng, work, [c], P["backlog"], P["pad_kb"], "go-jobwire"))
            if 3 in wl:
                log(f"workload 3 ({kind}): idle cost")
                rows += guarded(3, kind, lambda: w3_idle(kind, work, "go-jobwire", P["idle_workers"], P["idle_secs"]))
            if 4 in wl:
                log(f"workload 4 ({kind}): mixed workload")
                rows += guarded(4, kind, lambda: w4_mixed(kind, work, "go-jobwire", P["mix_n"], 40, 2000))
        if 6 in wl and "jobwire" in engines:
            log("workload 6: scaling (jobwire engine, then the 2-gateway cluster)")
            rows += guarded(6, "jobwire", lambda: w6_scaling(work, "go-jobwire", P["scale_n"], P["inflight"]))
        if 7 in wl and "jobwire" in engines:
            log("workload 7: engine ceiling")
            rows += guarded(7, "jobwire", lambda: w7_ceiling(P["ceiling"], P["inflight"]))
    finally:
        res["seconds"] = time.time() - t_start
        (out / "bench.json").write_text(json.dumps(res, indent=1))
        made = plots(rows, out) if rows else []
        (out / "latest.md").write_text(markdown(res, made))
        shutil.rmtree(work, ignore_errors=True)
        log(f"wrote {out / 'bench.json'}, {out / 'latest.md'} and {len(made)} plots")
    for a_, b_, c_ in targets(rows):
        print(f"  target: {a_}: {b_} — {'met' if c_ == 'yes' else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
