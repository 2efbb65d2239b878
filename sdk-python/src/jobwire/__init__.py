"""jobwire: job-worker SDK for the Zeebe / Camunda 8 gateway gRPC protocol.

asyncio first, with a small synchronous facade (:mod:`jobwire.sync`)::

    import asyncio
    from jobwire import Client, Job

    async def charge(job: Job) -> dict:
        return {"charged": job.variables["amount"]}

    async def main() -> None:
        async with Client() as client:          # ZEEBE_ADDRESS etc. from the environment
            client.worker("charge", charge, max_jobs_active=32)
            await client.run_workers()           # Ctrl-C closes gracefully

    asyncio.run(main())

The library logs to the ``jobwire`` logger; telemetry uses the OpenTelemetry API
(a no-op until the application installs a provider).
"""

__version__ = "0.1.0"

from ._options import WorkerOptions
from ._state import WorkerState
from .client import Client
from .commands import ActivateElement, MappingInstruction, ScopedVariables
from .config import ClientConfig, OAuthOptions
from .errors import (
    AlreadyExistsError,
    BackpressureError,
    RequestCancelledError,
    ConfigurationError,
    DeadlineExceededError,
    FailedPreconditionError,
    InternalError,
    InvalidArgumentError,
    InvalidVariablesError,
    JobError,
    JobwireError,
    NotFoundError,
    PermissionDeniedError,
    UnauthenticatedError,
    UnavailableError,
    UnimplementedError,
)
from .job import Job
from .results import (
    Broker,
    DecisionEvaluation,
    Deployment,
    EvaluatedDecision,
    EvaluatedInput,
    EvaluatedOutput,
    MatchedRule,
    Partition,
    Process,
    ProcessInstance,
    ProcessInstanceResult,
    Topology,
)
from .worker import Worker

__all__ = [
    "__version__",
    "Client",
    "ClientConfig",
    "OAuthOptions",
    "Topology",
    "Broker",
    "Partition",
    "Deployment",
    "Process",
    "ProcessInstance",
    "ProcessInstanceResult",
    "DecisionEvaluation",
    "EvaluatedDecision",
    "MatchedRule",
    "EvaluatedInput",
    "EvaluatedOutput",
    "ActivateElement",
    "ScopedVariables",
    "MappingInstruction",
    "Worker",
    "WorkerOptions",
    "WorkerState",
    "Job",
    "JobError",
    "JobwireError",
    "BackpressureError",
    "UnavailableError",
    "NotFoundError",
    "InvalidArgumentError",
    "FailedPreconditionError",
    "AlreadyExistsError",
    "DeadlineExceededError",
    "RequestCancelledError",
    "UnauthenticatedError",
    "PermissionDeniedError",
    "UnimplementedError",
    "InternalError",
    "ConfigurationError",
    "InvalidVariablesError",
]
