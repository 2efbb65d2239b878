"""Shared by the release tests: two release builds of the last commit, made
once per test session: the first as `make release` (the engine for all six
platforms), the second with the engine for linux/amd64 only (its other five
platforms differ from it only in GOOS/GOARCH and in the same packaging code;
the second build's files must all be byte-identical to the first's).

`dists` is the two builds (the reproducibility test compares them); `dist` is
one release folder for the tests that only install from it: the folder named by
the environment variable JOBWIRE_TEST_DIST when set (an existing
`DIST=... RELEASE_PLATFORMS=linux/amd64 bash tools/release/release.sh` output,
to iterate without rebuilding), else the first of `dists`."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
V = (ROOT / "VERSION").read_text().strip()


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert p.returncode == 0, f"{cmd} failed ({p.returncode}):\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
    return p.stdout


@pytest.fixture(scope="session")
def dists(tmp_path_factory):
    made = []
    for i in (1, 2):
        d = tmp_path_factory.mktemp(f"dist{i}")
        env = {k: v for k, v in os.environ.items() if k != "RELEASE_PLATFORMS"}
        env["DIST"] = str(d)
        if i == 2:
            env["RELEASE_PLATFORMS"] = "linux/amd64"
        run(["bash", str(ROOT / "tools" / "release" / "release.sh")], env=env, cwd=ROOT, timeout=1200)
        made.append(d)
    return made




@pytest.fixture(scope="session")
def dist(request) -> Path:
    given = os.environ.get("JOBWIRE_TEST_DIST")
    if given:
        d = Path(given).resolve()
        assert (d / "SHA256SUMS").is_file(), f"JOBWIRE_TEST_DIST={given} is not a release folder (no SHA256SUMS)"
        return d
    return request.getfixturevalue("dists")[0]
