"""`make interop`: every official client, unchanged, against `jobwire-engine dev` and `cluster`.

    interop.py [--clients go,node,python,java] [--engines dev,cluster] [--modes poll,push]
               [--instances 1000] [--out DIR] [--junit FILE]

For each client x engine x mode, the client's bench driver (bench/DRIVERS.md, "interop") does
everything with the official client and its default settings (@camunda8/sdk compresses every call
with gzip): it deploys a one-task BPMN, creates the instances (32 create calls in flight) and
completes every job with a worker (poll: long polling; push: the client's job streaming). The
harness only starts the engine (127.0.0.1, free ports, always stopped) and checks the outcome
through the engine's admin API: every instance of the process COMPLETED, none active or in an
incident, and the worker handled exactly as many jobs as there were instances. On the cluster
(3 brokers, 2 gateways, 6 partitions) the clients alternate between the two gateways.

Writes <out>/interop.json and <out>/interop.md (time per client x engine x mode), JUnit XML with
--junit, prints progress, and exits non-zero if any case failed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any, Dict, List

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "engine-reference" / "cluster"))
import bench  # noqa: E402
from jobwire_cluster import JobwireCluster, load_admin_stubs  # noqa: E402

OFFICIAL = {"go": "go-official", "node": "node-official", "python": "python-official", "java": "java-official"}


def log(msg: str) -> None:
    print(f"[interop {time.strftime('%H:%M:%S')}] {msg}", flush=True)


class Target:
    """A fresh engine: `dev` (bench.Engine, fsync on) or the multi-process `cluster`."""

    def __init__(self, kind: str, work: Path) -> None:
        self.kind = kind
        if kind == "dev":
            self._eng = bench.Engine("jobwire", work)
            self.gateways = [self._eng.address]
            self.admin_address = self._eng.address
            self.label = self._eng.label
        else:
            self._eng = JobwireCluster(gateways=2, brokers=3, partitions=6, engine_bin=bench.ENGINE_BIN).start()
            self.gateways = list(self._eng.gateways)
            self.admin_address = self._eng.admin_address
            self.label = "jobwire-engine cluster (3 brokers, 2 gateways, 6 partitions)"

    def stop(self) -> None:
        self._eng.stop()


def counts(admin: Any, pb: Any, pid: str) -> Dict[str, int]:
    r = admin.ListProcessInstances(pb.ListProcessInstancesRequest(bpmn_process_id=pid), timeout=10)
    return dict(r.counts_by_state)


def run_case(t: Target, admin: Any, pb: Any, lang: str, mode: str, n: int, gw: str, work: Path,
             timeout: float) -> Dict[str, Any]:
    jt = bench.new_type(f"interop-{lang}-{mode}")
    pid = f"interop_{lang}_{mode}_{int(time.time() * 1000) % 1000000}"
    f = work / f"{pid}.bpmn"
    f.write_text(bench.bpmn(pid, [jt]))
    row: Dict[str, Any] = {"client": OFFICIAL[lang], "engine": t.kind, "mode": mode, "instances": n, "gateway": gw}
    t0 = time.time()
    d = bench.Driver(OFFICIAL[lang], gw, [{"jobType": jt, "mode": mode, "capacity": 32}], work,
                     extra={"interop": {"deploy": str(f), "processId": pid, "count": n, "inflight": 32}})
    row["version"] = d.version
    try:
        end = time.time() + timeout
        c: Dict[str, int] = {}
        while time.time() < end:
            if d.proc.poll() is not None:
                raise RuntimeError(f"driver exited ({d.proc.returncode}): {d.tail()}")
            cr = d.events.get("created")
            if cr is not None and (cr.get("count") != n):
                raise RuntimeError(f"created {cr.get('count')} of {n}: {cr.get('error', '')}")
            if cr is not None:
                c = counts(admin, pb, pid)
                if c.get("COMPLETED", 0) >= n and d.jobs >= n:
                    break
            time.sleep(0.1)
        else:
            raise RuntimeError(f"timed out after {timeout:.0f}s: instances {c}, worker handled {d.jobs}, "
                               f"created {d.events.get('created')}")
        row["seconds"] = round(time.time() - t0, 2)
        row["createMs"] = d.events["created"].get("ms")
        time.sleep(0.3)  # a duplicate completion would show up now
        c = counts(admin, pb, pid)
    finally:
        done = d.stop()
    row["counts"] = c
    row["workerJobs"] = int(done.get("jobs", d.jobs))
    problems = []
    if c.get("COMPLETED", 0) != n or sum(c.values()) != n:
        problems.append(f"instances by state {c}, want {n} COMPLETED and nothing else")
    if row["workerJobs"] != n:
        problems.append(f"the worker handled {row['workerJobs']} jobs, want {n}")
    if problems:
        raise RuntimeError("; ".join(problems))
    row["instancesPerS"] = round(n / row["seconds"], 1)
    return row


def markdown(res: Dict[str, Any]) -> str:
    rows = res["rows"]
    md = ["# Official clients against jobwire-engine (`make interop`)", "",
          f"Generated {res['date']} on {res['machine']}; load average at start {res['load']}. "
          f"{res['instances']} instances per case; each case: the client deploys, creates the instances "
          "(32 in flight) and completes every job with its worker, default settings; checked through the "
          "admin API (all COMPLETED, nothing else) and the worker's own count. Time = driver start → all "
          "completed (includes the client's start-up: a JVM, Node, Python).", "",
          "| client | version | engine | mode | result | seconds | instances/s | create ms |",
          "|---|---|---|---|---|---:|---:|---:|"]
    for r in rows:
        ok = "passed" if not r.get("error") else f"FAILED: {r['error'][:200]}"
        md.append(f"| {r['client']} | {r.get('version', '')} | {r['engine']} | {r['mode']} | {ok} | "
                  f"{r.get('seconds', '')} | {r.get('instancesPerS', '')} | {r.get('createMs', '')} |")
    md += ["", "Engines: " + "; ".join(f"{k}: {v}" for k, v in res["engines"].items()), ""]
    return "\n".join(md) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", default="go,node,python,java")
    ap.add_argument("--engines", default="dev,cluster")
    ap.add_argument("--modes", default="poll,push")
    ap.add_argument("--instances", type=int, default=1000)
    ap.add_argument("--timeout", type=float, default=300, help="seconds per case")
    ap.add_argument("--out", default=str(HERE / "results" / "interop"))
    ap.add_argument("--junit", default="")
    a = ap.parse_args()
    langs = [x for x in a.clients.split(",") if x]
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    bench.build([OFFICIAL[x] for x in langs], ["jobwire"])
    pb, stubs = load_admin_stubs(os.environ.get("JOBWIRE_PROTOC_PYTHON"))
    import grpc
    work = Path(tempfile.mkdtemp(prefix="jobwire-interop-"))
    res: Dict[str, Any] = {"date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                           "machine": bench.machine(), "load": " ".join(f"{x:.1f}" for x in os.getloadavg()),
                           "instances": a.instances, "engines": {}, "rows": []}
    t_all = time.time()
    for kind in [x for x in a.engines.split(",") if x]:
        log(f"starting {kind}")
        t = Target(kind, work)
        res["engines"][kind] = t.label
        ch = grpc.insecure_channel(t.admin_address)
        admin = stubs.AdminServiceStub(ch)
        try:
            i = 0
            for lang in langs:
                for mode in [x for x in a.modes.split(",") if x]:
                    gw = t.gateways[i % len(t.gateways)]
                    i += 1
                    log(f"{kind} {OFFICIAL[lang]} {mode}: {a.instances} instances via {gw}")
                    try:
                        row = run_case(t, admin, pb, lang, mode, a.instances, gw, work, a.timeout)
                        log(f"  ok in {row['seconds']} s ({row['instancesPerS']} instances/s)")
                    except Exception as e:  # noqa: BLE001 - recorded, the matrix goes on
                        row = {"client": OFFICIAL[lang], "engine": kind, "mode": mode, "instances": a.instances,
                               "gateway": gw, "error": str(e)[:1500]}
                        log(f"  FAILED: {str(e)[:500]}")
                    res["rows"].append(row)
        finally:
            ch.close()
            t.stop()
    res["seconds"] = round(time.time() - t_all, 1)
    (out / "interop.json").write_text(json.dumps(res, indent=1) + "\n")
    (out / "interop.md").write_text(markdown(res))
    log(f"wrote {out / 'interop.md'} ({res['seconds']} s)")
    if a.junit:
        suite = ET.Element("testsuite", name="interop", tests=str(len(res["rows"])),
                           failures=str(sum(1 for r in res["rows"] if r.get("error"))))
        for r in res["rows"]:
            tc = ET.SubElement(suite, "testcase", classname=f"interop.{r['engine']}",
                               name=f"{r['client']}-{r['mode']}", time=str(r.get("seconds", 0)))
            if r.get("error"):
                ET.SubElement(tc, "failure", message=r["error"][:300]).text = r["error"]
        ET.ElementTree(suite).write(a.junit, encoding="unicode", xml_declaration=True)
    return 1 if any(r.get("error") for r in res["rows"]) else 0


if __name__ == "__main__":
    sys.exit(main())
