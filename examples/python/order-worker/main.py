"""order-worker handles the jobs of examples/bpmn/order-fulfilment.bpmn with the
jobwire Python SDK.

    ZEEBE_ADDRESS=127.0.0.1:26500 python main.py                 # all four job types
    JOB_TYPES=inventory,notify-customer python main.py           # only some

The SDK reads ZEEBE_ADDRESS, ZEEBE_CLIENT_ID, ... (docs/configuration.md); this
program reads JOB_TYPES, MAX_JOBS_ACTIVE and STATS_INTERVAL_MS (print a JSON stats
line to stdout that often). SIGINT / SIGTERM close it gracefully.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from dataclasses import dataclass
from typing import Any, Dict, Optional, TypedDict

from jobwire import Client, Job, JobError, JobRouter, WorkerState
from stats import Stats

DECLINED_CARD = "4000000000000002"  # the test card the payment handler declines

# The workers, declared without a client: JobRouter collects them at import time and
# main() starts them on a client. The payment handler is typed: its input is validated
# into Order before it runs, and only Order's variables are fetched.
router = JobRouter()


@dataclass
class Order:
    """What the payment handler reads: the variables orderId, amount and card."""

    orderId: str
    amount: float
    card: str


@dataclass
class Payment:
    """What it writes back (completes the job with these variables)."""

    paid: bool
    paymentId: str


class ShippingHeaders(TypedDict, total=False):
    """The shipping task's custom header."""

    method: str


@router.job("payment")
async def payment(order: Order) -> Payment:
    if order.card == DECLINED_CARD:
        # A BPMN error: caught by the PaymentDeclined boundary event.
        raise JobError("PAYMENT_DECLINED", "card declined", variables={"declineReason": "insufficient funds"})
    return Payment(paid=True, paymentId=f"pay-{order.orderId}")


@router.job("inventory")
async def inventory(job: Job) -> Dict[str, Any]:
    return {"reserved": True}


@router.job("shipping")
async def shipping(headers: ShippingHeaders, job: Job) -> Dict[str, Any]:
    return {"shippingMethod": headers.get("method"), "trackingNumber": f"TRK-{job.key}"}


@router.job("notify-customer")
async def notify_customer(headers: Dict[str, str], job: Job) -> Dict[str, Optional[str]]:
    return {"notified": headers.get("template")}


HANDLERS = {"payment": payment, "inventory": inventory, "shipping": shipping, "notify-customer": notify_customer}
JOB_TYPES = list(HANDLERS)


def log(msg: str) -> None:
    print(f"order-worker (python): {msg}", file=sys.stderr, flush=True)


async def main() -> int:
    types = [t.strip() for t in os.environ.get("JOB_TYPES", ",".join(JOB_TYPES)).split(",") if t.strip()]
    for t in types:
        if t not in JOB_TYPES:
            log(f'JOB_TYPES: unknown job type "{t}"')
            return 2
    max_jobs_active = int(os.environ.get("MAX_JOBS_ACTIVE", "32"))
    interval = int(os.environ.get("STATS_INTERVAL_MS", "0")) / 1000
    stats = Stats("python")
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)

    # `make run` splits the job types between the SDKs' workers: start a router with just the
    # types asked for (the handlers declared above), counted by the stats middleware.
    selected = JobRouter(max_jobs_active=max_jobs_active, middleware=[stats.middleware])
    for t in types:
        selected.job(t)(HANDLERS[t])

    async with Client() as client:  # ZEEBE_ADDRESS etc., else 127.0.0.1:26500
        waiting = set(types)
        for w in client.include_router(selected):
            t = w.job_type
            w.on_error(lambda e, t=t: log(f"{t}: {e}"))

            def on_state(s: WorkerState, t: str = t) -> None:
                if s == WorkerState.STREAMING and t in waiting:
                    waiting.discard(t)
                    if not waiting:
                        log(f"ready: handling {', '.join(types)}")

            w.on_state(on_state)
        while not stop.is_set():
            try:
                await asyncio.wait_for(stop.wait(), timeout=interval if interval > 0 else None)
            except asyncio.TimeoutError:
                stats.print(final=False)
        log("shutting down")
        await client.close(10)  # stops taking jobs, lets running handlers finish
    stats.print(final=True)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
