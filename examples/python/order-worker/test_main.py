"""Tests of the order-worker with the jobwire test kit (jobwire.testing): the handlers alone,
then the whole order-fulfilment process on a local engine with the real workers.

    pip install "jobwire[testing]"
    pytest -q
"""

from __future__ import annotations

from pathlib import Path

import asyncio

from jobwire.testing import TestEngine, make_job, run_handler_sync

from main import DECLINED_CARD, Order, Payment, inventory, payment, router, shipping

BPMN = Path(__file__).resolve().parents[2] / "bpmn" / "order-fulfilment.bpmn"


# A typed handler is a plain function: call it with its input type.
def test_payment_completes_with_a_payment_id() -> None:
    assert asyncio.run(payment(Order(orderId="A-1", amount=20, card="4242424242424242"))) == Payment(paid=True, paymentId="pay-A-1")


def test_a_declined_card_throws_payment_declined() -> None:
    try:
        asyncio.run(payment(Order(orderId="A-2", amount=20, card=DECLINED_CARD)))
    except Exception as e:  # noqa: BLE001
        assert getattr(e, "code", None) == "PAYMENT_DECLINED"
        assert getattr(e, "variables", None) == {"declineReason": "insufficient funds"}
    else:
        raise AssertionError("no BPMN error")


def test_shipping_uses_the_method_header() -> None:
    job = make_job(key=7, custom_headers={"method": "express"})
    assert asyncio.run(shipping({"method": "express"}, job)) == {"shippingMethod": "express", "trackingNumber": "TRK-7"}


def test_inventory_runs_through_the_worker() -> None:
    assert run_handler_sync(inventory).variables == {"reserved": True}


def start_workers(engine: TestEngine) -> None:
    engine.client.include_router(router)


def test_an_order_over_100_ships_express(jobwire_test: TestEngine) -> None:
    engine = jobwire_test
    engine.deploy(BPMN)
    start_workers(engine)
    order = engine.create_instance("order-fulfilment", {"orderId": "B-1", "amount": 150, "card": "4242424242424242"})
    variables = engine.await_completed(order)
    assert variables["paymentId"] == "pay-B-1"
    assert variables["shippingMethod"] == "express"
    assert variables["notified"] == "order-confirmed"


def test_an_order_without_a_card_fails_its_payment_without_running_it(jobwire_test: TestEngine) -> None:
    engine = jobwire_test
    engine.deploy(BPMN)
    start_workers(engine)
    order = engine.create_instance("order-fulfilment", {"orderId": "B-3", "amount": 20})
    incident = engine.await_incident(order, timeout=20)  # after the retries (default policy: ~1 s, ~2 s)
    assert "invalid input" in incident.message and "card" in incident.message


def test_a_declined_order_tells_the_customer(jobwire_test: TestEngine) -> None:
    engine = jobwire_test
    engine.deploy(BPMN)
    start_workers(engine)
    order = engine.create_instance("order-fulfilment", {"orderId": "B-2", "amount": 20, "card": DECLINED_CARD})
    variables = engine.await_completed(order)
    assert variables["notified"] == "payment-declined"
    assert "shippingMethod" not in variables
