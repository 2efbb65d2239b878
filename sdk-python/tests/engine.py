"""Starts the jobwire reference engine for integration tests:
``jobwire-engine dev --port 0 --data-dir <tmp> --exit-on-stdin-close --no-fsync``,
waits for its "listening on" line and always stops it. A missing engine binary
fails the test (never skips)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import List, Optional

import pytest

ROOT = Path(__file__).resolve().parents[2]
LISTENING = re.compile(r"listening on (127\.0\.0\.1:(\d+))")
OAUTH = re.compile(r"oauth token endpoint (http://\S+)")


def engine_binary() -> Path:
    return Path(os.environ.get("JOBWIRE_ENGINE", ROOT / "engine-reference" / "bin" / "jobwire-engine"))


class Engine:
    """A running reference engine bound to 127.0.0.1 on a free port."""

    def __init__(self, data_dir: Path, extra: Optional[List[str]] = None) -> None:
        self.data_dir = data_dir
        self.extra = list(extra or [])
        self.port = "0"
        self.address = ""
        self.oauth_url = ""
        self.proc: Optional[subprocess.Popen[str]] = None
        self.start()

    def start(self) -> None:
        binary = engine_binary()
        if not binary.exists():
            pytest.fail(f"reference engine not found at {binary} (run `make engine`)")
        args = [str(binary), "dev", "--port", self.port, "--data-dir", str(self.data_dir), "--exit-on-stdin-close", "--no-fsync", *self.extra]
        last = ""
        for _ in range(50):  # after a restart the port may take a moment to be free again
            proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            found = threading.Event()
            result: List[str] = []

            def pump(p: "subprocess.Popen[str]" = proc) -> None:
                assert p.stdout is not None
                for line in p.stdout:
                    m = OAUTH.search(line)
                    if m:
                        self.oauth_url = m.group(1)
                    m2 = LISTENING.search(line)
                    if m2 and not found.is_set():
                        result.extend([m2.group(1), m2.group(2)])
                        found.set()
                found.set()

            threading.Thread(target=pump, daemon=True).start()
            found.wait(15)
            if result:
                self.proc = proc
                self.address, self.port = result
                return
            proc.kill()
            proc.wait()
            last = f"exit code {proc.returncode}"
            time.sleep(0.1)
        pytest.fail(f"engine did not start: {last}")

    def stop(self) -> None:
        p, self.proc = self.proc, None
        if p is not None:
            p.kill()
            p.wait(timeout=10)

    def restart(self) -> None:
        """Kill and start again on the same port and data dir (a gateway restart)."""
        self.stop()
        self.start()


def log(msg: str) -> None:
    sys.stderr.write(msg + "\n")
