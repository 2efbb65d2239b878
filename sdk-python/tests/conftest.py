"""Fixtures: a reference engine per test module (or per test where it is restarted),
BPMN helpers, and an in-memory OpenTelemetry setup."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Iterator

import pytest

from engine import Engine


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    e = Engine(tmp_path_factory.mktemp("engine"))
    try:
        yield e
    finally:
        e.stop()


@pytest.fixture()
def own_engine(tmp_path: Path) -> Iterator[Engine]:
    e = Engine(tmp_path / "data")
    try:
        yield e
    finally:
        e.stop()


def one_task_bpmn(process_id: str, job_type: str, retries: int = 3, error_boundary: str = "") -> bytes:
    """A process start -> service task -> end (optionally an error boundary event -> end)."""
    boundary = ""
    if error_boundary:
        boundary = f"""
    <bpmn:boundaryEvent id="err" attachedToRef="task"><bpmn:errorEventDefinition errorRef="e1"/></bpmn:boundaryEvent>
    <bpmn:sequenceFlow id="f3" sourceRef="err" targetRef="end2"/>
    <bpmn:endEvent id="end2"/>"""
    errdef = f'<bpmn:error id="e1" errorCode="{error_boundary}"/>' if error_boundary else ""
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="http://jobwire.io/test">
  {errdef}
  <bpmn:process id="{process_id}" isExecutable="true">
    <bpmn:startEvent id="start"/>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="task"/>
    <bpmn:serviceTask id="task"><bpmn:extensionElements><zeebe:taskDefinition type="{job_type}" retries="{retries}"/></bpmn:extensionElements></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="task" targetRef="end"/>
    <bpmn:endEvent id="end"/>{boundary}
  </bpmn:process>
</bpmn:definitions>""".encode()


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"
