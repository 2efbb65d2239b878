"""`make bench`: every jobwire SDK beside the official client of its language, on the same engine, in
the same run. See bench/README.md for the workloads and bench/DRIVERS.md for the driver interface.

    bench.py [--smoke] [--out DIR] [--sdks go,node,...] [--clients go-jobwire,...] [--workloads 1,...,9] [--scale F]
    bench.py --compare GIT_REF [--sdks ...] [--clients ...] [--rounds 3] [--scale F] [--fail-over-5pct]

Every worker runs in a driver process of its own (one per client and case); the load generator
(bench/go loadgen) is another process, so the worker's CPU time (user + sys, the process's CPU-time clock)
and peak RSS (VmHWM) are the worker's alone. Engine: `jobwire-engine dev` with fsync on (and
`jobwire-engine cluster` for the scaling workload). All servers bind 127.0.0.1 on free ports and are
stopped at the end. Results: <out>/bench.json, <out>/*.svg, <out>/latest.md; latest.md ends with
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
# drivers), bench_workloads.py (workloads 1-9), bench_report.py (targets, plots, the results page), bench_compare.py
# (--compare: A/B of two builds)
from bench_report import machine, markdown, plots, targets
from bench_rig import (CLIENTS, ENGINE_BIN, ENGINE_LABEL, FLOOR, GO_RUN, HERE, LANGS, ROOT, Driver, Engine,  # noqa: F401
                       bpmn, guarded, log, new_type)
from bench_workloads import (per_client, rounds_of, w1_closed, w2_open, w3_idle, w4_mixed, w5_backpressure, w6_scaling, w7_ceiling,
                             w8_parked, w9_fairness)


def build(clients: List[str], engines: List[str]) -> None:
    log("building: engine, Go programs, drivers (quick when up to date)")
    subprocess.run(["make", "-s", "-C", str(ROOT), "engine"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([str(GO_RUN), "--build-only"], check=True)
    for c in sorted({CLIENTS[c][0] for c in clients}):
        if c != str(GO_RUN):
            subprocess.run([c, "--build-only"], check=True)


def smoke_pick(clients: List[str], preferred: str) -> List[str]:
    """The smoke runs some workloads for one client: `preferred` (the SDK whose own bench had it) when selected."""
    return [preferred] if preferred in clients else clients[:1]


def select_clients(ap: argparse.ArgumentParser, clients_arg: str, sdks_arg: str) -> List[str]:
    clients = [c for c in clients_arg.split(",") if c]
    for c in clients:
        if c not in CLIENTS:
            ap.error(f"unknown client {c!r} (known: {', '.join(CLIENTS)})")
    if sdks_arg:
        sdks = [x for x in sdks_arg.split(",") if x]
        for x in sdks:
            if x not in LANGS:
                ap.error(f"unknown SDK {x!r} (known: {', '.join(LANGS)})")
        clients = [c for c in clients if c.split("-")[0] in sdks]
    return clients


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--smoke", action="store_true", help="small and quick (the make test suite)")
    ap.add_argument("--out", default=str(HERE / "results"))
    ap.add_argument("--clients", default=None, help="default: every client (--compare: every jobwire client)")
    ap.add_argument("--sdks", default="", help="only the clients of these languages (go,node,python,java)")
    ap.add_argument("--workloads", default="1,2,3,4,5,6,7,8,9")
    ap.add_argument("--scale", type=float, default=1.0, help="multiplies the instance counts and durations")
    ap.add_argument("--render", metavar="BENCH_JSON", help="only re-render the page and plots from a bench.json into --out")
    ap.add_argument("--compare", metavar="GIT_REF", help="A/B: the closed-loop cells of GIT_REF's build (A) against the "
                    "working tree's (B), alternated, --rounds times (bench/README.md); writes --out (default .bench-work/compare)")
    ap.add_argument("--typed-ab", action="store_true", help="A/B of each jobwire client's no-op worker as a plain (A) and "
                    "a typed handler (B), same build, alternated --rounds times; writes --out (default .bench-work/typed-ab)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds (alternated): of workloads 1 and 9 (each cell's row is the "
                    "median of its rounds; --smoke: 1), and of --compare / --typed-ab (each runs every cell once per build)")
    ap.add_argument("--modes", default="push,poll", help="--compare: activation modes of the cells")
    ap.add_argument("--threshold", type=float, default=0.05, help="--compare: flag a cell whose B is worse by more than this")
    ap.add_argument("--fail-over-5pct", action="store_true",
                    help="--compare: exit 1 when a cell's B is slower (jobs/s) by more than --threshold (default 5 %%)")
    ap.add_argument("--keep-worktree", action="store_true", help="--compare: keep the ref's worktree under .bench-work/")
    a = ap.parse_args()
    if a.typed_ab:
        from bench_compare import run_typed_ab
        return run_typed_ab(a, select_clients(ap, a.clients or ",".join(c for c in CLIENTS if c.endswith("-jobwire")), a.sdks))
    if a.compare:
        from bench_compare import run_compare
        default = ",".join(c for c in CLIENTS if c.endswith("-jobwire"))
        return run_compare(a, select_clients(ap, a.clients or default, a.sdks))
    if a.render:
        res = json.loads(Path(a.render).read_text())
        out = Path(a.out)
        out.mkdir(parents=True, exist_ok=True)
        made = plots(res["rows"], out)
        (out / "latest.md").write_text(markdown(res, made, out))
        log(f"rendered {out / 'latest.md'} and {len(made)} plots from {a.render}")
        return 0
    clients = select_clients(ap, a.clients or ",".join(c for c in CLIENTS if c != FLOOR), a.sdks)
    if not clients:
        ap.error("no client selected")
    engines = ["jobwire"]
    rounds = 1 if a.smoke else max(1, a.rounds)
    # workload 1 also measures the floor (a worker with no client library) unless clients were named
    w1_clients = clients + ([FLOOR] if not a.clients and FLOOR not in clients and (not a.sdks or "go" in a.sdks) else [])
    wl = {int(x) for x in a.workloads.split(",") if x}
    s = a.scale
    if a.smoke:
        # the `make test` suite: every client once (push), the other workloads for the first client only
        P = dict(n=200, warm=50, cap=32, inflight=32, rate=100, secs=2, warm_s=1, idle_workers=20, idle_secs=3,
                 mix_n=25, backlog=300, pad_kb=10, scale_n=200, ceiling=500, parked_n=100, parked_kb=[1],
                 fair_n=1000, fair_inflight=256, fair_cap=16)
    else:
        # warm-up: 1,000 instances (x scale) before the measured closed loop and 3 s before the open loop, so
        # JIT compilation of the JVM and V8 workers falls before the measurement (250 and 1 s were too short
        # on a loaded machine: see w2_open)
        # workload 1 measures 6,000 instances (x scale): a Go worker completes 3,000 in half a second, and in runs
        # that short the rounds of one cell differed by 25 % on a quiet machine (7,470 / 5,764 / 6,090 jobs/s)
        P = dict(n=int(6000 * s), warm=int(1000 * s), cap=32, inflight=32, rate=200, secs=max(3, int(10 * s)), warm_s=3,
                 idle_workers=100,
                 idle_secs=max(5, int(20 * s)), mix_n=int(250 * s), backlog=int(5000 * s), pad_kb=10, scale_n=int(2000 * s),
                 ceiling=int(5000 * s), parked_n=max(50, int(200 * s)), parked_kb=[1, 30],
                 fair_n=int(5000 * s), fair_inflight=256, fair_cap=16)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="jobwire-bench-"))
    t_start = time.time()
    res: Dict[str, Any] = {"date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "machine": machine(),
                           "loadavg": " ".join(open("/proc/loadavg").read().split()[:3]),
                           "command": "make bench" + (" (smoke)" if a.smoke else "") + (f" scale {s}" if s != 1 else "")
                           + (f" sdks {a.sdks}" if a.sdks else ""),
                           "params": {}, "engines": {}, "rows": []}
    rows: List[Dict[str, Any]] = res["rows"]
    try:
        build(w1_clients if 1 in wl else clients, engines)
        res["params"]["w1"] = (f"{P['n']} instances per case after {P['warm']} warm-up, {P['inflight']} in flight "
                               f"(CreateProcessInstanceWithResult), worker capacity {P['cap']}, no-op handler; "
                               + (f"{rounds} rounds: in each, the clients of a language run back to back (their order "
                                  "rotated by one place each round), each on a fresh engine, and a cell is the median of its rounds." if rounds > 1
                                  else "one round.")
                               + (f" `{FLOOR}` is the floor: a worker with no client library (grpc-go and the protocol's "
                                  "stubs only), the least CPU per job a client can spend on this machine." if FLOOR in w1_clients else ""))
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
        res["params"]["w8"] = (f"a push worker of the client under test, capacity 1, its handler blocked; a backlog of {P['parked_n']} "
                               f"jobs with a pad variable of {' and '.join(f'{k} KiB' for k in P['parked_kb'])}; after 2 s a probe "
                               "activates (and holds) every job it can: held = jobs − collected = running + parked. Then the worker "
                               "is closed (the driver's stop, ≤ 5 s grace) and the probe collects for 1.5 s: stranded = held jobs "
                               "not activatable.")
        res["params"]["w9"] = (f"closed loop keeping {P['fair_inflight']} instances in flight, {P['fair_n']} in all, against one push "
                               f"worker of capacity {P['fair_cap']} with a no-op handler (the engine keeps yielding jobs the full "
                               "worker cannot take); wait = instance created → handler started"
                               + (f"; {rounds} rounds alternated as in workload 1, a cell is the median of its rounds." if rounds > 1 else "."))
        for kind in engines:
            res["engines"][kind] = ENGINE_LABEL[kind]
            if 1 in wl:
                log(f"workload 1 ({kind}): closed loop, {len(w1_clients)} clients × push/poll, {rounds} round(s) alternating "
                    "the clients of each language, a fresh engine per run")
                modes = ("push",) if a.smoke else ("push", "poll")
                rows += rounds_of(kind, work, w1_clients, rounds, 1, lambda eng, c: w1_closed(
                    eng, work, [c], P["n"], P["warm"], P["cap"], P["inflight"], modes), "w1")
            if 2 in wl:
                rate = P["rate"]
                log(f"workload 2 ({kind}): open loop at {rate}/s")
                rows += per_client(kind, work, clients[:1] if a.smoke else clients, 2, lambda eng, c: w2_open(
                    eng, work, [c], rate, P["secs"], P["cap"], P["warm_s"], P["warm"]))
            if 5 in wl:
                log(f"workload 5 ({kind}): slow-worker backpressure")
                rows += per_client(kind, work, clients[:1] if a.smoke else clients, 5, lambda eng, c: w5_backpressure(
                    eng, work, [c], P["backlog"], P["pad_kb"], "go-jobwire"))
            if 8 in wl:
                log(f"workload 8 ({kind}): jobs a paused worker parks")
                rows += per_client(kind, work, smoke_pick(clients, "python-jobwire") if a.smoke else clients, 8,
                                   lambda eng, c: w8_parked(eng, work, [c], P["parked_n"], P["parked_kb"]))
            if 9 in wl:
                log(f"workload 9 ({kind}): fairness under push overload")
                rows += rounds_of(kind, work, smoke_pick(clients, "node-jobwire") if a.smoke else clients, rounds, 9,
                                  lambda eng, c: w9_fairness(eng, work, [c], P["fair_n"], P["fair_inflight"], P["fair_cap"]), "w9")
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
        (out / "latest.md").write_text(markdown(res, made, out))
        shutil.rmtree(work, ignore_errors=True)
        log(f"wrote {out / 'bench.json'}, {out / 'latest.md'} and {len(made)} plots")
    for a_, b_, c_ in targets(rows):
        print(f"  target: {a_}: {b_} — {'met' if c_ == 'yes' else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
