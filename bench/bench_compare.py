"""`bench.py --compare GIT_REF` (`make bench BENCH_ARGS="--compare <ref>"`): an A/B run of two builds.

A = the SDKs and bench drivers of GIT_REF, checked out with `git worktree add` under .bench-work/ (ignored)
and built there by their own `run --build-only`; B = the working tree's. Both sides run on the same engine
binary (the working tree's `engine-reference/bin/jobwire-engine`) and the same load generator (the working
tree's), so only the worker differs. Every cell (client x mode, the closed loop of workload 1) runs once per
build per round, A and B back to back on fresh engines, the order alternating per round (A B, B A, A B ...),
so slow drifts of a shared machine fall on both sides. Reported per cell: the median jobs/s and worker CPU
per job of each build and B/A; a cell whose B is slower (jobs/s) or costlier (CPU/job) by more than the
threshold (5 %) is flagged. Exit status 1 only with --fail-over-5pct and a slower cell.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

from bench_rig import CLIENTS, ENGINE_BIN, GO_RUN, HERE, ROOT, Engine, log
from bench_workloads import closed_case

WORK_DIR = ROOT / ".bench-work"


def side_cmd(client: str, bench_dir: Path) -> List[str]:
    """The client's driver command rooted at another checkout's bench/ directory."""
    return [str(bench_dir / Path(p).relative_to(HERE)) if Path(p).is_absolute() and Path(p).is_relative_to(HERE) else p
            for p in CLIENTS[client]]


def order(round_no: int) -> Tuple[str, str]:
    """A B in even rounds (0, 2, ...), B A in odd ones."""
    return ("A", "B") if round_no % 2 == 0 else ("B", "A")


def median(xs: List[float]) -> Optional[float]:
    return statistics.median(xs) if xs else None


def spread(xs: List[float]) -> Optional[float]:
    """Half the range of a side's runs over their median: how far one run strays (the noise of the cell)."""
    m = median(xs)
    return (max(xs) - min(xs)) / 2 / m if xs and m else None


def summarize(runs: List[Dict[str, Any]], threshold: float = 0.05) -> List[Dict[str, Any]]:
    """Per cell (client, mode): medians of each side, B/A ratios and the flags. runs: {"client", "mode", "side",
    "jobsPerS", "clientCpuMsPerJob"} (failed runs carry "error" and count in neither median)."""
    cells: Dict[Tuple[str, str], Dict[str, Any]] = {}
    for r in runs:
        c = cells.setdefault((r["client"], r["mode"]), {"client": r["client"], "mode": r["mode"],
                                                       "A": {"jobsPerS": [], "cpu": [], "errors": 0},
                                                       "B": {"jobsPerS": [], "cpu": [], "errors": 0}})
        s = c[r["side"]]
        if "error" in r:
            s["errors"] += 1
            continue
        s["jobsPerS"].append(r["jobsPerS"])
        s["cpu"].append(r["clientCpuMsPerJob"])
    out = []
    for c in cells.values():
        a_t, b_t = median(c["A"]["jobsPerS"]), median(c["B"]["jobsPerS"])
        a_c, b_c = median(c["A"]["cpu"]), median(c["B"]["cpu"])
        tr = b_t / a_t if a_t and b_t is not None else None
        cr = b_c / a_c if a_c and b_c is not None else None
        out.append({"client": c["client"], "mode": c["mode"], "runsA": c["A"]["jobsPerS"], "runsB": c["B"]["jobsPerS"],
                    "cpuRunsA": c["A"]["cpu"], "cpuRunsB": c["B"]["cpu"], "errorsA": c["A"]["errors"], "errorsB": c["B"]["errors"],
                    "jobsPerSA": a_t, "jobsPerSB": b_t, "jobsPerSRatio": tr, "cpuMsPerJobA": a_c, "cpuMsPerJobB": b_c,
                    "cpuRatio": cr, "spread": max((x for x in (spread(c["A"]["jobsPerS"]), spread(c["B"]["jobsPerS"]))
                                                   if x is not None), default=None),
                    # no number on a side (every run failed) is a failure as well
                    "slower": tr is None or tr < 1 - threshold, "costlier": cr is not None and cr > 1 + threshold})
    return out


def table(cells: List[Dict[str, Any]], threshold: float) -> str:
    def f(x: Optional[float], nd: int) -> str:
        return "–" if x is None else f"{x:.{nd}f}"

    pct = f"{threshold * 100:g} %"
    lines = ["| cell | A jobs/s | B jobs/s | B/A | A CPU ms/job | B CPU ms/job | B/A | run spread ± | flag |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for c in cells:
        flags = ([f"SLOWER > {pct}"] if c["slower"] else []) + ([f"CPU/job > +{pct}"] if c["costlier"] else [])
        sp = "–" if c["spread"] is None else f"{c['spread'] * 100:.0f} %"
        errs = c["errorsA"] + c["errorsB"]
        if errs:
            flags.append(f"{errs} failed run(s)")
        lines.append(f"| {c['client']} {c['mode']} | {f(c['jobsPerSA'], 0)} | {f(c['jobsPerSB'], 0)} | {f(c['jobsPerSRatio'], 3)} | "
                     f"{f(c['cpuMsPerJobA'], 4)} | {f(c['cpuMsPerJobB'], 4)} | {f(c['cpuRatio'], 3)} | "
                     f"{sp} | {', '.join(flags)} |")
    return "\n".join(lines)


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], check=True, capture_output=True, text=True).stdout.strip()


def checkout(ref: str, keep: bool) -> Tuple[str, Path]:
    """A detached worktree of ref under .bench-work/: a private one (the process id in its name, removed at the
    end) so that runs at the same time do not share it, or with --keep-worktree one that later runs reuse."""
    sha = git("rev-parse", "--verify", f"{ref}^{{commit}}")
    wt = WORK_DIR / (f"ref-{sha[:12]}" if keep else f"ref-{sha[:12]}-{os.getpid()}")
    if wt.exists():
        try:
            if git("-C", str(wt), "rev-parse", "HEAD") == sha:
                return sha, wt
        except subprocess.CalledProcessError:
            pass
        git("worktree", "remove", "--force", str(wt))
    WORK_DIR.mkdir(exist_ok=True)
    git("worktree", "add", "--detach", "--quiet", str(wt), sha)
    return sha, wt


def side_env(checkout_root: Path) -> Dict[str, str]:
    """The environment of a side's builds and drivers. The ref's worktree lies inside the working tree, so Go
    would find the working tree's go.work above it: each side uses its own go.work, or none."""
    gw = checkout_root / "go.work"
    return {"GOWORK": str(gw) if gw.exists() else "off"}


def build_side(bench_dir: Path, clients: List[str], env: Dict[str, str]) -> None:
    for prog in sorted({side_cmd(c, bench_dir)[0] for c in clients}):
        if not Path(prog).exists():
            raise SystemExit(f"compare: {prog} is missing (this build has no bench driver for it)")
        log(f"building {prog} --build-only")
        subprocess.run([prog, "--build-only"], check=True, env={**os.environ, **env})


def alternate(rounds: int, clients: List[str], modes: List[str], work: Path, n: int, warm: int, tag: str,
              case_args: Callable[[str, str], Dict[str, Any]], names: Optional[Dict[str, str]] = None) -> List[Dict[str, Any]]:
    """The A/B loop of --compare and --typed-ab: every cell (client x mode) once per side per round, the sides in
    the order of `order`, each run on a fresh engine; case_args(client, side) gives closed_case's side-specific
    arguments (another build's command and environment, or extra worker config). A failed run is reported in
    its row ("error") and the others go on."""
    runs: List[Dict[str, Any]] = []
    for rnd in range(rounds):
        for client in clients:
            for mode in modes:
                for side in order(rnd):
                    r: Dict[str, Any] = {"round": rnd + 1, "client": client, "mode": mode, "side": side,
                                         "load": float(open("/proc/loadavg").read().split()[0])}
                    try:
                        with Engine("jobwire", work) as eng:
                            row = closed_case(eng, work, client, mode, n, warm, 32, 32, **case_args(client, side))
                        r.update({k: row[k] for k in ("jobsPerS", "clientCpuMsPerJob", "p99Ms", "completed", "errors", "version")})
                        if row["errors"] or not row["allHandled"]:
                            r["error"] = f"{row['errors']} create errors, all handled: {row['allHandled']}"
                    except Exception as e:  # noqa: BLE001 - a failed run is reported, the others go on
                        r["error"] = str(e)[:300]
                    runs.append(r)
                    log(f"  {tag}round {rnd + 1} {(names or {}).get(side, side)} {client:16s} {mode:4s} " +
                        (f"FAILED: {r['error']}" if "error" in r else
                         f"{r['jobsPerS']:8.0f} jobs/s  CPU {r['clientCpuMsPerJob']:.4f} ms/job  p99 {r['p99Ms']:.1f} ms"))
    return runs


def run_compare(a: argparse.Namespace, clients: List[str]) -> int:
    if not clients:
        raise SystemExit("compare: no client selected")
    modes = [m for m in a.modes.split(",") if m]
    s = a.scale
    n, warm = (200, 50) if a.smoke else (int(3000 * s), int(1000 * s))
    out = Path(a.out) if a.out != str(HERE / "results") else WORK_DIR / "compare"
    out.mkdir(parents=True, exist_ok=True)
    sha, wt = checkout(a.compare, a.keep_worktree)
    head = git("rev-parse", "--short", "HEAD")
    dirty = bool(git("status", "--porcelain", "--untracked-files=no"))
    sides = {"A": wt / "bench", "B": HERE}
    envs = {"A": side_env(wt), "B": side_env(ROOT)}
    t_start = time.time()
    work = Path(tempfile.mkdtemp(prefix="jobwire-compare-"))
    runs: List[Dict[str, Any]] = []
    try:
        log(f"compare: A = {a.compare} ({sha[:12]}, worktree {wt}), B = the working tree ({head}{', modified' if dirty else ''}); "
            f"engine and load generator of B for both")
        subprocess.run(["make", "-s", "-C", str(ROOT), "engine"], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([str(GO_RUN), "--build-only"], check=True)
        for side in ("A", "B"):
            build_side(sides[side], clients, envs[side])
        runs = alternate(a.rounds, clients, modes, work, n, warm, "",
                         lambda client, side: {"cmd": side_cmd(client, sides[side]), "env": envs[side]})
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if not a.keep_worktree:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(wt)], check=False)
    cells = summarize(runs, a.threshold)
    md = table(cells, a.threshold)
    head_line = (f"A = {a.compare} ({sha[:12]}), B = working tree ({head}{', modified' if dirty else ''}); {len(clients)} client(s) × "
                 f"{len(modes)} mode(s), {a.rounds} rounds alternating, {n} instances after {warm} warm-up per run, "
                 f"engine {ENGINE_BIN.name} of B; {time.time() - t_start:.0f} s")
    res = {"ref": a.compare, "refSha": sha, "worktree": str(wt), "worktreeKept": a.keep_worktree, "head": head, "dirty": dirty, "rounds": a.rounds, "n": n, "warm": warm,
           "threshold": a.threshold, "load": open("/proc/loadavg").read().split()[:3], "runs": runs, "cells": cells}
    (out / "compare.json").write_text(json.dumps(res, indent=1))
    (out / "compare.md").write_text(f"# bench.py --compare\n\n{head_line}\n\n{md}\n")
    print(f"\n{head_line}\n\n{md}\n", flush=True)
    log(f"wrote {out / 'compare.json'} and {out / 'compare.md'}")
    return exit_code(cells, a.fail_over_5pct, a.threshold)


def exit_code(cells: List[Dict[str, Any]], fail_over: bool, threshold: float = 0.05) -> int:
    """1 when asked to fail (--fail-over-5pct) and a cell's B is slower than A beyond the threshold."""
    slower = [c for c in cells if c["slower"]]
    if slower:
        print(f"  {len(slower)} cell(s) slower by more than {threshold * 100:g} %: "
              + ", ".join(f"{c['client']} {c['mode']}" for c in slower), flush=True)
    return 1 if (fail_over and slower) else 0


def run_typed_ab(a: argparse.Namespace, clients: List[str]) -> int:
    """`bench.py --typed-ab`: the no-op worker of each jobwire client as a plain handler (A) and as a typed
    handler (B: input type {t0: number}, fetchVariables derived; bench/DRIVERS.md `typed`), same build, same
    engine binary, alternated per round (A B, B A, ...) on fresh engines. Flags a cell whose typed worker is
    slower by more than --threshold (the typed-handler target: 10 %)."""
    clients = [c for c in clients if c.endswith("-jobwire")]
    if not clients:
        raise SystemExit("typed-ab: no jobwire client selected")
    modes = [m for m in a.modes.split(",") if m]
    s = a.scale
    n, warm = (200, 50) if a.smoke else (int(3000 * s), int(1000 * s))
    out = Path(a.out) if a.out != str(HERE / "results") else WORK_DIR / "typed-ab"
    out.mkdir(parents=True, exist_ok=True)
    head = git("rev-parse", "--short", "HEAD")
    dirty = bool(git("status", "--porcelain", "--untracked-files=no"))
    t_start = time.time()
    work = Path(tempfile.mkdtemp(prefix="jobwire-typed-ab-"))
    runs: List[Dict[str, Any]] = []
    workers = {"A": {}, "B": {"typed": True}}
    try:
        subprocess.run(["make", "-s", "-C", str(ROOT), "engine"], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([str(GO_RUN), "--build-only"], check=True)
        build_side(HERE, clients, {})
        runs = alternate(a.rounds, clients, modes, work, n, warm, "typed-ab ",
                         lambda client, side: {"worker": workers[side]}, {"A": "plain", "B": "typed"})
    finally:
        shutil.rmtree(work, ignore_errors=True)
    cells = summarize(runs, a.threshold)
    md = table(cells, a.threshold)
    head_line = (f"A = plain handler, B = typed handler (input {{t0: number}}, fetchVariables derived); build {head}"
                 f"{', modified' if dirty else ''}; {len(clients)} client(s) × {len(modes)} mode(s), {a.rounds} rounds "
                 f"alternating, {n} instances after {warm} warm-up per run; {time.time() - t_start:.0f} s")
    res = {"head": head, "dirty": dirty, "rounds": a.rounds, "n": n, "warm": warm, "threshold": a.threshold,
           "load": open("/proc/loadavg").read().split()[:3], "runs": runs, "cells": cells}
    (out / "typed-ab.json").write_text(json.dumps(res, indent=1))
    (out / "typed-ab.md").write_text(f"# bench.py --typed-ab\n\n{head_line}\n\n{md}\n")
    print(f"\n{head_line}\n\n{md}\n", flush=True)
    log(f"wrote {out / 'typed-ab.json'} and {out / 'typed-ab.md'}")
    return exit_code(cells, a.fail_over_5pct, a.threshold)
