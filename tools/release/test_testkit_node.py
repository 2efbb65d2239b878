"""docs/testing-node.md runs as written, from dist/ only: in a temp project the
page's install commands get the release's tarballs (@jobwire/sdk and
@jobwire/engine with its linux-x64 package), its files are written and its
`node --test` runs the handler test and the process test against the engine
from the package (JOBWIRE_ENGINE is unset). Set JOBWIRE_TEST_DIST to an
existing release folder to skip the build (tools/release/conftest.py)."""
from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

from conftest import ROOT  # noqa: E402  (tools/release/conftest.py)
from docpages import blocks  # noqa: E402  (tools/release/docpages.py)
from test_getting_started import _base_env, _names_to_files, _npm_sources  # noqa: E402

PAGE = ROOT / "docs" / "testing-node.md"
NPM_INSTALL = re.compile(r"^npm\s+(?:install|i)\b")


def test_testing_node_page_runs(dist, tmp_path):
    sources = _npm_sources(dist)
    proj = tmp_path / "project"
    proj.mkdir()
    env = _base_env(tmp_path)
    env.update({"npm_config_update_notifier": "false", "npm_config_fund": "false", "npm_config_audit": "false"})
    marked = [b for b in blocks(PAGE)]
    assert all(b.kind for b in marked), [b.line for b in marked if not b.kind]
    outputs = []
    for b in marked:
        if b.kind == "file":
            (proj / b.arg).write_text(b.text)
        elif b.kind == "shell":
            for line in b.commands():
                cmd = _names_to_files(line, NPM_INSTALL, sources)
                t0 = time.monotonic()
                p = subprocess.run(["bash", "-c", cmd], cwd=proj, env=env, capture_output=True, text=True, timeout=600)
                out = p.stdout + p.stderr
                assert p.returncode == 0, f"{line!r} failed ({p.returncode}):\n{out[-4000:]}"
                outputs.append((line, out, time.monotonic() - t0))
    line, out, took = outputs[-1]
    assert line == "node --test", line
    m = re.search(r"^# pass (\d+)$", out, re.M)
    assert m and int(m.group(1)) == 5, out[-4000:]
    assert re.search(r"^# fail 0$", out, re.M), out[-4000:]
    print(f"testkit-node: the page's test suite (handler + process tests, engine start included) took {took:.2f} s")
    # nothing came from the repository: the kit and the engine are the installed tarballs
    lock = (proj / "package-lock.json").read_text()
    assert str(ROOT) not in lock
    assert "jobwire-engine-linux-x64" in lock
