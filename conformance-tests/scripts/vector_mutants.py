#!/usr/bin/env python3
"""Mutation proof of the shared vectors (conformance-tests/vectors/mutants.yaml).

Each mutant breaks one rule of one SDK's ledger or poller on purpose (e.g. it
gives the SDK an old poll-slot model). Its vector tests must then FAIL. Every
run happens in a scratch copy of the SDK's folder (plus proto/ and
conformance-tests/vectors/), never in the source tree:

    .tools/venv/bin/python conformance-tests/scripts/vector_mutants.py [--only id,id] [--junit FILE]

For each SDK with a mutant: the unmutated vector tests must pass (baseline),
then each mutant's edits are applied (`find` must occur exactly `count` times,
default 1) and the same tests must fail. --junit writes one testcase per
mutant (passed = killed).

Mutants come from vectors/mutants.yaml and every vectors/mutants-*.yaml (the
test kits keep theirs in mutants-testkit-<sdk>.yaml). A mutant may name its
own killing tests: `command` (argv, run in the scratch copy's `cwd`, default
the SDK's folder) and `copy` (more top-level folders of the repository to put
in the scratch copy, e.g. engine-reference). `{root}` in a command word is
replaced by this repository's folder (its tools and virtual environments stay
outside the scratch copy). Mutants with the same sdk, command, cwd and copy
share one baseline run.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "conformance-tests" / "vectors"
MUTANT_FILES = [VECTORS / "mutants.yaml", *sorted(VECTORS.glob("mutants-*.yaml"))]

# The vector tests of each SDK, run from the SDK's folder in the scratch copy.
COMMANDS = {
    "go": ["go", "test", "-count=1", "-run", "TestVectors", "./internal/worker/"],
    "node": ["npx", "jest", "--ci", "test/vectorsLedger.test.ts"],
    "python": [str(ROOT / ".tools" / "venv" / "bin" / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider",
               "tests/test_vectors_ledger.py"],
    "java": ["mvn", "-o", "-q", "-B", "test", "-Dtest=LedgerVectorsTest", "-Dsurefire.failIfNoSpecifiedTests=false",
             "-Djacoco.skip=true"],
}
SKIP = {"node_modules", "target", "dist", ".venv", "__pycache__", ".pytest_cache", "_gen", "bin"}


def copy_sdk(sdk: str, dst: Path, extra: tuple = ()) -> Path:
    folder = f"sdk-{sdk}" if sdk != "engine" else "engine-reference"
    for f in dict.fromkeys((folder, *extra)):
        shutil.copytree(ROOT / f, dst / f, ignore=lambda d, names: [n for n in names if n in SKIP],
                        symlinks=True)
        if (ROOT / f / "node_modules").exists():
            os.symlink(ROOT / f / "node_modules", dst / f / "node_modules")
    for f in ("go.work", "go.work.sum", "VERSION"):
        if (ROOT / f).exists():
            shutil.copy(ROOT / f, dst / f)
    shutil.copytree(ROOT / "proto", dst / "proto")
    (dst / "conformance-tests").mkdir()
    shutil.copytree(ROOT / "conformance-tests" / "vectors", dst / "conformance-tests" / "vectors")
    return dst / folder


def run(sdk: str, cwd: Path, command: list | None = None) -> tuple[bool, str]:
    env = dict(os.environ)
    if sdk == "python":
        env["PYTHONPATH"] = str(cwd / "src")
    if sdk == "go" and command is None:
        env["GOWORK"] = "off"
    env["JOBWIRE_MUTANT_ROOT"] = str(cwd.parent)  # the scratch copy's root, for commands that build from it
    if command is not None:
        command = [c.replace("{root}", str(ROOT)) for c in command]
    p = subprocess.run(command or COMMANDS[sdk], cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    return p.returncode == 0, (p.stdout + p.stderr)[-3000:]


def apply(sdkdir: Path, edits: list) -> str | None:
    for e in edits:
        f = sdkdir.parent / e["file"]
        text = f.read_text()
        n = text.count(e["find"])
        if n != e.get("count", 1):
            return f"{e['file']}: `find` occurs {n} times, want {e.get('count', 1)}"
        f.write_text(text.replace(e["find"], e["replace"]))
    return None


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("--junit", default="")
    a = ap.parse_args()
    mutants = [m for f in MUTANT_FILES for m in (yaml.safe_load(f.read_text()) or [])]
    if a.only:
        want = set(a.only.split(","))
        mutants = [m for m in mutants if m["id"] in want]
    by_sdk: dict[tuple, list] = {}
    for m in mutants:
        key = (m["sdk"], tuple(m.get("command") or ()), m.get("cwd", ""), tuple(m.get("copy") or ()))
        by_sdk.setdefault(key, []).append(m)
    # The SDKs' own installs that the scratch copies link to or whose commands use (sdk-node's
    # node_modules; sdk-python's venv is made by the commands' scripts/venv.sh), made once here
    # when missing, so the suite also runs on its own in a fresh clone.
    if any(k[0] == "node" for k in by_sdk) and not (ROOT / "sdk-node" / "node_modules").exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=ROOT / "sdk-node", check=True)
    # Every group's baseline, then its mutants, two runs at a time: a run is mostly one compiler or
    # test process (go test, jest, pytest, mvn) in its own scratch copy, so two side by side use
    # both cores. Results keep the order of the mutant files. Baselines run one at a time: the first
    # of a kind may make a shared install (sdk-python's venv), which two at once would race for.
    first = threading.Lock()
    with tempfile.TemporaryDirectory(prefix="jobwire-vmut-") as tmp, \
            concurrent.futures.ThreadPoolExecutor(max_workers=int(os.environ.get("VECTOR_MUTANT_JOBS", "2"))) as pool:

        def baseline(i, sdk, command, cwd, extra):
            t0 = time.time()
            base = copy_sdk(sdk, Path(tmp) / f"baseline-{i}-{sdk}", extra)
            with first:
                ok, out = run(sdk, base.parent / cwd if cwd else base, command)
            if ok:
                print(f"{sdk}: baseline passes ({time.time() - t0:.0f}s)", flush=True)
            else:
                print(f"{sdk}: the unmutated vector tests fail:\n{out}", flush=True)
            shutil.rmtree(base.parent, ignore_errors=True)
            return ok, out

        def mutant(m, sdk, command, cwd, extra, base_future):
            ok, out = base_future.result()
            if not ok:
                return (m, False, "baseline failed: " + out[-800:], 0.0)
            t0 = time.time()
            d = copy_sdk(sdk, Path(tmp) / m["id"], extra)
            err = apply(d, m["edits"])
            if err:
                print(f"  {m['id']}: DOES NOT APPLY: {err}", flush=True)
                shutil.rmtree(d.parent, ignore_errors=True)
                return (m, False, "does not apply: " + err, 0.0)
            ok, out = run(sdk, d.parent / cwd if cwd else d, command)
            dt = time.time() - t0
            print(f"  {m['id']}: {'SURVIVED' if ok else 'killed'} ({dt:.0f}s)", flush=True)
            shutil.rmtree(d.parent, ignore_errors=True)
            return (m, not ok, "survived" if ok else "killed", dt)

        bases = {key: pool.submit(baseline, i, key[0], list(key[1]) or None, key[2], key[3])
                 for i, key in enumerate(by_sdk)}
        futures = [pool.submit(mutant, m, key[0], list(key[1]) or None, key[2], key[3], bases[key])
                   for key, ms in by_sdk.items() for m in ms]
        results = [f.result() for f in futures]
    if a.junit:
        suite = ET.Element("testsuite", name="vector-mutants", tests=str(len(results)),
                           failures=str(sum(1 for r in results if not r[1])))
        for m, killed, why, dt in results:
            tc = ET.SubElement(suite, "testcase", classname=f"vector-mutants.{m['sdk']}", name=m["id"], time=f"{dt:.1f}")
            if not killed:
                ET.SubElement(tc, "failure", message=why).text = m["what"]
        Path(a.junit).parent.mkdir(parents=True, exist_ok=True)
        ET.ElementTree(suite).write(a.junit, encoding="unicode")
    killed = sum(1 for r in results if r[1])
    print(f"{killed} of {len(results)} vector mutants killed")
    return 0 if killed == len(results) and results else 1


if __name__ == "__main__":
    sys.exit(main())
