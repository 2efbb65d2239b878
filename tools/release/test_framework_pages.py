"""The framework pages (docs/fastapi.md, ...), run as a newcomer runs them
(suite `release`), in a new project outside the repository that installs
jobwire's packages from the release folder alone.

The machinery is the getting-started pages' (test_getting_started.py: the same
substitutions of package sources and the engine's port). A framework page's
worker is a service: its port (the one the page uses) becomes a free port in
every command, the blocks after it run once it listens, and its last shell
block must show the page's promised output. Then the service gets SIGTERM and
must stop gracefully (uvicorn re-raises the signal after a clean shutdown, so
-15 counts as graceful there).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import ROOT, V  # noqa: E402  (tools/release/conftest.py)
from docpages import blocks  # noqa: E402
from test_getting_started import _parses, run_page  # noqa: E402


class FrameworkPage:
    def __init__(self, name: str, lang: str, app_port: int, result: str, exits: tuple[int, ...],
                 log_after_stop: str = "", engine_from_dist: bool = False):
        self.name, self.lang, self.app_port = name, lang, app_port
        self.page = ROOT / "docs" / f"{name}.md"
        self.result = re.compile(result, re.S)
        self.exits = exits
        self.log_after_stop = log_after_stop
        self.engine_from_dist = engine_from_dist  # the page leaves the engine to the reader


UP = r'"status":\s*"UP".*"state":\s*"(?:streaming|polling|idle)"'
PAGES = [
    FrameworkPage("fastapi", "python", 8000, r'"invoice_number":\s*"INV-o-1".*' + UP,
                  exits=(0, -15), log_after_stop="Application shutdown complete"),
    # Nest re-raises the signal after app.close(), as uvicorn does
    FrameworkPage("nestjs", "node", 3000, r'"receipt":\s*"receipt-o-1-99.5".*' + UP,
                  exits=(0, -15), log_after_stop="workers closed in"),
    # the JVM's exit status after SIGTERM and its shutdown hooks is 143
    FrameworkPage("spring-boot", "java", 8080, r'"charged":\s*99.5.*"currency":\s*"EUR".*' + UP,
                  exits=(0, 143), log_after_stop="jobwire: closing 1 worker(s)", engine_from_dist=True),
]


@pytest.mark.parametrize("fp", PAGES, ids=[p.name for p in PAGES])
def test_framework_page_runs(fp: FrameworkPage, dist, tmp_path):
    engine = f"{dist}/engine/jobwire-engine-{V}-linux-amd64 dev --port {{port}}" if fp.engine_from_dist else None
    facts = run_page(fp.lang, dist, tmp_path, page=fp.page, result=fp.result, app_port=fp.app_port,
                     exits=fp.exits, engine_cmd=engine)
    log = (tmp_path / "logs" / "worker.log").read_text()
    if fp.log_after_stop:
        assert fp.log_after_stop in log, f"no {fp.log_after_stop!r} after SIGTERM:\n{log[-3000:]}"
    print(f"{fp.name}: service listening {facts['service_ready_s'] * 1000:.0f} ms after start; "
          f"closed {facts['worker_close_s'] * 1000:.0f} ms after SIGTERM")


@pytest.mark.parametrize("fp", PAGES, ids=[p.name for p in PAGES])
def test_framework_page_blocks_are_marked_and_parse(fp: FrameworkPage, tmp_path: Path):
    bs = blocks(fp.page)
    unmarked = [b.line for b in bs if b.kind is None]
    assert not unmarked, f"{fp.page.name}: blocks without a test mark at lines {unmarked}"
    kinds = [b.kind for b in bs]
    assert kinds.count("engine") == (0 if fp.engine_from_dist else 1) and kinds.count("worker") == 1, kinds
    assert "engine" not in kinds or kinds.index("engine") < kinds.index("worker"), kinds
    assert kinds.index("worker") < len(kinds) - 1 - kinds[::-1].index("shell"), kinds
    for b in bs:
        if b.kind == "parse" or (b.kind == "file" and b.lang in ("python", "xml", "json")):
            _parses(b, tmp_path)
        if b.kind == "skip":
            assert len(b.arg.split()) >= 3, f"line {b.line}: say why the block is skipped"
