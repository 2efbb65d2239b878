"""jobwire: job-worker SDK for the Zeebe / Camunda 8 gateway gRPC protocol.

asyncio first; handlers may also be plain functions (they run in a thread pool)::

    import asyncio
    from dataclasses import dataclass
    from jobwire import Client, JobRouter

    @dataclass
    class Order:
        order_id: str
        amount: float

    router = JobRouter(max_jobs_active=32)

    @router.job("charge")                        # fetches order_id and amount only
    async def charge(order: Order) -> dict:
        return {"charged": order.amount}

    async def main() -> None:
        async with Client() as client:          # ZEEBE_ADDRESS etc. from the environment
            client.include_router(router)
            await client.run_workers()           # Ctrl-C closes gracefully

    asyncio.run(main())

The library logs to the ``jobwire`` logger; telemetry uses the OpenTelemetry API
(a no-op until the application installs a provider).
"""

__version__ = "0.1.0"

from ._options import Middleware, WorkerOptions
from ._state import WorkerState
from .client import Client
from .commands import ActivateElement, MappingInstruction, ScopedVariables
from .config import Backoff, ClientConfig, OAuthOptions
from .errors import (
    AlreadyExistsError,
    BackpressureError,
    RequestCancelledError,
    ConfigurationError,
    DeadlineExceededError,
    FailedPreconditionError,
    InternalError,
    InvalidArgumentError,
    InvalidInputError,
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
from .retry import NonRetryableError, RetryDecision, RetryPolicy, default_retry_policy, exponential_backoff
from .router import JobRouter
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
    "JobRouter",
    "InvalidInputError",
    "RetryPolicy",
    "RetryDecision",
    "exponential_backoff",
    "default_retry_policy",
    "NonRetryableError",
    "Middleware",
    "Backoff",
]
