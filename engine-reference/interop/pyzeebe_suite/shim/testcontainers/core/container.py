"""`DockerContainer` that starts a local engine instead of a Docker image."""
import os
import re
import subprocess
import sys
import time

_LISTENING = re.compile(r"listening on (127\.0\.0\.1):(\d+)")


class DockerContainer:
    def __init__(self, image, **kwargs):
        self.image = image
        self._proc = None
        self._port = None

    def with_envs(self, **envs):
        return self

    def with_exposed_ports(self, *ports):
        return self

    def waiting_for(self, strategy):
        return self

    def _command(self):
        engine = os.environ.get("PYZEEBE_SUITE_ENGINE", "jobwire")
        if engine == "jobwire":
            return [os.environ["JOBWIRE_ENGINE_BIN"], "dev", "--port", "0", "--exit-on-stdin-close", "--no-ui"]
        if engine == "zeebe":
            return [os.environ["ZEEBE_ENGINE_START"], "--port", "0"]
        raise RuntimeError(f"PYZEEBE_SUITE_ENGINE={engine!r}: expected jobwire or zeebe")

    def start(self):
        # stdin stays open: both engines exit when it closes.
        self._proc = subprocess.Popen(self._command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=sys.stderr, text=True)
        deadline = time.time() + 600  # the Zeebe launcher builds itself on first use
        while time.time() < deadline:
            line = self._proc.stdout.readline()
            if not line:
                break
            m = _LISTENING.search(line)
            if m:
                self._port = int(m.group(2))
                return self
        self.stop()
        raise RuntimeError(f"{self._command()[0]} did not start")

    def stop(self):
        if self._proc is None:
            return
        try:
            self._proc.stdin.close()
            self._proc.wait(timeout=10)
        except Exception:
            self._proc.kill()
            self._proc.wait(timeout=10)
        self._proc = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def get_container_host_ip(self):
        return "127.0.0.1"

    def get_exposed_port(self, port):
        return self._port
