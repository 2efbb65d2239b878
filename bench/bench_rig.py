"""The bench's rig (bench.py): the clients and their driver commands, throwaway engines, the load generator
(bench/go loadgen), the worker driver processes (DRIVERS.md) and what /proc says about them.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

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
    # the floor: no client library, only grpc-go and the protocol's stubs (workload 1 only, not a default client)
    "go-raw": [str(GO_RUN), "driver-raw"],
}
FLOOR = "go-raw"
# the partitions of every engine the clients run on, and of the engine's own ceiling (workload 7)
DEFAULT_PARTITIONS = 3
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

    def __init__(self, kind: str, work: Path, partitions: int = 0) -> None:
        partitions = partitions or DEFAULT_PARTITIONS
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
                 extra: Optional[Dict[str, Any]] = None, cmd: Optional[List[str]] = None,
                 env: Optional[Dict[str, str]] = None) -> None:
        """cmd: the driver command (default CLIENTS[client]; `bench.py --compare` passes another build's and
        env, variables added to the driver's environment)."""
        self.client = client
        cfg = json.dumps({"address": address, "workers": workers, **(extra or {})})
        self.events: Dict[str, Dict[str, Any]] = {}  # the newest event of each name
        self.err = open(work / f"driver-{client}-{_seq[0]}.log", "w")
        self.proc = subprocess.Popen((cmd or CLIENTS[client]) + [cfg], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.err, text=True, env={**os.environ, **env} if env else None)
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
