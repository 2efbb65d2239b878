#!/usr/bin/env python3
"""Mutation proof of the conformance suite (issue 7).

For every mutant of conformance-tests/mutation/mutants.yaml and of every
conformance-tests/mutation/mutants-*.yaml (e.g. mutants-commands-go.yaml, one
file per SDK and feature, same format): run its scenarios
for its SDK unmutated (baseline: must pass), apply the mutant's edits to the
SDK, let the driver rebuild, run the scenarios again (they must FAIL), and
restore the file. Everything happens in a SCRATCH CLONE, never in the source
tree:

    .tools/venv/bin/python conformance-tests/scripts/mutation.py \
        [--clone /tmp/jobwire-mutants] [--refresh] [--only id,id] [--no-baseline] \
        [--out conformance-tests/MUTATION-RESULTS.md] [--junit results.xml] [--discard]

--junit writes one JUnit testcase per mutant (passed = killed: every unmutated
baseline passed and every mutated scenario failed; failure otherwise, e.g.
survived, baseline not passing, "does not apply", "does not build", no clone).
--discard removes the clone and its run directories at the end (`make
test-mutation-smoke` runs a few mutants this way in a fresh temp clone).

The clone is `git clone` of this repository plus a copy of its uncommitted
working tree (without .git, node_modules, .tools), bootstrapped with
tools/bootstrap.sh and an engine build. An existing clone is reused; its
conformance-tests/{runner,scenarios,expectations,mutation} are refreshed from
the source tree on every run (--refresh re-copies the whole working tree).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import yaml

SRC = Path(__file__).resolve().parents[2]
SUITE_PARTS = ["runner", "scenarios", "expectations", "mutation"]


def sh(cmd, cwd=None, timeout=900, env=None):
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def copy_tree(src: Path, dst: Path):
    """Copies src's working tree over dst (no .git, node_modules, .tools, results)."""
    skip_top = {".git", ".tools", ".test-results"}
    tmp = dst.parent / (dst.name + ".tar")

    def filt(ti: tarfile.TarInfo):
        parts = Path(ti.name).parts  # "./.tools/x" -> (".tools", "x")
        if parts and parts[0] in skip_top:
            return None
        if "node_modules" in parts or "__pycache__" in parts or "_gen" in parts:
            return None
        return ti
    with tarfile.open(tmp, "w") as t:
        t.add(str(src), arcname=".", filter=filt)
    with tarfile.open(tmp) as t:
        t.extractall(dst, filter="fully_trusted")
    tmp.unlink()


def load_mutants(mutation_dir: Path) -> list[dict]:
    """Every mutant of mutation_dir/mutants.yaml, then of each mutants-*.yaml in name order. Ids must be
    unique across the files; each mutant gets `source` (its file name)."""
    files = [mutation_dir / "mutants.yaml", *sorted(mutation_dir.glob("mutants-*.yaml"))]
    out: list[dict] = []
    seen: dict[str, str] = {}
    for f in files:
        if not f.is_file():
            continue
        data = yaml.safe_load(f.read_text()) or []
        if not isinstance(data, list):
            raise ValueError(f"{f.name}: a list of mutants expected")
        for m in data:
            missing = {"id", "sdk", "what", "edits", "scenarios"} - set(m)
            if missing:
                raise ValueError(f"{f.name}: mutant {m.get('id', '?')} lacks {sorted(missing)}")
            if m["id"] in seen:
                raise ValueError(f"{f.name}: mutant id {m['id']} already in {seen[m['id']]}")
            seen[m["id"]] = f.name
            out.append({**m, "source": f.name})
    return out


class SetupError(Exception):
    """The scratch clone could not be made ready (clone, bootstrap, engine build)."""


def prepare(clone: Path, refresh: bool):
    fresh = not (clone / ".git").exists()
    if fresh:
        if clone.exists():
            shutil.rmtree(clone)
        r = sh(["git", "clone", "-q", str(SRC), str(clone)])
        if r.returncode:
            raise SetupError(f"git clone failed: {r.stderr}")
    if fresh or refresh:
        copy_tree(SRC, clone)
        print(f"[mutation] copied the working tree of {SRC} into {clone}", flush=True)
    else:
        for part in SUITE_PARTS:
            d = clone / "conformance-tests" / part
            if (SRC / "conformance-tests" / part).exists():
                shutil.rmtree(d, ignore_errors=True)
                shutil.copytree(SRC / "conformance-tests" / part, d,
                                ignore=shutil.ignore_patterns("_gen", "__pycache__"))
    if not (clone / ".tools" / "venv" / "bin" / "python").exists():
        print("[mutation] bootstrapping the clone", flush=True)
        r = sh([str(clone / "tools" / "bootstrap.sh")], cwd=clone, timeout=1800)
        if r.returncode:
            raise SetupError(f"bootstrap failed:\n{r.stdout[-2000:]}{r.stderr[-2000:]}")
    eng = clone / "engine-reference"
    if fresh or refresh or not (eng / "bin" / "jobwire-engine").exists():
        r = sh(["make", "-s", "-C", str(clone), "--no-print-directory", "engine"], cwd=clone)
        if r.returncode:
            raise SetupError(f"engine build failed: {r.stderr}")


def build_driver(clone: Path, sdk: str) -> tuple[bool, str]:
    """Runs drivers/<sdk>/run with stdin closed: it rebuilds the SDK/driver when
    sources changed, then the driver sees EOF and exits 0."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ZEEBE_", "CAMUNDA_"))}
    env["ZEEBE_ADDRESS"] = "127.0.0.1:1"
    env["ZEEBE_INSECURE_CONNECTION"] = "true"
    # input="": stdin is a pipe closed at once. /dev/null is not one: the Python
    # driver's asyncio pipe reader never sees EOF on it and the build hangs.
    p = subprocess.run([str(clone / "conformance-tests" / "drivers" / sdk / "run")], input="",
                       capture_output=True, text=True, timeout=600, env=env)
    return p.returncode == 0, (p.stderr or "")[-1500:]


def run_scenarios(clone: Path, sdk: str, scenarios: list[str], wd: Path) -> dict:
    """{scenario: (status, message, seconds)} from the runner's JUnit XML."""
    if wd.exists():
        shutil.rmtree(wd)
    wd.mkdir(parents=True)
    py = clone / ".tools" / "venv" / "bin" / "python"
    junit = wd / "junit.xml"
    env = dict(os.environ, RESULTS=str(wd))
    sh([str(py), "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_conformance.py", "--sdk", sdk,
        "--scenario", ",".join(scenarios), "--report-dir", str(wd / "report"), "--work-dir", str(wd / "work"),
        f"--junitxml={junit}"], cwd=clone / "conformance-tests" / "runner", env=env, timeout=1200)
    out = {s: ("error", "no result (runner crashed?)", 0.0) for s in scenarios}
    if not junit.exists():
        return out
    for tc in ET.parse(junit).getroot().iter("testcase"):
        name = tc.get("name", "")
        if "[" not in name:
            continue
        sc = name.split("[", 1)[1].rstrip("]").split(":", 1)[1]
        secs = float(tc.get("time", 0))
        f = tc.find("failure")
        er = tc.find("error")
        sk = tc.find("skipped")
        if f is not None:
            msg = (f.get("message") or f.text or "").strip()
            out[sc] = ("FAIL", msg, secs)
        elif er is not None:
            # a setup/teardown error (engine did not start, fixture crashed) is not a kill
            out[sc] = ("error", (er.get("message") or er.text or "").strip(), secs)
        elif sk is not None:
            out[sc] = ("skipped", (sk.get("message") or "").strip(), secs)
        else:
            out[sc] = ("pass", "", secs)
    return out


def apply(clone: Path, edits) -> dict[Path, str]:
    originals: dict[Path, str] = {}
    try:
        for e in edits:
            f = clone / e["file"]
            text = originals.setdefault(f, f.read_text()) if f not in originals else f.read_text()
            n = text.count(e["find"])
            want = int(e.get("count", 1))
            if n != want:
                raise ValueError(f"{e['file']}: {e['find'][:60]!r} found {n} times, expected {want}")
            f.write_text(text.replace(e["find"], e["replace"]))
    except Exception:
        restore(originals)
        raise
    return originals


def restore(originals: dict[Path, str]):
    for f, text in originals.items():
        f.write_text(text)
        os.utime(f)  # newer than the built driver: the next run rebuilds the unmutated SDK


def short(msg: str) -> str:
    lines = [ln.strip() for ln in msg.splitlines() if ln.strip()]
    keep = [ln for ln in lines if not ln.startswith(("expectations failed", "expectation failed", "AssertionError"))]
    s = "; ".join(keep or lines)
    s = s.replace("|", "\\|")
    return s[:260] + ("…" if len(s) > 260 else "")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--clone", default="/tmp/jobwire-mutants")
    ap.add_argument("--refresh", action="store_true")
    ap.add_argument("--only", default="")
    ap.add_argument("--no-baseline", action="store_true")
    ap.add_argument("--out", default="")
    ap.add_argument("--json", default="")
    ap.add_argument("--junit", default="")
    ap.add_argument("--discard", action="store_true")
    a = ap.parse_args()
    clone = Path(a.clone).resolve()
    if clone == SRC or SRC in clone.parents:
        sys.exit("the clone must be outside the source tree")
    mutants = load_mutants(SRC / "conformance-tests" / "mutation")
    only = [x for x in a.only.split(",") if x]
    if only:
        unknown = sorted(set(only) - {m["id"] for m in mutants})
        if unknown:
            sys.exit(f"--only: no such mutant in mutation/mutants*.yaml: {', '.join(unknown)}")
        mutants = [m for m in mutants if m["id"] in only]
    work = clone.parent / (clone.name + "-runs")
    t_setup = time.time()
    try:
        prepare(clone, a.refresh)
    except (SetupError, subprocess.TimeoutExpired, OSError) as e:
        print(f"[mutation] scratch clone not ready: {e}", flush=True)
        if a.junit:
            write_junit(Path(a.junit), [{"id": m["id"], "sdk": m["sdk"], "what": m["what"], "baseline": {},
                                         "mutant": {}, "note": f"scratch clone not ready: {e}", "seconds": 0}
                                        for m in mutants])
        if a.discard:
            shutil.rmtree(clone, ignore_errors=True)
        sys.exit(1)
    print(f"[mutation] scratch clone ready in {time.time() - t_setup:.0f} s", flush=True)
    results = run_all(a, clone, mutants, work)
    if not a.discard:
        build_driver(clone, "go")
        build_driver(clone, "node")
    md = render(results)
    print(md)
    if a.out:
        Path(a.out).write_text(md)
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1, default=list))
    if a.junit:
        write_junit(Path(a.junit), results)
    if a.discard:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(clone, ignore_errors=True)
    bad = [r for r in results if verdict(r, a.no_baseline)]
    for r in bad:
        print(f"[mutation] NOT KILLED {r['id']}: {verdict(r, a.no_baseline)}", flush=True)
    sys.exit(1 if bad else 0)


def verdict(r, no_baseline=False) -> str:
    """'' when the mutant is killed (baseline passed, every mutated scenario failed), else why not."""
    if r["note"]:
        return r["note"]
    if not no_baseline:
        nb = {s: v[0] for s, v in r["baseline"].items() if v[0] != "pass"}
        if nb:
            return f"unmutated baseline did not pass: {nb}"
    if not r["mutant"]:
        return "no mutated run"
    survived = {s: v[0] for s, v in r["mutant"].items() if v[0] != "FAIL"}
    if survived:
        return f"SURVIVED (mutated scenario did not fail): {survived}"
    return ""


def write_junit(path: Path, results):
    suite = ET.Element("testsuite", name="mutation", tests=str(len(results)))
    fails = 0
    for r in results:
        tc = ET.SubElement(suite, "testcase", classname=f"mutation.{r['sdk']}", name=r["id"],
                           time=str(r.get("seconds", 0)))
        why = verdict(r)
        if why:
            fails += 1
            f = ET.SubElement(tc, "failure", message=why[:500])
            f.text = (f"{r['what']}\n{why}\nbaseline: {r['baseline']}\nmutant: {r['mutant']}")
        else:
            out = ET.SubElement(tc, "system-out")
            out.text = "killed: " + "; ".join(f"{s}: {short(v[1])}" for s, v in r["mutant"].items())
    suite.set("failures", str(fails))
    path.parent.mkdir(parents=True, exist_ok=True)
    ET.ElementTree(suite).write(path, encoding="utf-8", xml_declaration=True)


def run_all(a, clone: Path, mutants, work: Path):
    results = []
    for m in mutants:
        t0 = time.time()
        sdk, scen = m["sdk"], m["scenarios"]
        row = {"id": m["id"], "sdk": sdk, "what": m["what"], "files": sorted({e["file"] for e in m["edits"]}),
               "baseline": {}, "mutant": {}, "note": ""}
        if not a.no_baseline:
            ok, err = build_driver(clone, sdk)
            if not ok:
                row["note"] = f"unmutated driver does not build: {err}"
                row["seconds"] = round(time.time() - t0, 1)
                results.append(row)
                continue
            row["baseline"] = run_scenarios(clone, sdk, scen, work / m["id"] / "baseline")
        try:
            originals = apply(clone, m["edits"])
        except (ValueError, OSError) as e:
            row["note"] = f"mutant does not apply: {e}"
            row["seconds"] = round(time.time() - t0, 1)
            results.append(row)
            print(f"[mutation] {m['id']}: {row['note']}", flush=True)
            continue
        try:
            ok, err = build_driver(clone, sdk)
            if not ok:
                row["note"] = f"mutant does not build: {err}"
            else:
                row["mutant"] = run_scenarios(clone, sdk, scen, work / m["id"] / "mutant")
        finally:
            restore(originals)
        row["seconds"] = round(time.time() - t0, 1)
        results.append(row)
        print(f"[mutation] {m['id']} ({sdk}): baseline "
              f"{ {s: v[0] for s, v in row['baseline'].items()} } mutant { {s: v[0] for s, v in row['mutant'].items()} }"
              f" {row['note'][:200]} ({row['seconds']} s)", flush=True)
    return results


def render(results) -> str:
    lines = ["| mutant | SDK | file(s) | break | scenario | unmutated | mutant | failing assertion |",
             "|---|---|---|---|---|---|---|---|"]
    for r in results:
        scen = list(r["mutant"]) or list(r["baseline"]) or ["—"]
        for sc in scen:
            b = r["baseline"].get(sc, ("—", "", 0))
            mu = r["mutant"].get(sc, ("—", r["note"], 0))
            verdict = {"FAIL": "**FAILS** (killed)", "pass": "passes (SURVIVED)"}.get(mu[0], mu[0])
            lines.append(f"| `{r['id']}` | {r['sdk']} | {', '.join('`' + f + '`' for f in r['files'])} | {r['what']} "
                         f"| `{sc}` | {b[0]} | {verdict} | {short(mu[1] or r['note'])} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
