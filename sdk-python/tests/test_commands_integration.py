"""The five client commands against a real `jobwire-engine dev` (started by the fixtures on
127.0.0.1 and a free port, always stopped): a DMN decision evaluated, a process definition
deleted, a signal that starts a process, an instance modified (activate with variables +
terminate) and an instance migrated from v1 to v2. The effects are checked through the engine's
jobs (activate_jobs) and its answers to later commands."""

from __future__ import annotations

import asyncio
from typing import Any, List

import pytest

import jobwire
from jobwire import ActivateElement, Client, Job, MappingInstruction, ScopedVariables
from conftest import one_task_bpmn, unique
from engine import Engine

BIG = 2**60 + 7


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 90))


def decisions_dmn(drg_id: str, level_id: str, discount_id: str) -> bytes:
    """Two decision tables: ``discount`` requires ``level`` (amount -> gold/silver)."""
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="{drg_id}" name="Discounts" namespace="http://jobwire.io/test">
  <decision id="{level_id}" name="Level">
    <decisionTable id="dt_level" hitPolicy="UNIQUE">
      <input id="in_amount" label="Amount"><inputExpression id="ie_amount" typeRef="number"><text>amount</text></inputExpression></input>
      <output id="out_level" name="level" typeRef="string" />
      <rule id="l_gold"><inputEntry id="lg"><text>&gt;= 1000</text></inputEntry><outputEntry id="lgo"><text>"gold"</text></outputEntry></rule>
      <rule id="l_silver"><inputEntry id="ls"><text>&lt; 1000</text></inputEntry><outputEntry id="lso"><text>"silver"</text></outputEntry></rule>
    </decisionTable>
  </decision>
  <decision id="{discount_id}" name="Discount">
    <informationRequirement id="ir1"><requiredDecision href="#{level_id}" /></informationRequirement>
    <decisionTable id="dt_discount" hitPolicy="UNIQUE">
      <input id="in_level" label="Level"><inputExpression id="ie_level" typeRef="string"><text>{level_id}</text></inputExpression></input>
      <output id="out_rate" name="rate" typeRef="number" />
      <output id="out_ref" name="ref" typeRef="number" />
      <rule id="d_gold"><inputEntry id="dg"><text>"gold"</text></inputEntry><outputEntry id="dgo"><text>15</text></outputEntry><outputEntry id="dgr"><text>ref</text></outputEntry></rule>
      <rule id="d_silver"><inputEntry id="ds"><text>"silver"</text></inputEntry><outputEntry id="dso"><text>5</text></outputEntry><outputEntry id="dsr"><text>ref</text></outputEntry></rule>
    </decisionTable>
  </decision>
</definitions>""".encode()


def two_tasks_bpmn(process_id: str, type_a: str, type_b: str) -> bytes:
    """start -> taskA (type_a) -> taskB (type_b) -> end."""
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="http://jobwire.io/test">
  <bpmn:process id="{process_id}" isExecutable="true">
    <bpmn:startEvent id="start"/>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="taskA"/>
    <bpmn:serviceTask id="taskA"><bpmn:extensionElements><zeebe:taskDefinition type="{type_a}"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="taskA" targetRef="taskB"/>
    <bpmn:serviceTask id="taskB"><bpmn:extensionElements><zeebe:taskDefinition type="{type_b}"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f3" sourceRef="taskB" targetRef="end"/>
    <bpmn:endEvent id="end"/>
  </bpmn:process>
</bpmn:definitions>""".encode()


def task_bpmn(process_id: str, task_id: str, job_type: str) -> bytes:
    """start -> <task_id> (job_type) -> end."""
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="http://jobwire.io/test">
  <bpmn:process id="{process_id}" isExecutable="true">
    <bpmn:startEvent id="start"/>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="{task_id}"/>
    <bpmn:serviceTask id="{task_id}"><bpmn:extensionElements><zeebe:taskDefinition type="{job_type}"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="{task_id}" targetRef="end"/>
    <bpmn:endEvent id="end"/>
  </bpmn:process>
</bpmn:definitions>""".encode()


def signal_start_bpmn(process_id: str, signal_name: str, job_type: str) -> bytes:
    """signal start event (signal_name) -> task (job_type) -> end."""
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="http://jobwire.io/test">
  <bpmn:signal id="sig" name="{signal_name}"/>
  <bpmn:process id="{process_id}" isExecutable="true">
    <bpmn:startEvent id="start"><bpmn:signalEventDefinition id="sd" signalRef="sig"/></bpmn:startEvent>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="task"/>
    <bpmn:serviceTask id="task"><bpmn:extensionElements><zeebe:taskDefinition type="{job_type}"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="task" targetRef="end"/>
    <bpmn:endEvent id="end"/>
  </bpmn:process>
</bpmn:definitions>""".encode()


async def jobs_of(client: Client, job_type: str, *, want: int = 1, timeout: float = 10.0) -> List[Job]:
    """Activates jobs of ``job_type`` until ``want`` came (long polls of 1 s), then one more short poll
    to see that no further one appears."""
    got: List[Job] = []
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while len(got) < want and loop.time() < end:
        got += await client.activate_jobs(job_type, max_jobs=10, request_timeout=1.0)
    got += await client.activate_jobs(job_type, max_jobs=10, request_timeout=0.3)
    return got


def test_evaluate_decision_by_id_and_by_key(engine: Engine) -> None:
    async def go() -> None:
        async with Client(address=engine.address) as client:
            # FEEL names (the required decision's id is a variable of the other): no "-"
            drg, level, discount = (unique(p).replace("-", "_") for p in ("drg", "level", "discount"))
            await client.deploy_resource((f"{drg}.dmn", decisions_dmn(drg, level, discount)))
            r = await client.evaluate_decision(discount, variables={"amount": 1500, "ref": BIG})
            assert (r.decision_id, r.decision_name, r.decision_version) == (discount, "Discount", 1)
            assert r.decision_requirements_id == drg and r.decision_requirements_key > 0 and r.decision_key > 0
            assert r.decision_output == {"rate": 15, "ref": BIG} and isinstance(r.decision_output["ref"], int)
            assert (r.failed_decision_id, r.failure_message) == ("", "")
            assert [d.decision_id for d in r.evaluated_decisions] == [level, discount]
            lvl, dsc = r.evaluated_decisions
            assert lvl.decision_output == "gold" and [m.rule_id for m in lvl.matched_rules] == ["l_gold"]
            assert [(i.input_id, i.input_value) for i in lvl.evaluated_inputs] == [("in_amount", 1500)]
            assert dsc.decision_type == "DECISION_TABLE" and dsc.decision_key == r.decision_key
            (rule,) = dsc.matched_rules
            assert (rule.rule_id, rule.rule_index) == ("d_gold", 1)
            assert [(o.output_name, o.output_value) for o in rule.evaluated_outputs] == [("rate", 15), ("ref", BIG)]

            again = await client.evaluate_decision(decision_key=r.decision_key, variables='{"amount": 10, "ref": 1}')
            assert again.decision_id == discount and again.decision_output == {"rate": 5, "ref": 1}

            with pytest.raises(jobwire.NotFoundError):
                await client.evaluate_decision(unique("no-such-decision"))

    run(go())


def test_delete_resource_removes_a_process_definition(engine: Engine) -> None:
    async def go() -> None:
        async with Client(address=engine.address) as client:
            pid = unique("del")
            dep = await client.deploy_resource((f"{pid}.bpmn", one_task_bpmn(pid, unique("t"))))
            key = dep.processes[0].process_definition_key
            inst = await client.create_process_instance(process_definition_key=key)
            with pytest.raises(jobwire.FailedPreconditionError):  # a running instance refuses it
                await client.delete_resource(key)
            second = await client.create_process_instance(process_definition_key=key)  # still deployed
            for k in (inst.process_instance_key, second.process_instance_key):
                await client.cancel_process_instance(k)
            await client.delete_resource(key)
            with pytest.raises(jobwire.NotFoundError):
                await client.create_process_instance(process_definition_key=key)
            with pytest.raises(jobwire.NotFoundError):
                await client.create_process_instance(pid)
            with pytest.raises(jobwire.NotFoundError):  # not resent, not hidden
                await client.delete_resource(key)

    run(go())


def test_broadcast_signal_starts_the_signal_start_process_once_with_the_variables(engine: Engine) -> None:
    async def go() -> None:
        async with Client(address=engine.address) as client:
            pid, name, jt = unique("sig"), unique("signal"), unique("t")
            await client.deploy_resource((f"{pid}.bpmn", signal_start_bpmn(pid, name, jt)))
            key = await client.broadcast_signal(name, variables={"n": BIG, "s": "x"})
            assert isinstance(key, int) and key > 0
            jobs = await jobs_of(client, jt)
            assert len(jobs) == 1, jobs
            assert jobs[0].bpmn_process_id == pid and jobs[0].variables == {"n": BIG, "s": "x"}
            await jobs[0].complete()
            assert await client.broadcast_signal(unique("nobody-listens")) > 0  # a signal nobody catches is fine

    run(go())


def test_modify_process_instance_activates_with_variables_and_terminates(engine: Engine) -> None:
    async def go() -> None:
        async with Client(address=engine.address) as client:
            pid, ta, tb = unique("mod"), unique("a"), unique("b")
            await client.deploy_resource((f"{pid}.bpmn", two_tasks_bpmn(pid, ta, tb)))
            inst = await client.create_process_instance(pid, variables={"x": 1})
            (job_a,) = await jobs_of(client, ta)
            assert job_a.element_id == "taskA" and job_a.process_instance_key == inst.process_instance_key
            await client.modify_process_instance(
                inst.process_instance_key,
                activate=[ActivateElement("taskB", variables=[ScopedVariables({"m": BIG})])],
                terminate=[job_a.element_instance_key],
            )
            jobs_b = await jobs_of(client, tb)
            assert len(jobs_b) == 1, jobs_b  # activated once
            assert jobs_b[0].element_id == "taskB" and jobs_b[0].process_instance_key == inst.process_instance_key
            assert jobs_b[0].variables == {"x": 1, "m": BIG}
            with pytest.raises(jobwire.NotFoundError):  # taskA's job went with its element instance
                await client.complete_job(job_a.key)
            await jobs_b[0].complete()
            with pytest.raises(jobwire.NotFoundError):  # the instance completed
                await client.modify_process_instance(inst.process_instance_key, activate=[ActivateElement("taskA")])

    run(go())


def test_migrate_process_instance_from_v1_to_v2(engine: Engine) -> None:
    async def go() -> None:
        async with Client(address=engine.address) as client:
            pid, jt = unique("mig"), unique("t")
            v1 = (await client.deploy_resource((f"{pid}.bpmn", task_bpmn(pid, "A", jt)))).processes[0]
            inst = await client.create_process_instance(pid, variables={"n": BIG})
            v2 = (await client.deploy_resource((f"{pid}.bpmn", task_bpmn(pid, "A2", jt)))).processes[0]
            assert (v1.version, v2.version) == (1, 2)
            await client.migrate_process_instance(
                inst.process_instance_key,
                target_process_definition_key=v2.process_definition_key,
                mappings=[MappingInstruction("A", "A2")],
            )
            (job,) = await jobs_of(client, jt)
            assert (job.element_id, job.process_definition_key, job.process_definition_version) == ("A2", v2.process_definition_key, 2)
            assert job.process_instance_key == inst.process_instance_key and job.variables == {"n": BIG}
            await job.complete()
            with pytest.raises(jobwire.NotFoundError):
                await client.migrate_process_instance(
                    inst.process_instance_key, target_process_definition_key=v1.process_definition_key, mappings=[MappingInstruction("A2", "A")]
                )

    run(go())


def test_create_process_instance_with_start_element_ids(engine: Engine) -> None:
    async def go() -> None:
        async with Client(address=engine.address) as client:
            pid, ta, tb = unique("start"), unique("a"), unique("b")
            await client.deploy_resource((f"{pid}.bpmn", two_tasks_bpmn(pid, ta, tb)))
            inst = await client.create_process_instance(pid, variables={"s": 1}, start_element_ids=["taskB"])
            (job_b,) = await jobs_of(client, tb)  # started before taskB: taskA never ran
            assert job_b.process_instance_key == inst.process_instance_key and job_b.variables == {"s": 1}
            assert await client.activate_jobs(ta, max_jobs=10, request_timeout=0.3) == []
            with pytest.raises(jobwire.InvalidArgumentError):
                await client.create_process_instance(pid, start_element_ids=["no-such-element"])

    run(go())
