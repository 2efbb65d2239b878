"""The five client commands (evaluate_decision, modify_process_instance, migrate_process_instance,
delete_resource, broadcast_signal) on the in-process fake gateway: the request built from the typed
input, the typed result, typed errors, and the resend rule of docs/worker-semantics.md ("Client
commands: which are resent"): resent only after the listed statuses, with the shared backoff, at most
5 attempts, never past the call's deadline. The reference engine's behaviour is in
test_commands_integration.py."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any, Awaitable, Callable, Dict, List, Tuple

import grpc
import pytest

import jobwire
from jobwire import (
    ActivateElement,
    Client,
    DecisionEvaluation,
    MappingInstruction,
    ScopedVariables,
)
from jobwire._proto import gateway_pb2 as pb
from jobwire._proto import gateway_pb2_grpc as pbg
from jobwire.errors import MAX_COMMAND_ATTEMPTS, command_resent_after, error_class
from test_fake_gateway import serve

BIG = 2**60 + 7
SC = grpc.StatusCode


class CommandGateway(pbg.GatewayServicer):  # type: ignore[misc]
    """Answers the five commands: records each request (and when it came), answers the injected
    statuses of ``errors[method]`` in order (after applying the command when ``applied_then``), then OK."""

    def __init__(self) -> None:
        self.requests: Dict[str, List[Any]] = {}
        self.times: Dict[str, List[float]] = {}
        self.errors: Dict[str, List[grpc.StatusCode]] = {}
        self.applied: Dict[str, int] = {}
        self.applied_then: Dict[str, grpc.StatusCode] = {}  # apply, then answer this status (answer lost)
        self.evaluation = pb.EvaluateDecisionResponse()

    async def _handle(self, method: str, request: Any, context: Any, response: Any) -> Any:
        self.requests.setdefault(method, []).append(request)
        self.times.setdefault(method, []).append(time.monotonic())
        errs = self.errors.get(method) or []
        if errs:
            code = errs.pop(0)
            await context.abort(code, f"injected {code.name}")
        self.applied[method] = self.applied.get(method, 0) + 1
        if method in self.applied_then:
            code = self.applied_then.pop(method)
            await context.abort(code, f"applied, then {code.name}")
        return response

    async def EvaluateDecision(self, request: Any, context: Any) -> Any:
        return await self._handle("EvaluateDecision", request, context, self.evaluation)

    async def ModifyProcessInstance(self, request: Any, context: Any) -> Any:
        return await self._handle("ModifyProcessInstance", request, context, pb.ModifyProcessInstanceResponse())

    async def MigrateProcessInstance(self, request: Any, context: Any) -> Any:
        return await self._handle("MigrateProcessInstance", request, context, pb.MigrateProcessInstanceResponse())

    async def DeleteResource(self, request: Any, context: Any) -> Any:
        return await self._handle("DeleteResource", request, context, pb.DeleteResourceResponse())

    async def BroadcastSignal(self, request: Any, context: Any) -> Any:
        return await self._handle("BroadcastSignal", request, context, pb.BroadcastSignalResponse(key=BIG, tenantId="<default>"))


Call = Callable[[Client], Awaitable[Any]]

# One ordinary call per command, used by the resend tests.
CALLS: Dict[str, Call] = {
    "EvaluateDecision": lambda c: c.evaluate_decision("d1", variables={"a": 1}),
    "ModifyProcessInstance": lambda c: c.modify_process_instance(7, activate=[ActivateElement("task")]),
    "MigrateProcessInstance": lambda c: c.migrate_process_instance(7, target_process_definition_key=9, mappings=[MappingInstruction("a", "b")]),
    "DeleteResource": lambda c: c.delete_resource(9),
    "BroadcastSignal": lambda c: c.broadcast_signal("s1", variables={"a": 1}),
}


def on_fake(fn: Callable[[CommandGateway, Client], Awaitable[None]], fake: "CommandGateway | None" = None, **client_kw: Any) -> CommandGateway:
    fake = fake or CommandGateway()

    async def go() -> None:
        server, addr = await serve(fake)
        try:
            async with Client(address=addr, env={}, **client_kw) as client:
                await fn(fake, client)
        finally:
            await server.stop(None)

    asyncio.run(asyncio.wait_for(go(), 60))
    return fake


# --- requests and results -------------------------------------------------------------------


def test_evaluate_decision_by_id_sends_lossless_variables_and_maps_the_result() -> None:
    fake = CommandGateway()
    out = '{"discount":0.15,"id":%d}' % BIG
    fake.evaluation = pb.EvaluateDecisionResponse(
        decisionKey=BIG,
        decisionId="discount",
        decisionName="Discount",
        decisionVersion=3,
        decisionRequirementsId="drg",
        decisionRequirementsKey=BIG + 1,
        decisionOutput=out,
        evaluatedDecisions=[
            pb.EvaluatedDecision(
                decisionKey=BIG + 2, decisionId="level", decisionName="Level", decisionVersion=1, decisionType="LITERAL_EXPRESSION",
                decisionOutput='"gold"', tenantId="<default>",
            ),
            pb.EvaluatedDecision(
                decisionKey=BIG, decisionId="discount", decisionName="Discount", decisionVersion=3, decisionType="DECISION_TABLE",
                decisionOutput=out, tenantId="<default>",
                matchedRules=[
                    pb.MatchedDecisionRule(
                        ruleId="r2", ruleIndex=2,
                        evaluatedOutputs=[pb.EvaluatedDecisionOutput(outputId="o1", outputName="discount", outputValue="0.15")],
                    )
                ],
                evaluatedInputs=[pb.EvaluatedDecisionInput(inputId="i1", inputName="level", inputValue='"gold"')],
            ),
        ],
        tenantId="<default>",
        decisionInstanceKey=BIG + 3,
    )
    got: List[DecisionEvaluation] = []

    async def fn(fake: CommandGateway, c: Client) -> None:
        got.append(await c.evaluate_decision("discount", variables={"id": BIG, "level": "gold"}, tenant_id="t1"))

    on_fake(fn, fake)
    (req,) = fake.requests["EvaluateDecision"]
    assert (req.decisionId, req.decisionKey, req.tenantId) == ("discount", 0, "t1")
    assert json.loads(req.variables) == {"id": BIG, "level": "gold"} and str(BIG) in req.variables
    r = got[0]
    assert (r.decision_key, r.decision_id, r.decision_name, r.decision_version) == (BIG, "discount", "Discount", 3)
    assert (r.decision_requirements_id, r.decision_requirements_key, r.decision_instance_key) == ("drg", BIG + 1, BIG + 3)
    assert r.decision_output == {"discount": 0.15, "id": BIG} and isinstance(r.decision_output["id"], int)
    assert r.decision_output_json == out
    assert [d.decision_id for d in r.evaluated_decisions] == ["level", "discount"]
    lvl, dsc = r.evaluated_decisions
    assert (lvl.decision_type, lvl.decision_output, lvl.matched_rules) == ("LITERAL_EXPRESSION", "gold", ())
    assert dsc.decision_key == BIG and dsc.decision_type == "DECISION_TABLE"
    (rule,) = dsc.matched_rules
    assert (rule.rule_id, rule.rule_index) == ("r2", 2)
    (o,) = rule.evaluated_outputs
    assert (o.output_id, o.output_name, o.output_value, o.output_value_json) == ("o1", "discount", 0.15, "0.15")
    (i,) = dsc.evaluated_inputs
    assert (i.input_id, i.input_name, i.input_value, i.input_value_json) == ("i1", "level", "gold", '"gold"')
    assert (r.failed_decision_id, r.failure_message, r.tenant_id) == ("", "", "<default>")
    with pytest.raises(Exception):
        r.decision_id = "x"  # type: ignore[misc]  # frozen


def test_evaluate_decision_by_key_and_a_failed_evaluation_is_a_result() -> None:
    fake = CommandGateway()
    fake.evaluation = pb.EvaluateDecisionResponse(decisionKey=5, decisionId="d", failedDecisionId="d", failureMessage="no rule matched 'x'")
    got: List[DecisionEvaluation] = []

    async def fn(fake: CommandGateway, c: Client) -> None:
        got.append(await c.evaluate_decision(decision_key=str(BIG)))
        with pytest.raises(jobwire.ConfigurationError):
            await c.evaluate_decision()

    on_fake(fn, fake)
    (req,) = fake.requests["EvaluateDecision"]
    assert (req.decisionKey, req.decisionId, req.variables) == (BIG, "", "")
    assert got[0].decision_output is None and got[0].decision_output_json == ""
    assert (got[0].failed_decision_id, got[0].failure_message) == ("d", "no rule matched 'x'")


def test_modify_process_instance_builds_activate_terminate_and_scoped_variables() -> None:
    async def fn(fake: CommandGateway, c: Client) -> None:
        await c.modify_process_instance(
            BIG,
            activate=[
                ActivateElement("review", variables=[ScopedVariables({"n": BIG}), ScopedVariables('{"s": 1}', scope_id="sub")]),
                ActivateElement("other", ancestor_element_instance_key=str(BIG + 1)),
            ],
            terminate=[BIG + 2, "17"],
        )

    fake = on_fake(fn)
    (req,) = fake.requests["ModifyProcessInstance"]
    assert req.processInstanceKey == BIG
    a1, a2 = req.activateInstructions
    assert (a1.elementId, a1.ancestorElementInstanceKey) == ("review", 0)
    v1, v2 = a1.variableInstructions
    assert (json.loads(v1.variables), v1.scopeId) == ({"n": BIG}, "")
    assert (v2.variables, v2.scopeId) == ('{"s": 1}', "sub")  # a JSON text is sent unchanged
    assert (a2.elementId, a2.ancestorElementInstanceKey, list(a2.variableInstructions)) == ("other", BIG + 1, [])
    assert [t.elementInstanceKey for t in req.terminateInstructions] == [BIG + 2, 17]


def test_migrate_process_instance_sends_the_plan_source_to_target() -> None:
    async def fn(fake: CommandGateway, c: Client) -> None:
        await c.migrate_process_instance(
            BIG, target_process_definition_key=BIG + 1, mappings=[MappingInstruction("A", "A2"), MappingInstruction("B", "B2")]
        )

    fake = on_fake(fn)
    (req,) = fake.requests["MigrateProcessInstance"]
    assert (req.processInstanceKey, req.migrationPlan.targetProcessDefinitionKey) == (BIG, BIG + 1)
    assert [(m.sourceElementId, m.targetElementId) for m in req.migrationPlan.mappingInstructions] == [("A", "A2"), ("B", "B2")]


def test_delete_resource_and_broadcast_signal() -> None:
    keys: List[int] = []

    async def fn(fake: CommandGateway, c: Client) -> None:
        await c.delete_resource(str(BIG))
        keys.append(await c.broadcast_signal("stock", variables={"n": BIG}, tenant_id="t1"))
        keys.append(await c.broadcast_signal("empty"))

    fake = on_fake(fn)
    assert [r.resourceKey for r in fake.requests["DeleteResource"]] == [BIG]
    s1, s2 = fake.requests["BroadcastSignal"]
    assert (s1.signalName, json.loads(s1.variables), s1.tenantId) == ("stock", {"n": BIG}, "t1")
    assert (s2.signalName, s2.variables, s2.tenantId) == ("empty", "", "")
    assert keys == [BIG, BIG] and isinstance(keys[0], int)


@pytest.mark.parametrize(
    "call",
    [
        lambda c: c.evaluate_decision("d", variables=[1, 2]),
        lambda c: c.broadcast_signal("s", variables={"x": float("nan")}),
        lambda c: c.modify_process_instance(1, activate=[ActivateElement("a", variables=[ScopedVariables("[1]")])]),
    ],
    ids=["evaluate", "signal", "modify"],
)
def test_invalid_variables_raise_before_anything_is_sent(call: Call) -> None:
    async def fn(fake: CommandGateway, c: Client) -> None:
        with pytest.raises(jobwire.InvalidVariablesError):
            await call(c)

    fake = on_fake(fn)
    assert fake.requests == {}


@pytest.mark.parametrize(
    "call",
    [
        lambda c: c.delete_resource("not-a-key"),
        lambda c: c.migrate_process_instance(1, target_process_definition_key=True),
        lambda c: c.modify_process_instance(1, terminate=[1.5]),
        lambda c: c.modify_process_instance(1, activate=["task"]),
    ],
    ids=["delete", "migrate", "modify-terminate", "modify-activate"],
)
def test_bad_keys_and_inputs_are_configuration_errors(call: Call) -> None:
    async def fn(fake: CommandGateway, c: Client) -> None:
        with pytest.raises(jobwire.ConfigurationError):
            await call(c)

    fake = on_fake(fn)
    assert fake.requests == {}


# --- typed errors and the resend rule -------------------------------------------------------

RESENT: Dict[str, Tuple[grpc.StatusCode, ...]] = {
    "EvaluateDecision": (SC.UNAVAILABLE, SC.RESOURCE_EXHAUSTED),
    "ModifyProcessInstance": (SC.RESOURCE_EXHAUSTED,),
    "MigrateProcessInstance": (SC.RESOURCE_EXHAUSTED,),
    "DeleteResource": (SC.RESOURCE_EXHAUSTED,),
    "BroadcastSignal": (SC.RESOURCE_EXHAUSTED,),
}
"""docs/worker-semantics.md, "Client commands: which are resent", written out again."""

ERROR_CODES = [c for c in SC if c is not SC.OK]


@pytest.mark.parametrize("method", sorted(RESENT))
def test_command_resent_after_lists_exactly_the_documented_statuses(method: str) -> None:
    assert {c for c in ERROR_CODES if command_resent_after(method, c)} == set(RESENT[method])  # type: ignore[arg-type]
    assert not command_resent_after(method, None)  # type: ignore[arg-type]


def test_other_commands_are_never_resent() -> None:
    for method in ("CreateProcessInstance", "PublishMessage", "CancelProcessInstance", "SetVariables"):
        assert not any(command_resent_after(method, c) for c in ERROR_CODES)  # type: ignore[arg-type]


CASES = [(m, code) for m in sorted(RESENT) for code in (SC.UNAVAILABLE, SC.RESOURCE_EXHAUSTED, SC.DEADLINE_EXCEEDED, SC.ABORTED, SC.CANCELLED, SC.NOT_FOUND, SC.INTERNAL)]


@pytest.mark.parametrize("method,code", CASES, ids=[f"{m}-{c.name}" for m, c in CASES])
def test_resent_after_the_listed_statuses_only(method: str, code: grpc.StatusCode) -> None:
    """One injected status, then OK: a listed status is resent and the call succeeds; any other is
    the typed error of its status at once, after one attempt."""
    fake = CommandGateway()
    fake.errors[method] = [code]
    outcome: List[Any] = []

    async def fn(fake: CommandGateway, c: Client) -> None:
        try:
            outcome.append(await CALLS[method](c))
        except jobwire.JobwireError as e:
            outcome.append(e)

    on_fake(fn, fake)
    if code in RESENT[method]:
        assert len(fake.requests[method]) == 2 and fake.applied[method] == 1
        assert not isinstance(outcome[0], BaseException), outcome
        gap = fake.times[method][1] - fake.times[method][0]
        assert 0.045 <= gap <= 0.3, gap  # the first backoff step, 50 ms +-10 %
    else:
        assert len(fake.requests[method]) == 1 and method not in fake.applied
        (err,) = outcome
        assert type(err) is error_class(code) and err.code == code, err


@pytest.mark.parametrize("method", ["ModifyProcessInstance", "MigrateProcessInstance", "DeleteResource", "BroadcastSignal"])
def test_unavailable_after_the_command_was_applied_is_not_resent(method: str) -> None:
    fake = CommandGateway()
    fake.applied_then[method] = SC.UNAVAILABLE

    async def fn(fake: CommandGateway, c: Client) -> None:
        with pytest.raises(jobwire.UnavailableError):
            await CALLS[method](c)

    on_fake(fn, fake)
    assert fake.applied[method] == 1 and len(fake.requests[method]) == 1


@pytest.mark.parametrize("method", sorted(RESENT))
def test_at_most_5_attempts_with_the_shared_backoff(method: str) -> None:
    fake = CommandGateway()
    fake.errors[method] = [SC.RESOURCE_EXHAUSTED] * 10

    async def fn(fake: CommandGateway, c: Client) -> None:
        with pytest.raises(jobwire.BackpressureError):
            await CALLS[method](c)

    on_fake(fn, fake)
    assert MAX_COMMAND_ATTEMPTS == 5
    t = fake.times[method]
    assert len(t) == 5
    gaps = [b - a for a, b in zip(t, t[1:])]
    for got, want in zip(gaps, [0.05, 0.08, 0.128, 0.2048]):  # 50 ms x1.6, +-10 % jitter
        # never earlier than the backoff; the upper bound is loose (a loaded machine delays the
        # resend) but still far below the 5 s maximum backoff
        assert want * 0.88 <= got <= want * 1.1 + 1.0, (gaps, want)


def test_evaluate_decision_unavailable_four_times_then_ok_succeeds_on_the_fifth_attempt() -> None:
    fake = CommandGateway()
    fake.errors["EvaluateDecision"] = [SC.UNAVAILABLE, SC.RESOURCE_EXHAUSTED, SC.UNAVAILABLE, SC.UNAVAILABLE]
    fake.evaluation = pb.EvaluateDecisionResponse(decisionId="d1", decisionOutput="1")

    async def fn(fake: CommandGateway, c: Client) -> None:
        r = await c.evaluate_decision("d1")
        assert r.decision_output == 1

    on_fake(fn, fake)
    assert len(fake.requests["EvaluateDecision"]) == 5


@pytest.mark.parametrize("method", sorted(RESENT))
def test_resending_stops_at_the_calls_deadline(method: str) -> None:
    """timeout=0.2 s: attempts at 0, ~50 and ~130 ms; the next would start after ~260 ms, past the
    deadline, so the call raises the last error at once, before the deadline. (On a loaded machine
    the third attempt may itself run into the deadline: DEADLINE_EXCEEDED, never a fourth attempt.)"""
    fake = CommandGateway()
    fake.errors[method] = [SC.RESOURCE_EXHAUSTED] * 10
    took: List[float] = []

    async def fn(fake: CommandGateway, c: Client) -> None:
        t0 = time.monotonic()
        with pytest.raises((jobwire.BackpressureError, jobwire.DeadlineExceededError)):
            await {
                "EvaluateDecision": lambda: c.evaluate_decision("d1", timeout=0.2),
                "ModifyProcessInstance": lambda: c.modify_process_instance(7, terminate=[8], timeout=0.2),
                "MigrateProcessInstance": lambda: c.migrate_process_instance(7, target_process_definition_key=9, timeout=0.2),
                "DeleteResource": lambda: c.delete_resource(9, timeout=0.2),
                "BroadcastSignal": lambda: c.broadcast_signal("s1", timeout=0.2),
            }[method]()
        took.append(time.monotonic() - t0)

    on_fake(fn, fake)
    assert 2 <= len(fake.requests[method]) <= 3, fake.times[method]
    assert took[0] < 0.25, took


def test_the_client_command_timeout_is_the_deadline_when_no_timeout_is_given() -> None:
    fake = CommandGateway()
    fake.errors["BroadcastSignal"] = [SC.RESOURCE_EXHAUSTED] * 10

    async def fn(fake: CommandGateway, c: Client) -> None:
        with pytest.raises((jobwire.BackpressureError, jobwire.DeadlineExceededError)):
            await c.broadcast_signal("s1")

    on_fake(fn, fake, command_timeout=0.1)
    assert 1 <= len(fake.requests["BroadcastSignal"]) <= 2  # 0 and ~50 ms; the next (~130 ms) is past 100 ms


def test_sync_facade_sends_the_five_commands() -> None:
    from jobwire import sync

    async def start() -> Tuple[Any, str]:
        return await serve(fake)

    fake = CommandGateway()
    fake.evaluation = pb.EvaluateDecisionResponse(decisionId="d1", decisionOutput='{"n":%d}' % BIG)
    fake.errors["DeleteResource"] = [SC.NOT_FOUND]
    loop = asyncio.new_event_loop()
    server, addr = loop.run_until_complete(start())
    try:
        import threading

        threading.Thread(target=loop.run_forever, daemon=True).start()
        with sync.Client(address=addr, env={}) as c:
            assert c.evaluate_decision("d1").decision_output == {"n": BIG}
            c.modify_process_instance(1, terminate=[2])
            c.migrate_process_instance(1, target_process_definition_key=3)
            assert c.broadcast_signal("s") == BIG
            with pytest.raises(jobwire.NotFoundError):
                c.delete_resource(4)
    finally:
        asyncio.run_coroutine_threadsafe(server.stop(None), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
    assert sorted(fake.requests) == sorted(RESENT)
