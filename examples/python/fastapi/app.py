"""A FastAPI service that runs a jobwire worker beside its HTTP API.

The workers start once the app started and close gracefully when it stops (SIGTERM, Ctrl-C):
running handlers finish within the close timeout, jobs received but not started go back to the
engine at once, so no job waits out its activation timeout.

    ZEEBE_ADDRESS=127.0.0.1:26500 uvicorn app:app --port 8000

    curl -X POST localhost:8000/invoices -H 'content-type: application/json' \\
         -d '{"order_id": "o-1", "amount": 99.5}'
    curl localhost:8000/health/jobwire

WORK_DURATION_MS (default 100) is how long sending an invoice takes.
"""

from __future__ import annotations

import asyncio
import os
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import AsyncIterator, Dict

from fastapi import FastAPI, Request
from pydantic import BaseModel

from jobwire import Client, JobRouter
from jobwire.fastapi import JobwireLifespan, health

WORK_SECONDS = int(os.environ.get("WORK_DURATION_MS", "100")) / 1000

router = JobRouter(max_jobs_active=32)


@dataclass
class Invoice:
    """The process variables the handler reads (only these are fetched)."""

    order_id: str
    amount: float


@router.job("send-invoice")
async def send_invoice(invoice: Invoice) -> Dict[str, object]:
    await asyncio.sleep(WORK_SECONDS)  # sending the invoice; cancelled if the close timeout runs out
    return {"invoice_number": f"INV-{invoice.order_id}", "total": round(invoice.amount * 1.2, 2)}


@asynccontextmanager
async def deploy_process(app: FastAPI) -> AsyncIterator[None]:
    """The app's own lifespan: runs with the client at app.state.jobwire, before the workers start."""
    client: Client = app.state.jobwire
    await client.deploy_resource(Path(__file__).with_name("invoice.bpmn"))
    yield


# The client's settings come from ZEEBE_ADDRESS etc.; keyword options (address=...) work too.
app = FastAPI(lifespan=JobwireLifespan(router, lifespan=deploy_process, close_timeout=20.0))
app.add_route("/health/jobwire", health)


class Order(BaseModel):
    order_id: str
    amount: float


@app.post("/invoices")
async def create_invoice(order: Order, request: Request) -> Dict[str, int]:
    """Starts an invoice process instance for the order."""
    client: Client = request.app.state.jobwire
    instance = await client.create_process_instance("invoice", variables=order.model_dump())
    return {"process_instance_key": instance.process_instance_key}
