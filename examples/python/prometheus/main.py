"""prometheus serves the worker's OpenTelemetry metrics to Prometheus: jobwire records
its metrics (jobwire.worker.jobs.handled, ...) through the OpenTelemetry API; this
program installs a meter provider with the Prometheus exporter, serves /metrics on
127.0.0.1 (prometheus_client's start_http_server), deploys
examples/bpmn/order-fulfilment.bpmn and handles its four job types until SIGINT or
SIGTERM. opentelemetry-sdk, opentelemetry-exporter-prometheus and prometheus-client are
this example's dependencies, not jobwire's.

    ZEEBE_ADDRESS=127.0.0.1:26500 python main.py
    curl -s http://127.0.0.1:9464/metrics | grep jobwire_

OTEL_EXPORTER_PROMETHEUS_PORT (default 9464; 0 = a free port) and
OTEL_EXPORTER_PROMETHEUS_HOST (default 127.0.0.1) choose the address; BPMN the
process to deploy (default ../../bpmn/order-fulfilment.bpmn).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path
from typing import Any, Dict

from opentelemetry import metrics
from opentelemetry.exporter.prometheus import PrometheusMetricReader
from opentelemetry.sdk.metrics import MeterProvider
from prometheus_client import start_http_server

from jobwire import Client, Job, JobError, JobRouter

DECLINED_CARD = "4000000000000002"  # the test card the payment handler declines
router = JobRouter()


@router.job("payment")
async def payment(job: Job) -> Dict[str, Any]:
    if job.variables.get("card") == DECLINED_CARD:
        # counted as outcome="error": a BPMN error, caught by the boundary event
        raise JobError("PAYMENT_DECLINED", "card declined")
    return {"paid": True, "paymentId": f"pay-{job.variables['orderId']}"}


@router.job("inventory")
async def inventory(job: Job) -> Dict[str, Any]:
    return {"reserved": True}


@router.job("shipping")
async def shipping(job: Job) -> Dict[str, Any]:
    return {"shippingMethod": job.custom_headers.get("method"), "trackingNumber": f"TRK-{job.key}"}


@router.job("notify-customer")
async def notify_customer(job: Job) -> Dict[str, Any]:
    return {"notified": job.custom_headers.get("template")}


def log(msg: str) -> None:
    print(f"prometheus (python): {msg}", file=sys.stderr, flush=True)


async def main() -> int:
    # 1. The OpenTelemetry metrics SDK with the Prometheus exporter: a reader that
    # collects on every scrape. The SDK advises bucket bounds in seconds for the
    # handler duration; a View can override them.
    reader = PrometheusMetricReader()
    provider = MeterProvider(metric_readers=[reader])
    metrics.set_meter_provider(provider)

    # 2. /metrics on 127.0.0.1:9464 (Prometheus scrapes it).
    host = os.environ.get("OTEL_EXPORTER_PROMETHEUS_HOST", "127.0.0.1")
    server, _ = start_http_server(int(os.environ.get("OTEL_EXPORTER_PROMETHEUS_PORT", "9464")), addr=host)
    log(f"metrics on http://{host}:{server.server_port}/metrics")

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)

    # 3. A client and the order workers, as usual: they use the global provider.
    bpmn = Path(os.environ.get("BPMN", Path(__file__).resolve().parent / ".." / ".." / "bpmn" / "order-fulfilment.bpmn"))
    async with Client() as client:  # ZEEBE_ADDRESS etc., else 127.0.0.1:26500
        await client.deploy_resource(str(bpmn))
        client.include_router(router)
        await stop.wait()
        await client.close(10)  # stops taking jobs, lets running handlers finish
    server.shutdown()
    provider.shutdown()
    log("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
