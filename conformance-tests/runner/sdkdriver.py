"""The SDK driver: a running `drivers/<lang>/run` speaking JSON lines.
"""
from __future__ import annotations

import json
import subprocess
import threading
import time
from pathlib import Path

from processes import _LineReader, spawn, stop_proc


class DriverError(RuntimeError):
    pass


class Driver:
    """A running `drivers/<lang>/run` speaking JSON lines."""

    def __init__(self, cmd: list[str], env: dict, log: Path, cwd: Path | None = None):
        self.events: list[dict] = []
        self.cond = threading.Condition()
        self.log = log
        self.bad_lines: list[str] = []
        self.proc = spawn(cmd, env=env, cwd=str(cwd) if cwd else None, stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=open(str(log) + ".stderr", "ab"))
        self.reader = _LineReader(self.proc.stdout, log, self._on_line)

    def _on_line(self, line):
        line = line.strip()
        if not line:
            return
        try:
            ev = json.loads(line)
            if not isinstance(ev, dict) or "event" not in ev:
                raise ValueError("not an event object")
        except ValueError:
            self.bad_lines.append(line)
            return
        ev["_rt"] = time.time() * 1000.0  # runner's receive time (ms)
        with self.cond:
            self.events.append(ev)
            self.cond.notify_all()

    def send(self, **cmd):
        if self.proc.poll() is not None:
            raise DriverError(f"driver exited (code {self.proc.returncode}); see {self.log}.stderr")
        data = (json.dumps(cmd) + "\n").encode()
        with open(self.log, "a") as f:
            f.write(f"-> {data.decode().strip()}\n")
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as e:
            raise DriverError(f"driver stdin closed: {e}") from e

    def wait_event(self, pred, timeout: float, what: str):
        end = time.monotonic() + timeout
        with self.cond:
            i = 0
            while True:
                while i < len(self.events):
                    if pred(self.events[i]):
                        return self.events[i]
                    i += 1
                if self.proc.poll() is not None and self.reader.closed:
                    raise DriverError(f"driver exited (code {self.proc.returncode}) while waiting for {what}; "
                                      f"see {self.log}.stderr")
                left = end - time.monotonic()
                if left <= 0:
                    raise DriverError(f"timed out after {timeout}s waiting for {what}")
                self.cond.wait(min(left, 0.5))

    def snapshot(self):
        with self.cond:
            return list(self.events)

    def close(self, timeout=8.0):
        p = self.proc
        if p.poll() is None:
            try:
                p.stdin.close()  # contract: driver closes its workers and exits 0
            except Exception:
                pass
            try:
                p.wait(timeout)
            except subprocess.TimeoutExpired:
                pass
        stop_proc(p, grace=2)
        return p.returncode
