"""The jobwire client: every RPC of the gateway protocol, and the factory of workers."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import threading
import time
import warnings
from pathlib import Path
from typing import Any, AsyncIterator, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, TypeVar, Union

import grpc

from ._backoff import Backoff as _BackoffTimer
from ._direct import DirectOutcomes
from ._json import VariablesInput, variables_to_json
from ._options import Handler, Middleware, resolve_worker_options
from ._proto import gateway_pb2 as pb
from ._transport import Transport
from .commands import ActivateElement, MappingInstruction
from .config import Backoff, Duration, OAuthOptions, resolve_client_config, to_seconds
from .errors import MAX_COMMAND_ATTEMPTS, CommandKind, ConfigurationError, JobwireError, command_resent_after, from_rpc_error
from .job import Job
from .results import (
    DecisionEvaluation,
    Deployment,
    ProcessInstance,
    ProcessInstanceResult,
    Topology,
    _decision_evaluation,
    _deployment,
    _process_instance,
    _process_instance_result,
    _topology,
)
from .retry import RetryPolicy
from .router import JobRouter
from .worker import Worker

__all__ = ["Client"]

H = TypeVar("H", bound=Callable[..., Any])
Resource = Union[str, "os.PathLike[str]", Tuple[str, Union[bytes, str]]]
"""A resource to deploy: a file path, or ``(name, content)``."""


def _key(k: Any, what: str) -> int:
    if isinstance(k, bool):
        raise ConfigurationError(f"jobwire: {what} must be an integer key, got {k!r}")
    if isinstance(k, int):
        return k
    if isinstance(k, str) and k.strip().lstrip("-").isdigit():
        return int(k.strip())
    raise ConfigurationError(f"jobwire: {what} must be an integer key, got {k!r}")


def _ms(d: Optional[Duration], what: str, default: int = 0) -> int:
    if d is None:
        return default
    return int(round(to_seconds(d, what, allow_negative=True) * 1000))


class Client:
    """The jobwire client: one command channel (per gateway address) shared by every
    command and every worker's outcomes, plus long-call connections for the workers'
    long polls and push streams.

    Every option is optional; absent options come from the ``ZEEBE_*`` / ``CAMUNDA_*``
    environment variables, then from the defaults (``docs/configuration.md``).
    Bad configuration raises :class:`jobwire.ConfigurationError`.

    Example::

        router = JobRouter(max_jobs_active=32)

        @router.job("charge")
        async def charge(order: Order) -> Receipt: ...

        async with Client() as client:
            client.include_router(router)
            await client.run_workers()
    """

    def __init__(
        self,
        *,
        address: Union[str, Sequence[str], None] = None,
        insecure: Optional[bool] = None,
        ca_certificate_path: Optional[str] = None,
        client_certificate_path: Optional[str] = None,
        client_private_key_path: Optional[str] = None,
        oauth: Optional[OAuthOptions] = None,
        keep_alive: Optional[Duration] = None,
        command_timeout: Optional[Duration] = None,
        channel_options: Optional[Sequence[Tuple[str, Union[int, str]]]] = None,
        logger: Optional[logging.Logger] = None,
        env: Optional[Mapping[str, str]] = None,
        backoff: Optional[Backoff] = None,
    ) -> None:
        self.config = resolve_client_config(
            address=address,
            insecure=insecure,
            ca_certificate_path=ca_certificate_path,
            client_certificate_path=client_certificate_path,
            client_private_key_path=client_private_key_path,
            oauth=oauth,
            keep_alive=keep_alive,
            command_timeout=command_timeout,
            channel_options=channel_options,
            logger=logger,
            env=env,
            backoff=backoff,
        )
        """The settings in use after options, environment and defaults were merged."""
        self._transport = Transport(self.config)
        self._workers: List[Worker] = []
        self._closed = False

    async def __aenter__(self) -> "Client":
        for w in self._workers:
            w._start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # --- workers -------------------------------------------------------------------------
    def worker(
        self,
        job_type: str,
        handler: Handler,
        *,
        worker_name: Optional[str] = None,
        max_jobs_active: Optional[int] = None,
        concurrency: Optional[int] = None,
        job_timeout: Optional[Duration] = None,
        request_timeout: Optional[Duration] = None,
        poll_interval: Optional[Duration] = None,
        stream_enabled: Optional[bool] = None,
        stream_timeout: Optional[Duration] = None,
        fetch_variables: Optional[Sequence[str]] = None,
        tenant_ids: Optional[Sequence[str]] = None,
        auto_complete: Optional[bool] = None,
        auto_extend: Optional[bool] = None,
        retry_backoff: Optional[Duration] = None,
        retry_policy: Optional[RetryPolicy] = None,
        middleware: Optional[Sequence[Middleware]] = None,
    ) -> Worker:
        """Creates a worker for ``job_type`` (the low-level form; :class:`jobwire.JobRouter` is the
        documented way to declare workers). It starts at once when an event loop is running
        (else when :meth:`run_workers` or ``async with`` starts it).

        ``handler(job)`` may be ``async`` (runs on the loop) or a plain function (runs in a
        thread pool bounded by ``concurrency``). Return variables to complete the job, raise
        (or return) :class:`jobwire.JobError` for a BPMN error, raise anything else to fail
        the job as ``retry_policy`` decides (default: :data:`jobwire.default_retry_policy`,
        ``retries - 1`` with exponential back-off; a fixed back-off when ``retry_backoff`` is
        set). ``middleware`` runs around the handler, the first outermost.
        """
        w = self._new_worker(
            job_type,
            handler,
            worker_name=worker_name,
            max_jobs_active=max_jobs_active,
            concurrency=concurrency,
            job_timeout=job_timeout,
            request_timeout=request_timeout,
            poll_interval=poll_interval,
            stream_enabled=stream_enabled,
            stream_timeout=stream_timeout,
            fetch_variables=fetch_variables,
            tenant_ids=tenant_ids,
            auto_complete=auto_complete,
            auto_extend=auto_extend,
            retry_backoff=retry_backoff,
            retry_policy=retry_policy,
            middleware=middleware,
        )
        self._register([w])
        return w

    def _new_worker(self, job_type: str, handler: Handler, **options: Any) -> Worker:
        if self._closed:
            raise JobwireError("jobwire: client is closed")
        opts = resolve_worker_options(job_type, handler, **options)
        return Worker(self._transport, opts, self.config.logger)

    def _register(self, workers: List[Worker]) -> None:
        """Adds workers to the client and starts them when an event loop runs."""
        self._workers = [x for x in self._workers if not x.closed]  # closed workers leave the client
        self._workers.extend(workers)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return
        for w in workers:
            w._start()

    def include_router(self, router: JobRouter) -> List[Worker]:
        """Creates a worker for every handler registered on ``router`` (its defaults, then each
        handler's options; its middleware outermost) and starts them when an event loop runs.
        All or nothing: when one worker's options are invalid, none is created.

        Example::

            router = JobRouter()

            @router.job("charge")
            async def charge(order: Order) -> Receipt: ...

            async with Client() as client:
                client.include_router(router)
                await client.run_workers()
        """
        if not isinstance(router, JobRouter):
            raise ConfigurationError(f"jobwire: include_router needs a JobRouter, got {type(router).__name__}")
        workers = [self._new_worker(job_type, handler, **opts) for job_type, handler, opts in router._worker_args()]
        self._register(workers)
        return workers

    def job_worker(self, job_type: str, **options: Any) -> Callable[[H], H]:
        """Decorator form of :meth:`worker`. Deprecated: declare workers on a
        :class:`jobwire.JobRouter` (no client needed at import time) and start them with
        :meth:`include_router`::

        @client.job_worker("charge", max_jobs_active=8)
        async def charge(job: Job) -> dict: ...
        """
        warnings.warn(
            "jobwire: Client.job_worker is deprecated; declare workers with @JobRouter.job and start them with Client.include_router",
            DeprecationWarning,
            stacklevel=2,
        )

        def deco(fn: H) -> H:
            self.worker(job_type, fn, **options)
            return fn

        return deco

    @property
    def workers(self) -> List[Worker]:
        """The workers of this client that are not closed."""
        return [w for w in self._workers if not w.closed]

    async def run_workers(self, *, handle_signals: bool = True, close_timeout: Duration = 30.0) -> None:
        """Starts every worker and waits until all are closed.

        With ``handle_signals`` (the default, on the main thread) SIGINT and SIGTERM close
        the workers gracefully (each with ``close_timeout``) and this call then returns
        normally, so ``asyncio.run(main())`` exits 0. Cancelling this call closes the
        workers gracefully too."""
        for w in self._workers:
            w._start()
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        installed: List[signal.Signals] = []
        if handle_signals and threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                try:
                    loop.add_signal_handler(sig, stop.set)
                    installed.append(sig)
                except (NotImplementedError, RuntimeError, ValueError):
                    pass
        async def all_closed() -> None:
            await asyncio.gather(*(w.wait_closed() for w in self._workers))

        async def stopped() -> None:
            await stop.wait()

        waiter = asyncio.ensure_future(all_closed())
        stopper = asyncio.ensure_future(stopped())
        try:
            await asyncio.wait({waiter, stopper}, return_when=asyncio.FIRST_COMPLETED)
            if stop.is_set():
                self.config.logger.info("jobwire: signal received; closing the workers")
                await self.close(close_timeout)
        except asyncio.CancelledError:
            await asyncio.shield(self.close(close_timeout))
            raise
        finally:
            for sig in installed:
                loop.remove_signal_handler(sig)
            stopper.cancel()
            if not waiter.done():
                waiter.cancel()

    async def close(self, timeout: Duration = 30.0) -> None:
        """Closes every worker (each with ``timeout``), then the channels."""
        self._closed = True
        await asyncio.gather(*(w.close(timeout) for w in self._workers), return_exceptions=True)
        await self._transport.close()

    # --- commands -----------------------------------------------------------------------
    async def _call(self, method: str, req: Any, timeout: Optional[Duration]) -> Any:
        t = None if timeout is None else to_seconds(timeout, "timeout", minimum=0.001)
        return await self._transport.unary(method, req, timeout=t)

    async def _call_resent(self, method: CommandKind, req: Any, timeout: Optional[Duration]) -> Any:
        """A client command resent only after the statuses ``command_resent_after`` lists for it, with
        the shared backoff, at most ``MAX_COMMAND_ATTEMPTS`` attempts and never past the call's
        deadline (``timeout``, else the client's command timeout); otherwise its typed error at once."""
        total = self.config.command_timeout if timeout is None else to_seconds(timeout, "timeout", minimum=0.001)
        deadline = time.monotonic() + total
        backoff = _BackoffTimer(settings=self.config.backoff)
        attempt = 1
        while True:
            try:
                return await self._transport.unary(method, req, timeout=max(0.001, deadline - time.monotonic()))
            except JobwireError as e:
                if attempt >= MAX_COMMAND_ATTEMPTS or not command_resent_after(method, e.code):
                    raise
                delay = backoff.next()
                if time.monotonic() + delay >= deadline:
                    raise
                self.config.logger.debug("jobwire: %s failed (%s); resending in %.0f ms", method, e.code_name, delay * 1000)
                await asyncio.sleep(delay)
                attempt += 1

    async def topology(self, *, timeout: Optional[Duration] = None) -> Topology:
        """The cluster topology (brokers, partitions, gateway version)."""
        return _topology(await self._call("Topology", pb.TopologyRequest(), timeout))

    async def deploy_resource(self, *resources: Resource, tenant_id: str = "", timeout: Optional[Duration] = None) -> Deployment:
        """Deploys BPMN/DMN/form resources: file paths, or ``(name, content)`` pairs."""
        if not resources:
            raise ConfigurationError("jobwire: deploy_resource needs at least one resource")
        items = []
        for r in resources:
            if isinstance(r, tuple):
                name, content = r
                items.append(pb.Resource(name=name, content=content.encode() if isinstance(content, str) else content))
            else:
                p = Path(r)
                items.append(pb.Resource(name=p.name, content=p.read_bytes()))
        return _deployment(await self._call("DeployResource", pb.DeployResourceRequest(resources=items, tenantId=tenant_id), timeout))

    def _create_req(
        self,
        bpmn_process_id: Optional[str],
        version: int,
        process_definition_key: Optional[Any],
        variables: VariablesInput,
        tenant_id: str,
        start_element_ids: Sequence[str] = (),
    ) -> pb.CreateProcessInstanceRequest:
        if bpmn_process_id is None and process_definition_key is None:
            raise ConfigurationError("jobwire: give bpmn_process_id or process_definition_key")
        return pb.CreateProcessInstanceRequest(
            bpmnProcessId=bpmn_process_id or "",
            version=version,
            processDefinitionKey=_key(process_definition_key, "process_definition_key") if process_definition_key is not None else 0,
            variables=variables_to_json(variables, "create_process_instance variables"),
            tenantId=tenant_id,
            startInstructions=[pb.ProcessInstanceCreationStartInstruction(elementId=e) for e in start_element_ids],
        )

    async def create_process_instance(
        self,
        bpmn_process_id: Optional[str] = None,
        *,
        version: int = -1,
        process_definition_key: Optional[Any] = None,
        variables: VariablesInput = None,
        tenant_id: str = "",
        start_element_ids: Sequence[str] = (),
        timeout: Optional[Duration] = None,
    ) -> ProcessInstance:
        """Starts a process instance (latest version by default).

        ``start_element_ids`` starts it before these elements instead of at the none start event
        (elements it cannot start at, such as boundary events, raise ``InvalidArgumentError``)."""
        req = self._create_req(bpmn_process_id, version, process_definition_key, variables, tenant_id, start_element_ids)
        return _process_instance(await self._call("CreateProcessInstance", req, timeout))

    async def create_process_instance_with_result(
        self,
        bpmn_process_id: Optional[str] = None,
        *,
        version: int = -1,
        process_definition_key: Optional[Any] = None,
        variables: VariablesInput = None,
        tenant_id: str = "",
        start_element_ids: Sequence[str] = (),
        request_timeout: Optional[Duration] = None,
        fetch_variables: Optional[Sequence[str]] = None,
        timeout: Optional[Duration] = None,
    ) -> ProcessInstanceResult:
        """Starts a process instance and waits until it completes; returns its final variables."""
        req = pb.CreateProcessInstanceWithResultRequest(
            request=self._create_req(bpmn_process_id, version, process_definition_key, variables, tenant_id, start_element_ids),
            requestTimeout=_ms(request_timeout, "request_timeout"),
            fetchVariables=list(fetch_variables or ()),
        )
        if timeout is None:
            timeout = max(self.config.command_timeout, (req.requestTimeout / 1000) + 10)
        return _process_instance_result(await self._call("CreateProcessInstanceWithResult", req, timeout))

    async def cancel_process_instance(self, process_instance_key: Any, *, timeout: Optional[Duration] = None) -> None:
        """Cancels a running process instance."""
        await self._call("CancelProcessInstance", pb.CancelProcessInstanceRequest(processInstanceKey=_key(process_instance_key, "process_instance_key")), timeout)

    async def publish_message(
        self,
        name: str,
        correlation_key: str = "",
        *,
        time_to_live: Optional[Duration] = None,
        message_id: str = "",
        variables: VariablesInput = None,
        tenant_id: str = "",
        timeout: Optional[Duration] = None,
    ) -> int:
        """Publishes a message (correlated to waiting instances, buffered for ``time_to_live``); returns its key."""
        req = pb.PublishMessageRequest(
            name=name,
            correlationKey=correlation_key,
            timeToLive=_ms(time_to_live, "time_to_live"),
            messageId=message_id,
            variables=variables_to_json(variables, "publish_message variables"),
            tenantId=tenant_id,
        )
        r: pb.PublishMessageResponse = await self._call("PublishMessage", req, timeout)
        return int(r.key)

    async def set_variables(self, element_instance_key: Any, variables: VariablesInput, *, local: bool = False, timeout: Optional[Duration] = None) -> int:
        """Sets variables on a scope (process or element instance); returns the command key."""
        req = pb.SetVariablesRequest(
            elementInstanceKey=_key(element_instance_key, "element_instance_key"),
            variables=variables_to_json(variables, "set_variables variables"),
            local=local,
        )
        r: pb.SetVariablesResponse = await self._call("SetVariables", req, timeout)
        return int(r.key)

    async def resolve_incident(self, incident_key: Any, *, timeout: Optional[Duration] = None) -> None:
        """Resolves an incident."""
        await self._call("ResolveIncident", pb.ResolveIncidentRequest(incidentKey=_key(incident_key, "incident_key")), timeout)

    async def update_job_retries(self, job_key: Any, retries: int, *, timeout: Optional[Duration] = None) -> None:
        """Sets a job's retries."""
        await self._call("UpdateJobRetries", pb.UpdateJobRetriesRequest(jobKey=_key(job_key, "job_key"), retries=retries), timeout)

    async def update_job_timeout(self, job_key: Any, job_timeout: Duration, *, timeout: Optional[Duration] = None) -> None:
        """Sets a job's activation timeout, counted from now."""
        req = pb.UpdateJobTimeoutRequest(jobKey=_key(job_key, "job_key"), timeout=_ms(job_timeout, "job_timeout"))
        await self._call("UpdateJobTimeout", req, timeout)

    async def complete_job(self, job_key: Any, variables: VariablesInput = None, *, timeout: Optional[Duration] = None) -> None:
        """Completes a job by key (outside a worker)."""
        req = pb.CompleteJobRequest(jobKey=_key(job_key, "job_key"), variables=variables_to_json(variables, "complete_job variables"))
        await self._call("CompleteJob", req, timeout)

    async def fail_job(
        self,
        job_key: Any,
        retries: int,
        message: str = "",
        *,
        retry_backoff: Optional[Duration] = None,
        variables: VariablesInput = None,
        timeout: Optional[Duration] = None,
    ) -> None:
        """Fails a job by key (outside a worker)."""
        req = pb.FailJobRequest(
            jobKey=_key(job_key, "job_key"),
            retries=retries,
            errorMessage=message,
            retryBackOff=_ms(retry_backoff, "retry_backoff"),
            variables=variables_to_json(variables, "fail_job variables"),
        )
        await self._call("FailJob", req, timeout)

    async def throw_error(
        self, job_key: Any, code: str, message: str = "", *, variables: VariablesInput = None, timeout: Optional[Duration] = None
    ) -> None:
        """Throws a BPMN error from a job by key (outside a worker)."""
        req = pb.ThrowErrorRequest(
            jobKey=_key(job_key, "job_key"),
            errorCode=code,
            errorMessage=message,
            variables=variables_to_json(variables, "throw_error variables"),
        )
        await self._call("ThrowError", req, timeout)

    async def evaluate_decision(
        self,
        decision_id: Optional[str] = None,
        *,
        decision_key: Optional[Any] = None,
        variables: VariablesInput = None,
        tenant_id: str = "",
        timeout: Optional[Duration] = None,
    ) -> DecisionEvaluation:
        """Evaluates a deployed decision, by id (its latest version) or by ``decision_key``, with
        ``variables``. A decision that fails to evaluate is a result whose ``failed_decision_id`` and
        ``failure_message`` are set. Resent after UNAVAILABLE or RESOURCE_EXHAUSTED (it changes no
        state), with backoff, at most 5 attempts, within ``timeout``.

        Example::

            result = await client.evaluate_decision("discount", variables={"customer": "gold"})
            print(result.decision_output)           # parsed losslessly, e.g. 0.15
        """
        if decision_id is None and decision_key is None:
            raise ConfigurationError("jobwire: give decision_id or decision_key")
        req = pb.EvaluateDecisionRequest(
            decisionKey=_key(decision_key, "decision_key") if decision_key is not None else 0,
            decisionId=decision_id or "",
            variables=variables_to_json(variables, "evaluate_decision variables"),
            tenantId=tenant_id,
        )
        return _decision_evaluation(await self._call_resent("EvaluateDecision", req, timeout))

    async def modify_process_instance(
        self,
        process_instance_key: Any,
        *,
        activate: Sequence[ActivateElement] = (),
        terminate: Sequence[Any] = (),
        timeout: Optional[Duration] = None,
    ) -> None:
        """Modifies a running process instance in one step: activates elements (optionally under a
        chosen ancestor element instance, with variables per scope) and terminates element instances
        (by key). Resent only after RESOURCE_EXHAUSTED; after UNAVAILABLE or DEADLINE_EXCEEDED it may
        have been applied, so the typed error is raised at once.

        Example::

            await client.modify_process_instance(
                instance_key,
                activate=[ActivateElement("review", variables=[ScopedVariables({"note": "again"})])],
                terminate=[approve_element_instance_key],
            )
        """
        acts = []
        for i, a in enumerate(activate):
            if not isinstance(a, ActivateElement):
                raise ConfigurationError(f"jobwire: activate[{i}] must be an ActivateElement, got {type(a).__name__}")
            acts.append(
                pb.ModifyProcessInstanceRequest.ActivateInstruction(
                    elementId=a.element_id,
                    ancestorElementInstanceKey=(
                        _key(a.ancestor_element_instance_key, f"activate[{i}].ancestor_element_instance_key")
                        if a.ancestor_element_instance_key is not None
                        else 0
                    ),
                    variableInstructions=[
                        pb.ModifyProcessInstanceRequest.VariableInstruction(
                            variables=variables_to_json(v.variables, f"activate[{i}].variables[{j}]"), scopeId=v.scope_id
                        )
                        for j, v in enumerate(a.variables)
                    ],
                )
            )
        req = pb.ModifyProcessInstanceRequest(
            processInstanceKey=_key(process_instance_key, "process_instance_key"),
            activateInstructions=acts,
            terminateInstructions=[
                pb.ModifyProcessInstanceRequest.TerminateInstruction(elementInstanceKey=_key(k, f"terminate[{i}]"))
                for i, k in enumerate(terminate)
            ],
        )
        await self._call_resent("ModifyProcessInstance", req, timeout)

    async def migrate_process_instance(
        self,
        process_instance_key: Any,
        *,
        target_process_definition_key: Any,
        mappings: Sequence[MappingInstruction] = (),
        timeout: Optional[Duration] = None,
    ) -> None:
        """Moves a running process instance to another process definition, element by element,
        following ``mappings``. Resent only after RESOURCE_EXHAUSTED (a resent migration that was
        applied would be refused and hide the success).

        Example::

            await client.migrate_process_instance(
                instance_key,
                target_process_definition_key=v2.process_definition_key,
                mappings=[MappingInstruction("charge", "charge_v2")],
            )
        """
        plan = pb.MigrateProcessInstanceRequest.MigrationPlan(
            targetProcessDefinitionKey=_key(target_process_definition_key, "target_process_definition_key"),
            mappingInstructions=[
                pb.MigrateProcessInstanceRequest.MappingInstruction(sourceElementId=m.source_element_id, targetElementId=m.target_element_id)
                for m in mappings
            ],
        )
        req = pb.MigrateProcessInstanceRequest(processInstanceKey=_key(process_instance_key, "process_instance_key"), migrationPlan=plan)
        await self._call_resent("MigrateProcessInstance", req, timeout)

    async def delete_resource(self, resource_key: Any, *, timeout: Optional[Duration] = None) -> None:
        """Deletes a deployed process definition, decision requirements graph or form by key. A
        process definition that still has running instances is refused
        (:class:`jobwire.FailedPreconditionError`); an unknown key raises
        :class:`jobwire.NotFoundError`. Resent only after RESOURCE_EXHAUSTED.

        Example::

            await client.delete_resource(deployment.processes[0].process_definition_key)
        """
        await self._call_resent("DeleteResource", pb.DeleteResourceRequest(resourceKey=_key(resource_key, "resource_key")), timeout)

    async def broadcast_signal(
        self, signal_name: str, *, variables: VariablesInput = None, tenant_id: str = "", timeout: Optional[Duration] = None
    ) -> int:
        """Broadcasts a signal: every signal start event and waiting signal catch event named
        ``signal_name`` is triggered with ``variables``; returns the signal's key. Resent only after
        RESOURCE_EXHAUSTED (a resent signal would start a second instance).

        Example::

            key = await client.broadcast_signal("stock-arrived", variables={"sku": "A-1"})
        """
        req = pb.BroadcastSignalRequest(
            signalName=signal_name, variables=variables_to_json(variables, "broadcast_signal variables"), tenantId=tenant_id
        )
        r: pb.BroadcastSignalResponse = await self._call_resent("BroadcastSignal", req, timeout)
        return int(r.key)

    async def activate_jobs(
        self,
        job_type: str,
        *,
        max_jobs: int = 32,
        worker_name: str = "jobwire",
        job_timeout: Duration = 300.0,
        request_timeout: Duration = 0.0,
        fetch_variables: Optional[Sequence[str]] = None,
        tenant_ids: Optional[Sequence[str]] = None,
    ) -> List[Job]:
        """One ActivateJobs call (long polls ``request_timeout``); returns the activated jobs. Their
        outcome methods send one command each through this client (not resent). Workers do this
        for you; use it for tools and tests."""
        rt = _ms(request_timeout, "request_timeout")
        req = pb.ActivateJobsRequest(
            type=job_type,
            worker=worker_name,
            timeout=_ms(job_timeout, "job_timeout"),
            maxJobsToActivate=max_jobs,
            fetchVariable=list(fetch_variables or ()),
            requestTimeout=rt,
            tenantIds=list(tenant_ids or ()),
        )
        md, _ = await self._transport.metadata()
        stub = self._transport._command_stubs()[0]
        call = stub.ActivateJobs(req, timeout=max(0, rt) / 1000 + 10 if rt >= 0 else 10, metadata=md)
        jobs: List[Job] = []
        outcomes = DirectOutcomes(self)
        try:
            async for resp in call:
                jobs.extend(Job(j, "poll", outcomes) for j in resp.jobs)
        except grpc.RpcError as e:
            raise from_rpc_error(e, "ActivateJobs") from None
        return jobs

    async def stream_activated_jobs(
        self,
        job_type: str,
        *,
        worker_name: str = "jobwire",
        job_timeout: Duration = 300.0,
        fetch_variables: Optional[Sequence[str]] = None,
        tenant_ids: Optional[Sequence[str]] = None,
    ) -> AsyncIterator[Job]:
        """A StreamActivatedJobs call: yields pushed jobs until the caller stops iterating (outcomes
        as with :meth:`activate_jobs`).
        Workers do this for you (with capacity control); use it for tools and tests."""
        req = pb.StreamActivatedJobsRequest(
            type=job_type,
            worker=worker_name,
            timeout=_ms(job_timeout, "job_timeout"),
            fetchVariable=list(fetch_variables or ()),
            tenantIds=list(tenant_ids or ()),
        )
        md, _ = await self._transport.metadata()
        call = self._transport._command_stubs()[0].StreamActivatedJobs(req, metadata=md)
        outcomes = DirectOutcomes(self)
        try:
            async for job in call:
                yield Job(job, "push", outcomes)
        except grpc.RpcError as e:
            raise from_rpc_error(e, "StreamActivatedJobs") from None
        finally:
            call.cancel()

