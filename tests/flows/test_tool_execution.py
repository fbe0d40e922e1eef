"""Tool execution in the LLM flow: round trips, errors, coercion, concurrency, callbacks."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from pydantic import BaseModel

from pyadk import types
from pyadk.agents import LlmAgent, ReadonlyContext, SequentialAgent
from pyadk.testing import ScriptedModel, TestRunner, function_call, simplify_events
from pyadk.tools import (
    AgentTool,
    BaseTool,
    BaseToolset,
    FunctionTool,
    LongRunningFunctionTool,
    ToolContext,
)


def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


def _responses(event: Any) -> list[tuple[str | None, dict[str, Any] | None]]:
    return [(r.name, r.response) for r in event.get_function_responses()]


def _client_response(name: str, call_id: str, response: dict[str, Any]) -> types.Content:
    part = types.Part(
        function_response=types.FunctionResponse(id=call_id, name=name, response=response)
    )
    return types.Content(role="user", parts=[part])


async def test_function_tool_round_trip() -> None:
    model = ScriptedModel([function_call("add", {"a": 2, "b": 3}), "The sum is 5."])
    runner = TestRunner(LlmAgent(name="calc", model=model, tools=[add]))

    events = await runner.run("What is 2 + 3?")

    assert simplify_events(events) == [
        ("calc", "call:add({'a': 2, 'b': 3})"),
        ("calc", "response:add({'result': 5})"),
        ("calc", "The sum is 5."),
    ]
    call, response, _ = events
    assert call.content.role == "model" and response.content.role == "user"
    call_id = call.get_function_calls()[0].id
    assert call_id and response.get_function_responses()[0].id == call_id
    assert [e.is_final_response() for e in events] == [False, False, True]
    assert model.requests[0].declared_function_names() == ["add"]
    second = model.requests[1].contents
    assert [c.role for c in second] == ["user", "model", "user"]
    assert second[1].parts[0].function_call.name == "add"
    assert second[2].parts[0].function_response.response == {"result": 5}
    assert second[2].parts[0].function_response.id == call_id
    session = await runner.session()
    assert [e.id for e in session.events[1:]] == [e.id for e in events]


@pytest.mark.parametrize(
    ("value", "expected"),
    [([1, 2], {"result": [1, 2]}), ("text", {"result": "text"}), (None, {"result": None})],
)
async def test_non_dict_results_are_wrapped(value: Any, expected: dict[str, Any]) -> None:
    def get_value() -> Any:
        return value

    model = ScriptedModel([function_call("get_value"), "ok"])
    events = await TestRunner(LlmAgent(name="a", model=model, tools=[get_value])).run("go")
    assert _responses(events[1]) == [("get_value", expected)]


async def test_dict_result_is_sent_as_is() -> None:
    def lookup() -> dict[str, Any]:
        return {"city": "Paris", "temp": 21}

    model = ScriptedModel([function_call("lookup"), "ok"])
    events = await TestRunner(LlmAgent(name="a", model=model, tools=[lookup])).run("go")
    assert _responses(events[1]) == [("lookup", {"city": "Paris", "temp": 21})]


async def test_unknown_tool_becomes_an_error_result_for_the_model() -> None:
    model = ScriptedModel([function_call("multiply", {"a": 2}), "Sorry, I cannot multiply."])
    runner = TestRunner(LlmAgent(name="calc", model=model, tools=[add]))

    events = await runner.run("2*3?")

    [(name, response)] = _responses(events[1])
    assert name == "multiply"
    assert "'multiply'" in response["error"] and "add" in response["error"]
    assert events[-1].content.text == "Sorry, I cannot multiply."
    assert model.requests[1].contents[-1].parts[0].function_response.response == response


@pytest.mark.parametrize(
    ("args", "fragment"),
    [({"a": "two", "b": 3}, "'a'"), ({"a": 1}, "missing mandatory parameter 'b'")],
)
async def test_bad_arguments_become_an_error_result(args: dict[str, Any], fragment: str) -> None:
    calls: list[tuple[int, int]] = []

    def add_logged(a: int, b: int) -> int:
        calls.append((a, b))
        return a + b

    model = ScriptedModel([function_call("add_logged", args), "retrying"])
    events = await TestRunner(LlmAgent(name="a", model=model, tools=[add_logged])).run("go")

    [(_, response)] = _responses(events[1])
    assert response["error"].startswith("Invoking `add_logged()` failed")
    assert fragment in response["error"]
    assert calls == []
    assert events[-1].content.text == "retrying"


class Order(BaseModel):
    item: str
    quantity: int


async def test_arguments_are_coerced_to_annotations() -> None:
    received: list[Any] = []

    def place_order(order: Order, priority: int) -> str:
        received.extend([order, priority])
        return "placed"

    reply = function_call(
        "place_order", {"order": {"item": "pen", "quantity": "3"}, "priority": "2"}
    )
    model = ScriptedModel([reply, "done"])
    await TestRunner(LlmAgent(name="a", model=model, tools=[place_order])).run("go")

    assert received == [Order(item="pen", quantity=3), 2]
    assert isinstance(received[0], Order)


async def test_tool_context_is_injected_and_hidden_from_the_model() -> None:
    seen: list[Any] = []

    def remember(fact: str, tool_context: ToolContext) -> str:
        seen.append((tool_context.function_call_id, tool_context.agent_name))
        tool_context.state["fact"] = fact
        return "saved"

    model = ScriptedModel([function_call("remember", {"fact": "sky is blue"}, id="c-1"), "ok"])
    runner = TestRunner(LlmAgent(name="memo", model=model, tools=[remember]))
    events = await runner.run("go")

    assert seen == [("c-1", "memo")]
    [declaration] = model.requests[0].config.tools[0].function_declarations
    assert list(declaration.parameters.properties) == ["fact"]
    assert events[1].actions.state_delta == {"fact": "sky is blue"}
    assert (await runner.state())["fact"] == "sky is blue"


async def test_state_from_concurrent_calls_is_merged() -> None:
    async def set_a(tool_context: ToolContext) -> str:
        await asyncio.sleep(0)
        tool_context.state["a"] = 1
        return "a"

    def set_b(tool_context: ToolContext) -> str:
        tool_context.state["b"] = 2
        return "b"

    model = ScriptedModel([[function_call("set_a"), function_call("set_b")], "done"])
    runner = TestRunner(LlmAgent(name="a", model=model, tools=[set_a, set_b]))
    events = await runner.run("go")

    assert _responses(events[1]) == [("set_a", {"result": "a"}), ("set_b", {"result": "b"})]
    assert events[1].actions.state_delta == {"a": 1, "b": 2}
    state = await runner.state()
    assert (state["a"], state["b"]) == (1, 2)


async def test_a_single_call_carries_what_its_tool_records_and_nothing_merge_leaves_out():
    def record(tool_context: ToolContext) -> str:
        tool_context.state["seen"] = True
        tool_context.actions.skip_summarization = True
        return "ok"

    def set_agent_state(tool_context: ToolContext) -> str:
        tool_context.actions.agent_state = {"step": 1}  # not a tool's to report
        tool_context.state["x"] = 1
        return "ok"

    model = ScriptedModel([[function_call("record")]])
    events = await TestRunner(LlmAgent(name="a", model=model, tools=[record])).run("go")
    actions = events[1].actions
    assert actions.state_delta == {"seen": True} and actions.skip_summarization is True

    model = ScriptedModel([[function_call("set_agent_state")], "done"])
    runner = TestRunner(LlmAgent(name="a", model=model, tools=[set_agent_state]))
    events = await runner.run("go")
    assert events[1].actions.agent_state is None  # as when several calls are merged
    assert events[1].actions.state_delta == {"x": 1}


async def test_async_calls_of_one_response_run_concurrently() -> None:
    ping_ready, pong_ready = asyncio.Event(), asyncio.Event()

    async def ping() -> str:
        ping_ready.set()
        await asyncio.wait_for(pong_ready.wait(), timeout=5)  # deadlocks if run in sequence
        return "ping"

    async def pong() -> str:
        pong_ready.set()
        await asyncio.wait_for(ping_ready.wait(), timeout=5)
        return "pong"

    model = ScriptedModel([[function_call("ping"), function_call("pong")], "done"])
    events = await TestRunner(LlmAgent(name="a", model=model, tools=[ping, pong])).run("go")
    assert _responses(events[1]) == [("ping", {"result": "ping"}), ("pong", {"result": "pong"})]


async def test_sync_calls_of_one_response_run_concurrently() -> None:
    barrier = threading.Barrier(2, timeout=5)  # BrokenBarrierError if run in sequence

    def left() -> str:
        barrier.wait()
        return "left"

    def right() -> str:
        barrier.wait()
        return "right"

    model = ScriptedModel([[function_call("left"), function_call("right")], "done"])
    events = await TestRunner(LlmAgent(name="a", model=model, tools=[left, right])).run("go")
    assert _responses(events[1]) == [("left", {"result": "left"}), ("right", {"result": "right"})]


async def test_before_tool_callbacks_first_result_skips_the_tool() -> None:
    order: list[str] = []
    ran: list[int] = []

    def tracked_add(a: int, b: int) -> int:
        ran.append(a + b)
        return a + b

    def observe(*, tool: BaseTool, args: dict[str, Any], tool_context: ToolContext) -> None:
        order.append(f"observe:{tool.name}:{args}:{tool_context.function_call_id}")

    async def block(*, tool: BaseTool, args: dict[str, Any], tool_context: ToolContext) -> Any:
        order.append("block")
        return {"blocked": True} if args["a"] < 0 else None

    def never(*, tool: BaseTool, args: dict[str, Any], tool_context: ToolContext) -> Any:
        order.append("never")
        return {"never": True}

    replies = [
        function_call("tracked_add", {"a": -1, "b": 1}, id="c1"),
        "first",
        function_call("tracked_add", {"a": 1, "b": 1}, id="c2"),
        "second",
    ]
    agent = LlmAgent(
        name="a",
        model=ScriptedModel(replies),
        tools=[tracked_add],
        before_tool_callback=[observe, block],
    )
    runner = TestRunner(agent)
    events = await runner.run("go")
    assert _responses(events[1]) == [("tracked_add", {"blocked": True})]
    assert ran == []
    assert order == ["observe:tracked_add:{'a': -1, 'b': 1}:c1", "block"]

    agent.before_tool_callback = [block, never]
    order.clear()
    events = await runner.run("again")
    assert _responses(events[1]) == [("tracked_add", {"never": True})]
    assert (ran, order) == ([], ["block", "never"])


async def test_after_tool_callback_replaces_the_result() -> None:
    seen: list[Any] = []

    def after(
        *, tool: BaseTool, args: dict[str, Any], tool_context: ToolContext, tool_response: Any
    ) -> Any:
        seen.append((tool.name, args, tool_response))
        return {"sum": tool_response * 10}

    model = ScriptedModel([function_call("add", {"a": 1, "b": 2}), "ok"])
    agent = LlmAgent(name="a", model=model, tools=[add], after_tool_callback=[after])
    events = await TestRunner(agent).run("go")

    assert seen == [("add", {"a": 1, "b": 2}, 3)]
    assert _responses(events[1]) == [("add", {"sum": 30})]
    assert model.requests[1].contents[-1].parts[0].function_response.response == {"sum": 30}


def explode(reason: str) -> str:
    raise RuntimeError(f"tool failed: {reason}")


async def test_tool_error_without_callback_propagates() -> None:
    model = ScriptedModel([function_call("explode", {"reason": "disk full"})])
    runner = TestRunner(LlmAgent(name="a", model=model, tools=[explode]))

    with pytest.raises(RuntimeError, match="tool failed: disk full"):
        await runner.run("go")
    session = await runner.session()
    assert session.events[-2].get_function_calls()[0].name == "explode"  # call event kept
    assert session.events[-1].actions.agent_outcome.reason == "tool failed: disk full"


async def test_tool_error_among_concurrent_calls_propagates_as_itself() -> None:
    model = ScriptedModel(
        [[function_call("explode", {"reason": "x"}), function_call("add", {"a": 1, "b": 1})]]
    )
    runner = TestRunner(LlmAgent(name="a", model=model, tools=[explode, add]))

    with pytest.raises(RuntimeError, match="tool failed: x"):  # not an ExceptionGroup
        await runner.run("go")


async def test_on_tool_error_callback_recovers() -> None:
    seen: list[Any] = []

    def on_error(
        *, tool: BaseTool, args: dict[str, Any], tool_context: ToolContext, error: Exception
    ) -> dict[str, Any]:
        seen.append((tool.name, args, str(error)))
        return {"error": f"{tool.name} is unavailable"}

    model = ScriptedModel([function_call("explode", {"reason": "x"}), "I could not do it."])
    agent = LlmAgent(name="a", model=model, tools=[explode], on_tool_error_callback=on_error)
    events = await TestRunner(agent).run("go")

    assert seen == [("explode", {"reason": "x"}, "tool failed: x")]
    assert _responses(events[1]) == [("explode", {"error": "explode is unavailable"})]
    assert events[-1].content.text == "I could not do it."


async def test_skip_summarization_ends_the_step_with_the_tool_result() -> None:
    def show_table(tool_context: ToolContext) -> dict[str, Any]:
        tool_context.actions.skip_summarization = True
        return {"rows": [1, 2]}

    model = ScriptedModel([function_call("show_table")])
    runner = TestRunner(LlmAgent(name="a", model=model, tools=[show_table]))
    events = await runner.run("go")

    assert simplify_events(events) == [
        ("a", "call:show_table({})"),
        ("a", "response:show_table({'rows': [1, 2]})"),
    ]
    assert events[-1].is_final_response()
    assert model.call_count == 1


async def test_long_running_tool_pauses_and_resumes_with_the_calling_agent() -> None:
    def request_approval(amount: int) -> None:
        """Asks a human to approve the amount."""
        return None

    worker_model = ScriptedModel(
        [function_call("request_approval", {"amount": 50}, id="job-1"), "Payment approved."]
    )
    worker = LlmAgent(
        name="worker",
        model=worker_model,
        tools=[LongRunningFunctionTool(request_approval)],
        disallow_transfer_to_parent=True,  # only the pending call routes the answer here
    )
    root_model = ScriptedModel([function_call("transfer_to_agent", {"agent_name": "worker"})])
    runner = TestRunner(LlmAgent(name="root", model=root_model, sub_agents=[worker]))

    events = await runner.run("Pay 50")
    call = events[-1]
    assert call.author == "worker" and call.long_running_tool_ids == {"job-1"}
    assert call.is_final_response()
    assert worker_model.call_count == 1  # paused: no second model call

    events = await runner.run(_client_response("request_approval", "job-1", {"ok": True}))

    assert simplify_events(events) == [("worker", "Payment approved.")]
    assert root_model.call_count == 1
    contents = worker_model.requests[1].contents
    assert contents[-2].parts[0].function_call.id == "job-1"
    assert contents[-1].parts[0].function_response.response == {"ok": True}


async def test_long_running_pending_result_is_replaced_by_the_final_one_in_history() -> None:
    def start_job(tool_context: ToolContext) -> dict[str, str]:
        return {"status": "pending"}

    replies = [function_call("start_job", id="j"), "Started, please wait.", "Job finished."]
    model = ScriptedModel(replies)
    runner = TestRunner(LlmAgent(name="a", model=model, tools=[LongRunningFunctionTool(start_job)]))

    events = await runner.run("start")
    assert simplify_events(events)[-1] == ("a", "Started, please wait.")
    assert model.requests[1].contents[-1].parts[0].function_response.response == {
        "status": "pending"
    }

    await runner.run(_client_response("start_job", "j", {"status": "done"}))

    contents = model.requests[2].contents
    assert [c.role for c in contents] == ["user", "model", "user"]
    [part] = contents[-1].parts
    assert (part.function_response.id, part.function_response.response) == ("j", {"status": "done"})


class _Toolset(BaseToolset):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.closed = 0

    async def get_tools(self, readonly_context: ReadonlyContext | None = None) -> list[BaseTool]:
        def read(path: str) -> str:
            return f"contents of {path}"

        def delete(path: str) -> str:
            return "deleted"

        return [FunctionTool(read), FunctionTool(delete)]

    async def close(self) -> None:
        self.closed += 1


async def test_toolset_filter_by_names_hides_other_tools() -> None:
    toolset = _Toolset(tool_filter=["read"])
    replies = [
        function_call("delete", {"path": "/x"}),
        "cannot",
        function_call("read", {"path": "/x"}),
        "ok",
    ]
    model = ScriptedModel(replies)
    runner = TestRunner(LlmAgent(name="a", model=model, tools=[toolset]))

    events = await runner.run("delete /x")
    assert model.requests[0].declared_function_names() == ["read"]
    assert "error" in _responses(events[1])[0][1]
    events = await runner.run("read /x")
    assert _responses(events[1]) == [("read", {"result": "contents of /x"})]


async def test_toolset_predicate_sees_the_context_each_step() -> None:
    def allow(tool: BaseTool, ctx: ReadonlyContext | None) -> bool:
        return tool.name == "read" or bool(ctx and ctx.state.get("admin"))

    model = ScriptedModel(["one", "two"])
    runner = TestRunner(LlmAgent(name="a", model=model, tools=[_Toolset(tool_filter=allow)]))
    await runner.run("hi")
    await runner.run("hi", state_delta={"admin": True})

    assert model.requests[0].declared_function_names() == ["read"]
    assert model.requests[1].declared_function_names() == ["read", "delete"]


async def test_runner_close_closes_toolsets_in_the_agent_tree() -> None:
    top, nested = _Toolset(), _Toolset()
    child = LlmAgent(name="child", model=ScriptedModel([]), tools=[nested])
    runner = TestRunner(
        LlmAgent(name="root", model=ScriptedModel([]), tools=[top], sub_agents=[child])
    )

    await runner.close()

    assert (top.closed, nested.closed) == (1, 1)


async def test_runner_close_reaches_agent_tools_and_finally_agents_once_each() -> None:
    shared, behind_tool, in_finally = _Toolset(), _Toolset(), _Toolset()
    helper = LlmAgent(name="helper", model=ScriptedModel([]), tools=[behind_tool, shared])
    cleanup = LlmAgent(name="cleanup", model=ScriptedModel([]), tools=[in_finally, shared])
    worker = LlmAgent(name="worker", model=ScriptedModel([]), tools=[AgentTool(helper), shared])
    runner = TestRunner(SequentialAgent(name="flow", sub_agents=[worker], finally_agents=[cleanup]))

    await runner.close()

    assert (shared.closed, behind_tool.closed, in_finally.closed) == (1, 1, 1)


async def test_a_toolset_shapes_each_request_before_its_tools() -> None:
    class Briefed(_Toolset):
        async def process_llm_request(self, *, tool_context, llm_request) -> None:
            assert tool_context.agent_name == "files"
            assert llm_request.tools_dict == {}  # before any tool declared itself
            llm_request.append_instructions(["Ask before deleting."])

    model = ScriptedModel([function_call("read", {"path": "/a"}), "done"])
    agent = LlmAgent(name="files", model=model, instruction="Manage files.", tools=[Briefed()])
    await TestRunner(agent).run("read /a")
    for request in model.requests:  # each step's request
        assert request.system_instruction_text().endswith("\n\nAsk before deleting.")
        assert set(request.tools_dict) == {"read", "delete"}
    assert len(model.requests) == 2
