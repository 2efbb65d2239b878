"""The getting-started pages, run as a newcomer runs them (suite `release`).

For each of docs/getting-started-{python,node,java,go}.md, in a temp folder
outside the repository: the page's marked blocks (tools/release/docpages.py) in
page order, exactly as written. `file` blocks are written to the project
folder; `shell` blocks run in one bash session (what a block exports, activates
or `cd`s into carries on to the next blocks and to the engine and worker);
the `engine` block starts the engine, the `worker` block the page's worker.
The last shell block starts 100 instances; it must report all 100 completed
(95 paid, 5 at the PAYMENT_DECLINED boundary event). Then the worker gets
SIGTERM and must exit 0 (a graceful close), and the engine is stopped.

What the test changes, and nothing else (SUBSTITUTIONS below):
- package sources: the packages the pages install come from the release
  folder (conftest's `dist`) instead of the registries: pip and npm get the
  files for the package names; Maven runs offline with a local repository
  holding dist/'s io.jobwire artifacts; Go gets GOPROXY=file://dist/go (and
  GOBIN in the temp folder, so `go install` does not write to your GOPATH);
- the port: the engine's command gets `--port N` (the Java page's engine
  program takes the port as its argument), and every other process gets
  ZEEBE_ADDRESS=127.0.0.1:N, the documented variable, so the test uses a free
  port instead of the default 26500.
"""
from __future__ import annotations

import ast
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import ROOT, V, run  # noqa: E402  (tools/release/conftest.py)
from docpages import Block, blocks  # noqa: E402  (tools/release/docpages.py)

LANGS = ("python", "node", "java", "go")
PAGES = {lang: ROOT / "docs" / f"getting-started-{lang}.md" for lang in LANGS}
RESULT = re.compile(r"^100/100 orders completed: 95 paid, 5 declined$", re.M)
ANSI = re.compile(r"\x1b\[[0-9;]*m")
M2 = Path.home() / ".m2" / "repository"
JAVA_CLASSIFIER = "linux-x86_64"  # the platform of this machine


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------- substitutions

def _pip_sources(dist: Path) -> dict[str, list[str]]:
    sdk = sorted((dist / "python").glob(f"jobwire-{V}-*.whl"))
    eng = sorted((dist / "engine-python").glob(f"jobwire_engine-{V}-*linux*x86_64*.whl"))
    assert len(sdk) == 1 and len(eng) == 1, (sdk, eng)
    return {"jobwire": [str(sdk[0])], "jobwire-engine": [str(eng[0])]}


def _npm_sources(dist: Path) -> dict[str, list[str]]:
    sdk, launcher, plat = (dist / "node" / f"jobwire-sdk-{V}.tgz", dist / "engine-npm" / f"jobwire-engine-{V}.tgz",
                           dist / "engine-npm" / f"jobwire-engine-linux-x64-{V}.tgz")
    for f in (sdk, launcher, plat):
        assert f.is_file(), f
    # @jobwire/engine's platform package is an optional dependency the registry would give
    out = {"@jobwire/sdk": [str(sdk)], "@jobwire/engine": [str(launcher), str(plat)]}
    nest = dist / "node" / f"jobwire-nestjs-{V}.tgz"
    if nest.is_file():
        out["@jobwire/nestjs"] = [str(nest)]
    return out


def _names_to_files(line: str, installer: re.Pattern, sources: dict[str, list[str]]) -> str:
    """`pip install jobwire` -> `pip install /dist/python/jobwire-....whl`: only the
    package names of an install command change. A jobwire package must be in
    the release; any other package (e.g. zod, which a page installs beside the
    SDK) comes from the registry as the newcomer gets it."""
    m = installer.match(line)
    if not m:
        return line
    words = shlex.split(line[m.end():].split(" #")[0])
    ours = re.compile(r"^(@jobwire/|jobwire)")
    extras = re.compile(r"^([^\[]+)(\[[\w,-]+\])$")  # pip's name[extra] -> /dist/....whl[extra]

    def files(w: str) -> list[str]:
        e = extras.match(w)
        if e and e.group(1) in sources:
            first, *rest = sources[e.group(1)]
            return [first + e.group(2), *rest]
        return sources.get(w, [w])

    unknown = [w for w in words if not w.startswith("-") and files(w) == [w] and ours.match(w)]
    assert not unknown, f"the page installs {unknown}, which the release does not hold: {line!r}"
    out = [f for w in words for f in files(w)]
    return line[:m.end()] + " " + " ".join(map(shlex.quote, out))


def _maven_repo(dist: Path, tmp: Path) -> Path:
    """A local Maven repository with every group of ~/.m2 but io.jobwire, which
    install-file fills from dist/ (as tools/release/test_engine_maven.py does)."""
    repo = tmp / "m2"
    (repo / "io").mkdir(parents=True)
    for p in M2.iterdir():
        if p.name != "io":
            (repo / p.name).symlink_to(p)
    for p in (M2 / "io").iterdir():
        if p.name != "jobwire":
            (repo / "io" / p.name).symlink_to(p)
    mvn = ["mvn", "-o", "-q", "-B", f"-Dmaven.repo.local={repo}",
           "org.apache.maven.plugins:maven-install-plugin:3.1.3:install-file"]
    run(mvn + [f"-Dfile={dist}/java/jobwire-sdk-{V}.jar", f"-DpomFile={dist}/java/jobwire-sdk-{V}.pom"],
        cwd=tmp, timeout=300)
    starter = dist / "java" / f"jobwire-spring-boot-starter-{V}.jar"
    if starter.is_file():
        run(mvn + [f"-Dfile={starter}", f"-DpomFile={dist}/java/jobwire-spring-boot-starter-{V}.pom"], cwd=tmp,
            timeout=300)
    run(mvn + [f"-Dfile={dist}/engine-maven/jobwire-engine-{V}.jar",
               f"-DpomFile={dist}/engine-maven/jobwire-engine-{V}.pom"], cwd=tmp, timeout=300)
    run(mvn + [f"-Dfile={dist}/engine-maven/jobwire-engine-{V}-{JAVA_CLASSIFIER}.jar", "-DgroupId=io.jobwire",
               "-DartifactId=jobwire-engine", f"-Dversion={V}", f"-Dclassifier={JAVA_CLASSIFIER}",
               "-Dpackaging=jar", "-DgeneratePom=false"], cwd=tmp, timeout=300)
    return repo


class Substitutions:
    """The whole list of what the test changes in a page's commands."""

    def __init__(self, lang: str, dist: Path, tmp: Path, port: int):
        self.lang, self.port = lang, port
        self.env: dict[str, str] = {}
        self.rewrite = lambda line: line
        if lang == "python":
            src = _pip_sources(dist)
            pat = re.compile(r"^(?:python3? -m )?pip install(?=\s)")
            self.rewrite = lambda line: _names_to_files(line, pat, src)
        elif lang == "node":
            src = _npm_sources(dist)
            pat = re.compile(r"^npm (?:install|i)(?: --save-dev| -D)?(?=\s)")
            self.rewrite = lambda line: _names_to_files(line, pat, src)
        elif lang == "java":
            repo = _maven_repo(dist, tmp)
            self.rewrite = lambda line: re.sub(r"^mvn ", f"mvn -o -B -Dmaven.repo.local={repo} ", line)
        elif lang == "go":
            goenv = json.loads(subprocess.run(["go", "env", "-json", "GOPROXY", "GOMODCACHE"], capture_output=True,
                                              text=True, check=True).stdout)
            (tmp / "gobin").mkdir()
            # a fresh module cache, so jobwire's modules can only come from dist/go; the
            # others come from the machine's module cache (as a file proxy) or the registry
            shared = Path(goenv["GOMODCACHE"]) / "cache" / "download"
            self.env = {"GOPROXY": f"file://{dist / 'go'},file://{shared},{goenv['GOPROXY'] or 'https://proxy.golang.org'}",
                        "GONOSUMDB": "github.com/jobwire", "GOWORK": "off", "GOBIN": str(tmp / "gobin"),
                        "GOMODCACHE": str(tmp / "gomodcache")}
        # every process: the engine's address (the documented variable)
        self.env["ZEEBE_ADDRESS"] = f"127.0.0.1:{port}"

    def engine_args(self) -> str:
        return f" {self.port}" if self.lang == "java" else f" --port {self.port}"


# ---------------------------------------------------------------- running a page

class Session:
    """One bash session: shell blocks run in it; env and cwd carry on."""

    def __init__(self, cwd: Path, env: dict[str, str], subs: Substitutions, log: Path):
        self.cwd, self.env, self.subs, self.log = cwd, env, subs, log
        self.procs: list[tuple[str, subprocess.Popen]] = []

    def _script(self, b: Block) -> str:
        lines = [self.subs.rewrite(ln) for ln in b.commands()]
        return "set -eo pipefail\n" + "\n".join(lines) + "\n"

    def shell(self, b: Block, timeout: float = 900) -> str:
        state = self.log.parent / "state"
        script = self._script(b) + f'env -0 > "{state}.env"; pwd > "{state}.cwd"\n'
        t0 = time.monotonic()
        p = subprocess.run(["bash", "-c", script], cwd=self.cwd, env=self.env, capture_output=True, text=True,
                           timeout=timeout)
        with self.log.open("a") as f:
            f.write(f"$ {script}\n{p.stdout}{p.stderr}\n[exit {p.returncode}, {time.monotonic() - t0:.1f} s]\n")
        assert p.returncode == 0, f"block at line {b.line} failed ({p.returncode}):\n{script}\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
        raw = Path(f"{state}.env").read_text().split("\0")
        self.env = dict(kv.split("=", 1) for kv in raw if "=" in kv)
        self.cwd = Path(Path(f"{state}.cwd").read_text().strip())
        return ANSI.sub("", p.stdout)  # mvn colours its output even with -B -q

    def start(self, name: str, b: Block, extra: str = "") -> subprocess.Popen:
        cmds = b.commands()
        assert len(cmds) == 1, f"an {b.kind} block holds one command, line {b.line}: {cmds}"
        cmd = self.subs.rewrite(cmds[0]).split(" #")[0].rstrip() + extra
        out = (self.log.parent / f"{name}.log").open("w")
        # exec: the signal goes to the page's process itself, as Ctrl-C would
        # (after the command's own VAR=value words, which `exec` does not take)
        p = subprocess.Popen(["bash", "-c", re.sub(r"^((?:\w+=\S*\s+)*)", r"\1exec ", cmd, count=1)],
                             cwd=self.cwd, env=self.env, stdout=out,
                             stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        self.procs.append((name, p))
        return p

    def output(self, name: str) -> str:
        return (self.log.parent / f"{name}.log").read_text()

    def stop_all(self):
        for _, p in reversed(self.procs):
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                    p.wait(timeout=20)
                except (ProcessLookupError, subprocess.TimeoutExpired):
                    try:
                        os.killpg(p.pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                    p.wait()


def _wait_listening(port: int, engine: subprocess.Popen, session: Session, timeout: float, name: str = "engine") -> float:
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        assert engine.poll() is None, f"the {name} exited ({engine.returncode}):\n{session.output(name)[-3000:]}"
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return time.monotonic() - t0
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"the {name} is not listening on {port} after {timeout} s:\n{session.output(name)[-3000:]}")


def _base_env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "PYTHONPATH", "GOPRIVATE", "GOFLAGS", "JOBWIRE_ENGINE", "NODE_PATH")
           and not k.startswith("ZEEBE_") and not k.startswith("CAMUNDA_")}
    # the pip/venv of the test runner stays out of the page's way
    venv_bin = str(Path(sys.executable).parent)
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p != venv_bin)
    env["HOME"] = os.environ.get("HOME", str(tmp))
    return env


def run_page(lang: str, dist: Path, tmp: Path, page: Path | None = None, result: re.Pattern = RESULT,
             app_port: int | None = None, exits: tuple[int, ...] = (0,),
             engine_cmd: str | None = None) -> dict[str, object]:
    """Runs `page` (default: the getting-started page of `lang`) with `lang`'s
    substitutions. The last shell block's output must match `result`. A page
    whose worker is a service listening on `app_port` (a framework page) gets a
    free port in its place in every command, and its later blocks run once the
    service listens. After SIGTERM the worker must exit with one of `exits`. A
    page that leaves the engine to the reader (no engine block) gets
    `engine_cmd` ("{port}" in it is the engine's port) started first."""
    page = page or PAGES[lang]
    port = _free_port()
    subs = Substitutions(lang, dist, tmp, port)
    if app_port is not None:
        service_port = _free_port()
        app_port_re = re.compile(rf"(?<=[:= ]){app_port}\b")
        inner = subs.rewrite
        subs.rewrite = lambda line: app_port_re.sub(str(service_port), inner(line))
    proj = tmp / "project"
    proj.mkdir()
    env = _base_env(tmp)
    env.update(subs.env)
    if lang == "go":
        env["PATH"] = os.pathsep.join([subs.env["GOBIN"], env["PATH"]])  # `go install` puts jobwire-engine there
    log = tmp / "logs" / "session.log"
    log.parent.mkdir()
    s = Session(proj, env, subs, log)
    facts: dict[str, object] = {"port": port}
    outputs: list[str] = []
    worker = None
    try:
        if engine_cmd is not None:
            eng = s.start("engine", Block(0, "sh", engine_cmd.format(port=port) + "\n", "engine", ""))
            facts["ready_s"] = _wait_listening(port, eng, s, timeout=120)
        for b in blocks(page):
            if b.kind == "file":
                dest = s.cwd / b.arg
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_text(b.text)
            elif b.kind == "shell":
                outputs.append(s.shell(b))
            elif b.kind == "engine":
                t0 = time.monotonic()
                eng = s.start("engine", b, subs.engine_args())
                facts["ready_s"] = _wait_listening(port, eng, s, timeout=120)
                facts["engine_started_s"] = time.monotonic() - t0
            elif b.kind == "worker":
                assert "ready_s" in facts, f"{page.name}: the worker block comes before the engine block"
                worker = s.start("worker", b)
                time.sleep(1)
                assert worker.poll() is None, f"the worker exited ({worker.returncode}):\n{s.output('worker')[-3000:]}"
                if app_port is not None:
                    facts["service_ready_s"] = _wait_listening(service_port, worker, s, timeout=120, name="worker")
        assert worker is not None, f"{page.name} has no worker block"
        assert outputs, f"{page.name} has no shell block"
        assert result.search(outputs[-1]), f"the last shell block printed no {result.pattern!r}:\n{outputs[-1][-3000:]}"
        assert worker.poll() is None, f"the worker exited early ({worker.returncode}):\n{s.output('worker')[-3000:]}"
        t0 = time.monotonic()
        worker.send_signal(signal.SIGTERM)
        try:
            code = worker.wait(timeout=60)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"the worker did not exit within 60 s of SIGTERM:\n{s.output('worker')[-3000:]}")
        assert code in exits, f"the worker exited {code} after SIGTERM, not {exits}:\n{s.output('worker')[-3000:]}"
        facts["worker_close_s"] = time.monotonic() - t0
        facts["project"] = s.cwd
        if lang == "go":  # the SDK and the engine the page got are the release's module zips
            for m in ("sdk-go", "engine-reference"):
                rel = Path("github.com/jobwire/jobwire") / m / "@v" / f"v{V}.zip"
                got = Path(env["GOMODCACHE"]) / "cache" / "download" / rel
                assert got.read_bytes() == (dist / "go" / rel).read_bytes(), f"{m} did not come from dist/go"
        return facts
    finally:
        s.stop_all()
        if lang == "go":  # the module cache is read-only: let go remove it
            subprocess.run(["go", "clean", "-modcache"], env=env, capture_output=True, timeout=300)


def _java_has_run_workers() -> bool:
    src = (ROOT / "sdk-java" / "src" / "main" / "java" / "io" / "jobwire" / "JobwireClient.java").read_text()
    return re.search(r"\bpublic\s+[\w<>\[\], ?]+\s+runWorkers\s*\(", src) is not None


CASES = [pytest.param(lang, id=lang, marks=[pytest.mark.xfail(
    reason="the Java page runs its worker with JobwireClient.runWorkers(), not in this sdk-java yet", strict=False)]
    if lang == "java" and not _java_has_run_workers() else []) for lang in LANGS]


@pytest.mark.parametrize("lang", CASES)
def test_getting_started_page_runs(lang, dist, tmp_path):
    facts = run_page(lang, dist, tmp_path)
    proj = facts["project"]
    assert isinstance(proj, Path)
    for f in ("go.mod", "package-lock.json", "pom.xml"):  # nothing points back at the repository
        if (proj / f).is_file():
            assert str(ROOT) not in (proj / f).read_text(), f"{f} refers to {ROOT}"
    print(f"{lang}: engine from the page's command listening in {facts['ready_s'] * 1000:.0f} ms; "
          f"worker closed {facts['worker_close_s'] * 1000:.0f} ms after SIGTERM")


# ---------------------------------------------------------------- blocks not run

def _parses(b: Block, tmp: Path) -> None:
    if b.lang == "python":
        ast.parse(b.text)
    elif b.lang == "xml":
        ET.fromstring(b.text.encode())
    elif b.lang == "json":
        json.loads(b.text)
    elif b.lang == "js":
        f = tmp / "block.js"
        f.write_text(b.text)
        run(["node", "--check", str(f)], timeout=60)
    elif b.lang == "go":
        f = tmp / "block.go"
        f.write_text(b.text)
        run(["gofmt", "-e", "-l", str(f)], timeout=60)
    else:
        raise AssertionError(f"line {b.line}: no parser for a `{b.lang}` block; mark it `test: skip REASON`")


@pytest.mark.parametrize("lang", LANGS)
def test_getting_started_blocks_are_marked_and_parse(lang, tmp_path):
    """Every block of the page is run (file, shell, engine, worker), parsed, or
    skipped with a reason; file blocks in XML, JSON, Python parse too."""
    bs = blocks(PAGES[lang])
    unmarked = [b.line for b in bs if b.kind is None]
    assert not unmarked, f"{PAGES[lang].name}: blocks without a test mark at lines {unmarked}"
    kinds = [b.kind for b in bs]
    assert kinds.count("engine") == 1 and kinds.count("worker") == 1, kinds
    for b in bs:
        if b.kind == "parse" or (b.kind == "file" and b.lang in ("python", "xml", "json")):
            _parses(b, tmp_path)
        if b.kind == "skip":
            assert len(b.arg.split()) >= 3, f"line {b.line}: say why the block is skipped"
        if b.kind in ("shell", "engine", "worker"):
            text = b.text.lower()
            assert "git clone" not in text and "make " not in text, f"line {b.line}: a user page starts from packages"
