"""The bench's workloads (bench.py, bench/README.md): each returns its result rows.
"""

from __future__ import annotations

import re
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

from bench_rig import CLIENTS, DEFAULT_PARTITIONS, ENGINE_BIN, Driver, Engine, cpu_s, deploy, loadgen, log, new_type, pctl

def per_client(kind: str, work: Path, clients: List[str], w: int,
               fn: Callable[[Engine, str], List[Dict[str, Any]]]) -> List[Dict[str, Any]]:
    """Runs fn(engine, client) for each client on a fresh engine (isolated: no state, log or failure
    carries over from one client to the next); a failed case becomes a row with an error."""
    rows: List[Dict[str, Any]] = []
    for client in clients:
        try:
            with Engine(kind, work) as eng:
                rows += fn(eng, client)
        except Exception as e:  # noqa: BLE001 - reported in the results, the run goes on
            log(f"  w{w} {kind} {client}: FAILED: {e}")
            rows.append({"workload": w, "engine": kind, "client": client, "error": str(e)[:500]})
    return rows


def closed_case(eng: Engine, work: Path, client: str, mode: str, n: int, warm: int, cap: int, inflight: int,
                cmd: Optional[List[str]] = None, env: Optional[Dict[str, str]] = None,
                worker: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """One closed-loop case (workload 1, and each run of `bench.py --compare` / `--typed-ab`): a fresh job type, the
    client's worker (its driver command `cmd` and environment `env` if given: another build of the same client;
    `worker`: extra worker config fields, e.g. {"typed": True}), `warm` instances, then `n` measured ones."""
    jt = new_type("w1")
    pid = deploy(eng.address, work, [jt])
    d = Driver(client, eng.address, [{"jobType": jt, "mode": mode, "capacity": cap, **(worker or {})}], work, cmd=cmd, env=env)
    try:
        time.sleep(0.5)  # stream open / first poll parked
        if warm:
            loadgen("closed", eng.address, "-process", pid, "-n", str(warm), "-inflight", str(inflight))
        c0, e0 = d.cpu(), cpu_s(eng.pid)
        r = loadgen("closed", eng.address, "-process", pid, "-n", str(n), "-inflight", str(inflight))
        c1, e1 = d.cpu(), cpu_s(eng.pid)
        ok = d.wait_jobs(n + warm, 30)
        return {
            "workload": 1, "engine": eng.kind, "client": client, "mode": mode, "version": d.version,
            "n": n, "completed": r["completed"], "errors": r["errors"], "driverJobs": d.jobs - warm,
            "jobsPerS": round(r["jobsPerS"], 1), "p50Ms": round(r["p50Ms"], 2), "p99Ms": round(r["p99Ms"], 2),
            "clientCpuMsPerJob": round((c1 - c0) * 1000 / max(1, r["completed"]), 4),
            "engineCpuMsPerJob": round((e1 - e0) * 1000 / max(1, r["completed"]), 4),
            "peakRssMb": round(d.peak_rss_mb(), 1), "allHandled": ok,
        }
    finally:
        d.stop()


def w1_closed(eng: Engine, work: Path, clients: List[str], n: int, warm: int, cap: int, inflight: int,
              modes: Tuple[str, ...] = ("push", "poll")) -> List[Dict[str, Any]]:
    """Closed loop: create-with-result, `inflight` at a time; worker CPU per job and peak RSS."""
    rows = []
    for client in clients:
        for mode in modes:
            row = closed_case(eng, work, client, mode, n, warm, cap, inflight)
            rows.append(row)
            log(f"  w1 {eng.kind:7s} {client:16s} {mode:4s} {row['jobsPerS']:8.0f} jobs/s  p50 {row['p50Ms']:6.1f} ms  "
                f"p99 {row['p99Ms']:6.1f} ms  client CPU {row['clientCpuMsPerJob']:.3f} ms/job  peak RSS {row['peakRssMb']:.0f} MB")
    return rows


def _median_row(runs: List[Dict[str, Any]]) -> Dict[str, Any]:
    """One cell of several rounds: the median of every number, the per-round jobs/s and CPU kept; a cell is
    'all handled' only if every round was."""
    ok = [r for r in runs if "error" not in r]
    if not ok:
        return runs[-1]
    row = dict(ok[0])
    for k, v in ok[0].items():
        if isinstance(v, (int, float)) and not isinstance(v, bool) and k not in ("workload", "n", "inflight", "capacity"):
            xs = [r[k] for r in ok if isinstance(r.get(k), (int, float))]
            row[k] = statistics.median(xs) if xs else v
    for k in ("allHandled",):
        if k in row:
            row[k] = all(r.get(k) for r in ok)
    if "errors" in row:
        row["errors"] = sum(r.get("errors", 0) for r in ok)
    row["rounds"] = len(ok)
    row["failedRounds"] = len(runs) - len(ok)
    row["jobsPerSRuns"] = [r.get("jobsPerS") for r in ok]
    if "clientCpuMsPerJob" in row:
        row["cpuRuns"] = [r.get("clientCpuMsPerJob") for r in ok]
    if "waitMaxMs" in row:
        row["waitMaxRuns"] = [r.get("waitMaxMs") for r in ok]
    return row


def groups(clients: List[str]) -> List[List[str]]:
    """The clients by language (jobwire, official, and for Go the floor), the order in which rounds alternate them."""
    out: Dict[str, List[str]] = {}
    for c in clients:
        out.setdefault(c.split("-")[0], []).append(c)
    return list(out.values())


def rounds_of(kind: str, work: Path, clients: List[str], rounds: int, w: int,
              cases: Callable[[Engine, str], List[Dict[str, Any]]], tag: str) -> List[Dict[str, Any]]:
    """Runs every client's cases `rounds` times, alternated: per language, the clients of a round back to back,
    each on a fresh engine, in the language's order rotated by one more place each round (so each client takes
    each place equally often, and load drift of a shared machine falls on every side; with two clients this is
    the order and its reverse, with three, e.g. Go's jobwire, official and floor, a fixed reverse would always
    put the official client in the middle); a cell's row is the median of its rounds (_median_row)."""
    runs: Dict[Tuple[str, str], List[Dict[str, Any]]] = {}
    order_keys: List[Tuple[str, str]] = []
    for rnd in range(rounds):
        for g in groups(clients):
            k = rnd % len(g)
            for client in g[k:] + g[:k]:
                try:
                    with Engine(kind, work) as eng:
                        got = cases(eng, client)
                except Exception as e:  # noqa: BLE001 - reported in the results, the run goes on
                    log(f"  w{w} {kind} {client} round {rnd + 1}: FAILED: {e}")
                    got = [{"workload": w, "engine": kind, "client": client, "mode": "-", "error": str(e)[:500]}]
                for r in got:
                    key = (client, str(r.get("mode", "-")))
                    if key not in runs:
                        order_keys.append(key)
                    runs.setdefault(key, []).append({**r, "round": rnd + 1})
    order_keys.sort(key=lambda k: (list(CLIENTS).index(k[0]) if k[0] in CLIENTS else 99, k[1] != "push"))
    rows = [_median_row(runs[k]) for k in order_keys]
    if rounds > 1:
        for r in rows:
            if "error" not in r:
                log(f"  {tag} {kind} {r['client']:16s} {r.get('mode', ''):4s} median of {r['rounds']} rounds: "
                    + (f"{r['jobsPerS']:.0f} jobs/s" if "jobsPerS" in r else "")
                    + (f", CPU {r['clientCpuMsPerJob']:.4f} ms/job" if "clientCpuMsPerJob" in r else "")
                    + (f", max wait {r['waitMaxMs']} ms" if "waitMaxMs" in r else ""))
    return rows


def w2_open(eng: Engine, work: Path, clients: List[str], rate: float, seconds: float, cap: int,
            warm_s: float = 1, warm_closed: int = 0) -> List[Dict[str, Any]]:
    """Open loop at a steady rate: activation latency (created -> handler started). The first `warm_s`
    seconds are warm-up: a JVM or V8 worker on a loaded machine compiles its hot path for a few seconds
    (java-jobwire and java-official both showed p50 0.4-0.8 s in their first second, 2-55 ms from the
    third), and that start-up cost is not the activation latency of a running worker."""
    rows = []
    n = int(rate * seconds)
    warm = int(rate * warm_s)
    for client in clients:
        for mode in ("push", "poll"):
            jt = new_type("w2")
            pid = deploy(eng.address, work, [jt])
            d = Driver(client, eng.address, [{"jobType": jt, "mode": mode, "capacity": cap}], work)
            try:
                time.sleep(0.5)
                if warm_closed:
                    # as in workload 1: a closed-loop round first, so the worker's hot path is compiled before the
                    # open loop (a JVM worker on a loaded machine was still spending 40-60 % of its CPU in the JIT
                    # compiler 12 s after start; a push worker cannot catch up a backlog built meanwhile)
                    loadgen("closed", eng.address, "-process", pid, "-n", str(warm_closed), "-inflight", "32")
                    d.wait_jobs(warm_closed, 30)
                    time.sleep(0.5)
                load = float(open("/proc/loadavg").read().split()[0])
                c0 = d.cpu()
                r = loadgen("open", eng.address, "-process", pid, "-n", str(n + warm), "-rate", str(rate))
                d.wait_jobs(warm_closed + n + warm, 60)
                c1 = d.cpu()
            finally:
                res = d.stop()
            lat = (res.get("latMs") or [])[warm_closed + warm:]
            row = {"workload": 2, "engine": eng.kind, "client": client, "mode": mode, "rate": rate, "n": n,
                   "created": r["created"] - warm, "handled": len(lat), "achievedRate": round(r["ratePerS"], 1),
                   "p50Ms": pctl(lat, .5), "p99Ms": pctl(lat, .99), "p999Ms": pctl(lat, .999),
                   # the worker's CPU over the whole open loop (warm-up included: a JVM compiles then)
                   "clientCpuMsPerJob": round((c1 - c0) * 1000 / max(1, n + warm), 3), "loadavg": load}
            act = (res.get("activatedMs") or [])[warm_closed + warm:]
            if act and len(act) == len(lat):
                # drivers that report the engine's activation time (Java): which side of it the latency lies on
                row["engineP99Ms"] = pctl(act, .99)
                row["afterActivationP99Ms"] = pctl([a - b for a, b in zip(lat, act)], .99)
            if res.get("activations"):
                row["activations"] = res["activations"]
            rows.append(row)
            log(f"  w2 {eng.kind:7s} {client:16s} {mode:4s} {len(lat)} jobs at {rate:.0f}/s  activation p50 {row['p50Ms']} "
                f"p99 {row['p99Ms']} p99.9 {row['p999Ms']} ms  worker CPU {row['clientCpuMsPerJob']} ms/job  load {load}"
                + (f"  (engine part p99 {row['engineP99Ms']}, after activation p99 {row['afterActivationP99Ms']})" if "engineP99Ms" in row else "")
                + (f"  activations {row['activations']}" if "activations" in row else ""))
    return rows


IDLE_MODES = [("shortpoll-100ms", {"mode": "shortpoll", "pollIntervalMs": 100}),
              ("shortpoll-1s", {"mode": "shortpoll", "pollIntervalMs": 1000}),
              ("longpoll", {"mode": "poll"}),
              ("push", {"mode": "push"})]


def w3_idle(kind: str, work: Path, client: str, workers: int, seconds: float) -> List[Dict[str, Any]]:
    """Engine CPU with `workers` idle workers (no jobs), per activation mode; fresh engine each."""
    rows = []
    for name, spec in [("no workers", {})] + IDLE_MODES:
        with Engine(kind, work) as eng:
            note = ""
            jt = new_type("idle")
            d = Driver(client, eng.address, [{"jobType": jt, "capacity": 32, "count": workers, **spec}], work) if spec else None
            try:
                time.sleep(5)  # engine start-up (JIT on the JVM engine) and the workers' first calls settle
                e0, t0 = cpu_s(eng.pid), time.time()
                time.sleep(seconds)
                e1, t1 = cpu_s(eng.pid), time.time()
            finally:
                if d:
                    d.stop()
        row = {"workload": 3, "engine": kind, "client": client, "mode": name, "workers": workers,
               "seconds": round(t1 - t0, 1), "engineCpuSPerMin": round((e1 - e0) * 60 / (t1 - t0), 3), "note": note}
        rows.append(row)
        log(f"  w3 {kind:7s} {workers} idle workers, {name:16s} engine CPU {row['engineCpuSPerMin']:.3f} s/min")
    return rows


MIXED_MODES = IDLE_MODES


def w4_mixed(kind: str, work: Path, client: str, n: int, interval_ms: int, slow_ms: int) -> List[Dict[str, Any]]:
    """Zeebe 0.21 article's mixed workload: 5 task types in sequence, one taking slow_ms; one instance
    started every interval_ms; total time until the last instance completes."""
    rows = []
    for name, spec in MIXED_MODES:
        with Engine(kind, work) as eng:
            types = [new_type(f"mix{i}") for i in range(5)]
            pid = deploy(eng.address, work, types)
            cap = max(32, int(slow_ms / interval_ms * 2))
            workers = [{"jobType": t, "capacity": cap, "delayMs": slow_ms if i == 2 else 0, **spec} for i, t in enumerate(types)]
            d = Driver(client, eng.address, workers, work)
            try:
                time.sleep(1)
                r = loadgen("mixed", eng.address, "-process", pid, "-n", str(n), "-interval", f"{interval_ms}ms")
            finally:
                d.stop()
        ideal = (n - 1) * interval_ms / 1000 + slow_ms / 1000
        row = {"workload": 4, "engine": kind, "client": client, "mode": name, "n": n, "completed": r["completed"],
               "seconds": round(r["seconds"], 2), "idealSeconds": round(ideal, 2)}
        rows.append(row)
        log(f"  w4 {kind:7s} mixed {n} instances, {name:16s} total {row['seconds']:.2f} s (floor {ideal:.2f} s)")
    return rows


def w5_backpressure(eng: Engine, work: Path, clients: List[str], backlog: int, pad_kb: int, fast_client: str) -> List[Dict[str, Any]]:
    """A slow worker (capacity 8, 100 ms/job) of the client under test and a fast worker beside it
    against a backlog of jobs with pad_kb KiB variables: slow worker RSS start/peak/end, share."""
    rows = []
    for client in clients:
        jt = new_type("w5")
        pid = deploy(eng.address, work, [jt])
        r = loadgen("backlog", eng.address, "-process", pid, "-n", str(backlog), "-pad-kb", str(pad_kb), "-inflight", "32")
        slow = Driver(client, eng.address, [{"jobType": jt, "mode": "push", "capacity": 8, "delayMs": 100}], work)
        samples: List[Tuple[float, float]] = []
        t0 = time.time()
        start_rss = slow.rss_mb()
        fast = Driver(fast_client, eng.address, [{"jobType": jt, "mode": "push", "capacity": 32}], work)
        done = False
        try:
            end = time.time() + max(60, backlog / 100)
            while time.time() < end:
                samples.append((round(time.time() - t0, 2), round(slow.rss_mb(), 1)))
                if slow.jobs + fast.jobs >= r["created"]:
                    done = True
                    break
                time.sleep(0.2)
            time.sleep(0.5)  # anything handed out twice would show now
            end_rss = slow.rss_mb()
            peak = slow.peak_rss_mb()
        finally:
            rs, rf = slow.stop(), fast.stop()
        js, jf = int(rs.get("jobs", slow.jobs)), int(rf.get("jobs", fast.jobs))
        row = {"workload": 5, "engine": eng.kind, "client": client, "backlog": r["created"], "padKb": pad_kb,
               "rssStartMb": round(start_rss, 1), "rssPeakMb": round(peak, 1), "rssEndMb": round(end_rss, 1),
               "slowJobs": js, "fastJobs": jf, "fastShare": round(jf / max(1, r["created"]), 4),
               "lost": r["created"] - js - jf, "drained": done, "seconds": round(time.time() - t0, 1), "rssSamples": samples}
        rows.append(row)
        log(f"  w5 {eng.kind:7s} slow {client:16s} RSS {row['rssStartMb']:.0f} -> peak {row['rssPeakMb']:.0f} -> "
            f"{row['rssEndMb']:.0f} MB; slow {js}, fast {jf} of {r['created']} (lost {row['lost']})")
    return rows


def w6_scaling(work: Path, client: str, n: int, inflight: int) -> List[Dict[str, Any]]:
    """jobwire engine: 1/2/4/8 workers (one driver process) x 1/3/6 partitions, closed loop."""
    rows = []
    for parts in (1, 3, 6):
        with Engine("jobwire", work, partitions=parts) as eng:
            for k in (1, 2, 4, 8):
                jt = new_type("w6")
                pid = deploy(eng.address, work, [jt])
                d = Driver(client, eng.address, [{"jobType": jt, "mode": "push", "capacity": 32, "count": k}], work)
                try:
                    time.sleep(0.5)
                    r = loadgen("closed", eng.address, "-process", pid, "-n", str(n), "-inflight", str(inflight))
                finally:
                    d.stop()
                row = {"workload": 6, "engine": "jobwire", "client": client, "partitions": parts, "workers": k,
                       "topology": "dev", "jobsPerS": round(r["jobsPerS"], 1), "p99Ms": round(r["p99Ms"], 2), "completed": r["completed"]}
                rows.append(row)
                log(f"  w6 {parts} partitions, {k} workers: {row['jobsPerS']:.0f} jobs/s, p99 {row['p99Ms']} ms")
    # the multi-process cluster: 2 gateways, clients on one gateway vs balancing over both
    with Engine("cluster", work, partitions=6) as eng:
        gws = eng.address.split(",")
        for topo, addr in (("cluster, 1 gateway", gws[0]), ("cluster, 2 gateways, client-side balancing", ",".join(gws))):
            jt = new_type("w6c")
            pid = deploy(addr, work, [jt])
            d = Driver(client, addr, [{"jobType": jt, "mode": "push", "capacity": 32, "count": 2}], work)
            try:
                time.sleep(1)
                r = loadgen("closed", addr, "-process", pid, "-n", str(n), "-inflight", str(inflight))
            finally:
                d.stop()
            row = {"workload": 6, "engine": "cluster", "client": client, "partitions": 6, "workers": 2, "topology": topo,
                   "jobsPerS": round(r["jobsPerS"], 1), "p99Ms": round(r["p99Ms"], 2), "completed": r["completed"]}
            rows.append(row)
            log(f"  w6 {topo}: {row['jobsPerS']:.0f} jobs/s, p99 {row['p99Ms']} ms")
    return rows


def w7_ceiling(n: int, inflight: int) -> List[Dict[str, Any]]:
    """The engine's own ceiling: `jobwire-engine bench` (in-process worker, fsync on)."""
    rows = []
    for mode in ("push", "poll"):
        # the partitions of the engines the clients ran on (Engine's default), fsync on (the bench's default)
        out = subprocess.run([str(ENGINE_BIN), "bench", "--instances", str(n), "--concurrency", str(inflight), "--mode", mode,
                              "--partitions", str(DEFAULT_PARTITIONS)],
                             capture_output=True, text=True, timeout=600)
        text = out.stdout + out.stderr
        m = re.search(r"([\d.]+)\s*instances/s", text)
        row = {"workload": 7, "engine": "jobwire", "mode": mode, "n": n,
               "jobsPerS": float(m.group(1)) if m else None, "output": text.strip()[-600:]}
        rows.append(row)
        log(f"  w7 jobwire-engine bench ({mode}, in-process worker): {row['jobsPerS']} instances/s")
    return rows


def w8_parked(eng: Engine, work: Path, clients: List[str], n: int, sizes_kb: List[int]) -> List[Dict[str, Any]]:
    """Jobs a paused worker parks: a push worker of the client under test with capacity 1 whose handler
    blocks; a backlog of `n` jobs with a pad variable of each size is created; after the pushes settle a
    probe (the load generator) collects every job it can activate and holds it (5 min): held = n - collected,
    the jobs activated for the paused worker that no other worker can have; running = its handlers started
    (up to its close; a client that ignores its capacity runs more than 1), parked = held - running (in
    transport buffers or the client's queue). Then the worker is closed (the driver's stop) and the probe runs
    again: stranded = held jobs still not activatable after the close (until their activation timeout)."""
    rows = []
    for client in clients:
        for kb in sizes_kb:
            jt = new_type("w8")
            pid = deploy(eng.address, work, [jt])
            # the handler sleeps 10 min: the worker's one slot stays taken until the close
            d = Driver(client, eng.address, [{"jobType": jt, "mode": "push", "capacity": 1, "delayMs": 600000}], work)
            try:
                time.sleep(1.0)  # stream open
                r = loadgen("backlog", eng.address, "-process", pid, "-n", str(n), "-pad-kb", str(kb), "-inflight", "32")
                time.sleep(2.0)  # the pushes settle
                got = loadgen("activate", eng.address, "-type", jt, "-n", str(n), "-job-timeout", "300s")["activated"]
                t0 = time.time()
            finally:
                res = d.stop()
            close_s = time.time() - t0
            # every job activatable again within 1.5 s of the close
            after = loadgen("activate", eng.address, "-type", jt, "-n", str(n), "-job-timeout", "300s", "-window", "1.5s")["activated"]
            held = r["created"] - got
            # handlers started (each job carries t0); a driver killed before its 'done' event (its close hung on the
            # blocked handler for 15 s) reports none: then the one slot is taken as running
            running = min(held, len(res["latMs"])) if "latMs" in res else 1
            row = {"workload": 8, "engine": eng.kind, "client": client, "version": d.version, "n": r["created"], "padKb": kb,
                   "collected": got, "held": held, "running": running, "parked": held - running,
                   "strandedAfterClose": held - after, "closeS": round(close_s, 2), "doneEvent": "latMs" in res}
            rows.append(row)
            log(f"  w8 {eng.kind:7s} {client:16s} {kb:3d} KiB: paused worker holds {held} of {row['n']} (running {running}, "
                f"parked {row['parked']}); stranded after close {row['strandedAfterClose']} (close {row['closeS']} s)")
    return rows


def w9_fairness(eng: Engine, work: Path, clients: List[str], n: int, inflight: int, cap: int) -> List[Dict[str, Any]]:
    """Fairness under push overload: a closed loop keeps `inflight` instances in flight (each replaced when
    it completes) against one push worker of capacity `cap` with a no-op handler, so the engine keeps
    yielding jobs the full worker cannot take. wait = instance created -> handler started: p50/p99/max
    and the jobs that waited more than 1 s (a yielded job must not wait for the end of the overload)."""
    rows = []
    for client in clients:
        jt = new_type("w9")
        pid = deploy(eng.address, work, [jt])
        d = Driver(client, eng.address, [{"jobType": jt, "mode": "push", "capacity": cap}], work)
        try:
            time.sleep(1.0)
            c0 = d.cpu()
            r = loadgen("closed", eng.address, "-process", pid, "-n", str(n), "-inflight", str(inflight))
            d.wait_jobs(n, 30)
            c1 = d.cpu()
        finally:
            res = d.stop()
        lat = res.get("latMs") or []
        row = {"workload": 9, "engine": eng.kind, "client": client, "version": d.version, "n": n, "inflight": inflight,
               "capacity": cap, "completed": r["completed"], "errors": r["errors"], "handled": len(lat),
               "seconds": round(r["seconds"], 2), "jobsPerS": round(r["jobsPerS"], 1),
               "waitP50Ms": pctl(lat, .5), "waitP99Ms": pctl(lat, .99), "waitMaxMs": round(max(lat), 1) if lat else None,
               "over1s": sum(1 for x in lat if x > 1000),
               "clientCpuMsPerJob": round((c1 - c0) * 1000 / max(1, r["completed"]), 4)}
        rows.append(row)
        log(f"  w9 {eng.kind:7s} {client:16s} {n} instances, {inflight} in flight, capacity {cap}: wait p50 {row['waitP50Ms']} "
            f"p99 {row['waitP99Ms']} max {row['waitMaxMs']} ms, {row['over1s']} > 1 s; {row['jobsPerS']:.0f} jobs/s")
    return rows
