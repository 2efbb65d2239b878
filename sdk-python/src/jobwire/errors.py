"""Typed errors of the jobwire SDK.

Every failed gateway call raises a subclass of :class:`JobwireError`, chosen by
one table from the gRPC status code (the same names in every jobwire SDK).
:class:`JobError` is different: a handler raises (or returns) it to throw a
BPMN error from its job.
"""

from __future__ import annotations

from typing import Any, Dict, FrozenSet, List, Literal, Mapping, Optional, Sequence, Tuple, Type

import grpc

__all__ = [
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
    "JobError",
    "InvalidInputError",
    "from_rpc_error",
]


class JobwireError(Exception):
    """Base of every error the SDK raises for a failed gateway call or bad input.

    Attributes:
        code: the gRPC status code, or ``None`` for client-side errors.
        details: the status details sent by the gateway (empty for client-side errors).
    """

    def __init__(self, message: str, code: Optional[grpc.StatusCode] = None, details: str = "") -> None:
        super().__init__(message)
        self.code = code
        """The gRPC status code, or ``None`` for client-side errors."""
        self.details = details
        """Status details as sent by the gateway (may be empty)."""

    @property
    def code_name(self) -> str:
        """Name of the gRPC status code (e.g. ``"NOT_FOUND"``), ``"CLIENT"`` for client-side errors."""
        return self.code.name if self.code is not None else "CLIENT"

    @property
    def retryable(self) -> bool:
        """Whether sending the command again may help: UNAVAILABLE, RESOURCE_EXHAUSTED, DEADLINE_EXCEEDED
        (the same set in every SDK; not ABORTED: the command may have been applied)."""
        return is_retryable(self.code)


class BackpressureError(JobwireError):
    """RESOURCE_EXHAUSTED: the gateway applies backpressure; retry later with backoff."""


class UnavailableError(JobwireError):
    """UNAVAILABLE: the gateway cannot be reached or is restarting."""


class NotFoundError(JobwireError):
    """NOT_FOUND: the job, process, instance or incident does not exist (any more)."""


class InvalidArgumentError(JobwireError):
    """INVALID_ARGUMENT: the gateway rejected the request as malformed."""


class FailedPreconditionError(JobwireError):
    """FAILED_PRECONDITION: the entity is not in a state that allows the command."""


class AlreadyExistsError(JobwireError):
    """ALREADY_EXISTS: e.g. a message with the same id is still alive."""


class DeadlineExceededError(JobwireError):
    """DEADLINE_EXCEEDED: the call did not finish before its deadline."""


class RequestCancelledError(JobwireError):
    """CANCELLED: the call was cancelled (by the application or a close). Not
    :class:`asyncio.CancelledError`, which cancels a task."""


class UnauthenticatedError(JobwireError):
    """UNAUTHENTICATED: no token, an invalid token, or the token endpoint failed."""


class PermissionDeniedError(JobwireError):
    """PERMISSION_DENIED: the credentials do not allow the command."""


class UnimplementedError(JobwireError):
    """UNIMPLEMENTED: the gateway does not know the RPC."""


class InternalError(JobwireError):
    """INTERNAL, UNKNOWN or any other status: the gateway failed internally."""


class ConfigurationError(JobwireError, ValueError):
    """Invalid client or worker configuration (options or environment variables)."""


class InvalidVariablesError(JobwireError, TypeError):
    """Variables that are not a JSON object (or not serializable to JSON); nothing was sent."""


_TABLE: Dict[grpc.StatusCode, Type[JobwireError]] = {
    grpc.StatusCode.RESOURCE_EXHAUSTED: BackpressureError,
    grpc.StatusCode.UNAVAILABLE: UnavailableError,
    grpc.StatusCode.NOT_FOUND: NotFoundError,
    grpc.StatusCode.INVALID_ARGUMENT: InvalidArgumentError,
    grpc.StatusCode.FAILED_PRECONDITION: FailedPreconditionError,
    grpc.StatusCode.ALREADY_EXISTS: AlreadyExistsError,
    grpc.StatusCode.DEADLINE_EXCEEDED: DeadlineExceededError,
    grpc.StatusCode.CANCELLED: RequestCancelledError,
    grpc.StatusCode.UNAUTHENTICATED: UnauthenticatedError,
    grpc.StatusCode.PERMISSION_DENIED: PermissionDeniedError,
    grpc.StatusCode.UNIMPLEMENTED: UnimplementedError,
    grpc.StatusCode.INTERNAL: InternalError,
    grpc.StatusCode.UNKNOWN: InternalError,
}

RETRYABLE_CODES = frozenset(
    {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.DEADLINE_EXCEEDED}
)
"""Status codes after which a command (or an outcome) may be sent again."""

OUTCOME_RETRYABLE_CODES = RETRYABLE_CODES | {grpc.StatusCode.ABORTED}
"""Status codes after which an outcome (CompleteJob, FailJob, ThrowError) is sent again with backoff,
until the job's deadline: the retryable codes plus ABORTED, which Zeebe's gateway answers when its
connection to the partition leader closed mid-request ("Connection ... was closed": the broker died or
lost leadership). The outcome may or may not have been applied; resending is safe because an outcome
names its job by key, and one that was applied is answered NOT_FOUND (benign below). Not for other
commands: a resent CreateProcessInstance would create a second instance.
See docs/worker-semantics.md, "Sending outcomes"."""

BENIGN_OUTCOME_CODES = frozenset({grpc.StatusCode.NOT_FOUND, grpc.StatusCode.FAILED_PRECONDITION})
"""Outcome answers meaning "the job is not (any longer) ours": benign for a worker."""

ACTIVATION_REPORT_CODES = frozenset(
    {grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.UNAUTHENTICATED}
)
"""Codes of a failed poll or stream an application should see: reported (error event + metric), then
retried at the maximum backoff, so a fixed configuration or a rotated credential recovers without a restart."""

RESENT_AFTER_BACKPRESSURE = frozenset({grpc.StatusCode.RESOURCE_EXHAUSTED})
"""RESOURCE_EXHAUSTED: the broker refused the command under backpressure before writing it, so
nothing was applied."""

RESENT_AFTER_UNAVAILABLE_OR_BACKPRESSURE = RESENT_AFTER_BACKPRESSURE | {grpc.StatusCode.UNAVAILABLE}
"""For a command that changes no state (a decision evaluation), UNAVAILABLE is safe to resend too."""

CommandKind = Literal[
    "EvaluateDecision", "ModifyProcessInstance", "MigrateProcessInstance", "DeleteResource", "BroadcastSignal"
]

_COMMAND_RESENT_AFTER: Dict[str, FrozenSet[grpc.StatusCode]] = {
    "EvaluateDecision": RESENT_AFTER_UNAVAILABLE_OR_BACKPRESSURE,
    "ModifyProcessInstance": RESENT_AFTER_BACKPRESSURE,
    "MigrateProcessInstance": RESENT_AFTER_BACKPRESSURE,
    "DeleteResource": RESENT_AFTER_BACKPRESSURE,
    "BroadcastSignal": RESENT_AFTER_BACKPRESSURE,
}
"""The statuses after which each client command is resent (docs/worker-semantics.md, "Client commands:
which are resent"). After UNAVAILABLE, DEADLINE_EXCEEDED or ABORTED a state-changing command may have been
applied, so it is never resent; the caller gets the typed error at once."""

MAX_COMMAND_ATTEMPTS = 5
"""At most this many attempts of a resent client command (the first one included)."""

OutcomeDecision = Literal["retry", "benign", "give_up"]
ActivationCall = Literal["poll", "stream"]
ActivationDecision = Literal["backoff", "max_backoff_report", "polling_only"]

_SIZE_REFUSALS = ("larger than max", "exceeds maximum size")
"""RESOURCE_EXHAUSTED messages of a message over the gateway's size limit (grpc-java / grpc-go / grpc core)."""

# The status-code decisions below are pure and are the only place these rules live; the poller, the
# streamer and the outcome sender call them, and tests/test_vectors.py checks them against the shared
# vectors (conformance-tests/vectors/status-codes.json). See docs/worker-semantics.md.


def is_retryable(code: Optional[grpc.StatusCode]) -> bool:
    """Whether a command that failed with ``code`` may be sent again (``RETRYABLE_CODES``; not ABORTED:
    the command may have been applied)."""
    return code in RETRYABLE_CODES


def is_size_refusal(code: Optional[grpc.StatusCode], message: str) -> bool:
    """RESOURCE_EXHAUSTED for a message over the gateway's size limit: refused the same way every time."""
    return code == grpc.StatusCode.RESOURCE_EXHAUSTED and any(m in message for m in _SIZE_REFUSALS)


def outcome_decision(code: Optional[grpc.StatusCode], message: str = "") -> OutcomeDecision:
    """What a worker does after a failed CompleteJob / FailJob / ThrowError: ``retry`` (resend with backoff
    until the job's deadline), ``benign`` (the job is not ours any more: not reported, not resent) or
    ``give_up`` (undelivered, reported). ``message`` is the status details (size refusals are given up)."""
    if code in BENIGN_OUTCOME_CODES:
        return "benign"
    if code in OUTCOME_RETRYABLE_CODES and not is_size_refusal(code, message):
        return "retry"
    return "give_up"


def activation_decision(call: ActivationCall, code: Optional[grpc.StatusCode]) -> ActivationDecision:
    """What a worker does after a failed ActivateJobs (``poll``) or StreamActivatedJobs (``stream``):
    ``backoff`` (the next step of the shared backoff, not reported), ``max_backoff_report`` (reported,
    then the maximum backoff: ``ACTIVATION_REPORT_CODES``) or ``polling_only`` (the gateway has no job
    streaming: poll alone, never reopen)."""
    if call == "stream" and code == grpc.StatusCode.UNIMPLEMENTED:
        return "polling_only"
    if code in ACTIVATION_REPORT_CODES:
        return "max_backoff_report"
    return "backoff"


def command_resent_after(command: CommandKind, code: Optional[grpc.StatusCode]) -> bool:
    """Whether a client command (EvaluateDecision, ModifyProcessInstance, MigrateProcessInstance,
    DeleteResource, BroadcastSignal) that failed with ``code`` is sent again (with the shared backoff, at
    most ``MAX_COMMAND_ATTEMPTS`` attempts, within the call's deadline). Only after a status that proves
    it was not applied; every other command kind is never resent."""
    return code in _COMMAND_RESENT_AFTER.get(command, frozenset())


def error_class(code: grpc.StatusCode) -> Type[JobwireError]:
    """The typed error class for a gRPC status code (the one table of every SDK)."""
    return _TABLE.get(code, InternalError)


def from_rpc_error(err: BaseException, what: str = "") -> JobwireError:
    """Converts a grpc error (``grpc.RpcError`` / ``grpc.aio.AioRpcError``) into a typed :class:`JobwireError`."""
    if isinstance(err, JobwireError):
        return err
    prefix = f"{what}: " if what else ""
    code_fn = getattr(err, "code", None)
    details_fn = getattr(err, "details", None)
    if callable(code_fn):
        code = code_fn()
        if isinstance(code, grpc.StatusCode):
            details = details_fn() if callable(details_fn) else ""
            details = details if isinstance(details, str) else ""
            e = error_class(code)(f"{prefix}{code.name}: {details}", code, details)
            e.__cause__ = err
            return e
    e2 = JobwireError(f"{prefix}{err}")
    e2.__cause__ = err
    return e2


class JobError(Exception):
    """A BPMN error: raise (or return) it from a handler and the worker sends ThrowError
    with this code, message and variables, so that a matching error boundary event catches it.

    Example::

        raise JobError("CARD_DECLINED", "card was declined", variables={"reason": "limit"})
    """

    def __init__(self, code: str, message: str = "", *, variables: Optional[Mapping[str, Any]] = None) -> None:
        if not isinstance(code, str) or not code:
            raise TypeError("jobwire: JobError needs a non-empty error code string")
        super().__init__(message or code)
        self.code = code
        """The BPMN error code, matched against the errorCode of error events."""
        self.message = message
        """The error message sent with ThrowError."""
        self.variables = variables
        """Variables set on the error scope, or ``None``."""


class InvalidInputError(ValueError):
    """A job's variables (or custom headers) do not match the handler's declared input type. The
    handler is not called; the job fails like after a handler error (through the retry policy),
    with this message: ``jobwire: invalid input: <field>: <problem>`` (several joined by ``; ``).

    ``issues`` lists ``(field, problem)`` pairs; a field is a dotted path (``order.amount``,
    ``items[2].sku``).
    """

    def __init__(self, issues: Sequence[Tuple[str, str]]) -> None:
        self.issues: List[Tuple[str, str]] = [(str(f), str(p)) for f, p in issues]
        """``(field, problem)`` pairs."""
        super().__init__(
            "jobwire: invalid input: " + "; ".join(f"{f}: {p}" if f else p for f, p in self.issues)
        )
