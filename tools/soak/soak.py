#!/usr/bin/env python3
"""`make soak`: every SDK's workers at a steady load against the multi-process cluster, with a fault
every minute in rotation, and a report (JSON + plot).

- Engine: `jobwire-engine cluster` (2 gateways, 3 brokers, 6 partitions) with TLS, mutual TLS, signed
  JWTs from the cluster's token endpoint and an admin token — the security of issue 17, end to end.
- Workers: the conformance drivers (conformance-tests/drivers/<sdk>/run, DRIVER-CONTRACT.md), one
  process per SDK, configured only through the SDKs' environment variables, with both gateways
  (client-side round robin). Each SDK has its own process `soak-<sdk>` and job type.
- Load: instances created at a steady rate per SDK (`--rate`) by this process, each carrying
  `soakId` and `t0` (epoch ms); creation retries transient errors and refreshes its token.
- Faults (every `--fault-every` s, in rotation): gateway_restart, broker_kill (kill, 5 s down, start),
  stream_reset, resource_exhausted (a burst of RESOURCE_EXHAUSTED on every gateway RPC),
  stalled_stream (push streams of every soak type stall 15 s), token_expiry (every token issued so far
  expires) — through the supervisor's admin API.
- Report: instances created vs completed (the engine's view: state and completion count per
  instance), lost (must be 0), duplicate handler starts, client RSS start / peak / end per SDK (start =
  first sample after the warm-up), engine RSS, activation latency p50 / p99 per minute, and per fault
  whether every SDK completed jobs again afterwards. `soak.json`, and `soak.png` drawn by plot.py with
  bench's pinned matplotlib (bench/.venv, made by bench/bootstrap.sh).

Environment: SOAK_MINUTES (default 10), SOAK_SDKS (default go,node,python,java), SOAK_FAULTS (default
all six), SOAK_FAULT_EVERY_S (default 60), SOAK_RATE (instances/s per SDK, default 4), SOAK_OUT.
Exit code 0 when nothing was lost, no instance completed twice and every fault was survived.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUNNER = ROOT / "conformance-tests" / "runner"
sys.path.insert(0, str(RUNNER))

import harness  # noqa: E402
# the parts: soak_cluster.py (the secured cluster, the faults), soak_memory.py (RSS and what it is made of)
from soak_cluster import FAULTS, Faults, SecureCluster  # noqa: E402
from soak_memory import NODE_RUNTIME_JS, java_pid, java_runtime, node_runtime, pct, tree_rss_mb  # noqa: E402

SDKS = ["go", "node", "python", "java"]

BPMN = """<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="x">
  <bpmn:process id="PROC" isExecutable="true">
    <bpmn:startEvent id="start"/>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="task"/>
    <bpmn:serviceTask id="task"><bpmn:extensionElements><zeebe:taskDefinition type="PROC"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="task" targetRef="end"/>
    <bpmn:endEvent id="end"/>
  </bpmn:process>
</bpmn:definitions>"""


def log(msg: str) -> None:
    print(f"[soak {time.strftime('%H:%M:%S')}] {msg}", flush=True)


# ---------------------------------------------------------------- the soak
class Soak:
    def __init__(self, a):
        self.a = a
        self.out = Path(a.out).resolve()
        self.out.mkdir(parents=True, exist_ok=True)
        self.work = self.out / "work"
        self.work.mkdir(exist_ok=True)
        self.sdks = a.sdks
        self.created: dict[str, dict[str, dict]] = {s: {} for s in self.sdks}  # soakId -> {key, t0}
        self.create_failed = {s: 0 for s in self.sdks}
        self.rss: dict[str, list] = {s: [] for s in self.sdks + ["engine"]}
        self.java_rt: list[dict] = []  # jcmd samples of the Java driver
        self.faults: list[dict] = []
        self.stop_load = threading.Event()
        self.stop_sampling = threading.Event()
        self.drivers: dict[str, harness.Driver] = {}

    # load ---------------------------------------------------------------
    def load(self, sdk: str, idx: int):
        c = self.c
        n, t_next = 0, time.monotonic()
        while not self.stop_load.is_set():
            now = time.monotonic()
            if t_next > now:
                time.sleep(min(t_next - now, 0.2))
                continue
            if now - t_next > 2.0:  # fell behind (a fault blocked creation): steady rate, no catch-up burst
                t_next = now
            t_next += 1.0 / self.a.rate
            sid = f"{sdk}-{n}"
            n += 1
            t0 = time.time() * 1000.0
            req = c.gw_pb.CreateProcessInstanceRequest(bpmnProcessId=f"soak-{sdk}", version=-1,
                                                       variables=json.dumps({"soakId": sid, "t0": t0}))
            try:
                r = c.gw_call("CreateProcessInstance", req, i=idx + n)
                self.created[sdk][sid] = {"key": str(r.processInstanceKey), "t0": t0}
            except Exception as e:  # noqa: BLE001
                self.create_failed[sdk] += 1
                if self.create_failed[sdk] <= 5:
                    log(f"{sdk}: create {sid} failed: {str(e)[:200]}")

    def sample(self):
        next_rt = 0.0
        while not self.stop_sampling.is_set():
            t = time.time()
            if self.a.runtime_every > 0 and t >= next_rt and "java" in self.drivers:
                next_rt = t + self.a.runtime_every
                jp = java_pid(self.drivers["java"].proc.pid)
                rt = java_runtime(jp) if jp else None
                if rt:
                    self.java_rt.append(rt)
            for s, d in self.drivers.items():
                if d.proc.poll() is None:
                    self.rss[s].append((t, round(tree_rss_mb(d.proc.pid), 1)))
            if self.c.proc and self.c.proc.poll() is None:
                self.rss["engine"].append((t, round(tree_rss_mb(self.c.pid()), 1)))
            self.stop_sampling.wait(self.a.sample_every)

    # main ---------------------------------------------------------------
    def run(self) -> dict:
        a = self.a
        log(f"soak: {a.minutes} min, SDKs {','.join(self.sdks)}, faults {','.join(a.faults)} every {a.fault_every} s, "
            f"{a.rate} instances/s per SDK, out {self.out}")
        # every instance of the run must stay visible to ListProcessInstances (the brokers keep 1000
        # finished instances per partition by default; older ones would look lost)
        self.history = int(max(10000, 1.5 * a.rate * len(self.sdks) * a.minutes * 60 / 6))
        self.c = SecureCluster(self.work, a.token_ttl, self.history)
        log(f"cluster: gateways {','.join(self.c.gateways)} admin {self.c.admin_address} token {self.c.token_url}")
        try:
            return self._run()
        finally:
            self.stop_load.set()
            self.stop_sampling.set()
            for d in self.drivers.values():
                try:
                    d.close(timeout=10)
                except Exception:  # noqa: BLE001
                    pass
            self.c.stop()
            harness.kill_all()

    def _run(self) -> dict:
        a, c = self.a, self.c
        for s in self.sdks:
            c.gw_call("DeployResource", c.gw_pb.DeployResourceRequest(resources=[c.gw_pb.Resource(
                name=f"soak-{s}.bpmn", content=BPMN.replace("PROC", f"soak-{s}").encode())]))
        env = c.driver_env()
        for s in self.sdks:
            run = ROOT / "conformance-tests" / "drivers" / s / "run"
            e = dict(env)
            if a.runtime_every > 0 and s == "node":
                # the driver's own memory counters (read only; tools/soak/node-runtime.js)
                e["NODE_OPTIONS"] = (e.get("NODE_OPTIONS", "") + f" --require {NODE_RUNTIME_JS}").strip()
                e["SOAK_NODE_RUNTIME_FILE"] = str(self.work / "node-runtime.jsonl")
                (self.work / "node-runtime.jsonl").unlink(missing_ok=True)
            if a.runtime_every > 0 and s == "java":
                # native memory tracking (summary), read with jcmd: what the JVM's RSS is made of
                e["JAVA_TOOL_OPTIONS"] = (e.get("JAVA_TOOL_OPTIONS", "") + " -XX:NativeMemoryTracking=summary").strip()
            if a.java_heap_mb > 0 and s == "java":
                # A fixed, pre-touched heap, as a container deployment sizes it. Left to itself the JVM sizes
                # its heap from the machine (378 MB with a 113 MB young generation on 24 GiB) and touches the
                # young generation page by page until its first GC, about 20 minutes into a soak: RSS then
                # grew 40 % with a live heap of 8 MB (2026-11-26 1-hour run). With the heap fixed and touched
                # at start, RSS growth is what lies outside the heap, and the heap's own use after GC is in
                # runtime.samples (old_used_mb).
                e["JAVA_TOOL_OPTIONS"] = (e.get("JAVA_TOOL_OPTIONS", "") +
                                          f" -Xms{a.java_heap_mb}m -Xmx{a.java_heap_mb}m -XX:+AlwaysPreTouch").strip()
            self.drivers[s] = harness.Driver([str(run)], e, self.work / f"driver-{s}.log")
        for s, d in self.drivers.items():
            d.wait_event(lambda e: e["event"] == "ready", 300, f"{s} driver ready")
            d.send(cmd="start_worker", id="w", jobType=f"soak-{s}",
                   options={"maxJobsActive": 32, "jobTimeoutMs": a.job_timeout_ms, "streamEnabled": True},
                   behavior=[{"sleep": a.handler_ms}])
            d.wait_event(lambda e: e["event"] == "worker_started", 60, f"{s} worker started")
        log("workers started: " + ", ".join(f"{s} {d.snapshot()[0].get('version', '?')}" for s, d in self.drivers.items()))
        sampler = threading.Thread(target=self.sample, daemon=True)
        sampler.start()
        self.t_start = time.time()
        loaders = [threading.Thread(target=self.load, args=(s, i), daemon=True) for i, s in enumerate(self.sdks)]
        for t in loaders:
            t.start()
        duration = a.minutes * 60.0
        fk = Faults(c, self.sdks)
        k = 0
        while True:
            next_fault = self.t_start + (k + 1) * a.fault_every
            if next_fault > self.t_start + duration - 5 or not a.faults:
                break
            time.sleep(max(0.0, next_fault - time.time()))
            kind = a.faults[k % len(a.faults)]
            f = {"n": k + 1, "kind": kind, "at_s": round(time.time() - self.t_start, 1)}
            log(f"fault {k + 1}: {kind}")
            t0 = time.time()
            try:
                f["detail"] = fk.run(kind, k)
                f["ok"] = True
            except Exception as e:  # noqa: BLE001
                f["ok"], f["error"] = False, str(e)[:300]
                log(f"fault {kind} could not be injected: {e}")
            f["end_s"] = round(time.time() - self.t_start, 1)
            f["took_s"] = round(time.time() - t0, 1)
            self.faults.append(f)
            k += 1
        time.sleep(max(0.0, self.t_start + duration - time.time()))
        self.stop_load.set()
        for t in loaders:
            t.join(60)
        self.t_load_end = time.time()
        log(f"load stopped: created {sum(len(v) for v in self.created.values())}; draining (≤ {a.drain_s} s)")
        # drain: every created instance completed (the engine's view)
        end = time.monotonic() + a.drain_s
        while True:
            left = self._not_completed()
            if left == 0 or time.monotonic() > end:
                break
            time.sleep(2)
        self.t_drained = time.time()
        log(f"drained ({left} not completed)")
        time.sleep(a.sample_every)  # one more RSS sample at rest
        self.stop_sampling.set()
        sampler.join(10)
        return self.report()

    def _not_completed(self) -> int:
        n = 0
        for s in self.sdks:
            r = self.c.a("ListProcessInstances", self.c.ad_pb.ListProcessInstancesRequest(bpmn_process_id=f"soak-{s}"))
            n += len(self.created[s]) - r.counts_by_state.get("COMPLETED", 0)
        return max(n, 0)

    # report -------------------------------------------------------------
    def report(self) -> dict:
        a, c = self.a, self.c
        ad = c.ad_pb
        per_sdk = {}
        warm_at = self.t_start + a.warmup_s
        for s in self.sdks:
            r = c.a("ListProcessInstances", ad.ListProcessInstancesRequest(bpmn_process_id=f"soak-{s}",
                                                                            include_instances=True))
            by_key = {str(i.key): i for i in r.instances}
            completed_state = ad.ProcessInstanceState.Value("PROCESS_INSTANCE_STATE_COMPLETED")
            lost, twice = [], 0
            # the history of one partition is bounded (--history, 10000): a long run must fit in it
            for sid, x in self.created[s].items():
                inst = by_key.get(x["key"])
                if inst is None or inst.state != completed_state or inst.completion_count < 1:
                    lost.append(sid)
            for i in r.instances:
                if i.completion_count > 1:
                    twice += 1
            acked = {x["key"] for x in self.created[s].values()}
            unacked = [k for k in by_key if k not in acked]  # created by a request whose answer was lost
            unacked_not_done = [k for k in unacked if by_key[k].completion_count < 1]
            evs = self.drivers[s].snapshot()
            starts: dict[str, int] = {}  # soakId -> handler starts
            key_starts: dict[str, int] = {}  # job key -> handler starts (more than one: a redelivery)
            keys_of: dict[str, set] = {}  # soakId -> job keys (more than one: the load generator's retried
            # create made a second instance, its first answer lost in a fault; not a redelivery)
            lat_by_min: dict[int, list[float]] = {}
            done_by_min: dict[int, int] = {}
            completed_after: list[float] = []
            errors = []
            for e in evs:
                if e["event"] == "job_start":
                    try:
                        v = json.loads(e.get("variables") or "{}")
                    except ValueError:
                        v = {}
                    sid = v.get("soakId")
                    if sid is None:
                        continue
                    starts[sid] = starts.get(sid, 0) + 1
                    k = str(e.get("key"))
                    key_starts[k] = key_starts.get(k, 0) + 1
                    keys_of.setdefault(sid, set()).add(k)
                    t = e["t"] / 1000.0
                    m = int((t - self.t_start) // 60)
                    if starts[sid] == 1 and isinstance(v.get("t0"), (int, float)):
                        lat_by_min.setdefault(m, []).append(e["t"] - v["t0"])
                elif e["event"] == "job_end" and e.get("outcome") == "completed":
                    t = e["t"] / 1000.0
                    completed_after.append(t)
                    m = int((t - self.t_start) // 60)
                    done_by_min[m] = done_by_min.get(m, 0) + 1
                elif e["event"] == "error":
                    errors.append({"t_s": round(e["t"] / 1000.0 - self.t_start, 1), "code": e.get("code"),
                                   "message": str(e.get("message"))[:200]})
            dups = {k: n for k, n in key_starts.items() if n > 1}
            two_instances = sorted(sid for sid, ks in keys_of.items() if len(ks) > 1)
            samples = self.rss[s]
            after = [v for t, v in samples if t >= warm_at] or [v for _, v in samples]
            settled = [v for t, v in samples if t >= self.t_start + a.settle_s]
            # start = first sample after the warm-up (the measure: flat = end <= start + 20 %);
            # first_sample_mb is the raw first sample; settled_mb the first after --settle-s, reported
            # beside it (end_vs_settled_pct), never instead of it
            rss = {"start_mb": after[0] if after else None, "peak_mb": max(after) if after else None,
                   "end_mb": samples[-1][1] if samples else None,
                   "first_sample_mb": samples[0][1] if samples else None,
                   "settled_mb": settled[0] if settled else None}
            if rss["start_mb"] and rss["end_mb"] is not None:
                rss["end_vs_start_pct"] = round(100.0 * (rss["end_mb"] - rss["start_mb"]) / rss["start_mb"], 1)
                rss["flat"] = rss["end_mb"] <= rss["start_mb"] * 1.2
            if rss["first_sample_mb"] and rss["end_mb"] is not None:
                rss["end_vs_first_sample_pct"] = round(100.0 * (rss["end_mb"] - rss["first_sample_mb"]) / rss["first_sample_mb"], 1)
            if rss["settled_mb"] and rss["end_mb"] is not None:
                rss["end_vs_settled_pct"] = round(100.0 * (rss["end_mb"] - rss["settled_mb"]) / rss["settled_mb"], 1)
            runtime = None
            if s == "node" and a.runtime_every > 0:
                runtime = {"what": "the Node driver's own counters (tools/soak/node-runtime.js) per minute: heap used at "
                                   "its lowest in the minute (≈ live heap after a GC), heap size, JIT code, external, RSS",
                           "per_minute": node_runtime(self.work / "node-runtime.jsonl", self.t_start)}
            if s == "java" and a.runtime_every > 0:
                runtime = {"what": "jcmd GC.heap_info + VM.native_memory summary (native memory tracking on) of the "
                                   f"Java driver every {a.runtime_every:g} s; MB, t_s from the start of the load",
                           "samples": [dict(x, t=None, t_s=round(x["t"] - self.t_start, 1)) for x in self.java_rt]}
                for x in runtime["samples"]:
                    x.pop("t")
            per_min = [{"minute": m, "p50_ms": pct(lat_by_min.get(m, []), 0.5), "p99_ms": pct(lat_by_min.get(m, []), 0.99),
                        "max_ms": pct(lat_by_min.get(m, []), 1.0), "started": len(lat_by_min.get(m, [])),
                        "completed": done_by_min.get(m, 0)}
                       for m in range(int(a.minutes + 0.999) + 2) if m in lat_by_min or m in done_by_min]
            per_sdk[s] = {
                "version": next((e.get("version") for e in evs if e["event"] == "ready"), None),
                "created": len(self.created[s]), "create_failed": self.create_failed[s],
                "completed": len(self.created[s]) - len(lost),
                "lost": len(lost), "lost_ids": lost[:50],
                "completed_more_than_once": twice,
                "unacknowledged_creates": len(unacked), "unacknowledged_not_completed": len(unacked_not_done),
                "handler_starts": sum(starts.values()), "duplicate_handler_starts": sum(n - 1 for n in dups.values()),
                "jobs_with_duplicate_starts": len(dups),
                "soak_ids_with_two_instances": len(two_instances), "soak_ids_with_two_instances_sample": two_instances[:10],
                "errors_reported": len(errors), "errors_sample": errors[:10],
                "driver_alive_at_end": self.drivers[s].proc.poll() is None,
                "rss": rss, "rss_samples": samples, "runtime": runtime,
                "latency_per_minute": per_min,
                "_completed_at": completed_after,
            }
        # faults survived: every SDK completed a job after the fault ended and before the next one
        ends = [f["at_s"] for f in self.faults[1:]] + [self.t_load_end - self.t_start + a.drain_s]
        for f, nxt in zip(self.faults, ends):
            f["recovered_s"] = {}
            for s in self.sdks:
                ts = [t - self.t_start for t in per_sdk[s]["_completed_at"] if t - self.t_start > f["end_s"]]
                first = min(ts) if ts else None
                f["recovered_s"][s] = round(first - f["end_s"], 1) if first is not None and first <= nxt else None
            f["survived"] = bool(f.get("ok")) and all(v is not None for v in f["recovered_s"].values())
        for s in self.sdks:
            per_sdk[s].pop("_completed_at")
        eng = self.rss["engine"]
        after = [v for t, v in eng if t >= warm_at] or [v for _, v in eng]
        res = {
            "config": {"minutes": a.minutes, "sdks": self.sdks, "faults": a.faults, "fault_every_s": a.fault_every,
                       "rate_per_sdk": a.rate, "handler_ms": a.handler_ms, "job_timeout_ms": a.job_timeout_ms,
                       "warmup_s": a.warmup_s, "settle_s": a.settle_s, "java_heap_mb": a.java_heap_mb, "runtime_every_s": a.runtime_every,
                       "token_ttl": a.token_ttl,
                       "cluster": "2 gateways, 3 brokers, 6 partitions; TLS + mTLS + JWT (OAuth) + admin token",
                       "history_per_partition": self.history,
                       "load_average_at_end": os.getloadavg(), "cpus": os.cpu_count()},
            "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.t_start)),
            "load_s": round(self.t_load_end - self.t_start, 1),
            "drain_s": round(self.t_drained - self.t_load_end, 1),
            "sdks": per_sdk,
            "engine": {"rss": {"start_mb": after[0] if after else None, "peak_mb": max(after) if after else None,
                               "end_mb": eng[-1][1] if eng else None}, "rss_samples": eng,
                       "what": "supervisor + 3 brokers + 2 gateways (process tree)"},
            "faults": self.faults,
        }
        res["summary"] = {
            "created": sum(v["created"] for v in per_sdk.values()),
            "lost": sum(v["lost"] for v in per_sdk.values()),
            "completed_more_than_once": sum(v["completed_more_than_once"] for v in per_sdk.values()),
            "duplicate_handler_starts": sum(v["duplicate_handler_starts"] for v in per_sdk.values()),
            "faults_injected": len(self.faults),
            "faults_survived": sum(1 for f in self.faults if f["survived"]),
            "memory_flat": {s: v["rss"].get("flat") for s, v in per_sdk.items()},
        }
        res["ok"] = (res["summary"]["lost"] == 0 and res["summary"]["completed_more_than_once"] == 0
                     and res["summary"]["faults_survived"] == len(self.faults)
                     and all(v["driver_alive_at_end"] and v["created"] > 0 for v in per_sdk.values()))
        return res


def main(argv=None) -> int:
    env = os.environ
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--minutes", type=float, default=float(env.get("SOAK_MINUTES", "10")))
    ap.add_argument("--sdks", default=env.get("SOAK_SDKS", ",".join(SDKS)))
    ap.add_argument("--faults", default=env.get("SOAK_FAULTS", ",".join(FAULTS)))
    ap.add_argument("--fault-every", type=float, default=float(env.get("SOAK_FAULT_EVERY_S", "60")))
    ap.add_argument("--rate", type=float, default=float(env.get("SOAK_RATE", "4")), help="instances/s per SDK")
    ap.add_argument("--handler-ms", type=int, default=20)
    ap.add_argument("--job-timeout-ms", type=int, default=20000)
    ap.add_argument("--warmup-s", type=float, default=None, help="RSS 'start' is the first sample after this (default: min(60, a tenth of the run))")
    ap.add_argument("--settle-s", type=float, default=None,
                    help="also report RSS end vs the first sample after this (default: min(600, a sixth of the run)); "
                         "the issue's flat measure stays end vs start (after --warmup-s)")
    ap.add_argument("--runtime-every", type=float, default=60.0,
                    help="Java: jcmd heap + native memory summary every this many s (NMT on); Node: the driver's "
                         "memory counters (preload, every 5 s). 0 = off")
    ap.add_argument("--java-heap-mb", type=int, default=int(env.get("SOAK_JAVA_HEAP_MB", "64")),
                    help="Java driver: fixed, pre-touched heap of this size (-Xms = -Xmx, AlwaysPreTouch); 0 = the JVM's "
                         "own sizing from the machine's memory")
    ap.add_argument("--drain-s", type=float, default=90)
    ap.add_argument("--sample-every", type=float, default=2.0)
    ap.add_argument("--token-ttl", default="90s", help="lifetime of the cluster's tokens (they expire and refresh during the run too)")
    ap.add_argument("--out", default=env.get("SOAK_OUT", str(ROOT / "tools" / "soak" / "results" / "latest")))
    ap.add_argument("--no-plot", action="store_true")
    a = ap.parse_args(argv)
    a.sdks = [s for s in a.sdks.split(",") if s]
    a.faults = [f for f in a.faults.split(",") if f]
    bad = [f for f in a.faults if f not in FAULTS] + [s for s in a.sdks if s not in SDKS]
    if bad:
        ap.error(f"unknown: {bad}; faults are {FAULTS}, SDKs {SDKS}")
    if a.warmup_s is None:
        a.warmup_s = min(60.0, a.minutes * 6.0)
    if a.settle_s is None:
        a.settle_s = min(600.0, a.minutes * 10.0)
    if not harness.ENGINE_BIN.exists():
        ap.error(f"{harness.ENGINE_BIN} missing: make engine")
    res = Soak(a).run()
    out = Path(a.out)
    (out / "soak.json").write_text(json.dumps(res, indent=1) + "\n")
    s = res["summary"]
    log(f"created {s['created']}, lost {s['lost']}, completed twice {s['completed_more_than_once']}, "
        f"duplicate handler starts {s['duplicate_handler_starts']}, faults survived {s['faults_survived']}/{s['faults_injected']}")
    for name, v in res["sdks"].items():
        r = v["rss"]
        log(f"  {name:6} created {v['created']:5} lost {v['lost']} dup starts {v['duplicate_handler_starts']:3} "
            f"RSS first/start/settled/peak/end {r['first_sample_mb']}/{r['start_mb']}/{r['settled_mb']}/{r['peak_mb']}/{r['end_mb']} MB "
            f"(end vs start {r.get('end_vs_start_pct')} %, vs settled {r.get('end_vs_settled_pct')} %), "
            f"p99 per minute {[m['p99_ms'] for m in v['latency_per_minute']]}")
    e = res["engine"]["rss"]
    log(f"  engine RSS start/peak/end {e['start_mb']}/{e['peak_mb']}/{e['end_mb']} MB")
    for f in res["faults"]:
        log(f"  fault {f['n']} {f['kind']} at {f['at_s']} s: {'survived' if f['survived'] else 'NOT survived'} "
            f"(recovered after {f['recovered_s']} s) {f.get('detail') or f.get('error')}")
    if not a.no_plot:
        subprocess.run([str(ROOT / "bench" / "bootstrap.sh")], check=True)
        subprocess.run([str(ROOT / "bench" / ".venv" / "bin" / "python"), str(Path(__file__).with_name("plot.py")),
                        str(out / "soak.json"), str(out / "soak.png")], check=True)
        log(f"wrote {out / 'soak.json'} and {out / 'soak.png'}")
    else:
        log(f"wrote {out / 'soak.json'}")
    return 0 if res["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
