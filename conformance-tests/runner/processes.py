"""The registry of every child process the runner starts. Each is started
in its own process group and registered in ``PROCS``; ``kill_all()``
(called from fixture teardown, atexit and signal handlers) terminates
whatever is still running, so a failing or interrupted run leaves no
orphans. Also the line reader that follows a child's output. A leaf: it
imports no other runner module.
"""
from __future__ import annotations

import atexit
import os
import re
import signal
import subprocess
import threading
import time
from pathlib import Path


PROCS: list[subprocess.Popen] = []
_procs_lock = threading.Lock()
CLUSTERS: list = []  # running harness.Cluster objects (engines.py); kill_all stops them too


def spawn(args, **kw) -> subprocess.Popen:
    kw.setdefault("start_new_session", True)
    p = subprocess.Popen(args, **kw)
    with _procs_lock:
        PROCS.append(p)
    return p


def stop_proc(p: subprocess.Popen | None, grace: float = 3.0, sig=signal.SIGTERM):
    if p is None:
        return
    if p.poll() is None:
        try:
            os.killpg(p.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            p.wait(grace)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            p.wait(5)
    else:
        # the leader exited; make sure nothing it left in its group survives
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    with _procs_lock:
        if p in PROCS:
            PROCS.remove(p)


def kill_all():
    with _procs_lock:
        procs = list(PROCS)
        clusters = list(CLUSTERS)
    for c in clusters:
        try:
            c.stop()
        except Exception:  # noqa: BLE001
            pass
    for p in procs:
        stop_proc(p, grace=1.0)


atexit.register(kill_all)


def _on_signal(signum, frame):
    kill_all()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


for _s in (signal.SIGTERM, signal.SIGHUP):
    try:
        signal.signal(_s, _on_signal)
    except ValueError:  # not the main thread
        pass


class _LineReader(threading.Thread):
    """Reads a child's output line by line into a log file and a list,
    waking waiters on each line."""

    def __init__(self, stream, log_path: Path, on_line=None):
        super().__init__(daemon=True)
        self.stream, self.log_path, self.on_line = stream, log_path, on_line
        self.lines: list[str] = []
        self.cond = threading.Condition()
        self.closed = False
        self.start()

    def run(self):
        with open(self.log_path, "a", encoding="utf-8") as log:
            for raw in iter(self.stream.readline, b""):
                line = raw.decode("utf-8", "replace").rstrip("\n")
                log.write(line + "\n")
                log.flush()
                if self.on_line:
                    try:
                        self.on_line(line)
                    except Exception as e:  # a bad line must not kill the reader
                        log.write(f"[runner] bad line: {e}\n")
                with self.cond:
                    self.lines.append(line)
                    self.cond.notify_all()
        with self.cond:
            self.closed = True
            self.cond.notify_all()

    def wait_for(self, pattern: re.Pattern, timeout: float):
        end = time.monotonic() + timeout
        with self.cond:
            i = 0
            while True:
                while i < len(self.lines):
                    m = pattern.search(self.lines[i])
                    if m:
                        return m
                    i += 1
                if self.closed:
                    return None
                left = end - time.monotonic()
                if left <= 0:
                    return None
                self.cond.wait(left)
