"""The jobwire reference engine, packaged for pip.

The wheel installs the ``jobwire-engine`` executable next to Python's other
scripts (``jobwire-engine dev`` starts a one-node engine). From Python:

    import jobwire_engine
    with jobwire_engine.start() as engine:      # a free port on 127.0.0.1
        print(engine.address)                   # "127.0.0.1:PORT" for jobwire.Client(address=...)

The engine started by :func:`start` exits when its stdin closes, so it stops
with the Python process that started it, even when that process is killed.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
import threading
from pathlib import Path
from typing import List, Optional, Union

__all__ = ["Engine", "find_engine", "start"]

_EXE = "jobwire-engine" + (".exe" if sys.platform == "win32" else "")
_LISTENING = re.compile(r" listening on (\S+)")


def find_engine() -> str:
    """The path of the installed ``jobwire-engine`` executable.

    ``JOBWIRE_ENGINE_BINARY`` overrides; otherwise the scripts folder of this
    interpreter's install scheme (a venv's ``bin``), the user scheme, and the
    folder of a ``pip install --target`` install are searched.
    """
    env = os.environ.get("JOBWIRE_ENGINE_BINARY")
    if env:
        return env
    dirs = [sysconfig.get_path("scripts")]
    user_scheme = {"nt": "nt_user", "posix": "posix_user"}.get(os.name)
    if sys.platform == "darwin" and sys._framework:  # type: ignore[attr-defined]
        user_scheme = "osx_framework_user"
    if user_scheme:
        try:
            dirs.append(sysconfig.get_path("scripts", scheme=user_scheme))
        except KeyError:
            pass
    pkg_root = Path(__file__).resolve().parent.parent  # pip install --target DIR: DIR/bin
    dirs += [str(pkg_root / "bin"), str(pkg_root / "Scripts")]
    for d in dirs:
        p = Path(d) / _EXE
        if p.is_file():
            return str(p)
    raise FileNotFoundError(f"{_EXE} not found (searched {', '.join(dirs)}); reinstall jobwire-engine")


class Engine:
    """A running ``jobwire-engine dev``; :meth:`close` (or leaving the ``with``
    block) stops it."""

    def __init__(self, process: "subprocess.Popen[str]", address: str, banner: List[str]):
        self.process = process
        self.address = address
        self.port = int(address.rsplit(":", 1)[1])
        self.banner = banner
        self._drain = threading.Thread(target=self._read_rest, name="jobwire-engine-stdout", daemon=True)
        self._drain.start()

    def _read_rest(self) -> None:
        assert self.process.stdout is not None
        for _ in self.process.stdout:  # keep the pipe from filling up
            pass

    def close(self, timeout: float = 10.0) -> int:
        """Stops the engine (closes its stdin; kills it after ``timeout`` s); returns its exit code."""
        p = self.process
        if p.stdin is not None and not p.stdin.closed:
            try:
                p.stdin.close()
            except OSError:
                pass
        try:
            p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        return p.returncode

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<jobwire_engine.Engine {self.address} pid={self.process.pid}>"


def start(port: int = 0, data_dir: Optional[Union[str, "os.PathLike[str]"]] = None,
          args: Optional[List[str]] = None, timeout: float = 30.0) -> Engine:
    """Starts ``jobwire-engine dev`` on 127.0.0.1 (``port=0``: a free port),
    without the live view, and returns once it listens. ``data_dir=None``:
    a fresh temporary folder, removed when the engine stops. ``args``: more
    ``dev`` flags (``jobwire-engine dev --help``)."""
    cmd = [find_engine(), "dev", "--port", str(port), "--no-ui", "--exit-on-stdin-close"]
    if data_dir is not None:
        cmd += ["--data-dir", os.fspath(data_dir)]
    cmd += list(args or [])
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    banner: List[str] = []
    found: List[str] = []

    def read_banner() -> None:
        assert p.stdout is not None
        for line in p.stdout:
            banner.append(line.rstrip("\n"))
            m = _LISTENING.search(line)
            if m:
                found.append(m.group(1))
                return

    t = threading.Thread(target=read_banner, daemon=True)
    t.start()
    t.join(timeout)
    if not found:
        p.kill()
        p.wait()
        raise RuntimeError(f"jobwire-engine did not start (exit {p.returncode}): {' | '.join(banner)}")
    return Engine(p, found[0], banner)
