"""``parameter_binding="node_input"``: a function node's parameters come from the keys of
its (dict) node input instead of session state; a bad value fails at build."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel
from wf_support import outputs

from pyadk.testing import TestRunner
from pyadk.workflow import (
    START,
    Context,
    FunctionNode,
    Workflow,
    WorkflowConfigurationError,
    WorkflowDataError,
    node,
)


class Order(BaseModel):
    item: str
    quantity: int


def order(node_input: Any) -> dict[str, Any]:
    return {"item": "tea", "quantity": "3", "gift": True}


@node(parameter_binding="node_input")
def invoice(item: str, quantity: int, ctx: Context, note: str = "none") -> str:
    return f"{quantity} x {item} ({note}) at {ctx.node_name}"


async def test_parameters_come_from_the_dict_input_not_from_state():
    runner = TestRunner(
        Workflow(name="wf", edges=[(START, order, invoice)]), state={"item": "coffee"}
    )
    events = await runner.run("go")
    assert outputs(events)[-1] == ("invoice", "3 x tea (none) at invoice")  # "3" coerced


async def test_a_model_input_and_extra_keys_in_kwargs():
    def as_model(node_input: Any) -> Order:
        return Order(item="milk", quantity=2)

    seen: list[dict[str, Any]] = []

    def pack(item: str, **rest: Any) -> str:
        seen.append(rest)
        return item

    packer = node(pack, parameter_binding="node_input")
    events = await TestRunner(Workflow(name="wf", edges=[(START, as_model, packer)])).run("go")
    assert outputs(events)[-1] == ("pack", "milk") and seen == [{"quantity": 2}]

    seen.clear()
    events = await TestRunner(Workflow(name="wf", edges=[(START, order, packer)])).run("go")
    assert seen == [{"quantity": "3", "gift": True}]


async def test_a_json_object_message_binds_too():
    events = await TestRunner(Workflow(name="wf", edges=[(START, invoice)])).run(
        '{"item": "jam", "quantity": 1, "note": "gift"}'
    )
    assert outputs(events)[-1] == ("invoice", "1 x jam (gift) at invoice")


async def test_a_missing_parameter_fails_the_node_naming_it():
    def partial(node_input: Any) -> dict[str, Any]:
        return {"item": "tea"}

    with pytest.raises(WorkflowDataError, match=r"'quantity' of node 'invoice'.*keys \['item'\]"):
        await TestRunner(Workflow(name="wf", edges=[(START, partial, invoice)])).run("go")
    with pytest.raises(WorkflowDataError, match="not a JSON object"):
        await TestRunner(Workflow(name="wf", edges=[(START, invoice)])).run("just text")


def test_bad_parameter_binding_values_fail_at_build():
    with pytest.raises(WorkflowConfigurationError, match="must be 'state' or 'node_input'"):
        node(order, parameter_binding="x")  # type: ignore[arg-type]
    with pytest.raises(WorkflowConfigurationError, match="'order': parameter_binding"):
        FunctionNode(order, parameter_binding="inputs")
    with pytest.raises(WorkflowConfigurationError, match="only apply to a function"):
        node(Workflow(name="inner", edges=[(START, order)]), parameter_binding="node_input")
    assert node(invoice, name="again").parameter_binding == "node_input"  # kept on copy
