"""OpenTelemetry instruments (API only: no-ops until the application installs a provider).

Span and metric names and attributes are the same in every jobwire SDK.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any, Callable, Dict, Iterable, Mapping, Optional, Tuple

from opentelemetry import context as otel_context
from opentelemetry import metrics, trace
from opentelemetry.metrics import CallbackOptions, Observation
from opentelemetry.trace import Span, SpanKind, Status, StatusCode
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

SCOPE = "jobwire"
OUTCOMES = (
    "completed",
    "failed",
    "error",
    "expired",
    "not_found",
    "returned",
    "duplicate",
    "undelivered",
    "unsettled",
    "cancelled",
)

_lock = threading.Lock()
_instruments: Optional[Dict[str, Any]] = None
_live: "weakref.WeakSet[Telemetry]" = weakref.WeakSet()
_propagator = TraceContextTextMapPropagator()


# Bucket bounds, in seconds, the duration histogram advises (an SDK view may override them):
# OpenTelemetry's default bounds are meant for milliseconds.
DURATION_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300)


def _duration_histogram(meter: Any) -> Any:
    try:
        return meter.create_histogram(
            "jobwire.worker.job.duration",
            unit="s",
            description="handler duration",
            explicit_bucket_boundaries_advisory=DURATION_BUCKETS,
        )
    except TypeError:  # opentelemetry-api before 1.23 takes no advice
        return meter.create_histogram("jobwire.worker.job.duration", unit="s", description="handler duration")


def _observe_capacity(options: CallbackOptions) -> Iterable[Observation]:
    return [Observation(t.capacity_used(), t.base) for t in list(_live)]


def _get() -> Dict[str, Any]:
    global _instruments
    with _lock:
        if _instruments is None:
            from . import __version__

            meter = metrics.get_meter(SCOPE, __version__)
            _instruments = {
                "tracer": trace.get_tracer(SCOPE, __version__),
                "activated": meter.create_counter("jobwire.worker.jobs.activated", description="jobs received by the worker"),
                "handled": meter.create_counter("jobwire.worker.jobs.handled", description="jobs finished, by outcome"),
                "duration": _duration_histogram(meter),
                "reconnects": meter.create_counter("jobwire.worker.stream.reconnects", description="stream reopens"),
                "polls": meter.create_counter("jobwire.worker.poll.requests", description="ActivateJobs calls, by result"),
                "capacity": meter.create_observable_gauge(
                    "jobwire.worker.capacity.used", callbacks=[_observe_capacity], description="jobs held by the worker"
                ),
            }
        return _instruments


class Telemetry:
    """The instruments of one worker."""

    def __init__(self, job_type: str, worker_name: str, capacity_used: Callable[[], int]) -> None:
        self.base: Dict[str, str] = {"jobwire.job.type": job_type, "jobwire.worker.name": worker_name}
        self.capacity_used = capacity_used
        self._i = _get()
        # attribute sets by (name, value), made once: the per-job counters add no dict each
        self._attrs: Dict[Tuple[str, str], Dict[str, str]] = {}
        _live.add(self)

    def _with(self, name: str, value: str) -> Dict[str, str]:
        a = self._attrs.get((name, value))
        if a is None:
            a = self._attrs[(name, value)] = {**self.base, name: value}
        return a

    @staticmethod
    def tracing() -> bool:
        """False while the application installed no tracer provider (the API's proxy or no-op one):
        job spans would not record, so none is started."""
        return not isinstance(trace.get_tracer_provider(), (trace.ProxyTracerProvider, trace.NoOpTracerProvider))

    def detach(self) -> None:
        """Stops reporting the capacity gauge (worker closed)."""
        _live.discard(self)

    def job_activated(self, activation: str, n: int = 1) -> None:
        """Counts received jobs (every job, including returned and duplicates)."""
        self._i["activated"].add(n, self._with("activation", activation))

    def job_handled(self, outcome: str, duration_s: Optional[float] = None) -> None:
        """Counts a finished job; records the handler duration when given."""
        self._i["handled"].add(1, self._with("outcome", outcome))
        if duration_s is not None:
            self._i["duration"].record(duration_s, self.base)

    def stream_reconnect(self, reason: str) -> None:
        """Counts a stream reopen (error, closed, recycled, stalled)."""
        self._i["reconnects"].add(1, self._with("reason", reason))

    def poll_request(self, result: str) -> None:
        """Counts an ActivateJobs call (jobs, empty, error, cancelled)."""
        self._i["polls"].add(1, self._with("result", result))

    def start_job_span(self, job_type: str, attributes: Mapping[str, Any], traceparent: Optional[str]) -> Tuple[Span, otel_context.Context]:
        """Starts ``process job <type>`` (CONSUMER), parented by a W3C traceparent when present."""
        parent: Optional[otel_context.Context] = None
        if isinstance(traceparent, str) and traceparent:
            parent = _propagator.extract({"traceparent": traceparent.strip()})
        tracer: trace.Tracer = self._i["tracer"]
        span = tracer.start_span(f"process job {job_type}", context=parent, kind=SpanKind.CONSUMER, attributes=dict(attributes))
        return span, trace.set_span_in_context(span, parent)

    @staticmethod
    def end_job_span(span: Span, outcome: str, err: Optional[BaseException] = None) -> None:
        """Sets ``jobwire.job.outcome`` and the status, then ends the span."""
        span.set_attribute("jobwire.job.outcome", outcome)
        if outcome == "completed":
            span.set_status(Status(StatusCode.OK))
        else:
            if err is not None and isinstance(err, Exception):
                span.record_exception(err)
            span.set_status(Status(StatusCode.ERROR, str(err) if err is not None else outcome))
        span.end()
