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
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
ENGINE_BIN = ROOT / "engine-reference" / "bin" / "jobwire-engine"
# The Zeebe rows of the last run that measured Zeebe too: appended to every results page.
ZEEBE_HISTORY = HERE / "results" / "history-zeebe-8.8.21.md"
GO_RUN = HERE / "go" / "run"
TICK = os.sysconf("SC_CLK_TCK")

CLIENTS: Dict[str, List[str]] = {
    "go-jobwire": [str(GO_RUN), "driver-jobwire"],
    "go-official": [str(GO_RUN), "driver-official"],
    "node-jobwire": [str(HERE / "drivers" / "node" / "run"), "jobwire"],
    "node-official": [str(HERE / "drivers" / "node" / "run"), "official"],
    "python-jobwire": [str(HERE / "drivers" / "python" / "run"), "jobwire"],
    "python-official": [str(HERE / "drivers" / "python" / "run"), "official"],
    "java-jobwire": [str(HERE / "drivers" / "java" / "run"), "jobwire"],
    "java-official": [str(HERE / "drivers" / "java" / "run"), "official"],
}
OFFICIAL_NAME = {
    "go": "zeebe/clients/go 8.5.0",
    "node": "@camunda8/sdk 8.8.13",
    "python": "pyzeebe 4.7.0",
    "java": "camunda-client-java 8.8.14",
}
LANGS = ["go", "node", "python", "java"]


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


# --- /proc -------------------------------------------------------------------------------------


def cpu_s(pid: int) -> float:
    """user + sys CPU seconds of a running process (all its threads, also those that have exited).

    Read from the process's CPU-time clock (clock_gettime on the clock id Linux derives from the pid:
    MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED)), which counts nanoseconds. /proc/<pid>/stat counts
    clock ticks (10 ms), too coarse for a small run: 200 jobs of a Go worker take ~12 ms of CPU and
    read as 0, 10 or 20 ms there. /proc stays the fallback where that clock cannot be read."""
    try:
        return time.clock_gettime(((~pid) << 3) | 2)
    except OSError:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK


def mem_kb(pid: int, key: str) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


# --- BPMN ----------------------------------------------------------------------------------------


def bpmn(pid: str, types: List[str]) -> str:
    """A process start -> task(types[0]) -> ... -> end."""
    tasks, flows, prev = [], [], "s"
    for i, t in enumerate(types):
        tasks.append(f'<bpmn:serviceTask id="t{i}"><bpmn:extensionElements><zeebe:taskDefinition type="{t}" retries="3"/>'
                     f"</bpmn:extensionElements></bpmn:serviceTask>")
        flows.append(f'<bpmn:sequenceFlow id="f{i}" sourceRef="{prev}" targetRef="t{i}"/>')
        prev = f"t{i}"
    flows.append(f'<bpmn:sequenceFlow id="fe" sourceRef="{prev}" targetRef="e"/>')
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" '
            'xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="bench">'
            f'<bpmn:process id="{pid}" isExecutable="true"><bpmn:startEvent id="s"/>{"".join(tasks)}'
            f'<bpmn:endEvent id="e"/>{"".join(flows)}</bpmn:process></bpmn:definitions>')


# --- engines -----------------------------------------------------------------------------------


class Engine:
    """A throwaway engine on 127.0.0.1 and a free port; kind 'jobwire' (dev, fsync on) or 'cluster'."""

    def __init__(self, kind: str, work: Path, partitions: int = 3) -> None:
        self.kind = kind
        self.data = Path(tempfile.mkdtemp(prefix="engine-", dir=work))
        if kind == "jobwire":
            cmd = [str(ENGINE_BIN), "dev", "--port", "0", "--data-dir", str(self.data), "--exit-on-stdin-close",
                   "--partitions", str(partitions)]
            pat = re.compile(r"listening on (127\.0\.0\.1:\d+)")
            self.label = f"jobwire-engine dev (fsync on, {partitions} partitions)"
        elif kind == "cluster":
            # address = every gateway, comma-separated
            cmd = [str(ENGINE_BIN), "cluster", "--base-port", "0", "--data-dir", str(self.data / "c"), "--exit-on-stdin-close",
                   "--gateways", "2", "--brokers", "3", "--partitions", str(partitions)]
            pat = re.compile(r"cluster ready: gateways (\S+)")
            self.label = f"jobwire-engine cluster (fsync on, 3 brokers, 2 gateways, {partitions} partitions)"
        else:
            raise ValueError(f"engine kind {kind!r}: jobwire or cluster")
        self.errlog = open(self.data / "engine.log", "w")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.errlog, text=True)
        self.address = ""
        found = threading.Event()

        def pump() -> None:
            assert self.proc.stdout is not None
            for line in self.proc.stdout:
                m = pat.search(line)
                if m and not found.is_set():
                    self.address = m.group(1)
                    found.set()
            found.set()

        threading.Thread(target=pump, daemon=True).start()
        found.wait(300)
        if not self.address:
            self.stop()
            raise RuntimeError(f"{kind} engine did not start: {(self.data / 'engine.log').read_text()[-2000:]}")

    @property
    def pid(self) -> int:
        return self.proc.pid

    def stop(self) -> None:
        if self.proc.poll() is None:
            try:
                assert self.proc.stdin is not None
                self.proc.stdin.close()
                self.proc.wait(10)
            except Exception:  # noqa: BLE001
                self.proc.kill()
                self.proc.wait()
        self.errlog.close()
        shutil.rmtree(self.data, ignore_errors=True)

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *a: object) -> None:
        self.stop()


ENGINE_LABEL = {"jobwire": "jobwire-engine dev (fsync on, 3 partitions unless stated)"}


def guarded(w: int, kind: str, fn: Callable[[], List[Dict[str, Any]]]) -> List[Dict[str, Any]]:
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - reported in the results, the run goes on
        log(f"  w{w} {kind}: FAILED: {e}")
        return [{"workload": w, "engine": kind, "client": "", "error": str(e)[:500]}]


# --- load generator ----------------------------------------------------------------------------


def loadgen(mode: str, address: str, *args: str, timeout: float = 300) -> Dict[str, Any]:
    out = subprocess.run([str(GO_RUN), "loadgen", mode, "-address", address, *args], stdout=subprocess.PIPE,
                         stderr=None, text=True, timeout=timeout)
    if out.returncode != 0:
        raise RuntimeError(f"loadgen {mode} failed ({out.returncode})")
    return json.loads(out.stdout.strip().splitlines()[-1])


_seq = [0]


def deploy(address: str, work: Path, types: List[str]) -> str:
    _seq[0] += 1
    pid = f"bench{_seq[0]}_{int(time.time() * 1000) % 100000}"
    f = work / f"{pid}.bpmn"
    f.write_text(bpmn(pid, types))
    loadgen("deploy", address, str(f))
    return pid


def new_type(prefix: str) -> str:
    _seq[0] += 1
    return f"{prefix}-{_seq[0]}-{int(time.time() * 1000) % 100000}"


# --- worker driver ----------------------------------------------------------------------------


class Driver:
    """One worker driver process (DRIVERS.md): started with its JSON config, reports ready,
    progress and a final 'done' with the latencies it recorded."""

    def __init__(self, client: str, address: str, workers: List[Dict[str, Any]], work: Path,
                 extra: Optional[Dict[str, Any]] = None) -> None:
        self.client = client
        cfg = json.dumps({"address": address, "workers": workers, **(extra or {})})
        self.events: Dict[str, Dict[str, Any]] = {}  # the newest event of each name
        self.err = open(work / f"driver-{client}-{_seq[0]}.log", "w")
        self.proc = subprocess.Popen(CLIENTS[client] + [cfg], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.err, text=True)
        self.jobs = 0
        self.ready = threading.Event()
        self.finished = threading.Event()
        self.result: Dict[str, Any] = {}
        self.version = ""
        threading.Thread(target=self._pump, daemon=True).start()
        if not self.ready.wait(120):
            self.kill()
            raise RuntimeError(f"{client} driver did not report ready: {self.tail()}")

    def tail(self) -> str:
        self.err.flush()
        return Path(self.err.name).read_text()[-1500:]

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                ev = json.loads(line)
            except ValueError:
                continue
            self.events[str(ev.get("event"))] = ev
            if ev.get("event") == "ready":
                self.version = str(ev.get("version"))
                self.ready.set()
            elif ev.get("event") == "progress":
                self.jobs = int(ev["jobs"])
            elif ev.get("event") == "done":
                self.jobs = int(ev["jobs"])
                self.result = ev
                self.finished.set()
        self.ready.set()
        self.finished.set()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def cpu(self) -> float:
        return cpu_s(self.pid)

    def peak_rss_mb(self) -> float:
        return mem_kb(self.pid, "VmHWM") / 1024

    def rss_mb(self) -> float:
        return mem_kb(self.pid, "VmRSS") / 1024

    def wait_jobs(self, n: int, timeout: float) -> bool:
        end = time.time() + timeout
        while time.time() < end:
            if self.jobs >= n:
                return True
            if self.proc.poll() is not None:
                return False
            time.sleep(0.05)
        return False

    def stop(self, timeout: float = 15) -> Dict[str, Any]:
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write("stop\n")
            self.proc.stdin.close()
        except (BrokenPipeError, OSError):
            pass
        self.finished.wait(timeout)
        self.kill()
        return self.result

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.err.close()


def pctl(xs: List[float], p: float) -> Optional[float]:
    if not xs:
        return None
    s = sorted(xs)
    i = min(len(s) - 1, max(0, int(len(s) * p + 0.999999) - 1))
    return round(s[i], 3)


# --- workloads --------------------------------------------------------------------------------


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


def w1_closed(eng: Engine, work: Path, clients: List[str], n: int, warm: int, cap: int, inflight: int,
              modes: Tuple[str, ...] = ("push", "poll")) -> List[Dict[str, Any]]:
    """Closed loop: create-with-result, `inflight` at a time; worker CPU per job and peak RSS."""
    rows = []
    for client in clients:
        for mode in modes:
            jt = new_type("w1")
            pid = deploy(eng.address, work, [jt])
            d = Driver(client, eng.address, [{"jobType": jt, "mode": mode, "capacity": cap}], work)
            try:
                time.sleep(0.5)  # stream open / first poll parked
                if warm:
                    loadgen("closed", eng.address, "-process", pid, "-n", str(warm), "-inflight", str(inflight))
                c0, e0 = d.cpu(), cpu_s(eng.pid)
                r = loadgen("closed", eng.address, "-process", pid, "-n", str(n), "-inflight", str(inflight))
                c1, e1 = d.cpu(), cpu_s(eng.pid)
                ok = d.wait_jobs(n + warm, 30)
                row = {
                    "workload": 1, "engine": eng.kind, "client": client, "mode": mode, "version": d.version,
                    "n": n, "completed": r["completed"], "errors": r["errors"], "driverJobs": d.jobs - warm,
                    "jobsPerS": round(r["jobsPerS"], 1), "p50Ms": round(r["p50Ms"], 2), "p99Ms": round(r["p99Ms"], 2),
                    "clientCpuMsPerJob": round((c1 - c0) * 1000 / max(1, r["completed"]), 4),
                    "engineCpuMsPerJob": round((e1 - e0) * 1000 / max(1, r["completed"]), 4),
                    "peakRssMb": round(d.peak_rss_mb(), 1), "allHandled": ok,
                }
            finally:
                d.stop()
            rows.append(row)
            log(f"  w1 {eng.kind:7s} {client:16s} {mode:4s} {row['jobsPerS']:8.0f} jobs/s  p50 {row['p50Ms']:6.1f} ms  "
                f"p99 {row['p99Ms']:6.1f} ms  client CPU {row['clientCpuMsPerJob']:.3f} ms/job  peak RSS {row['peakRssMb']:.0f} MB")
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
        out = subprocess.run([str(ENGINE_BIN), "bench", "--instances", str(n), "--concurrency", str(inflight), "--mode", mode],
                             capture_output=True, text=True, timeout=600)
        text = out.stdout + out.stderr
        m = re.search(r"([\d.]+)\s*instances/s", text)
        row = {"workload": 7, "engine": "jobwire", "mode": mode, "n": n,
               "jobsPerS": float(m.group(1)) if m else None, "output": text.strip()[-600:]}
        rows.append(row)
        log(f"  w7 jobwire-engine bench ({mode}, in-process worker): {row['jobsPerS']} instances/s")
    return rows


# --- report -------------------------------------------------------------------------------------


def ratio(a: Optional[float], b: Optional[float]) -> Optional[float]:
    if a is None or b is None or b == 0:
        return None
    return round(a / b, 2)


def fmt(x: Any, nd: int = 1) -> str:
    if x is None:
        return "–"
    if isinstance(x, float):
        return f"{x:.{nd}f}"
    return str(x)


def targets(rows: List[Dict[str, Any]]) -> List[Tuple[str, str, str]]:
    """(target, measured, met?) lines for the issue's targets."""
    rows = [r for r in rows if "error" not in r]
    out: List[Tuple[str, str, str]] = []
    w1 = [r for r in rows if r["workload"] == 1]
    for eng in sorted({r["engine"] for r in w1}):
        for lang in LANGS:
            for mode in ("push", "poll"):
                jw = next((r for r in w1 if r["engine"] == eng and r["client"] == f"{lang}-jobwire" and r["mode"] == mode), None)
                of = next((r for r in w1 if r["engine"] == eng and r["client"] == f"{lang}-official" and r["mode"] == mode), None)
                if not jw or not of:
                    continue
                t = ratio(jw["jobsPerS"], of["jobsPerS"])
                c = ratio(jw["clientCpuMsPerJob"], of["clientCpuMsPerJob"])
                out.append((f"{lang} {mode} ({eng}): jobs/s ≥ 1.5× official", f"{fmt(t, 2)}×", "yes" if t and t >= 1.5 else "no"))
                out.append((f"{lang} {mode} ({eng}): client CPU/job ≤ 0.5× official", f"{fmt(c, 2)}×", "yes" if c is not None and c <= 0.5 else "no"))
    w2 = [r for r in rows if r["workload"] == 2]
    for eng in sorted({r["engine"] for r in w2}):
        for client in CLIENTS:
            p = next((r for r in w2 if r["engine"] == eng and r["client"] == client and r["mode"] == "push"), None)
            q = next((r for r in w2 if r["engine"] == eng and r["client"] == client and r["mode"] == "poll"), None)
            if p and q and client.endswith("jobwire"):
                x = ratio(p["p99Ms"], q["p99Ms"])
                out.append((f"{client} ({eng}): push p99 ≤ 0.25× long-poll p99", f"{fmt(x, 2)}×", "yes" if x is not None and x <= 0.25 else "no"))
    w3 = [r for r in rows if r["workload"] == 3]
    for eng in sorted({r["engine"] for r in w3}):
        base = next((r for r in w3 if r["engine"] == eng and r["mode"] == "shortpoll-100ms"), None)
        for m in ("longpoll", "push"):
            r = next((r for r in w3 if r["engine"] == eng and r["mode"] == m), None)
            if base and r:
                x = ratio(r["engineCpuSPerMin"], base["engineCpuSPerMin"])
                out.append((f"idle engine CPU, {m} ({eng}) ≤ 1/20 of 100 ms polling", f"{fmt(x, 3)}×", "yes" if x is not None and x <= 0.05 else "no"))
    for r in rows:
        if r["workload"] == 5 and r["client"].endswith("jobwire"):
            ok = r["rssPeakMb"] <= r["rssStartMb"] + 50 and r["fastShare"] >= 0.9 and r["lost"] == 0 and r["drained"]
            lost = f"lost {r['lost']}" if r["drained"] else f"not drained in time ({r['lost']} open)"
            out.append((f"{r['client']} slow worker ({r['engine']}): peak RSS ≤ start + 50 MB, fast ≥ 90 %, none lost",
                        f"+{r['rssPeakMb'] - r['rssStartMb']:.0f} MB, fast {r['fastShare'] * 100:.0f} %, {lost}", "yes" if ok else "no"))
    return out


def plots(rows: List[Dict[str, Any]], out: Path) -> List[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    made = []
    rows = [r for r in rows if "error" not in r]

    def save(fig: Any, name: str) -> None:
        fig.tight_layout()
        fig.savefig(out / name, dpi=90)
        plt.close(fig)
        made.append(name)

    w1 = [r for r in rows if r["workload"] == 1]
    for eng in sorted({r["engine"] for r in w1}):
        rs = [r for r in w1 if r["engine"] == eng]
        clients = [c for c in CLIENTS if any(r["client"] == c for r in rs)]
        for metric, label, fname in (("jobsPerS", "jobs/s (closed loop)", "throughput"),
                                     ("clientCpuMsPerJob", "worker CPU ms per job", "cpu-per-job"),
                                     ("peakRssMb", "worker peak RSS (MB)", "peak-rss")):
            fig, ax = plt.subplots(figsize=(9, 3.6))
            for j, mode in enumerate(("push", "poll")):
                ys = [next((r[metric] for r in rs if r["client"] == c and r["mode"] == mode), 0) for c in clients]
                ax.bar([i + j * 0.4 for i in range(len(clients))], ys, width=0.4, label=mode)
            ax.set_xticks([i + 0.2 for i in range(len(clients))], clients, rotation=20, fontsize=8)
            ax.set_ylabel(label)
            ax.set_title(f"Workload 1 — {label} — {eng}")
            ax.legend()
            save(fig, f"w1-{fname}-{eng}.png")
    w2 = [r for r in rows if r["workload"] == 2]
    for eng in sorted({r["engine"] for r in w2}):
        rs = [r for r in w2 if r["engine"] == eng]
        clients = [c for c in CLIENTS if any(r["client"] == c for r in rs)]
        fig, ax = plt.subplots(figsize=(9, 3.6))
        k = 0
        for mode in ("push", "poll"):
            for q in ("p50Ms", "p99Ms", "p999Ms"):
                ys = [next((r[q] or 0 for r in rs if r["client"] == c and r["mode"] == mode), 0) for c in clients]
                ax.bar([i + k * 0.13 for i in range(len(clients))], ys, width=0.13, label=f"{mode} {q[:-2]}")
                k += 1
        ax.set_yscale("log")
        ax.set_xticks([i + 0.33 for i in range(len(clients))], clients, rotation=20, fontsize=8)
        ax.set_ylabel("activation latency (ms, log)")
        ax.set_title(f"Workload 2 — activation latency at a steady rate — {eng}")
        ax.legend(fontsize=7, ncol=2)
        save(fig, f"w2-latency-{eng}.png")
    w3 = [r for r in rows if r["workload"] == 3]
    if w3:
        fig, ax = plt.subplots(figsize=(7, 3.4))
        engs = sorted({r["engine"] for r in w3})
        modes = [m for m, _ in IDLE_MODES]
        for j, eng in enumerate(engs):
            ys = [next((r["engineCpuSPerMin"] for r in w3 if r["engine"] == eng and r["mode"] == m), 0) for m in modes]
            ax.bar([i + j * 0.4 for i in range(len(modes))], ys, width=0.4, label=eng)
        ax.set_xticks([i + 0.2 for i in range(len(modes))], modes, fontsize=8)
        ax.set_ylabel("engine CPU s per minute")
        ax.set_title(f"Workload 3 — idle cost, {w3[0]['workers']} idle workers")
        ax.legend()
        save(fig, "w3-idle.png")
    w4 = [r for r in rows if r["workload"] == 4]
    if w4:
        fig, ax = plt.subplots(figsize=(7, 3.4))
        engs = sorted({r["engine"] for r in w4})
        modes = [m for m, _ in MIXED_MODES]
        for j, eng in enumerate(engs):
            ys = [next((r["seconds"] for r in w4 if r["engine"] == eng and r["mode"] == m), 0) for m in modes]
            ax.bar([i + j * 0.4 for i in range(len(modes))], ys, width=0.4, label=eng)
        ax.axhline(w4[0]["idealSeconds"], color="grey", ls="--", label="floor")
        ax.set_xticks([i + 0.2 for i in range(len(modes))], modes, fontsize=8)
        ax.set_ylabel("total time (s)")
        ax.set_title(f"Workload 4 — mixed workload, {w4[0]['n']} instances")
        ax.legend()
        save(fig, "w4-mixed.png")
    w5 = [r for r in rows if r["workload"] == 5]
    for eng in sorted({r["engine"] for r in w5}):
        fig, ax = plt.subplots(figsize=(8, 3.6))
        for r in (r for r in w5 if r["engine"] == eng):
            ax.plot([s[0] for s in r["rssSamples"]], [s[1] for s in r["rssSamples"]], label=r["client"])
        ax.set_xlabel("s since the slow worker started")
        ax.set_ylabel("slow worker RSS (MB)")
        ax.set_title(f"Workload 5 — slow worker memory, backlog of {w5[0]['backlog']} × {w5[0]['padKb']} KiB — {eng}")
        ax.legend(fontsize=7)
        save(fig, f"w5-rss-{eng}.png")
    w6 = [r for r in rows if r["workload"] == 6]
    if w6:
        fig, ax = plt.subplots(figsize=(7, 3.4))
        for p in sorted({r["partitions"] for r in w6}):
            rs = [r for r in w6 if r["partitions"] == p and r.get("topology", "dev") == "dev"]
            ax.plot([r["workers"] for r in rs], [r["jobsPerS"] for r in rs], marker="o", label=f"{p} partitions")
        ax.set_xlabel("workers")
        ax.set_ylabel("jobs/s")
        ax.set_title(f"Workload 6 — scaling ({w6[0]['client']}, jobwire engine)")
        ax.legend()
        save(fig, "w6-scaling.png")
    return made


def machine() -> str:
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = mem_kb_total()
    return f"{os.cpu_count()} cores ({cpu}), {mem / 1024 / 1024:.0f} GiB, {platform.system()} {platform.release()}"


def mem_kb_total() -> int:
    with open("/proc/meminfo") as f:
        return int(f.readline().split()[1])


def markdown(res: Dict[str, Any], made: List[str]) -> str:
    failed = [r for r in res["rows"] if "error" in r]
    rows = [r for r in res["rows"] if "error" not in r]
    L = [f"# `make bench` — latest run", "",
         f"- date: {res['date']}", f"- machine: {res['machine']}", f"- load average at start: {res['loadavg']}",
         f"- command: `{res['command']}` ({res['seconds']:.0f} s)",
         f"- engines: " + "; ".join(f"**{k}** = {v}" for k, v in res["engines"].items()),
         f"- official clients: " + ", ".join(f"{k}: {v}" for k, v in OFFICIAL_NAME.items()),
         "", "Numbers come from one run on a shared machine (other jobs were running): compare **ratios within this run**, "
         "not absolute values across runs. Client CPU is user + sys of the worker process alone (the load generator is "
         "another process); peak RSS is the worker's VmHWM.", ""]
    w1 = [r for r in rows if r["workload"] == 1]
    if w1:
        L += ["## 1. Closed loop: throughput, latency, client cost", "",
              f"{res['params'].get('w1', '')}", "",
              "| engine | client | mode | jobs/s | p50 ms | p99 ms | worker CPU ms/job | engine CPU ms/job | peak RSS MB | all handled |",
              "|---|---|---|---:|---:|---:|---:|---:|---:|---|"]
        for r in w1:
            L.append(f"| {r['engine']} | {r['client']} | {r['mode']} | {r['jobsPerS']:.0f} | {r['p50Ms']:.1f} | {r['p99Ms']:.1f} | "
                     f"{r['clientCpuMsPerJob']:.3f} | {r['engineCpuMsPerJob']:.3f} | {r['peakRssMb']:.0f} | {'yes' if r['allHandled'] and not r['errors'] else 'NO'} |")
        L.append("")
    w2 = [r for r in rows if r["workload"] == 2]
    if w2:
        L += ["## 2. Activation latency at a steady rate (created → handler started)", "", f"{res['params'].get('w2', '')}", "",
              "Worker CPU covers the whole open loop, warm-up included. *After activation p99*: for drivers that report the "
              "engine's activation time (Java: the job's deadline − its timeout), the p99 of handler start − activation, i.e. the part "
              "of the latency spent between the engine activating the job and the worker running it (push: the transport "
              "and the worker); *via poll*: jobs of a jobwire push worker that arrived by a poll (Zeebe yields a job when "
              "the stream is not ready; only polls collect it).", "",
              "| engine | client | mode | jobs | achieved rate/s | p50 ms | p99 ms | p99.9 ms | worker CPU ms/job | after activation p99 ms | via poll | load |",
              "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for r in w2:
            acts = r.get("activations") or {}
            via = f"{acts.get('poll', 0)}/{sum(acts.values())}" if acts and r["mode"] == "push" else ""
            L.append(f"| {r['engine']} | {r['client']} | {r['mode']} | {r['handled']} | {r['achievedRate']:.0f} | {fmt(r['p50Ms'])} | {fmt(r['p99Ms'])} | {fmt(r['p999Ms'])} | "
                     f"{fmt(r.get('clientCpuMsPerJob'), 2)} | {fmt(r.get('afterActivationP99Ms'))} | {via} | {fmt(r.get('loadavg'))} |")
        L.append("")
    w3 = [r for r in rows if r["workload"] == 3]
    if w3:
        L += ["## 3. Idle cost: engine CPU with idle workers", "", f"{res['params'].get('w3', '')}", "",
              "| engine | mode | engine CPU s/min | × of 100 ms polling | note |", "|---|---|---:|---:|---|"]
        for r in w3:
            base = next((b for b in w3 if b["engine"] == r["engine"] and b["mode"] == "shortpoll-100ms"), None)
            L.append(f"| {r['engine']} | {r['mode']} | {r['engineCpuSPerMin']:.3f} | {fmt(ratio(r['engineCpuSPerMin'], base['engineCpuSPerMin'] if base else None), 3)} | {r['note']} |")
        L.append("")
    w4 = [r for r in rows if r["workload"] == 4]
    if w4:
        L += ["## 4. Mixed workload (five task types, one slow)", "", f"{res['params'].get('w4', '')}", "",
              "| engine | mode | completed | total s | floor s | × of 100 ms polling |", "|---|---|---:|---:|---:|---:|"]
        for r in w4:
            base = next((b for b in w4 if b["engine"] == r["engine"] and b["mode"] == "shortpoll-100ms"), None)
            L.append(f"| {r['engine']} | {r['mode']} | {r['completed']} | {r['seconds']:.2f} | {r['idealSeconds']:.2f} | {fmt(ratio(r['seconds'], base['seconds'] if base else None), 2)} |")
        L.append("")
    w5 = [r for r in rows if r["workload"] == 5]
    if w5:
        L += ["## 5. Backpressure memory: slow worker beside a fast one", "", f"{res['params'].get('w5', '')}", "",
              "'lost' counts only when the backlog drained; otherwise the jobs still open when the time limit "
              "(max(60 s, backlog/100 s)) ended are shown as 'open at limit' (slow engine, nothing known lost).", "",
              "| engine | slow worker | RSS start MB | peak MB | end MB | slow jobs | fast jobs | fast share | lost | drained |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
        for r in w5:
            lost = str(r['lost']) if r['drained'] else f"{r['lost']} open at limit"
            L.append(f"| {r['engine']} | {r['client']} | {r['rssStartMb']:.0f} | {r['rssPeakMb']:.0f} | {r['rssEndMb']:.0f} | {r['slowJobs']} | "
                     f"{r['fastJobs']} | {r['fastShare'] * 100:.1f} % | {lost} | {'yes' if r['drained'] else 'NO'} |")
        L.append("")
    w6 = [r for r in rows if r["workload"] == 6]
    if w6:
        L += ["## 6. Scaling (jobwire engine)", "", f"{res['params'].get('w6', '')}", "",
              "| topology | partitions | workers | jobs/s | p99 ms |", "|---|---:|---:|---:|---:|"]
        for r in w6:
            L.append(f"| {r.get('topology', 'dev')} | {r['partitions']} | {r['workers']} | {r['jobsPerS']:.0f} | {r['p99Ms']:.1f} |")
        L.append("")
    w7 = [r for r in rows if r["workload"] == 7]
    if w7:
        L += ["## 7. The engine's own ceiling and each client's efficiency", "",
              "`jobwire-engine bench` (in-process worker, fsync on). Efficiency = the client's closed-loop jobs/s on the "
              "jobwire engine ÷ this ceiling, same mode.", "",
              "| mode | ceiling instances/s | " + " | ".join(c for c in CLIENTS if any(r["client"] == c and r["engine"] == "jobwire" for r in w1)) + " |",
              "|---|---:|" + "---:|" * len([c for c in CLIENTS if any(r["client"] == c and r["engine"] == "jobwire" for r in w1)])]
        for r in w7:
            effs = []
            for c in CLIENTS:
                x = next((q for q in w1 if q["client"] == c and q["engine"] == "jobwire" and q["mode"] == r["mode"]), None)
                if any(q["client"] == c and q["engine"] == "jobwire" for q in w1):
                    effs.append(fmt(ratio(x["jobsPerS"] if x else None, r["jobsPerS"]), 2))
            L.append(f"| {r['mode']} | {fmt(r['jobsPerS'], 0)} | " + " | ".join(effs) + " |")
        L.append("")
    if failed:
        L += ["## Failed cases", "", "| workload | engine | client | error |", "|---|---|---|---|"]
        L += [f"| {r['workload']} | {r['engine']} | {r['client']} | {r['error'][:300].replace('|', '/')} |" for r in failed]
        L.append("")
    t = targets(rows)
    if t:
        L += ["## Targets of issue 16 (ratios from this run)", "", "| target | measured | met |", "|---|---|---|"]
        L += [f"| {a} | {b} | {c} |" for a, b, c in t]
        L.append("")
    if made:
        L += ["## Plots", "",
              "The plots are not committed; draw them from `bench.json` (after `bench/bootstrap.sh`):",
              "`bench/.venv/bin/python bench/bench.py --render bench/results/bench.json --out bench/results`.", ""]
        L += [f"![{m}]({m})" for m in made] + [""]
    if ZEEBE_HISTORY.exists():
        L += [ZEEBE_HISTORY.read_text().rstrip("\n"), ""]
    return "\n".join(L)


# --- main ----------------------------------------------------------------------------------------


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
