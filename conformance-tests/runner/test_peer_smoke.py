"""Smoke of `make conformance-peers` (in `make conformance`): one official client's column
(pyzeebe) on three scenarios through the real runner, one of each kind — a pass
(polling/throw-error-variables), a strict known failure (polling/empty-poll-pauses-without-long-polling:
pyzeebe busy-polls when long polling is off) and a scenario it cannot express
(delivery/update-job-timeout-extends: no UpdateJobTimeout in its API). Checks the column's
statuses, that the run passes, and that the report sets the column beside the jobwire matrix."""
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

SCENARIOS = {
    "polling/throw-error-variables": "passed",
    "polling/empty-poll-pauses-without-long-polling": "expected-failure",
    "delivery/update-job-timeout-extends": "skipped",
}


def test_official_python_column_smoke(tmp_path):
    rep = tmp_path / "report"
    # the jobwire matrix the column is set beside: every jobwire SDK passes these three
    import report
    jw = tmp_path / "jobwire"
    report.write(jw, [{"sdk": sdk, "scenario": sc, "status": "passed", "reason": "", "seconds": 1.0}
                      for sdk in ("go", "java", "node", "python") for sc in SCENARIOS], target="reference", wall=1.0)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_conformance.py",
                        "--sdk", "official-python", "--scenario", ",".join(SCENARIOS),
                        "--report-dir", str(rep), "--work-dir", str(tmp_path / "work"),
                        "--compare-report", str(jw / "matrix.md")],
                       cwd=HERE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=240)
    rows = {x["scenario"]: x for x in json.loads((rep / "matrix.json").read_text())["rows"]}
    assert {k: v["status"] for k, v in rows.items()} == SCENARIOS, r.stdout[-3000:]
    assert "busy-polls" in rows["polling/empty-poll-pauses-without-long-polling"]["reason"]
    assert rows["delivery/update-job-timeout-extends"]["reason"].startswith("cannot express:")
    assert r.returncode == 0, r.stdout[-3000:]
    md = (rep / "matrix.md").read_text()
    assert "## Where the official clients fail and jobwire passes" in md
    assert "`polling/empty-poll-pauses-without-long-polling`" in md.split("## Where the official clients")[1]
