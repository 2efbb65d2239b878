"""`make test-licences`: the licence policy (policy.yaml) over every dependency tree, one test per
tree, and proof that the check fails on a planted vendor-terms dependency.

The planted dependency stands for a vendor-terms engine such as Zeebe's: a synthetic POM (no code)
that declares the Zeebe Community License, written by the test into the local Maven repository
under a coordinate of our own and removed afterwards, then added to a scratch copy of
sdk-java/pom.xml as a POM-only dependency. Nothing is downloaded: no vendor artifact, not even its
POM, is fetched, built or run.
"""
from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import check  # noqa: E402

POLICY = check.load_policy()
TREES = check.discover(POLICY)
OUT = Path(os.environ.get("RESULTS", check.ROOT / ".test-results")) / "licences"
PLANTED = ("org.jobwire.licencetest", "planted-vendor-engine", "0.0.1")
PLANTED_LICENCE = "Zeebe Community License v1.1"
_report: dict = {}


@pytest.fixture(scope="module", autouse=True)
def report():
    yield
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "report.json").write_text(json.dumps(_report, indent=1) + "\n")


@pytest.mark.parametrize("tree", TREES, ids=[t.id for t in TREES])
def test_tree(tree):
    pkgs, bad = check.check_tree(tree, POLICY)
    _report[tree.id] = {"violations": bad, "packages": [dataclasses.asdict(p) for p in pkgs]}
    assert not bad, "licence policy violations:\n" + "\n".join(bad)


def test_every_kind_of_tree_found():
    kinds = {t.ecosystem for t in TREES}
    assert kinds == {"go", "npm", "python", "maven"}
    names = {t.id for t in TREES}
    for must in ("go:sdk-go", "go:engine-reference", "npm:sdk-node", "npm:tools", "python:sdk-python",
                 "python:tools", "maven:sdk-java", "maven:bench/drivers/java"):
        assert must in names
    assert not any("zeebe-engine" in n for n in names)


def test_every_python_requirements_file_belongs_to_an_environment():
    assert check.uncovered_python_files(POLICY) == []


def test_docs_list_every_tree():
    doc = (check.ROOT / "docs" / "licences.md").read_text()
    missing = [t.id for t in TREES if f"## {t.id}\n" not in doc]
    assert not missing, f"docs/licences.md lacks {missing}: run `make licences` and commit it"


@pytest.mark.parametrize("reported,status", [
    ("Zeebe Community License v1.1", "vendor"),
    ("Camunda License 1.0", "vendor"),
    ("Business Source License 1.1", "vendor"),
    ("BUSL-1.1", "vendor"),
    ("SSPL-1.0", "vendor"),
    ("Server Side Public License, v 1", "vendor"),
    ("Elastic License 2.0", "vendor"),
    ("MIT OR Elastic-2.0", "vendor"),
    ("Apache-2.0 WITH Commons-Clause", "vendor"),
    ("Some Licence Nobody Knows", "unknown"),
    ("", "unknown"),
    ("CC-BY-4.0", "not-allowed"),
    ("MIT AND CC0-1.0", "not-allowed"),
    ("(MIT OR CC0-1.0)", "allowed"),
    ("The Apache Software License, Version 2.0", "allowed"),
    ("Eclipse Public License v2.0", "allowed"),
    ("EPL 2.0|GPL2 w/ CPE", "allowed"),
    ("BSL-1.0", "allowed"),
])
def test_normalisation(reported, status):
    assert check.evaluate(reported, POLICY)[1] == status


def _planted_pom(tmp: Path) -> Path:
    pom = (check.ROOT / "sdk-java" / "pom.xml").read_text()
    g, a, v = PLANTED
    dep = (f"\n    <dependency>\n      <groupId>{g}</groupId>\n      <artifactId>{a}</artifactId>\n"
           f"      <version>{v}</version>\n"
           "      <!-- POM metadata only: a synthetic POM, no code -->\n"
           "      <type>pom</type>\n      <scope>test</scope>\n"
           "      <exclusions><exclusion><groupId>*</groupId><artifactId>*</artifactId></exclusion></exclusions>\n"
           "    </dependency>")
    # the project's own <dependencies>, after <dependencyManagement> when there is one
    start = pom.find("</dependencyManagement>")
    i = pom.index("<dependencies>", max(start, 0)) + len("<dependencies>")
    out = tmp / "pom.xml"
    out.write_text(pom[:i] + dep + pom[i:])
    return out


def _install_planted(repo_dir: Path) -> None:
    g, a, v = PLANTED
    repo_dir.mkdir(parents=True, exist_ok=True)
    (repo_dir / f"{a}-{v}.pom").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<project xmlns="http://maven.apache.org/POM/4.0.0">\n'
        f"  <modelVersion>4.0.0</modelVersion>\n  <groupId>{g}</groupId>\n  <artifactId>{a}</artifactId>\n"
        f"  <version>{v}</version>\n  <packaging>pom</packaging>\n"
        f"  <licenses><license><name>{PLANTED_LICENCE}</name></license></licenses>\n</project>\n")


def test_planted_vendor_dependency_fails(tmp_path):
    g, a, v = PLANTED
    repo_dir = Path.home() / ".m2" / "repository" / Path(*g.split(".")) / a / v
    _install_planted(repo_dir)
    try:
        pom = _planted_pom(tmp_path)
        r = subprocess.run([sys.executable, str(check.HERE / "check.py"), "--pom", str(pom),
                            "--out", str(tmp_path / "out")], capture_output=True, text=True, cwd=check.ROOT)
    finally:
        import shutil
        shutil.rmtree(repo_dir.parents[1], ignore_errors=True)
    msgs = [line.strip() for line in r.stdout.splitlines() if "VIOLATION" in line]
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "planted.txt").write_text(r.stdout + r.stderr)
    assert r.returncode == 1, r.stdout + r.stderr
    assert len(msgs) == 1, r.stdout
    msg = msgs[0]
    assert f"{g}:{a} {v}" in msg and "Zeebe Community License" in msg and "vendor terms" in msg, msg
    assert re.search(r"pulled in by extra:.*pom\.xml", msg), msg


def test_our_own_licence_is_declared_everywhere():
    root = check.ROOT
    lic = (root / "LICENSE").read_text()
    assert "Apache License" in lic and "Version 2.0, January 2004" in lic and "The jobwire authors" in lic
    assert "The jobwire authors" in (root / "NOTICE").read_text()
    # the LICENSE (and NOTICE) next to every published package are copies of the root's
    for d in ("sdk-go", "engine-reference", "sdk-python", "sdk-node"):
        assert (root / d / "LICENSE").read_text() == lic, f"{d}/LICENSE differs from LICENSE"
    for d in ("sdk-python", "sdk-node"):
        assert (root / d / "NOTICE").read_text() == (root / "NOTICE").read_text(), f"{d}/NOTICE differs from NOTICE"
    assert re.search(r'^license = "Apache-2.0"$', (root / "sdk-python" / "pyproject.toml").read_text(), re.M)
    pkg = json.loads((root / "sdk-node" / "package.json").read_text())
    assert pkg["license"] == "Apache-2.0" and {"LICENSE", "NOTICE"} <= set(pkg["files"])
    pom = (root / "sdk-java" / "pom.xml").read_text()
    assert re.search(r"<licenses>\s*<license>\s*<name>Apache-2.0</name>", pom)
