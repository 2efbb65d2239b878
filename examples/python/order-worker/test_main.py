"""Tests of the order-worker with the jobwire test kit (jobwire.testing): the handlers alone,
then the whole order-fulfilment process on a local engine with the real workers.

    pip install "jobwire[testing]"
    pytest -q
"""

from __future__ import annotations

from pathlib import Path

from jobwire.testing import TestEngine, make_job, run_handler_sync

from main import DECLINED_CARD, HANDLERS, payment, shipping

BPMN = Path(__file__).resolve().parents[2] / "bpmn" / "order-fulfilment.bpmn"


def test_payment_completes_with_a_payment_id() -> None:
    result = run_handler_sync(payment, make_job(variables={"orderId": "A-1", "card": "4242424242424242"}))
    assert result.outcome == "completed"
    assert result.variables == {"paid": True, "paymentId": "pay-A-1"}


def test_a_declined_card_throws_payment_declined() -> None:
    result = run_handler_sync(payment, make_job(variables={"orderId": "A-2", "card": DECLINED_CARD}))
    assert result.outcome == "bpmn_error"
    assert result.error_code == "PAYMENT_DECLINED"
    assert result.variables == {"declineReason": "insufficient funds"}


def test_shipping_uses_the_method_header() -> None:
    job = make_job(key=7, custom_headers={"method": "express"})
    assert run_handler_sync(shipping, job).variables == {"shippingMethod": "express", "trackingNumber": "TRK-7"}


def start_workers(engine: TestEngine) -> None:
    for job_type, handler in HANDLERS.items():
        engine.client.worker(job_type, handler)


def test_an_order_over_100_ships_express(jobwire_test: TestEngine) -> None:
    engine = jobwire_test
    engine.deploy(BPMN)
    start_workers(engine)
    order = engine.create_instance("order-fulfilment", {"orderId": "B-1", "amount": 150, "card": "4242424242424242"})
    variables = engine.await_completed(order)
    assert variables["paymentId"] == "pay-B-1"
    assert variables["shippingMethod"] == "express"
    assert variables["notified"] == "order-confirmed"


def test_a_declined_order_tells_the_customer(jobwire_test: TestEngine) -> None:
    engine = jobwire_test
    engine.deploy(BPMN)
    start_workers(engine)
    order = engine.create_instance("order-fulfilment", {"orderId": "B-2", "amount": 20, "card": DECLINED_CARD})
    variables = engine.await_completed(order)
    assert variables["notified"] == "payment-declined"
    assert "shippingMethod" not in variables
