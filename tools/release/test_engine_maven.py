"""The engine for Maven (tools/release/engine-maven.sh, in the `release` suite):
io.jobwire:jobwire-engine (the JobwireEngine API) and its classifier jars in
dist/engine-maven/, byte-identical across the two builds of conftest's `dists` (where both have it);
and a new Maven project outside the repository that gets the SDK and the engine
from dist/ alone, starts the engine with JobwireEngine.start() and runs 100 jobs.

The new project's local repository is a temporary one: io/jobwire/ is empty
until `install:install-file` puts the dist/ files there, as a user installs
downloaded artifacts; every other group is a symlink into ~/.m2/repository, so
Maven runs offline with the plugins and the SDK's dependencies already there,
and the shared ~/.m2 copy of io.jobwire (built from the working tree) is never
seen nor overwritten.
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

from conftest import ROOT, V, run  # noqa: E402  (tools/release/conftest.py)

CLASSIFIER = "linux-x86_64"  # the one platform that runs here
CLASSIFIERS = ["linux-x86_64", "linux-aarch_64", "osx-x86_64", "osx-aarch_64", "windows-x86_64", "windows-aarch_64"]
ARTIFACTS = [f"engine-maven/jobwire-engine-{V}{s}" for s in
             (".jar", "-sources.jar", "-javadoc.jar", ".pom", *(f"-{c}.jar" for c in CLASSIFIERS))]
M2 = Path.home() / ".m2" / "repository"


def _sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def test_engine_maven_artifacts(dists):
    d = dists[0]
    missing = [a for a in ARTIFACTS if not (d / a).is_file()]
    assert not missing, f"missing from dist/: {missing}"
    # one classifier jar per engine binary, nothing else
    jars = sorted(p.name for p in (d / "engine-maven").iterdir())
    assert jars == sorted(Path(a).name for a in ARTIFACTS), jars
    sums = (d / "SHA256SUMS").read_text()
    for a in ARTIFACTS:
        assert re.search(rf"^[0-9a-f]{{64}}  {re.escape(a)}$", sums, re.M), f"{a} not in SHA256SUMS"
        if (dists[1] / a).is_file():  # the second build has the linux/amd64 engine only
            assert _sha(d / a) == _sha(dists[1] / a), f"{a} differs between two builds of one commit"
    assert f"<artifactId>jobwire-engine</artifactId>\n  <version>{V}</version>" in (d / ARTIFACTS[3]).read_text()
    with zipfile.ZipFile(d / ARTIFACTS[0]) as z:
        names = z.namelist()
        assert "io/jobwire/engine/JobwireEngine.class" in names and "META-INF/LICENSE" in names
        assert not [n for n in names if n.startswith("io/jobwire/engine/linux")], "binary in the API jar"
    with zipfile.ZipFile(d / ARTIFACTS[4]) as z:
        binary = z.read(f"io/jobwire/engine/{CLASSIFIER}/jobwire-engine")
    assert binary == (d / "engine" / f"jobwire-engine-{V}-linux-amd64").read_bytes()


def _local_repo(tmp: Path) -> Path:
    """A local repository with every group of ~/.m2 but io.jobwire."""
    repo = tmp / "m2"
    (repo / "io").mkdir(parents=True)
    for p in M2.iterdir():
        if p.name != "io":
            (repo / p.name).symlink_to(p)
    for p in (M2 / "io").iterdir():
        if p.name != "jobwire":
            (repo / "io" / p.name).symlink_to(p)
    return repo


POM = """<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.example</groupId>
  <artifactId>payment</artifactId>
  <version>1</version>
  <properties>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
    <maven.compiler.release>17</maven.compiler.release>
  </properties>
  <dependencies>
    <dependency><groupId>io.jobwire</groupId><artifactId>jobwire-sdk</artifactId><version>@V@</version></dependency>
    <dependency><groupId>io.jobwire</groupId><artifactId>jobwire-engine</artifactId><version>@V@</version></dependency>
    <dependency><groupId>io.jobwire</groupId><artifactId>jobwire-engine</artifactId><version>@V@</version>
      <classifier>@C@</classifier></dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId><version>3.14.0</version></plugin>
      <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-resources-plugin</artifactId><version>3.3.1</version></plugin>
    </plugins>
  </build>
</project>
"""


def test_new_maven_project_from_dist_only(dists, tmp_path):
    d = dists[0]
    repo = _local_repo(tmp_path)
    mvn = ["mvn", "-o", "-q", "-B", f"-Dmaven.repo.local={repo}"]
    install = mvn + ["org.apache.maven.plugins:maven-install-plugin:3.1.3:install-file"]
    run(install + [f"-Dfile={d}/java/jobwire-sdk-{V}.jar", f"-DpomFile={d}/java/jobwire-sdk-{V}.pom"],
        cwd=tmp_path, timeout=300)
    run(install + [f"-Dfile={d}/engine-maven/jobwire-engine-{V}.jar",
                   f"-DpomFile={d}/engine-maven/jobwire-engine-{V}.pom"], cwd=tmp_path, timeout=300)
    run(install + [f"-Dfile={d}/engine-maven/jobwire-engine-{V}-{CLASSIFIER}.jar", "-DgroupId=io.jobwire",
                   "-DartifactId=jobwire-engine", f"-Dversion={V}", f"-Dclassifier={CLASSIFIER}",
                   "-Dpackaging=jar", "-DgeneratePom=false"], cwd=tmp_path, timeout=300)

    proj = tmp_path / "payment"
    (proj / "src" / "main" / "java").mkdir(parents=True)
    (proj / "pom.xml").write_text(POM.replace("@V@", V).replace("@C@", CLASSIFIER))
    shutil.copy(ROOT / "tools" / "release" / "testdata" / "newproject_engine_maven.java.txt",
                proj / "src" / "main" / "java" / "Main.java")
    run(mvn + ["compile", "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath",
               "-Dmdep.outputFile=cp.txt"], cwd=proj, timeout=300)
    cp = (proj / "cp.txt").read_text().strip().split(os.pathsep)
    ours = [p for p in cp if "/io/jobwire/" in p]
    assert len(ours) == 3, cp
    for p in ours:  # resolved from the temporary repository, i.e. from dist/
        assert Path(p).resolve().is_relative_to(repo), p
        assert not Path(p).is_symlink()

    env = {k: v for k, v in os.environ.items() if k != "JOBWIRE_ENGINE"}
    jtmp = tmp_path / "javatmp"
    jtmp.mkdir()
    p = subprocess.run(["java", f"-Djava.io.tmpdir={jtmp}", "-cp", os.pathsep.join([str(proj / "target" / "classes")] + cp),
                        "Main"], cwd=proj, env=env, capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, f"new project failed ({p.returncode}):\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
    out = p.stdout
    assert "completed 100" in out, out
    # the engine that ran is the one from the classifier jar, extracted under java.io.tmpdir
    m = re.search(r"^binary (.+)$", out, re.M)
    assert m and Path(m.group(1)).is_relative_to(jtmp), out
    assert Path(m.group(1)).read_bytes() == (d / "engine" / f"jobwire-engine-{V}-linux-amd64").read_bytes()
    ready = re.search(r"engine ready in (\d+) ms at 127\.0\.0\.1:\d+", out)
    assert ready, out
    # the engine stopped with close(): nothing of it is left running
    assert not _engines_running_from(jtmp)
    print(f"engine from Maven (JobwireEngine.start()) ready in {ready.group(1)} ms")


def _engines_running_from(folder: Path) -> list[str]:
    left = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            exe = os.readlink(f"/proc/{pid}/exe")
        except OSError:
            continue
        if exe.startswith(str(folder)):
            left.append(pid)
    return left
