"""docs/testing-go.md, run as a user runs it (suite `release`).

In a temp folder outside the repository: the page's marked blocks
(tools/release/docpages.py) in page order — `go get` of the SDK and of the
test kit, the files, `go test -v ./...` — with the Go modules of the release
folder only: GOPROXY=file://dist/go first and a fresh module cache, as
test_getting_started.py's Go case does (its Substitutions and Session are
reused). The page's handler tests and process tests must all pass, and the
SDK, the kit and the engine the test binary used must be the release's zips.
"""
from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

from conftest import ROOT, V  # noqa: E402  (tools/release/conftest.py)
from docpages import blocks  # noqa: E402  (tools/release/docpages.py)
from test_getting_started import Session, Substitutions, _base_env, _free_port  # noqa: E402

PAGE = ROOT / "docs" / "testing-go.md"
TESTS = ("TestChargeCompletes", "TestChargeDeclined", "TestChargeWithoutCardFails",
         "TestOrderIsPaidAfterCoolingOff", "TestOrderWithPaymentStubbed")


def test_testing_go_page_runs(dist, tmp_path):
    subs = Substitutions("go", dist, tmp_path, _free_port())
    proj = tmp_path / "project"
    proj.mkdir()
    env = _base_env(tmp_path)
    env.update(subs.env)
    log = tmp_path / "logs" / "session.log"
    log.parent.mkdir()
    s = Session(proj, env, subs, log)
    outputs = []
    try:
        for b in blocks(PAGE):
            assert b.kind in ("file", "shell"), f"{PAGE.name}:{b.line}: unexpected block kind {b.kind}"
            if b.kind == "file":
                (s.cwd / b.arg).write_text(b.text)
            else:
                t0 = time.monotonic()
                outputs.append(s.shell(b))
                took = time.monotonic() - t0
        print(f"MEASURE testing-go.md: last block (go test -v ./..., compile included) {took:.2f} s")
        out = outputs[-1]
        for name in TESTS:
            assert re.search(rf"^\s*--- PASS: {name} ", out, re.M), f"{name} did not pass:\n{out[-3000:]}"
        assert not re.search(r"^\s*--- FAIL", out, re.M), out[-3000:]
        cache = Path(s.env["GOMODCACHE"]) / "cache" / "download" / "github.com" / "jobwire" / "jobwire"
        for m in ("sdk-go", "sdk-go/jobwiretest", "engine-reference"):
            rel = Path(m) / "@v" / f"v{V}.zip"
            assert (cache / rel).read_bytes() == (dist / "go" / "github.com" / "jobwire" / "jobwire" / rel).read_bytes(), \
                f"{m} did not come from dist/go"
        gomod = (s.cwd / "go.mod").read_text()
        assert "replace" not in gomod, gomod  # nothing points back at the repository
    finally:
        subprocess.run(["go", "clean", "-modcache"], env=s.env, capture_output=True, timeout=300)
