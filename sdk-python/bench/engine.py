"""Starts `jobwire-engine dev` on 127.0.0.1 and a free port for the benchmarks (always stopped)."""

from __future__ import annotations

import re
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "engine-reference" / "bin" / "jobwire-engine"


class DevEngine:
    def __init__(self) -> None:
        if not BIN.exists():
            raise SystemExit(f"engine binary {BIN} missing (run `make engine`)")
        self.data = tempfile.mkdtemp(prefix="jobwire-bench-")
        self.proc: Optional["subprocess.Popen[str]"] = subprocess.Popen(
            [str(BIN), "dev", "--port", "0", "--data-dir", self.data, "--exit-on-stdin-close", "--no-fsync"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )
        found = threading.Event()
        self.address = ""

        def pump() -> None:
            assert self.proc is not None and self.proc.stdout is not None
            for line in self.proc.stdout:
                m = re.search(r"listening on (127\.0\.0\.1:\d+)", line)
                if m and not found.is_set():
                    self.address = m.group(1)
                    found.set()
            found.set()

        threading.Thread(target=pump, daemon=True).start()
        found.wait(15)
        if not self.address:
            self.stop()
            raise SystemExit("engine did not start")

    def stop(self) -> None:
        p, self.proc = self.proc, None
        if p is not None:
            p.kill()
            p.wait()

    def __enter__(self) -> "DevEngine":
        return self

    def __exit__(self, *a: object) -> None:
        self.stop()


def one_task_bpmn(process_id: str, job_type: str) -> bytes:
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="http://jobwire.io/bench">
  <bpmn:process id="{process_id}" isExecutable="true">
    <bpmn:startEvent id="start"/>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="task"/>
    <bpmn:serviceTask id="task"><bpmn:extensionElements><zeebe:taskDefinition type="{job_type}" retries="3"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="task" targetRef="end"/>
    <bpmn:endEvent id="end"/>
  </bpmn:process>
</bpmn:definitions>""".encode()
