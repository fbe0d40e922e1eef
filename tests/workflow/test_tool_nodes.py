"""Tools as workflow nodes: a ``BaseTool`` (e.g. a ``FunctionTool``) in ``edges`` or
given to ``ctx.run_node``: input to arguments, result to output, ToolContext state
changes, the Runner's plugin tool callbacks, failures."""

from __future__ import annotations

from typing import Any

import pytest
from wf_support import outputs, paths

from pyadk import types
from pyadk.events import Event
from pyadk.plugins import BasePlugin
from pyadk.testing import TestRunner
from pyadk.tools import BaseTool, FunctionTool, ToolContext
from pyadk.workflow import (
    REQUEST_INPUT_FUNCTION_CALL_NAME,
    START,
    Context,
    RetryConfig,
    ToolNode,
    Workflow,
    WorkflowConfigurationError,
    WorkflowDataError,
    node,
)


def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


def weather(city: str, unit: str = "C") -> dict[str, Any]:
    """The weather in a city."""
    return {"city": city, "temp": f"21{unit}"}


def numbers(node_input: Any) -> dict[str, int]:
    return {"a": 2, "b": 40}


async def test_a_tool_in_the_graph_takes_its_input_as_arguments_and_outputs_its_result():
    def report(node_input: int) -> str:
        return f"sum is {node_input}"

    wf = Workflow(name="wf", edges=[(START, numbers, FunctionTool(add), report)])
    events = await TestRunner(wf).run("go")
    assert outputs(events) == [("numbers", {"a": 2, "b": 40}), ("add", 42), ("report", "sum is 42")]
    assert paths(events)[1] == "wf@1/add@1"
    assert isinstance(wf.graph.nodes["add"], ToolNode)


async def test_a_message_fills_the_only_parameter_or_is_read_as_json_arguments():
    wf = Workflow(name="wf", edges=[(START, FunctionTool(weather))])
    runner = TestRunner(wf)
    assert outputs(await runner.run("Paris")) == [("weather", {"city": "Paris", "temp": "21C"})]
    as_json = await runner.run('{"city": "Oslo", "unit": "F"}')
    assert outputs(as_json) == [("weather", {"city": "Oslo", "temp": "21F"})]


async def test_missing_required_arguments_come_from_state():
    def nothing(node_input: Any) -> None:
        return None

    wf = Workflow(name="wf", edges=[(START, nothing, FunctionTool(add))])
    events = await TestRunner(wf, state={"a": 1, "b": 2}).run("go")
    assert outputs(events) == [("add", 3)]


async def test_an_input_that_cannot_be_arguments_fails_clearly():
    def listing(node_input: Any) -> list[int]:
        return [1, 2]

    wf = Workflow(name="wf", edges=[(START, listing, FunctionTool(add))])
    with pytest.raises(WorkflowDataError, match="Tool node 'add': the input must be a dict"):
        await TestRunner(wf).run("go")


async def test_tool_context_state_changes_are_saved_with_the_nodes_event():
    def remember(note: str, tool_context: ToolContext) -> str:
        """Remembers a note."""
        tool_context.state["note"] = note
        assert tool_context.function_call_id  # each call has an id
        return "saved"

    def read(ctx: Context, node_input: str) -> str:
        return f"{node_input}: {ctx.state['note']}"

    runner = TestRunner(Workflow(name="wf", edges=[(START, FunctionTool(remember), read)]))
    events = await runner.run("buy milk")
    [saved] = [e for e in events if e.actions.state_delta]
    assert saved.actions.state_delta == {"note": "buy milk"}
    assert saved.custom_metadata["output"] == "saved"  # one event: output and state
    assert outputs(events)[-1] == ("read", "saved: buy milk")
    assert (await runner.state())["note"] == "buy milk"


class Recorder(BasePlugin):
    """Plugin tool callbacks: records them, and answers or changes some calls."""

    def __init__(self) -> None:
        super().__init__(name="recorder")
        self.seen: list[tuple[str, str, Any]] = []

    async def before_tool_callback(
        self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext
    ) -> dict[str, Any] | None:
        self.seen.append(("before", tool.name, dict(tool_args)))
        if tool_args.get("a") == 0:
            return {"skipped": True}
        return None

    async def after_tool_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        result: Any,
    ) -> dict[str, Any] | None:
        self.seen.append(("after", tool.name, result))
        if result == 5:
            return {"changed": result}
        return None

    async def on_tool_error_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        error: Exception,
    ) -> dict[str, Any] | None:
        self.seen.append(("error", tool.name, str(error)))
        return {"recovered": str(error)}


async def test_the_runners_plugin_tool_callbacks_run_around_a_tool_node():
    def divide(a: int, b: int) -> float:
        """Divides."""
        return a / b

    async def plan(ctx: Context) -> list[Any]:
        return [
            await ctx.run_node(FunctionTool(add), {"a": 2, "b": 1}),
            await ctx.run_node(FunctionTool(add), {"a": 0, "b": 1}),
            await ctx.run_node(FunctionTool(add), {"a": 4, "b": 1}),
            await ctx.run_node(FunctionTool(divide), {"a": 1, "b": 0}),
        ]

    recorder = Recorder()
    runner = TestRunner(Workflow(name="wf", edges=[(START, plan)]), plugins=[recorder])
    events = await runner.run("go")
    assert outputs(events)[-1] == (
        "plan",
        [3, {"skipped": True}, {"changed": 5}, {"recovered": "division by zero"}],
    )
    assert recorder.seen == [
        ("before", "add", {"a": 2, "b": 1}),
        ("after", "add", 3),
        ("before", "add", {"a": 0, "b": 1}),
        ("after", "add", {"skipped": True}),
        ("before", "add", {"a": 4, "b": 1}),
        ("after", "add", 5),
        ("before", "divide", {"a": 1, "b": 0}),
        ("error", "divide", "division by zero"),
        ("after", "divide", {"recovered": "division by zero"}),
    ]


async def test_a_failing_tool_fails_its_node_and_retries_per_its_retry_config():
    calls: list[int] = []

    def flaky(n: int) -> int:
        """Fails twice."""
        calls.append(n)
        if len(calls) < 3:
            raise ConnectionError("try again")
        return n

    retried = node(
        FunctionTool(flaky),
        name="fetch",
        retry_config=RetryConfig(max_attempts=3, initial_delay=0, jitter=0),
    )
    events = await TestRunner(Workflow(name="wf", edges=[(START, retried)])).run("7")
    assert calls == [7, 7, 7] and outputs(events) == [("fetch", 7)]

    calls.clear()
    once = Workflow(name="wf", edges=[(START, FunctionTool(flaky))])
    with pytest.raises(ConnectionError, match="try again"):
        await TestRunner(once).run("7")


async def test_a_custom_base_tool_is_a_node_too():
    class Echo(BaseTool):
        async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
            return {"echo": args}

    wf = Workflow(name="wf", edges=[(START, numbers, Echo(name="echo", description="Echoes."))])
    events = await TestRunner(wf).run("go")
    assert outputs(events)[-1] == ("echo", {"echo": {"a": 2, "b": 40}})


def confirmation_request(events: list[Event]) -> types.FunctionCall:
    [call] = [c for e in events for c in e.get_function_calls()]
    assert call.name == REQUEST_INPUT_FUNCTION_CALL_NAME
    return call


def confirm(call: types.FunctionCall, confirmed: bool, payload: Any = None) -> types.Content:
    answer = {"confirmed": confirmed, **({"payload": payload} if payload is not None else {})}
    response = types.FunctionResponse(id=call.id, name=call.name, response=answer)
    return types.Content(role="user", parts=[types.Part(function_response=response)])


async def test_a_tool_that_needs_approval_asks_the_client_and_runs_once_approved():
    paid: list[int] = []

    def pay(amount: int) -> str:
        """Pays."""
        paid.append(amount)
        return f"paid {amount}"

    def amount(node_input: Any) -> dict[str, int]:
        return {"amount": 30}

    tool = FunctionTool(pay, require_confirmation=True)
    runner = TestRunner(Workflow(name="wf", edges=[(START, amount, tool)]))
    request = confirmation_request(await runner.run("go"))
    assert paid == []
    assert request.args["payload"] == {"tool_name": "pay", "args": {"amount": 30}}
    assert request.args["message"] == "Approve or reject pay()."
    resumed = await runner.run(confirm(request, True))
    assert paid == [30] and outputs(resumed) == [("pay", "paid 30")]

    rejected = confirmation_request(await runner.run("again"))
    refused = await runner.run(confirm(rejected, False))
    assert paid == [30]
    assert outputs(refused) == [("pay", {"error": "This tool call is rejected."})]


async def test_a_tool_asking_for_approval_itself_gets_the_answer_in_tool_confirmation():
    def transfer(amount: int, tool_context: ToolContext) -> str:
        """Transfers money."""
        confirmation = tool_context.tool_confirmation
        if confirmation is None:
            tool_context.request_confirmation(hint="Large transfer: approve?", payload={"max": 0})
            return "pending"
        return f"sent {amount} up to {confirmation.payload['max']}"

    async def plan(ctx: Context) -> str:
        return await ctx.run_node(FunctionTool(transfer), {"amount": 900})

    runner = TestRunner(Workflow(name="wf", edges=[(START, plan)]))
    request = confirmation_request(await runner.run("go"))
    assert request.args["message"] == "Large transfer: approve?"
    assert request.args["payload"]["confirmation_payload"] == {"max": 0}
    resumed = await runner.run(confirm(request, True, payload={"max": 1000}))
    assert outputs(resumed)[-1] == ("plan", "sent 900 up to 1000")


def test_only_tools_make_tool_nodes():
    with pytest.raises(WorkflowConfigurationError, match="ToolNode needs a BaseTool"):
        ToolNode(tool=add)  # type: ignore[arg-type]
    assert ToolNode(FunctionTool(add), name="plus").name == "plus"


@pytest.mark.parametrize("asks_itself", [False, True])
async def test_a_tool_node_that_does_not_rerun_cannot_take_an_approval(asks_itself: bool):
    paid: list[int] = []

    def pay(amount: int, tool_context: ToolContext) -> str:
        """Pays."""
        if asks_itself and tool_context.tool_confirmation is None:
            tool_context.request_confirmation(hint="Pay?")
            return "pending"
        paid.append(amount)
        return "paid"

    tool = FunctionTool(pay, require_confirmation=not asks_itself)
    runner = TestRunner(Workflow(name="wf", edges=[(START, ToolNode(tool, rerun_on_resume=False))]))
    with pytest.raises(WorkflowConfigurationError, match="'pay' asked for approval"):
        await runner.run('{"amount": 5}')
    assert paid == []
