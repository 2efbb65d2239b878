"""The bench's report (bench.py): the targets, the plots and the results page.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from bench_rig import CLIENTS, DEFAULT_PARTITIONS, FLOOR, LANGS, OFFICIAL_NAME, ZEEBE_HISTORY
from bench_workloads import IDLE_MODES, MIXED_MODES

RESULTS = (Path(__file__).resolve().parent / "results").resolve()
REPO = RESULTS.parents[1]


def _rel(p: Path) -> str:
    """p relative to the repository when it is inside it (the command a page prints), else as given."""
    try:
        return str(p.resolve().relative_to(REPO))
    except ValueError:
        return str(p)

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
                out.append((f"{lang} {mode} ({eng}): jobs/s ≥ 1.0× official", f"{fmt(t, 2)}×", "yes" if t and t >= 1.0 else "no"))
                out.append((f"{lang} {mode} ({eng}): worker CPU/job ≤ 1.0× official", f"{fmt(c, 2)}×", "yes" if c is not None and c <= 1.0 else "no"))
    w9 = [r for r in rows if r["workload"] == 9]
    ref = next((r for r in w9 if r["client"] == "go-official"), None)
    for r in w9:
        if r["client"].endswith("-jobwire") and ref and r.get("waitMaxMs") is not None and ref.get("waitMaxMs") is not None:
            out.append((f"{r['client']} ({r['engine']}): max wait under push overload ≤ go-official's",
                        f"{fmt(r['waitMaxMs'])} vs {fmt(ref['waitMaxMs'])} ms", "yes" if r["waitMaxMs"] <= ref["waitMaxMs"] else "no"))
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

    matplotlib.use("svg")
    import matplotlib.pyplot as plt

    # SVG, small and diffable, and the same bytes for the same rows: a fixed id salt, text kept as
    # text (no glyph paths), no date in the metadata
    matplotlib.rcParams.update({"svg.hashsalt": "jobwire-bench", "svg.fonttype": "none"})
    made = []
    rows = [r for r in rows if "error" not in r]

    def save(fig: Any, name: str) -> None:
        fig.tight_layout()
        fig.savefig(out / name, format="svg", metadata={"Date": None})
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
            save(fig, f"w1-{fname}-{eng}.svg")
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
        save(fig, f"w2-latency-{eng}.svg")
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
        save(fig, "w3-idle.svg")
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
        save(fig, "w4-mixed.svg")
    w5 = [r for r in rows if r["workload"] == 5]
    for eng in sorted({r["engine"] for r in w5}):
        fig, ax = plt.subplots(figsize=(8, 3.6))
        for r in (r for r in w5 if r["engine"] == eng):
            ax.plot([s[0] for s in r["rssSamples"]], [s[1] for s in r["rssSamples"]], label=r["client"])
        ax.set_xlabel("s since the slow worker started")
        ax.set_ylabel("slow worker RSS (MB)")
        ax.set_title(f"Workload 5 — slow worker memory, backlog of {w5[0]['backlog']} × {w5[0]['padKb']} KiB — {eng}")
        ax.legend(fontsize=7)
        save(fig, f"w5-rss-{eng}.svg")
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
        save(fig, "w6-scaling.svg")
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


def markdown(res: Dict[str, Any], made: List[str], out: Optional[Path] = None) -> str:
    """The page. Its plots are linked only where they are committed: in bench/results/ (the
    default --out); a run elsewhere (bench/results/rerun-*) keeps only its JSON and this page, whose
    Plots section then says how to draw them."""
    failed = [r for r in res["rows"] if "error" in r]
    rows = [r for r in res["rows"] if "error" not in r]
    L = [f"# `make bench` — latest run", "",
         f"- date: {res['date']}", f"- machine: {res['machine']}", f"- load average at start: {res['loadavg']}",
         f"- command: `{res['command']}` ({res['seconds']:.0f} s)",
         f"- engines: " + "; ".join(f"**{k}** = {v}" for k, v in res["engines"].items()),
         f"- official clients: " + ", ".join(f"{k}: {v}" for k, v in OFFICIAL_NAME.items()),
         "", "Numbers come from one run on one machine (its load average at start is above): compare **ratios within this run**, "
         "not absolute values across runs. Client CPU is user + sys of the worker process alone (the load generator is "
         "another process); peak RSS is the worker's VmHWM.", ""]
    w1 = [r for r in rows if r["workload"] == 1]
    if w1:
        L += ["## 1. Closed loop: throughput, latency, client cost", "",
              f"{res['params'].get('w1', '')}", "",
              "| engine | client | mode | jobs/s | p50 ms | p99 ms | worker CPU ms/job | engine CPU ms/job | peak RSS MB | all handled | jobs/s of each round | worker CPU ms/job of each round |",
              "|---|---|---|---:|---:|---:|---:|---:|---:|---|---|---|"]
        for r in w1:
            each = " / ".join(f"{x:.0f}" for x in r.get("jobsPerSRuns") or [])
            cpus = " / ".join(f"{x:.3f}" for x in r.get("cpuRuns") or [])
            L.append(f"| {r['engine']} | {r['client']} | {r['mode']} | {r['jobsPerS']:.0f} | {r['p50Ms']:.1f} | {r['p99Ms']:.1f} | "
                     f"{r['clientCpuMsPerJob']:.3f} | {r['engineCpuMsPerJob']:.3f} | {r['peakRssMb']:.0f} | {'yes' if r['allHandled'] and not r['errors'] else 'NO'} | {each} | {cpus} |")
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
              f"`jobwire-engine bench` in the same run: {DEFAULT_PARTITIONS} partitions as every engine of workload 1, fsync on, "
              "the same instances in flight; its load and its worker (a raw gRPC loop) run in the engine's own process. "
              "Efficiency = the client's closed-loop jobs/s on the jobwire engine ÷ this ceiling, same mode. With the load "
              "generator and the worker in processes of their own (workload 1) the three share the 2 cores differently, so "
              "a fraction can exceed 1; the floor's column (`go-raw`, no client library) is the reference a client "
              "library is measured against.", "",
              "| mode | ceiling instances/s | " + " | ".join(c for c in CLIENTS if any(r["client"] == c and r["engine"] == "jobwire" for r in w1)) + " |",
              "|---|---:|" + "---:|" * len([c for c in CLIENTS if any(r["client"] == c and r["engine"] == "jobwire" for r in w1)])]
        # (the floor's column, when measured, is the last: its jobs/s against the ceiling too)
        for r in w7:
            effs = []
            for c in CLIENTS:
                x = next((q for q in w1 if q["client"] == c and q["engine"] == "jobwire" and q["mode"] == r["mode"]), None)
                if any(q["client"] == c and q["engine"] == "jobwire" for q in w1):
                    effs.append(fmt(ratio(x["jobsPerS"] if x else None, r["jobsPerS"]), 2))
            L.append(f"| {r['mode']} | {fmt(r['jobsPerS'], 0)} | " + " | ".join(effs) + " |")
        L.append("")
        floor = [r for r in w1 if r["client"] == FLOOR]
        if floor:
            cs = [c for c in CLIENTS if c != FLOOR and any(q["client"] == c for q in w1)]
            L += [f"Worker CPU per job against the floor: `{FLOOR}`, a worker with no client library (grpc-go and the "
                  "protocol's stubs: activate, Capacity long-lived handler goroutines, CompleteJob; no ledger, retries, telemetry or graceful "
                  "close), in the same run. × = the client's worker CPU per job ÷ the floor's, same mode.", "",
                  "| mode | floor CPU ms/job | floor jobs/s | " + " | ".join(cs) + " |", "|---|---:|---:|" + "---:|" * len(cs)]
            for f in floor:
                xs = []
                for c in cs:
                    x = next((q for q in w1 if q["client"] == c and q["mode"] == f["mode"]), None)
                    xs.append(fmt(ratio(x["clientCpuMsPerJob"] if x else None, f["clientCpuMsPerJob"]), 2))
                L.append(f"| {f['mode']} | {f['clientCpuMsPerJob']:.3f} | {f['jobsPerS']:.0f} | " + " | ".join(xs) + " |")
            L.append("")
    w8 = [r for r in rows if r["workload"] == 8]
    if w8:
        L += ["## 8. Jobs a paused worker parks", "", f"{res['params'].get('w8', '')}", "",
              "Held jobs are activated for the paused worker, out of reach of every other worker: running (handlers "
              "started; a client that ignores its capacity starts more than one) and parked (in transport buffers or the "
              "client's queue); stranded ones stay out of reach after its close until their activation timeout.", "",
              "| engine | client | pad KiB | jobs | held by the worker | running | parked | stranded after close | close s |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
        for r in w8:
            L.append(f"| {r['engine']} | {r['client']} | {r['padKb']} | {r['n']} | {r['held']} | {r['running']} | {r['parked']} | "
                     f"{r['strandedAfterClose']} | {r['closeS']:.2f} |")
        L.append("")
    w9 = [r for r in rows if r["workload"] == 9]
    if w9:
        L += ["## 9. Fairness under push overload", "", f"{res['params'].get('w9', '')}", "",
              "| engine | client | completed | s | jobs/s | wait p50 ms | p99 ms | max ms | jobs waiting > 1 s | worker CPU ms/job |",
              "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for r in w9:
            L.append(f"| {r['engine']} | {r['client']} | {r['completed']} | {r['seconds']:.1f} | {r['jobsPerS']:.0f} | "
                     f"{fmt(r['waitP50Ms'])} | {fmt(r['waitP99Ms'])} | {fmt(r['waitMaxMs'])} | {r['over1s']} | {r['clientCpuMsPerJob']:.3f} |")
        L.append("")
    if failed:
        L += ["## Failed cases", "", "| workload | engine | client | error |", "|---|---|---|---|"]
        L += [f"| {r['workload']} | {r['engine']} | {r['client']} | {r['error'][:300].replace('|', '/')} |" for r in failed]
        L.append("")
    t = targets(rows)
    if t:
        L += ["## Targets (ratios from this run)", "",
              "Never behind the official client (issue 35): jobs/s ≥ 1.0× and worker CPU per job ≤ 1.0× in every closed-loop "
              "cell, and a maximum wait under push overload no longer than the official Go client's; then the older ones "
              "(issue 16): push latency, idle cost, a slow worker's memory.", "", "| target | measured | met |", "|---|---|---|"]
        L += [f"| {a} | {b} | {c} |" for a, b, c in t]
        L.append("")
    if made and (out is None or out.resolve() == RESULTS):
        L += ["## Plots", "",
              "SVG drawn from `bench.json`, committed beside this page (a rerun in another folder keeps only",
              "its `bench.json` and page). Redraw them (after `bench/bootstrap.sh`) with",
              "`bench/.venv/bin/python bench/bench.py --render bench/results/bench.json --out bench/results`.", ""]
        L += [f"![{m}]({m})" for m in made] + [""]
    elif made:
        rel = _rel(out)
        L += ["## Plots", "",
              f"Plots are not committed for reruns (only `bench/results/` keeps its plots): "
              f"`bench/.venv/bin/python bench/bench.py --render {rel}/bench.json --out {rel}` draws them.", ""]
    if ZEEBE_HISTORY.exists():
        L += [ZEEBE_HISTORY.read_text().rstrip("\n"), ""]
    return "\n".join(L)
