"""Smoke of `make interop` (in `make test-bench`): two official clients (Go, Node with its default
gzip compression), 50 instances, poll and push, on `jobwire-engine dev` and `cluster`. Each case
must have every instance COMPLETED (admin API) and the worker's own count equal to 50."""
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def test_official_clients_unchanged_smoke(tmp_path):
    out = tmp_path / "interop"
    r = subprocess.run([sys.executable, str(HERE / "interop.py"), "--clients", "go,node", "--engines", "dev,cluster",
                        "--instances", "50", "--timeout", "90", "--out", str(out)], timeout=400)
    res = json.loads((out / "interop.json").read_text())
    rows = res["rows"]
    assert [(x["engine"], x["client"], x["mode"]) for x in rows] == [
        (e, c, m) for e in ("dev", "cluster") for c in ("go-official", "node-official") for m in ("poll", "push")]
    for x in rows:
        assert not x.get("error"), x
        assert x["counts"] == {"COMPLETED": 50}, x
        assert x["workerJobs"] == 50, x
        assert x["version"], x
    assert r.returncode == 0
    md = (out / "interop.md").read_text()
    assert md.count("| passed |") == 8
