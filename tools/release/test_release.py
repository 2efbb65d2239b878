"""make release, smoke (suite `release`): one version everywhere; two release
builds of the last commit give byte-identical artifacts. A new project per
language that gets the SDK and the engine from dist/ alone is the
getting-started page run as written: test_getting_started.py.

The first build is a full release: the engine for linux, darwin and windows x
amd64 and arm64; the second builds the engine for linux/amd64 only, and each of
its files must equal the first build's. Only linux/amd64 runs here; the other
five are checked by their headers and by `file` (test_engine_packages.py).
"""
from __future__ import annotations

import json
import re
import sys
import tarfile
import zipfile

from conftest import ROOT, V, run  # noqa: E402  (tools/release/conftest.py)

PY = sys.executable


def test_one_version_everywhere():
    out = run([PY, str(ROOT / "tools" / "release" / "version.py"), "--check"])
    assert f"version {V}" in out


def test_release_is_reproducible(dists):
    """Every file of the second build (the engine for linux/amd64 only) is
    byte-identical to the same file of the first (all six platforms)."""
    a, b = (dict(reversed(ln.split("  ", 1)) for ln in (d / "SHA256SUMS").read_text().splitlines()) for d in dists)
    assert f"engine/jobwire-engine-{V}-linux-amd64" in b and len(b) >= 20, sorted(b)
    missing = sorted(set(b) - set(a))
    assert not missing, f"the second build has files the first has not: {missing}"
    # the npm launcher names one optional dependency per engine built: it is the one file that
    # differs by design when the second build has fewer platforms
    differ = sorted(f for f in b if a[f] != b[f] and f != f"engine-npm/jobwire-engine-{V}.tgz")
    assert not differ, f"two release builds of one commit differ: {differ}"


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
        f"go/github.com/jobwire/jobwire/sdk-go/jobwiretest/@v/v{V}.zip",
        f"go/github.com/jobwire/jobwire/sdk-go/jobwiretest/@v/v{V}.mod",
        f"java/jobwire-test-{V}.jar", f"java/jobwire-test-{V}-sources.jar", f"java/jobwire-test-{V}-javadoc.jar",
        f"java/jobwire-test-{V}.pom",
        f"java/jobwire-spring-boot-starter-{V}.jar", f"java/jobwire-spring-boot-starter-{V}-sources.jar",
        f"java/jobwire-spring-boot-starter-{V}-javadoc.jar", f"java/jobwire-spring-boot-starter-{V}.pom",
        f"node/jobwire-nestjs-{V}.tgz",
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
    with tarfile.open(d / f"node/jobwire-nestjs-{V}.tgz") as t:
        names = t.getnames()
        nest = json.loads(t.extractfile("package/package.json").read().decode())
    assert nest["version"] == V and nest["peerDependencies"]["@jobwire/sdk"] == f"^{V}", nest
    assert {"package/lib/index.js", "package/lib/index.d.ts", "package/LICENSE"} <= set(names), names
    assert not [n for n in names if "/test/" in n or n.endswith(".ts") and not n.endswith(".d.ts")], names
    with zipfile.ZipFile(d / f"java/jobwire-spring-boot-starter-{V}.jar") as z:
        imports = z.read("META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports").decode()
    assert "io.jobwire.spring.JobwireAutoConfiguration" in imports, imports
    assert f"<version>{V}</version>" in (d / f"java/jobwire-spring-boot-starter-{V}.pom").read_text()
    assert f"<version>{V}</version>" in (d / want[7]).read_text()
    with zipfile.ZipFile(d / want[8]) as z:
        names = z.namelist()
    assert f"github.com/jobwire/jobwire/sdk-go@v{V}/go.mod" in names
    assert not [n for n in names if "/node_modules/" in n or n.endswith(".test")]
    # the Go test kit is a module of its own: not in the SDK's zip; it requires the SDK and engine of this release
    assert not [n for n in names if "/jobwiretest/" in n]
    kit_mod = (d / want[12]).read_text()
    for dep in ("sdk-go", "engine-reference"):
        assert re.search(rf"^\tgithub\.com/jobwire/jobwire/{dep} v{re.escape(V)}$", kit_mod, re.M), kit_mod
