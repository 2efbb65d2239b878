"""The engine from pip and npm (suite `release`): the release's platform wheels
of `jobwire-engine` (tools/release/engine-pypi.sh) and npm packages
@jobwire/engine + @jobwire/engine-<platform>-<arch> (engine-npm.sh), checked
from the artifacts alone: each carries the binary of the platform its name and
metadata claim, and a new project in a temp folder outside the repository
installs the engine and the SDK from dist/, starts the engine with the
package's API (start()) and runs the getting-started page's worker and 100
orders against it.

The release tests build the engine for all six platforms (conftest.py); only
linux/amd64 runs here. Every binary is checked by its header and by `file`."""
from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import shutil
import struct
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

from conftest import ROOT, V, run  # noqa: E402  (tools/release/conftest.py)
from docpages import blocks  # noqa: E402  (tools/release/docpages.py)

TESTDATA = ROOT / "tools" / "release" / "testdata"
GO_TO_WHEEL = {"linux/amd64": "manylinux_2_17_x86_64", "linux/arm64": "manylinux_2_17_aarch64",
               "darwin/amd64": "macosx_10_12_x86_64", "darwin/arm64": "macosx_11_0_arm64",
               "windows/amd64": "win_amd64", "windows/arm64": "win_arm64"}
# what file(1) prints for each platform's executable (OS and architecture)
FILE_SAYS = {"linux/amd64": ("ELF 64-bit", "x86-64", "statically linked"),
             "linux/arm64": ("ELF 64-bit", "ARM aarch64", "statically linked"),
             "darwin/amd64": ("Mach-O 64-bit", "x86_64"), "darwin/arm64": ("Mach-O 64-bit", "arm64"),
             "windows/amd64": ("PE32+", "MS Windows", "x86-64"), "windows/arm64": ("PE32+", "MS Windows", "Aarch64")}
GO_TO_NPM = {"linux/amd64": ("linux", "x64"), "linux/arm64": ("linux", "arm64"), "darwin/amd64": ("darwin", "x64"),
             "darwin/arm64": ("darwin", "arm64"), "windows/amd64": ("win32", "x64"), "windows/arm64": ("win32", "arm64")}


def platform_of(data: bytes) -> str:
    """GOOS/GOARCH of an executable, from its ELF, Mach-O or PE header."""
    if data[:4] == b"\x7fELF":
        machine = struct.unpack_from("<H", data, 18)[0]
        return "linux/" + {0x3E: "amd64", 0xB7: "arm64"}.get(machine, hex(machine))
    if data[:4] == b"\xcf\xfa\xed\xfe":
        cpu = struct.unpack_from("<I", data, 4)[0]
        return "darwin/" + {0x01000007: "amd64", 0x0100000C: "arm64"}.get(cpu, hex(cpu))
    if data[:2] == b"MZ":
        pe = struct.unpack_from("<I", data, 0x3C)[0]
        assert data[pe:pe + 4] == b"PE\0\0", "MZ without a PE header"
        machine = struct.unpack_from("<H", data, pe + 4)[0]
        return "windows/" + {0x8664: "amd64", 0xAA64: "arm64"}.get(machine, hex(machine))
    raise AssertionError(f"not an executable: {data[:8]!r}")


def built_platforms(dist: Path) -> list[str]:
    got = []
    for f in sorted((dist / "engine").iterdir()):
        m = re.fullmatch(rf"jobwire-engine-{re.escape(V)}-(\w+)-(\w+)(\.exe)?", f.name)
        assert m, f"unexpected file in engine/: {f.name}"
        plat = f"{m[1]}/{m[2]}"
        assert platform_of(f.read_bytes()[:4096]) == plat, f"{f.name} is not a {plat} executable"
        said = subprocess.run(["file", "-b", str(f)], capture_output=True, text=True, check=True).stdout
        assert all(w in said for w in FILE_SAYS[plat]), f"file(1) says {f.name} is: {said}"
        got.append(plat)
    return got


def test_engine_packages_carry_their_platforms_binary(dists):
    d = dists[0]
    plats = built_platforms(d)
    assert plats == sorted(GO_TO_WHEEL), plats
    sums = (d / "SHA256SUMS").read_text()
    for p in plats:
        os_, arch = p.split("/")
        name = f"jobwire-engine-{V}-{os_}-{arch}" + (".exe" if os_ == "windows" else "")
        digest = hashlib.sha256((d / "engine" / name).read_bytes()).hexdigest()
        assert f"{digest}  engine/{name}" in sums, f"engine/{name}: no matching line in SHA256SUMS"
    wheels = sorted((d / "engine-python").glob("*.whl"))
    assert len(wheels) == len(plats), [w.name for w in wheels]
    seen = set()
    for w in wheels:
        m = re.fullmatch(rf"jobwire_engine-{re.escape(V)}-py3-none-([\w.]+)\.whl", w.name)
        assert m, w.name
        tags = m[1].split(".")
        with zipfile.ZipFile(w) as z:
            names = z.namelist()
            exe = [n for n in names if n.startswith(f"jobwire_engine-{V}.data/scripts/")]
            assert len(exe) == 1, names
            plat = platform_of(z.read(exe[0])[:4096])
            assert exe[0].endswith(".exe") == plat.startswith("windows/")
            assert (z.getinfo(exe[0]).external_attr >> 16) & 0o111, "the executable lost its x bit"
            meta = z.read(f"jobwire_engine-{V}.dist-info/METADATA").decode()
            wheel_tags = re.findall(r"^Tag: py3-none-(\S+)$", z.read(f"jobwire_engine-{V}.dist-info/WHEEL").decode(), re.M)
            assert "jobwire_engine/__init__.py" in names
        assert GO_TO_WHEEL[plat] in tags, f"{w.name} carries a {plat} binary"
        assert sorted(wheel_tags) == sorted(tags)
        assert f"\nName: jobwire-engine\nVersion: {V}\n" in meta
        seen.add(plat)
    assert seen == set(plats)

    tgzs = {t.name: t for t in (d / "engine-npm").glob("*.tgz")}
    want = {f"jobwire-engine-{V}.tgz"} | {f"jobwire-engine-{'-'.join(GO_TO_NPM[p])}-{V}.tgz" for p in plats}
    assert set(tgzs) == want
    for p in plats:
        nos, cpu = GO_TO_NPM[p]
        with tarfile.open(tgzs[f"jobwire-engine-{nos}-{cpu}-{V}.tgz"]) as t:
            pkg = json.loads(t.extractfile("package/package.json").read())
            exe = t.getmember("package/bin/jobwire-engine" + (".exe" if nos == "win32" else ""))
            assert exe.mode & 0o111
            assert platform_of(t.extractfile(exe).read(4096)) == p
        assert (pkg["name"], pkg["version"], pkg["os"], pkg["cpu"]) == (f"@jobwire/engine-{nos}-{cpu}", V, [nos], [cpu])
    with tarfile.open(tgzs[f"jobwire-engine-{V}.tgz"]) as t:
        main = json.loads(t.extractfile("package/package.json").read())
        assert not [m.name for m in t.getmembers() if m.size > 100_000], "the launcher package carries no binary"
    assert main["name"] == "@jobwire/engine" and main["version"] == V
    assert main["bin"] == {"jobwire-engine": "bin/jobwire-engine.js"}
    assert main["optionalDependencies"] == {f"@jobwire/engine-{'-'.join(GO_TO_NPM[p])}": V for p in plats}


def _page_files(lang: str, proj: Path) -> None:
    """The getting-started page's files (process, worker, start program) into proj."""
    for b in blocks(ROOT / "docs" / f"getting-started-{lang}.md"):
        if b.kind == "file":
            (proj / b.arg).write_text(b.text)


def _page_registry_packages(lang: str) -> list[str]:
    """The packages the getting-started page installs beside jobwire's own (e.g.
    zod on the Node page): they come from the registry, as for a newcomer."""
    inst = {"node": re.compile(r"^npm (?:install|i)\s"), "python": re.compile(r"^pip install\s")}[lang]
    out = []
    for b in blocks(ROOT / "docs" / f"getting-started-{lang}.md"):
        if b.kind == "shell":
            for c in b.commands():
                if inst.match(c):
                    out += [w for w in shlex.split(c.split(" #")[0])[2:]
                            if not w.startswith("-") and not re.match(r"^(@jobwire/|jobwire)", w)]
    return out


def _ready_ms(out: str) -> int:
    m = re.search(r"^ready_ms (\d+)", out, re.M)
    assert m, out
    return int(m[1])


def test_new_python_project_from_dist_only(dist, tmp_path):
    """A fresh venv outside the repository: pip installs the SDK wheel and the
    engine wheel (no index for our packages; the SDK's own dependencies may
    come from PyPI), `jobwire-engine version`, then the getting-started page's
    worker and 100 orders against jobwire_engine.start()."""
    d = dist
    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", str(venv)], timeout=120)
    py = venv / "bin" / "python"
    sdk = sorted((d / "python").glob(f"jobwire-{V}-*.whl"))
    eng = sorted((d / "engine-python").glob(f"jobwire_engine-{V}-*linux*x86_64*.whl"))
    assert len(sdk) == 1 and len(eng) == 1, (sdk, eng)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    run([str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(sdk[0]), str(eng[0]),
         *_page_registry_packages("python")],
        cwd=tmp_path, env=env, timeout=600)
    exe = venv / "bin" / "jobwire-engine"
    assert exe.is_file() and os.access(exe, os.X_OK), "the wheel installed no jobwire-engine command"
    assert run([str(exe), "version"], cwd=tmp_path).strip() == f"jobwire-engine {V}"
    proj = tmp_path / "payment"
    proj.mkdir()
    shutil.copy(TESTDATA / "newproject_engine_py.py.txt", proj / "main.py")
    _page_files("python", proj)
    out = run([str(py), "main.py"], cwd=proj, env=env, timeout=300)
    assert f"engine {exe}" in out, out
    assert "100/100 orders completed: 95 paid, 5 declined" in out, out
    assert "worker exit 0" in out and "engine exit 0" in out, out
    print(f"engine from the jobwire-engine wheel ready in {_ready_ms(out)} ms (jobwire_engine.start())")


def test_new_node_project_from_dist_only(dist, tmp_path):
    """A temp folder outside the repository: `npm init -y`, npm installs the
    SDK tarball and the engine tarballs (file paths; the SDK's own dependencies
    come from the registry), `npx jobwire-engine version`, then the
    getting-started page's worker and 100 orders against
    require('@jobwire/engine').start()."""
    d = dist
    proj = tmp_path / "payment"
    proj.mkdir()
    run(["npm", "init", "-y"], cwd=proj, timeout=60)
    sdk = sorted((d / "node").glob(f"jobwire-sdk-{V}.tgz"))
    eng = sorted((d / "engine-npm").glob(f"jobwire-engine-{V}.tgz")) + sorted(
        (d / "engine-npm").glob(f"jobwire-engine-linux-x64-{V}.tgz"))
    assert len(sdk) == 1 and len(eng) == 2, (sdk, eng)
    run(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error", *map(str, sdk + eng),
         *_page_registry_packages("node")], cwd=proj, timeout=600)
    lock = (proj / "package-lock.json").read_text()
    assert str(ROOT) not in lock and "github" not in json.dumps(json.loads(lock)["packages"][""])
    assert run(["npx", "--no-install", "jobwire-engine", "version"], cwd=proj, timeout=60).strip() == f"jobwire-engine {V}"
    # the launcher passes the exit code through
    bad = subprocess.run(["npx", "--no-install", "jobwire-engine", "no-such-command"], cwd=proj,
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2, (bad.returncode, bad.stderr)
    shutil.copy(TESTDATA / "newproject_engine_node.js.txt", proj / "main.js")
    _page_files("node", proj)
    out = run(["node", "main.js"], cwd=proj, timeout=300)
    assert f"engine {proj / 'node_modules' / '@jobwire' / 'engine-linux-x64' / 'bin' / 'jobwire-engine'}" in out, out
    assert "100/100 orders completed: 95 paid, 5 declined" in out, out
    assert "worker exit 0" in out and "engine exit 0" in out, out
    print(f"engine from @jobwire/engine ready in {_ready_ms(out)} ms (start())")
