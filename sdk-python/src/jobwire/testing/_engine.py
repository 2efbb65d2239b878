"""Level 2 of the test kit: process tests on a real engine (``jobwire-engine dev``), with its clock
under the test's control, and isolation by the admin ResetState call between tests."""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import re
import subprocess
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Union

import grpc

from .._proto import admin_pb2, admin_pb2_grpc
from ..config import Duration, to_seconds
from ..errors import from_rpc_error
from .._sync import Client

__all__ = ["EngineJob", "Incident", "TestEngine", "start_test_engine"]

_LISTENING = re.compile(r" listening on (\S+)")
_OPEN_JOB_STATES = ("ACTIVATABLE", "ACTIVATED")


def _engine_binary() -> str:
    env = os.environ.get("JOBWIRE_ENGINE")
    if env:
        return env
    try:  # the engine package: pip install "jobwire[testing]"
        jobwire_engine = importlib.import_module("jobwire_engine")
    except ImportError:
        raise RuntimeError(
            'jobwire.testing: no engine: install the kit with pip install "jobwire[testing]" '
            "(or set JOBWIRE_ENGINE to a jobwire-engine binary)"
        ) from None
    return str(jobwire_engine.find_engine())


@dataclass(frozen=True)
class Incident:
    """An open incident of a process instance."""

    key: int
    """Incident key."""
    type: str
    """JOB_NO_RETRIES, UNHANDLED_ERROR_EVENT, CONDITION_ERROR, EXTRACT_VALUE_ERROR, ..."""
    message: str
    """What went wrong (for a job: the last FailJob message)."""
    process_instance_key: int
    """Key of the process instance."""
    element_instance_key: int
    """Key of the element instance the incident is on."""
    job_key: int
    """0 when the incident is not about a job."""


@dataclass(frozen=True)
class EngineJob:
    """A job as the engine sees it."""

    key: int
    """Job key."""
    type: str
    """Job type."""
    state: str
    """ACTIVATABLE, ACTIVATED, FAILED_BACKOFF, INCIDENT, COMPLETED, ERROR_THROWN, CANCELED."""
    retries: int
    """Retries left."""
    process_instance_key: int
    """Key of the process instance."""
    element_instance_key: int
    """Key of the service task's element instance."""
    worker: str
    """The worker that activated it ("" when not activated)."""
    deadline: int
    """Epoch ms (engine time); 0 when not activated."""
    error_message: str
    """The last FailJob message ("" if none)."""


def _engine_job(j: Any) -> EngineJob:
    return EngineJob(
        key=j.key,
        type=j.type,
        state=admin_pb2.JobState.Name(j.state).replace("JOB_STATE_", ""),
        retries=j.retries,
        process_instance_key=j.process_instance_key,
        element_instance_key=j.element_instance_key,
        worker=j.worker,
        deadline=j.deadline,
        error_message=j.error_message,
    )


def _key(instance: Any) -> int:
    k = getattr(instance, "process_instance_key", instance)
    if isinstance(k, bool) or not isinstance(k, int):
        raise TypeError(f"jobwire.testing: expected a process instance key, got {instance!r}")
    return k


class TestEngine:
    """A running ``jobwire-engine dev`` on 127.0.0.1 with a connected client. Synchronous: use it
    from plain tests. :func:`start_test_engine` starts one; :meth:`close` stops it."""

    __test__ = False  # not a pytest test class

    def __init__(self, process: "subprocess.Popen[str]", address: str) -> None:
        self._process = process
        self.address: str = address
        """``127.0.0.1:PORT`` of the gateway (and of the admin API)."""
        self._channel = grpc.insecure_channel(address)
        self._admin = admin_pb2_grpc.AdminServiceStub(self._channel)  # type: ignore[no-untyped-call]
        self.client: Client = Client(address=address, insecure=True, env={})
        """A connected :class:`jobwire.sync.Client` (its ``async_client`` is the asyncio one); closed by :meth:`close`."""
        threading.Thread(target=self._drain, name="jobwire-testing-engine", daemon=True).start()

    def _drain(self) -> None:
        assert self._process.stdout is not None
        for _ in self._process.stdout:
            pass

    def _call(self, method: str, req: Any) -> Any:
        try:
            return getattr(self._admin, method)(req, timeout=30)
        except grpc.RpcError as e:
            raise from_rpc_error(e, method) from None

    # --- lifecycle --------------------------------------------------------------------------------
    def close(self) -> None:
        """Closes the client and stops the engine."""
        try:
            self.client.close(timeout=5.0)
        finally:
            self._channel.close()
            p = self._process
            if p.stdin is not None and not p.stdin.closed:
                try:
                    p.stdin.close()
                except OSError:
                    pass
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    def __enter__(self) -> "TestEngine":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def reset(self) -> None:
        """Closes the workers started on :attr:`client` (1 s close timeout each), then drops every
        deployment, instance, job, message, incident and timer, clears the faults and sets the clock
        back to wall time (admin ClearFaults + ResetState). The engine and its connections stay."""
        ac = self.client.async_client

        async def close_workers() -> None:
            await asyncio.gather(*(w.close(timeout=1.0) for w in ac.workers))

        if ac.workers:
            self.client._loop.run(close_workers())
        self._call("ClearFaults", admin_pb2.ClearFaultsRequest())
        self._call("ResetState", admin_pb2.ResetStateRequest())

    # --- processes ----------------------------------------------------------------------------------
    def deploy(self, *resources: Union[str, "os.PathLike[str]"]) -> List[str]:
        """Deploys BPMN files (paths) or BPMN XML strings; returns the deployed process ids."""
        items: List[Any] = []
        for i, r in enumerate(resources):
            if isinstance(r, str) and r.lstrip().startswith("<"):
                items.append((f"resource-{i}.bpmn", r))
            else:
                items.append(str(Path(r)))
        d = self.client.deploy_resource(*items)
        return [p.bpmn_process_id for p in d.processes]

    def create_instance(self, process_id: str, variables: Optional[Dict[str, Any]] = None) -> int:
        """Starts an instance of the latest version; returns its key."""
        return self.client.create_process_instance(process_id, variables=variables).process_instance_key

    def _instance(self, key: int) -> Optional[Any]:
        r = self._call("ListProcessInstances", admin_pb2.ListProcessInstancesRequest(include_instances=True))
        return next((i for i in r.instances if i.key == key), None)

    def variables(self, instance: Any) -> Dict[str, Any]:
        """The instance's root-scope variables; KeyError when the engine does not know the instance."""
        key = _key(instance)
        i = self._instance(key)
        if i is None:
            raise KeyError(f"jobwire.testing: no process instance {key}")
        return dict(json.loads(i.variables or "{}"))

    def incidents(self, instance: Any = None) -> List[Incident]:
        """Open incidents (of one instance, or all)."""
        r = self._call("ListIncidents", admin_pb2.ListIncidentsRequest(process_instance_key=0 if instance is None else _key(instance)))
        return [Incident(i.key, i.type, i.message, i.process_instance_key, i.element_instance_key, i.job_key) for i in r.incidents]

    def jobs(self, job_type: str = "", *, states: Sequence[str] = _OPEN_JOB_STATES) -> List[EngineJob]:
        """Jobs of a type (all types: ``""``) that are activatable or activated (``states``: others)."""
        r = self._call("ListJobs", admin_pb2.ListJobsRequest(type=job_type, include_jobs=True))
        return [j for j in map(_engine_job, r.jobs) if j.state in states]

    def complete_jobs(self, job_type: str, variables: Optional[Dict[str, Any]] = None) -> int:
        """Activates every activatable job of the type and completes it with ``variables`` (a stand-in
        for a worker the test does not run); returns how many it completed."""
        n = 0
        while True:
            jobs = self.client.activate_jobs(job_type, max_jobs=100, worker_name="jobwire-testing", request_timeout=-1)
            for j in jobs:
                self.client.complete_job(j.key, variables)
            n += len(jobs)
            if len(jobs) < 100:
                return n

    def _describe(self, key: int) -> str:
        i = self._instance(key)
        if i is None:
            return f"process instance {key}: unknown to the engine (reset, or never created)"
        state = admin_pb2.ProcessInstanceState.Name(i.state).replace("PROCESS_INSTANCE_STATE_", "")
        jobs = [j for j in self.jobs("", states=("ACTIVATABLE", "ACTIVATED", "FAILED_BACKOFF", "INCIDENT")) if j.process_instance_key == key]
        lines = [
            f"process instance {key} ({i.bpmn_process_id} v{i.version}): {state}",
            f"  variables: {i.variables or '{}'}",
            "  incidents: " + ("; ".join(f"{x.type}: {x.message}" for x in self.incidents(key)) or "none"),
            "  open jobs: " + ("; ".join(f"{j.type} {j.state} retries={j.retries}" + (f" ({j.error_message})" if j.error_message else "") for j in jobs) or "none"),
            f"  engine time: {self.clock().isoformat()}",
        ]
        return "\n".join(lines)

    def await_completed(self, instance: Any, timeout: Duration = 10.0) -> Dict[str, Any]:
        """Waits until the instance completed; returns its variables. Fails (AssertionError, with the
        instance's state, variables, incidents and open jobs) on timeout, incident or cancellation."""
        key = _key(instance)
        end = time.monotonic() + to_seconds(timeout, "timeout")
        while True:
            i = self._instance(key)
            if i is not None and i.state == admin_pb2.PROCESS_INSTANCE_STATE_COMPLETED:
                return dict(json.loads(i.variables or "{}"))
            stuck = i is None or i.state in (admin_pb2.PROCESS_INSTANCE_STATE_INCIDENT, admin_pb2.PROCESS_INSTANCE_STATE_CANCELED)
            if stuck or time.monotonic() > end:
                why = "cannot complete" if stuck else f"did not complete within {to_seconds(timeout, 'timeout'):g} s"
                raise AssertionError(f"jobwire.testing: the instance {why}\n{self._describe(key)}")
            time.sleep(0.005)

    def await_incident(self, instance: Any, timeout: Duration = 10.0) -> Incident:
        """Waits until the instance has an open incident; returns it (the first one). Fails
        (AssertionError, with the instance's state) on timeout or when the instance ended."""
        key = _key(instance)
        end = time.monotonic() + to_seconds(timeout, "timeout")
        while True:
            found = self.incidents(key)
            if found:
                return found[0]
            i = self._instance(key)
            ended = i is None or i.state in (admin_pb2.PROCESS_INSTANCE_STATE_COMPLETED, admin_pb2.PROCESS_INSTANCE_STATE_CANCELED)
            if ended or time.monotonic() > end:
                why = "ended without an incident" if ended else f"had no incident within {to_seconds(timeout, 'timeout'):g} s"
                raise AssertionError(f"jobwire.testing: the instance {why}\n{self._describe(key)}")
            time.sleep(0.005)

    # --- the clock --------------------------------------------------------------------------------------
    def clock(self) -> datetime:
        """Engine time (aware UTC datetime)."""
        r = self._call("GetClock", admin_pb2.GetClockRequest())
        return datetime.fromtimestamp(r.now_ms / 1000, tz=timezone.utc)

    def advance_clock(self, duration: Union[Duration, timedelta]) -> datetime:
        """Moves engine time forward; returns once the timers, job time-outs and retry back-offs that
        became due are processed. Returns the new engine time."""
        ms = int(round(to_seconds(duration, "duration") * 1000))
        r = self._call("AdvanceClock", admin_pb2.AdvanceClockRequest(duration_ms=ms))
        return datetime.fromtimestamp(r.now_ms / 1000, tz=timezone.utc)

    def set_clock(self, when: datetime) -> datetime:
        """Sets engine time (aware datetime; never earlier than now), as :meth:`advance_clock` does."""
        if when.tzinfo is None:
            raise ValueError("jobwire.testing: set_clock needs an aware datetime")
        r = self._call("SetClock", admin_pb2.SetClockRequest(epoch_ms=int(round(when.timestamp() * 1000))))
        return datetime.fromtimestamp(r.now_ms / 1000, tz=timezone.utc)

    # --- faults ---------------------------------------------------------------------------------------
    def inject_resource_exhausted(self, count: int = 1, *, method: str = "ActivateJobs") -> None:
        """The next ``count`` calls of ``method`` (``""``: any) fail with RESOURCE_EXHAUSTED (backpressure)."""
        fault = admin_pb2.RejectFault(method=method, code=grpc.StatusCode.RESOURCE_EXHAUSTED.value[0], count=count, message="jobwire.testing: injected backpressure")
        self._call("InjectFault", admin_pb2.InjectFaultRequest(reject=fault))

    def restart_gateway(self) -> None:
        """Closes every client connection as a gateway restart does (HTTP/2 GOAWAY, then closed):
        workers reconnect. State is kept."""
        self._call("InjectFault", admin_pb2.InjectFaultRequest(go_away=admin_pb2.GoAwayFault(grace_ms=0)))

    def drop_streams(self) -> int:
        """Ends every open job push stream and parked long poll with UNAVAILABLE; returns how many."""
        r = self._call("ResetStreams", admin_pb2.ResetStreamsRequest(include_long_polls=True))
        return int(r.streams_closed + r.long_polls_closed)

    def clear_faults(self) -> None:
        """Removes every injected fault."""
        self._call("ClearFaults", admin_pb2.ClearFaultsRequest())


def start_test_engine(*, partitions: int = 1, timeout: Duration = 30.0) -> TestEngine:
    """Starts ``jobwire-engine dev`` on 127.0.0.1 (a free port, a temporary data folder, no fsync)
    and returns once it serves. The engine is the one of the engine package (``pip install
    "jobwire[testing]"``) or ``$JOBWIRE_ENGINE``; it exits with this process."""
    cmd = [_engine_binary(), "dev", "--port", "0", "--partitions", str(partitions), "--no-ui", "--no-fsync", "--exit-on-stdin-close"]
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
    banner: List[str] = []
    found: List[str] = []

    def read() -> None:
        assert p.stdout is not None
        for line in p.stdout:
            banner.append(line.rstrip("\n"))
            m = _LISTENING.search(line)
            if m:
                found.append(m.group(1))
                return

    t = threading.Thread(target=read, daemon=True)
    t.start()
    t.join(to_seconds(timeout, "timeout"))
    if not found:
        p.kill()
        p.wait()
        raise RuntimeError(f"jobwire.testing: jobwire-engine did not start (exit {p.returncode}): {' | '.join(banner)}")
    return TestEngine(p, found[0])
