#!/usr/bin/env python3
"""Runs pyzeebe's own integration tests (tests/integration of the pyzeebe
4.7.0 sdist from PyPI, sha256-pinned) against one jobwire-engine target and
prints one line per test: `<outcome> <test id>`.

    run_suite.py dev|cluster [--junit FILE]

The sdist is fetched once with pip (`pip download --no-binary :all:`) into
.cache/ next to this file and its hash checked; the tests run unmodified
with `shim/` first on the path, whose `testcontainers` starts the chosen
jobwire-engine instead of a Docker container (see shim/testcontainers/__init__.py).
"""
import argparse
import hashlib
import os
import subprocess
import sys
import tarfile
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
ENGINE_REF = HERE.parents[1]
SDIST = "pyzeebe-4.7.0.tar.gz"
SDIST_SHA256 = "767b94f28fbd2a6a6fba13351d7febab87c8539968355f786c581f4513d4bd93"
CACHE = HERE / ".cache"


def sdist() -> Path:
    path = CACHE / SDIST
    if not path.exists():
        CACHE.mkdir(exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--disable-pip-version-check", "--no-deps",
                        "--no-binary", ":all:", "pyzeebe==4.7.0", "-d", str(CACHE)], check=True)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != SDIST_SHA256:
        path.unlink()
        raise SystemExit(f"{SDIST}: sha256 {digest}, expected {SDIST_SHA256}")
    return path


def run(engine: str, junit: Path) -> dict:
    """Runs the suite against `jobwire-engine <engine>` (dev or cluster)."""
    with tempfile.TemporaryDirectory(prefix="pyzeebe-suite-") as tmp:
        with tarfile.open(sdist()) as tar:
            members = [m for m in tar.getmembers() if m.name.startswith("pyzeebe-4.7.0/tests/") or m.name == "pyzeebe-4.7.0/pyproject.toml"]
            tar.extractall(tmp, members=members, filter="data")
        src = Path(tmp) / "pyzeebe-4.7.0"
        env = dict(os.environ, PYZEEBE_SUITE_ENGINE=engine,
                   PYTHONPATH=os.pathsep.join([str(HERE / "shim"), str(src)]))
        env.setdefault("JOBWIRE_ENGINE_BIN", str(ENGINE_REF / "bin" / "jobwire-engine"))
        # cwd = the sdist root: their conftest deploys tests/integration/test.bpmn by relative path.
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/integration",
                        f"--junitxml={junit}"], cwd=src, env=env)
    results = {}
    for tc in ET.parse(junit).getroot().iter("testcase"):
        name = f"{tc.get('classname')}::{tc.get('name')}"
        if tc.find("failure") is not None or tc.find("error") is not None:
            el = tc.find("failure") if tc.find("failure") is not None else tc.find("error")
            results[name] = ("failed", (el.get("message") or "")[:300])
        elif tc.find("skipped") is not None:
            results[name] = ("skipped", "")
        else:
            results[name] = ("passed", "")
    return results


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("engine", choices=["dev", "cluster"])
    ap.add_argument("--junit", type=Path)
    a = ap.parse_args(argv)
    junit = a.junit or Path(tempfile.mkdtemp()) / f"pyzeebe-suite-{a.engine}.xml"
    res = run(a.engine, junit)
    for name, (outcome, msg) in sorted(res.items()):
        print(f"{outcome:7} {name} {msg}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
