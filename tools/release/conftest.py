"""Shared by the release tests: two release builds of the last commit (the
engine for linux/amd64 only, RELEASE_PLATFORMS), made once per test session."""
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
        env = dict(os.environ, DIST=str(d), RELEASE_PLATFORMS="linux/amd64")
        run(["bash", str(ROOT / "tools" / "release" / "release.sh")], env=env, cwd=ROOT, timeout=1200)
        made.append(d)
    return made


