"""`bench.py --compare` (in `make test-bench`): the A/B arithmetic (medians, B/A, the 5 % flags, the exit
code, the alternating order) on fixed numbers, and a smoke of the whole mode: the working tree against
HEAD (a scratch worktree under .bench-work/), go-jobwire push, 2 rounds of 200 instances (~15 s)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_compare import HERE, ROOT, exit_code, order, side_cmd, summarize, table  # noqa: E402


def run(side: str, jobs: float, cpu: float, client: str = "go-jobwire", mode: str = "push") -> Dict[str, Any]:
    return {"client": client, "mode": mode, "side": side, "jobsPerS": jobs, "clientCpuMsPerJob": cpu}


def test_order_alternates_per_round() -> None:
    assert [order(r) for r in range(4)] == [("A", "B"), ("B", "A"), ("A", "B"), ("B", "A")]


def test_medians_ratios_and_flags() -> None:
    runs: List[Dict[str, Any]] = [
        # push: B 6 % slower by median (A 1000, B 940), CPU equal -> slower
        run("A", 1000, 0.10), run("B", 940, 0.10), run("B", 930, 0.10), run("A", 990, 0.10), run("A", 5000, 0.10), run("B", 2000, 0.10),
        # poll: B 4 % slower (inside 5 %), CPU per job 10 % higher -> costlier only
        run("A", 1000, 0.10, mode="poll"), run("B", 960, 0.11, mode="poll"),
    ]
    cells = {c["mode"]: c for c in summarize(runs)}
    push, poll = cells["push"], cells["poll"]
    assert push["jobsPerSA"] == 1000 and push["jobsPerSB"] == 940  # medians: one outlier per side changes nothing
    assert abs(push["jobsPerSRatio"] - 0.94) < 1e-9 and push["slower"] and not push["costlier"]
    assert abs(poll["jobsPerSRatio"] - 0.96) < 1e-9 and not poll["slower"]
    assert abs(poll["cpuRatio"] - 1.1) < 1e-9 and poll["costlier"]
    md = table(list(cells.values()), 0.05)
    assert "| go-jobwire push | 1000 | 940 | 0.940 |" in md and "SLOWER > 5 %" in md
    assert "| go-jobwire poll | 1000 | 960 | 0.960 | 0.1000 | 0.1100 | 1.100 | 0 % | CPU/job > +5 % |" in md
    # the noise column: the widest side's half range over its median (A: 990..5000 around 1000)
    assert abs(push["spread"] - (5000 - 990) / 2 / 1000) < 1e-9 and "| 200 % | SLOWER" in md
    # the exit code: non-zero only when asked and only for a slower cell
    assert exit_code(list(cells.values()), False) == 0
    assert exit_code(list(cells.values()), True) == 1
    assert exit_code([poll], True) == 0
    # a wider threshold lets the push cell pass
    assert not summarize(runs, threshold=0.10)[0]["slower"]


def test_a_side_without_numbers_is_flagged() -> None:
    runs = [run("A", 1000, 0.1), {"client": "go-jobwire", "mode": "push", "side": "B", "error": "driver did not report ready"}]
    (c,) = summarize(runs)
    assert c["jobsPerSB"] is None and c["errorsB"] == 1 and c["slower"]
    assert "1 failed run(s)" in table([c], 0.05)


def test_side_command_points_at_the_other_checkout() -> None:
    other = Path("/tmp/x/bench")
    assert side_cmd("go-jobwire", other) == [str(other / "go" / "run"), "driver-jobwire"]
    assert side_cmd("python-official", other) == [str(other / "drivers" / "python" / "run"), "official"]
    assert side_cmd("go-jobwire", HERE)[0] == str(HERE / "go" / "run")


def test_compare_smoke_against_head(tmp_path: Path) -> None:
    out = tmp_path / "cmp"
    subprocess.run([str(HERE / "bootstrap.sh")], check=True)
    p = subprocess.run([str(HERE / ".venv" / "bin" / "python"), str(HERE / "bench.py"), "--compare", "HEAD", "--sdks", "go",
                        "--modes", "push", "--smoke", "--rounds", "2", "--out", str(out)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
    sys.stdout.write(p.stdout[-4000:])
    assert p.returncode == 0, p.stdout[-3000:]  # without --fail-over-5pct a slower cell does not fail the run
    res = json.loads((out / "compare.json").read_text())
    # HEAD when the run began (the shared tree may have moved on since)
    assert subprocess.run(["git", "-C", str(ROOT), "merge-base", "--is-ancestor", res["refSha"], "HEAD"]).returncode == 0
    head = res["refSha"]
    # 2 rounds x 1 cell x 2 builds, the order alternating: A B, then B A
    assert [(r["round"], r["side"]) for r in res["runs"]] == [(1, "A"), (1, "B"), (2, "B"), (2, "A")]
    for r in res["runs"]:
        assert "error" not in r, r
        assert r["client"] == "go-jobwire" and r["completed"] == 200 and r["jobsPerS"] > 1 and r["clientCpuMsPerJob"] > 0
    (c,) = res["cells"]
    assert len(c["runsA"]) == len(c["runsB"]) == 2 and c["jobsPerSA"] and c["jobsPerSB"]
    assert abs(c["jobsPerSRatio"] - c["jobsPerSB"] / c["jobsPerSA"]) < 1e-9
    md = (out / "compare.md").read_text()
    assert "| go-jobwire push |" in md and "A = HEAD" in md
    assert "| go-jobwire push |" in p.stdout  # the table is printed too
    # the scratch worktree (private to the run) is gone again
    wts = subprocess.run(["git", "-C", str(ROOT), "worktree", "list", "--porcelain"], capture_output=True, text=True).stdout
    assert res["worktree"].startswith(str(ROOT / ".bench-work" / f"ref-{head[:12]}-")) and not res["worktreeKept"]
    assert f"worktree {res['worktree']}\n" not in wts and not Path(res["worktree"]).exists()


def test_typed_ab_smoke(tmp_path: Path) -> None:
    """`make bench-typed`, smoke: go-jobwire push as a plain and as a typed handler, one round each."""
    out = tmp_path / "typed"
    subprocess.run([str(HERE / "bootstrap.sh")], check=True)
    p = subprocess.run([str(HERE / ".venv" / "bin" / "python"), str(HERE / "bench.py"), "--typed-ab", "--sdks", "go",
                        "--modes", "push", "--smoke", "--rounds", "1", "--threshold", "0.10", "--out", str(out)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
    sys.stdout.write(p.stdout[-3000:])
    assert p.returncode == 0, p.stdout[-3000:]
    res = json.loads((out / "typed-ab.json").read_text())
    assert [(r["round"], r["side"]) for r in res["runs"]] == [(1, "A"), (1, "B")]
    for r in res["runs"]:
        assert "error" not in r, r
        assert r["completed"] == 200, r
    (cell,) = res["cells"]
    assert cell["client"] == "go-jobwire" and cell["jobsPerSRatio"] is not None
    assert "typed handler" in (out / "typed-ab.md").read_text()
