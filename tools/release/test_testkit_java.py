"""docs/testing-java.md, run as a user runs it (suite `release`): in a temp Maven project outside
the repository, the page's marked blocks (tools/release/docpages.py) in order — its pom.xml, handler,
handler test, BPMN and process test as files, then `mvn test`. Maven runs offline with a local
repository whose io.jobwire artifacts come from the release folder alone (jobwire-sdk and
jobwire-test from dist/java, jobwire-engine and its linux-x86_64 classifier jar from
dist/engine-maven); every other group is ~/.m2's. The run must report the page's five tests
passed (three handler tests, two process tests on the engine from the classifier jar).

JOBWIRE_TEST_DIST names an existing release folder (conftest.py), e.g. one built with
`DIST=/tmp/d RELEASE_PLATFORMS=linux/amd64 bash tools/release/release.sh` in a clone.
"""
from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

from conftest import ROOT, V, run  # noqa: E402  (tools/release/conftest.py)
from docpages import blocks  # noqa: E402  (tools/release/docpages.py)
from test_getting_started import ANSI, _base_env, _maven_repo  # noqa: E402

PAGE = ROOT / "docs" / "testing-java.md"
SUMMARY = re.compile(r"Tests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: (\d+)\s*$", re.M)


def _install_kit(dist: Path, repo: Path, tmp: Path) -> None:
    run(["mvn", "-o", "-q", "-B", f"-Dmaven.repo.local={repo}",
         "org.apache.maven.plugins:maven-install-plugin:3.1.3:install-file",
         f"-Dfile={dist}/java/jobwire-test-{V}.jar", f"-DpomFile={dist}/java/jobwire-test-{V}.pom"], cwd=tmp, timeout=300)


def test_testing_java_page_runs(dist, tmp_path):
    repo = _maven_repo(dist, tmp_path)
    _install_kit(dist, repo, tmp_path)
    proj = tmp_path / "project"
    proj.mkdir()
    env = _base_env(tmp_path)  # no JOBWIRE_ENGINE: the engine comes from the classifier jar
    shells = 0
    for b in blocks(PAGE):
        if b.kind == "file":
            dest = proj / b.arg
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(b.text)
        elif b.kind == "shell":
            shells += 1
            script = "set -eo pipefail\n" + "\n".join(
                re.sub(r"^mvn ", f"mvn -o -B -Dmaven.repo.local={repo} ", ln) for ln in b.commands()) + "\n"
            t0 = time.monotonic()
            p = subprocess.run(["bash", "-c", script], cwd=proj, env=env, capture_output=True, text=True, timeout=900)
            out = ANSI.sub("", p.stdout + p.stderr)
            assert p.returncode == 0, f"block at line {b.line} failed ({p.returncode}):\n{script}\n{out[-5000:]}"
            totals = SUMMARY.findall(out)
            assert totals, f"no test summary in the output:\n{out[-3000:]}"
            run_, failures, errors, skipped = map(int, totals[-1])
            assert (run_, failures, errors, skipped) == (5, 0, 0, 0), out[-5000:]
            print(f"testing-java.md: {run_} tests passed in {time.monotonic() - t0:.1f} s (mvn test, offline, from dist/)")
        else:
            assert b.kind == "skip", f"{PAGE.name}: unexpected block kind {b.kind!r} at line {b.line}"
    assert shells == 1, f"{PAGE.name}: expected one shell block (mvn test), found {shells}"
    # the project's jobwire artifacts came from dist/, not from ~/.m2
    for art, folder in (("jobwire-sdk", "java"), ("jobwire-test", "java"), ("jobwire-engine", "engine-maven")):
        got = repo / "io" / "jobwire" / art / V / f"{art}-{V}.jar"
        assert got.read_bytes() == (dist / folder / f"{art}-{V}.jar").read_bytes(), f"{art} did not come from dist/"
