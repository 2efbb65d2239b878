"""make release, smoke (suite `release`): one version everywhere; two release
builds of the last commit give byte-identical artifacts; and a new Go project
outside the repository gets the SDK and the engine from dist/ alone.

The full `make release` builds the engine for six platforms; this smoke builds
one (RELEASE_PLATFORMS=linux/amd64) to stay within the test budget.
"""
from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path


from conftest import ROOT, V, run  # noqa: E402  (tools/release/conftest.py)

PY = sys.executable


def test_one_version_everywhere():
    out = run([PY, str(ROOT / "tools" / "release" / "version.py"), "--check"])
    assert f"version {V}" in out


def test_release_is_reproducible(dists):
    a, b = ((d / "SHA256SUMS").read_text() for d in dists)
    assert a == b, "two release builds of one commit differ:\n" + "\n".join(
        sorted(set(a.splitlines()) ^ set(b.splitlines())))


def test_release_holds_every_artifact(dists):
    d = dists[0]
    want = [
        f"engine/jobwire-engine-{V}-linux-amd64",
        f"python/jobwire-{V}-py3-none-any.whl", f"python/jobwire-{V}.tar.gz",
        f"node/jobwire-sdk-{V}.tgz",
        f"java/jobwire-sdk-{V}.jar", f"java/jobwire-sdk-{V}-sources.jar", f"java/jobwire-sdk-{V}-javadoc.jar",
        f"java/jobwire-sdk-{V}.pom",
        f"go/github.com/jobwire/jobwire/sdk-go/@v/v{V}.zip", f"go/github.com/jobwire/jobwire/sdk-go/@v/v{V}.mod",
        f"go/github.com/jobwire/jobwire/engine-reference/@v/v{V}.zip",
    ]
    missing = [w for w in want if not (d / w).is_file()]
    assert not missing, f"missing from dist/: {missing}"
    sums = (d / "SHA256SUMS").read_text()
    for w in want:
        assert re.search(rf"^[0-9a-f]{{64}}  {re.escape(w)}$", sums, re.M), f"{w} not in SHA256SUMS"
    # each artifact says the version it is
    assert run([str(d / want[0]), "version"]).strip() == f"jobwire-engine {V}"
    with zipfile.ZipFile(d / want[1]) as z:
        meta = z.read(f"jobwire-{V}.dist-info/METADATA").decode()
    assert f"\nVersion: {V}\n" in meta
    with tarfile.open(d / want[3]) as t:
        assert f'"version": "{V}"' in t.extractfile("package/package.json").read().decode()
    assert f"<version>{V}</version>" in (d / want[7]).read_text()
    with zipfile.ZipFile(d / want[8]) as z:
        names = z.namelist()
    assert f"github.com/jobwire/jobwire/sdk-go@v{V}/go.mod" in names
    assert not [n for n in names if "/node_modules/" in n or n.endswith(".test")]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_new_go_project_from_dist_only(dists, tmp_path):
    """A temp folder outside the repository: `go install` the engine and `go get`
    the SDK from dist/go (a file:// module proxy), start the engine, run 100
    jobs through a worker."""
    gopath = subprocess.run(["go", "env", "GOPROXY"], capture_output=True, text=True).stdout.strip()
    env = dict(os.environ, GOPROXY=f"file://{dists[0] / 'go'},{gopath or 'https://proxy.golang.org'}",
               GONOSUMDB="github.com/jobwire", GOFLAGS="-mod=mod", GOWORK="off", GOBIN=str(tmp_path / "bin"))
    env.pop("GOPRIVATE", None)
    run(["go", "install", f"github.com/jobwire/jobwire/engine-reference/cmd/jobwire-engine@v{V}"], env=env, cwd=tmp_path,
        timeout=600)
    proj = tmp_path / "payment"
    proj.mkdir()
    run(["go", "mod", "init", "example.com/payment"], env=env, cwd=proj)
    shutil.copy(ROOT / "tools" / "release" / "testdata" / "newproject_go.go.txt", proj / "main.go")
    run(["go", "get", f"github.com/jobwire/jobwire/sdk-go@v{V}"], env=env, cwd=proj, timeout=600)
    run(["go", "build", "-o", "payment", "."], env=env, cwd=proj, timeout=600)
    assert str(ROOT) not in (proj / "go.mod").read_text()
    port = _free_port()
    eng = subprocess.Popen([str(tmp_path / "bin" / "jobwire-engine"), "dev", "--port", str(port), "--no-ui",
                            "--exit-on-stdin-close"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        t0 = time.monotonic()
        line = eng.stdout.readline()
        assert "listening on 127.0.0.1:" in line, line
        ready = time.monotonic() - t0
        out = run([str(proj / "payment"), f"127.0.0.1:{port}"], timeout=120)
        assert "completed 100" in out
        print(f"engine from `go install` ready in {ready * 1000:.0f} ms")
    finally:
        eng.stdin.close()
        eng.wait(timeout=20)
