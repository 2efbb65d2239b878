"""Inputs of the client's instance commands: frozen dataclasses given to
:meth:`jobwire.Client.modify_process_instance` and :meth:`jobwire.Client.migrate_process_instance`
(never the generated protocol classes)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Sequence

from ._json import VariablesInput

__all__ = ["ActivateElement", "ScopedVariables", "MappingInstruction"]


@dataclass(frozen=True)
class ScopedVariables:
    """Variables set as local variables of one scope when an element is activated.

    Example::

        ScopedVariables({"amount": 12}, scope_id="subprocess")
    """

    variables: VariablesInput
    """A mapping or a JSON object text (sent losslessly, as every other command's variables)."""
    scope_id: str = ""
    """The id of the element whose instance gets the variables as local variables; empty means the
    process instance."""


@dataclass(frozen=True)
class ActivateElement:
    """An element to activate in :meth:`jobwire.Client.modify_process_instance`.

    Example::

        ActivateElement("review", variables=[ScopedVariables({"note": "again"})])
    """

    element_id: str
    """The element's id in the BPMN file."""
    ancestor_element_instance_key: Optional[Any] = None
    """The flow scope instance to activate it in; ``None`` lets the engine find the one instance of
    the element's flow scope (refused when there are several)."""
    variables: Sequence[ScopedVariables] = ()
    """Variables to set, per scope, when the element is activated."""


@dataclass(frozen=True)
class MappingInstruction:
    """Maps an element of the running definition to one of the target definition in
    :meth:`jobwire.Client.migrate_process_instance`.

    Example::

        MappingInstruction("charge", "charge_v2")
    """

    source_element_id: str
    """The element's id in the instance's current process definition."""
    target_element_id: str
    """The element's id in the target process definition."""
