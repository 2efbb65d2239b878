#!/usr/bin/env python3
"""Draws soak.png from soak.json (run with bench's pinned matplotlib: bench/.venv, bench/bootstrap.sh).
Three panels sharing the time axis (minutes since the load began), faults as vertical lines:
activation latency p99 per minute per SDK, client RSS per SDK, engine RSS."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(src: str, dst: str) -> None:
    r = json.loads(Path(src).read_text())
    sdks = r["sdks"]
    t0 = None
    for v in list(sdks.values()) + [r["engine"]]:
        for t, _ in v["rss_samples"][:1]:
            t0 = t if t0 is None else min(t0, t)
    import calendar
    import time
    start = calendar.timegm(time.strptime(r["started"], "%Y-%m-%dT%H:%M:%SZ"))
    fig, ax = plt.subplots(3, 1, figsize=(11, 10), sharex=True)
    for name, v in sdks.items():
        mins = [m["minute"] + 0.5 for m in v["latency_per_minute"] if m["p99_ms"] is not None]
        p99 = [m["p99_ms"] for m in v["latency_per_minute"] if m["p99_ms"] is not None]
        ax[0].plot(mins, p99, marker="o", label=f"{name} (lost {v['lost']}, dup starts {v['duplicate_handler_starts']})")
        xs = [(t - start) / 60.0 for t, _ in v["rss_samples"]]
        ax[1].plot(xs, [y for _, y in v["rss_samples"]], label=f"{name}: {v['rss']['start_mb']} → {v['rss']['end_mb']} MB")
    eng = r["engine"]["rss_samples"]
    ax[2].plot([(t - start) / 60.0 for t, _ in eng], [y for _, y in eng], color="black", label="engine (5 processes + supervisor)")
    for a in ax:
        for f in r["faults"]:
            a.axvline(f["at_s"] / 60.0, color="red" if not f.get("survived") else "grey", linestyle=":", linewidth=1)
    for f in r["faults"]:
        ax[0].annotate(f["kind"].replace("_", " "), (f["at_s"] / 60.0, 0.03), xycoords=("data", "axes fraction"),
                       rotation=90, va="bottom", ha="right", fontsize=7, color="grey")
    ax[0].set_yscale("log")
    ax[0].set_ylabel("activation latency p99 (ms)")
    ax[1].set_ylabel("client RSS (MB)")
    ax[2].set_ylabel("engine RSS (MB)")
    ax[2].set_xlabel("minutes since the load began (dotted: faults; red: not survived)")
    s = r["summary"]
    fig.suptitle(f"jobwire soak {r['started']}: {r['config']['minutes']} min, created {s['created']}, lost {s['lost']}, "
                 f"faults survived {s['faults_survived']}/{s['faults_injected']}", fontsize=11)
    for a in ax:
        a.grid(alpha=0.3)
        a.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig(dst, dpi=90)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
