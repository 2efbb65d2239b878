"""docs/testing-python.md, run as a user runs it (suite `release`): in a temp folder outside the
repository, the page's marked blocks in page order (tools/release/docpages.py): a virtual
environment gets `pip install "jobwire[testing]"` from the release folder (conftest's `dist`), the
page's files are written, and its last shell block (`pytest -q`) must pass every test function the
page defines: the handler tests and the process tests on the engine of the jobwire-engine wheel.

What the test changes, and nothing else: the pip line installs the release's jobwire wheel (with
its `testing` extra) and the release's jobwire-engine wheel instead of the registry's packages;
the other dependencies come from the usual index. Nothing points the page at the repository
(JOBWIRE_ENGINE, ZEEBE_* and the runner's virtual environment are dropped from the environment).
"""
from __future__ import annotations

import ast
import re
import shlex
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from conftest import ROOT  # noqa: E402  (tools/release/conftest.py)
from docpages import blocks  # noqa: E402  (tools/release/docpages.py)
from test_getting_started import Session, _base_env, _pip_sources  # noqa: E402

PAGE = ROOT / "docs" / "testing-python.md"
PIP = re.compile(r"^(?:python3? -m )?pip install(?=\s)")
PASSED = re.compile(r"^(\d+) passed in ([\d.]+)s", re.M)


class Subs:
    """The one substitution: `pip install "jobwire[testing]"` installs the release's wheels."""

    def __init__(self, dist: Path):
        self.src = _pip_sources(dist)
        self.env: dict[str, str] = {}

    def rewrite(self, line: str) -> str:
        m = PIP.match(line)
        if not m:
            return line
        words = shlex.split(line[m.end():].split(" #")[0])
        out = []
        for w in words:
            if w == "jobwire[testing]":
                out += [self.src["jobwire"][0] + "[testing]", *self.src["jobwire-engine"]]
            else:
                assert w.startswith("-"), f"the page installs {w!r}, which this test does not map to the release: {line!r}"
                out.append(w)
        return line[:m.end()] + " " + " ".join(map(shlex.quote, out))


def test_testing_page_runs(dist, tmp_path):
    proj = tmp_path / "project"
    proj.mkdir()
    log = tmp_path / "logs" / "session.log"
    log.parent.mkdir()
    s = Session(proj, _base_env(tmp_path), Subs(dist), log)
    outputs: list[str] = []
    tests = 0
    took = 0.0
    for b in blocks(PAGE):
        if b.kind == "file":
            dest = s.cwd / b.arg
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(b.text)
            tests += len(re.findall(r"^def test_", b.text, re.M)) if b.arg.startswith("test_") else 0
        elif b.kind == "shell":
            t0 = time.monotonic()
            outputs.append(s.shell(b))
            took = time.monotonic() - t0
    assert tests >= 5, "the page defines handler tests and process tests"
    m = PASSED.search(outputs[-1])
    assert m and int(m[1]) == tests, f"the page's pytest run did not pass its {tests} tests:\n{outputs[-1][-3000:]}"
    # the engine came from the jobwire-engine wheel (the kit finds it in the venv)
    assert list(proj.glob(".venv/bin/jobwire-engine")), "no jobwire-engine in the page's venv"
    print(f"\n[measure] testing-python.md: {tests} tests, pytest wall time {took * 1000:.0f} ms (pytest says {m[2]} s)")


def test_testing_page_blocks_are_marked_and_parse():
    bs = blocks(PAGE)
    assert [b.line for b in bs if b.kind is None] == [], "every block of the page carries a test mark"
    for b in bs:
        if b.kind == "file" and b.lang == "python":
            ast.parse(b.text)
        elif b.kind == "file" and b.lang == "xml":
            ET.fromstring(b.text.encode())
        if b.kind == "shell":
            assert "git clone" not in b.text and "make " not in b.text, f"line {b.line}: a user page starts from packages"
