"""NodeTool: a Workflow (or a workflow node) as an agent's tool, and
``tool_context.run_node``: declaration, argument checks, events, output, failures."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel
from wf_support import outputs

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.events import Event
from pyadk.testing import TestRunner
from pyadk.testing.scripted_models import ScriptedModel, function_call
from pyadk.tools import BaseTool, FunctionTool, NodeTool, ToolContext
from pyadk.tools.tool_progress import ToolProgress
from pyadk.workflow import (
    START,
    Context,
    DynamicNodeFailError,
    FunctionNode,
    NodePausedInToolError,
    RequestInput,
    Workflow,
    node_path,
)


class Trip(BaseModel):
    city: str
    days: int


def plan(node_input: Trip) -> dict[str, Any]:
    return {"city": node_input.city, "nights": node_input.days - 1}


def finish(node_input: dict[str, Any]) -> str:
    return f"{node_input['city']}: {node_input['nights']} nights"


def trip_workflow() -> Workflow:
    return Workflow(name="trip", edges=[(START, plan, finish)], description="Plans a trip.")


def agent_with(tool: Any, replies: list[Any]) -> tuple[LlmAgent, ScriptedModel]:
    model = ScriptedModel(replies)
    return LlmAgent(name="root", model=model, tools=[tool]), model


def responses(events: list[Event]) -> list[dict[str, Any]]:
    return [
        dict(r.response or {}) for e in events if not e.partial for r in e.get_function_responses()
    ]


def test_the_declaration_comes_from_the_input_of_the_nodes_after_start():
    declaration = NodeTool(trip_workflow())._get_declaration()
    assert declaration is not None
    assert declaration.name == "trip"
    assert declaration.description == "Plans a trip."
    schema = declaration.parameters_json_schema
    assert schema["type"] == "object"
    assert schema["required"] == ["city", "days"]
    assert schema["properties"]["days"]["type"] == "integer"


def test_an_input_that_is_not_an_object_is_the_request_parameter():
    def shout(node_input: str) -> str:
        return node_input.upper()

    tool = NodeTool(Workflow(name="loud", edges=[(START, shout)]))
    declaration = tool._get_declaration()
    assert declaration is not None
    assert declaration.parameters_json_schema == {
        "type": "object",
        "properties": {"request": {"type": "string"}},
        "required": ["request"],
    }


def test_a_node_without_a_typed_input_needs_an_input_schema():
    def anything(node_input):  # type: ignore[no-untyped-def]
        return node_input

    wf = Workflow(name="loose", edges=[(START, anything)])
    with pytest.raises(ValueError, match="has no input schema NodeTool can tell"):
        NodeTool(wf)
    declaration = NodeTool(wf, input_schema=Trip)._get_declaration()
    assert declaration is not None
    assert declaration.parameters_json_schema["required"] == ["city", "days"]


def test_entry_nodes_must_agree_on_their_input():
    def by_text(node_input: str) -> str:
        return node_input

    def by_number(node_input: int) -> int:
        return node_input

    wf = Workflow(name="mixed", edges=[(START, (by_text, by_number))])
    with pytest.raises(ValueError, match="no input schema"):
        NodeTool(wf)


def test_an_agent_is_not_a_node_tool():
    with pytest.raises(ValueError, match="cannot be wrapped as a NodeTool"):
        NodeTool(LlmAgent(name="helper", model=ScriptedModel([])))
    with pytest.raises(ValueError, match="wraps a workflow node or a Workflow"):
        NodeTool("not a node")


def test_a_function_node_without_node_input_takes_its_parameters_as_arguments():
    def add(a: int, b: int) -> int:
        return a + b

    declaration = NodeTool(FunctionNode(add))._get_declaration()
    assert declaration is not None
    schema = declaration.parameters_json_schema
    assert set(schema["properties"]) == {"a", "b"}


async def test_the_agent_runs_the_workflow_and_gets_its_output():
    agent, model = agent_with(
        NodeTool(trip_workflow()),
        [function_call("trip", {"city": "Rome", "days": 3}, id="c1"), "Booked."],
    )
    runner = TestRunner(agent)
    events = await runner.run("plan Rome")
    assert responses(events) == [{"result": "Rome: 2 nights"}]
    assert events[-1].content is not None and events[-1].content.parts[0].text == "Booked."
    # The second model call sees the tool's result.
    last = model.requests[1].contents[-1].parts[0].function_response
    assert last is not None and last.response == {"result": "Rome: 2 nights"}
    # The nodes' events are stored, on the call's branch, under the agent's path.
    stored = (await runner.session()).events
    inner = [e for e in stored if node_path(e)]
    assert [node_path(e) for e in inner] == ["root@1/trip@c1/plan@1", "root@1/trip@c1/finish@1"]
    assert {e.branch for e in inner} == {"trip@c1"}
    assert {e.author for e in inner} == {"trip"}
    assert outputs(inner) == [("plan", {"city": "Rome", "nights": 2}), ("finish", "Rome: 2 nights")]
    # Stored before the call's result.
    kinds = ["node" if node_path(e) else e.author for e in stored]
    assert kinds == ["user", "root", "node", "node", "root", "root"]


async def test_the_nodes_events_reach_the_client_as_progress_of_the_call():
    agent, _ = agent_with(
        NodeTool(trip_workflow()), [function_call("trip", {"city": "Oslo", "days": 2}), "ok"]
    )
    events = await TestRunner(agent).run("go")
    progress = [p for e in events if (p := ToolProgress.from_event(e)) is not None]
    assert [p.tool_name for p in progress] == ["trip", "trip"]
    assert [node_path(p.agent_event) for p in progress if p.agent_event] == [
        f"root@1/trip@{progress[0].function_call_id}/plan@1",
        f"root@1/trip@{progress[0].function_call_id}/finish@1",
    ]
    quiet, _ = agent_with(
        NodeTool(trip_workflow(), stream_events=False),
        [function_call("trip", {"city": "Oslo", "days": 2}), "ok"],
    )
    assert not [e for e in await TestRunner(quiet).run("go") if e.partial]


async def test_arguments_that_do_not_fit_give_the_model_an_error_and_nothing_runs():
    ran: list[Any] = []

    def record(node_input: Trip) -> str:
        ran.append(node_input)
        return "ran"

    tool = NodeTool(Workflow(name="trip", edges=[(START, record)]))
    agent, model = agent_with(
        tool,
        [function_call("trip", {"city": "Rome", "days": "many"}), "sorry"],
    )
    events = await TestRunner(agent).run("go")
    [result] = responses(events)
    assert "Invalid arguments for tool `trip`" in result["error"]
    assert "days" in result["error"]
    assert ran == []
    assert model.call_count == 2  # the run survives: the model gets the error


async def test_a_missing_request_argument_is_an_error_result():
    def shout(node_input: str) -> str:
        return node_input.upper()

    agent, _ = agent_with(
        NodeTool(Workflow(name="loud", edges=[(START, shout)])),
        [function_call("loud", {"text": "hi"}), function_call("loud", {"request": "hi"}), "ok"],
    )
    events = await TestRunner(agent).run("go")
    first, second = responses(events)
    assert "missing required argument 'request'" in first["error"]
    assert second == {"result": "HI"}


async def test_a_failing_node_raises_its_own_error_to_the_tool_error_callback():
    def broken(node_input: str) -> str:
        raise RuntimeError("the booking service is down")

    seen: list[BaseException] = []

    def on_error(tool: BaseTool, args: dict[str, Any], tool_context: ToolContext, error: Exception):
        seen.append(error)
        return {"error": str(error)}

    model = ScriptedModel([function_call("book", {"request": "Rome"}), "It failed."])
    agent = LlmAgent(
        name="root",
        model=model,
        tools=[NodeTool(Workflow(name="book", edges=[(START, broken)]))],
        on_tool_error_callback=on_error,
    )
    events = await TestRunner(agent).run("go")
    assert responses(events) == [{"error": "the booking service is down"}]
    assert isinstance(seen[0], RuntimeError)


async def test_a_failing_node_without_a_callback_fails_the_run_with_its_error():
    def broken(node_input: str) -> str:
        raise RuntimeError("the booking service is down")

    agent, _ = agent_with(
        NodeTool(Workflow(name="book", edges=[(START, broken)])),
        [function_call("book", {"request": "Rome"})],
    )
    with pytest.raises(RuntimeError, match="the booking service is down"):
        await TestRunner(agent).run("go")


async def test_a_node_asking_for_input_in_a_function_tools_run_node_fails_clearly():
    # A NodeTool's call pauses the agent (tests/tools/test_node_tool_pause.py); a node
    # run by another tool's tool_context.run_node cannot.
    async def ask(node_input: str):  # type: ignore[no-untyped-def]
        yield RequestInput(message="How many people?", response_schema=int)

    async def plan(city: str, tool_context: ToolContext) -> Any:
        """Plans."""
        return await tool_context.run_node(Workflow(name="ask", edges=[(START, ask)]), city)

    agent, _ = agent_with(FunctionTool(plan), [function_call("plan", {"city": "Rome"})])
    runner = TestRunner(agent)
    with pytest.raises(NodePausedInToolError, match="cannot pause the agent"):
        await runner.run("go")
    stored = (await runner.session()).events
    assert not any(e.long_running_tool_ids for e in stored)  # no request left unanswerable


async def test_a_function_tool_runs_a_node_with_tool_context_run_node():
    def double(node_input: int) -> int:
        return node_input * 2

    async def compute(n: int, tool_context: ToolContext) -> dict[str, Any]:
        """Doubles n with a workflow node (twice)."""
        value = await tool_context.run_node(double, n)
        return {"value": await tool_context.run_node(double, value // 2)}

    agent, _ = agent_with(
        FunctionTool(compute), [function_call("compute", {"n": 21}, id="k"), "ok"]
    )
    runner = TestRunner(agent)
    events = await runner.run("go")
    assert responses(events) == [{"value": 42}]
    stored = (await runner.session()).events
    assert [(node_path(e), e.branch) for e in stored if node_path(e)] == [
        ("root@1/double@k", None),
        ("root@1/double@k-2", None),
    ]


async def test_tool_context_run_node_takes_a_run_id_and_a_sub_branch():
    def echo(node_input: str) -> str:
        return node_input

    async def twice(tool_context: ToolContext) -> list[str]:
        """Runs echo twice."""
        first = await tool_context.run_node(echo, "a", run_id="one", use_sub_branch=True)
        second = await tool_context.run_node(echo, "b", run_id="two")
        return [first, second]

    agent, _ = agent_with(FunctionTool(twice), [function_call("twice", {}), "ok"])
    runner = TestRunner(agent)
    assert responses(await runner.run("go")) == [{"result": ["a", "b"]}]
    stored = (await runner.session()).events
    assert [(node_path(e), e.branch) for e in stored if node_path(e)] == [
        ("root@1/echo@one", "echo@one"),
        ("root@1/echo@two", None),
    ]
    with pytest.raises(ValueError, match="must not contain"):
        await tool_run_node_with_bad_id()


async def tool_run_node_with_bad_id() -> None:
    def echo(node_input: str) -> str:
        return node_input

    async def bad(tool_context: ToolContext) -> str:
        """Bad id."""
        return str(await tool_context.run_node(echo, "a", run_id="x/y"))

    agent, _ = agent_with(FunctionTool(bad), [function_call("bad", {})])
    await TestRunner(agent).run("go")


async def test_tool_context_run_node_raises_dynamic_node_fail_error():
    def broken(node_input: Any) -> None:
        raise KeyError("missing")

    caught: list[DynamicNodeFailError] = []

    async def careful(tool_context: ToolContext) -> str:
        """Catches the node's failure."""
        try:
            await tool_context.run_node(broken)
        except DynamicNodeFailError as failure:
            caught.append(failure)
            return "recovered"
        return "no"

    agent, _ = agent_with(FunctionTool(careful), [function_call("careful", {}), "ok"])
    assert responses(await TestRunner(agent).run("go")) == [{"result": "recovered"}]
    assert isinstance(caught[0].error, KeyError)
    assert str(caught[0]) == "Dynamic node broken failed"


async def test_in_a_tool_node_run_node_is_a_dynamic_node_of_that_node():
    def double(node_input: int) -> int:
        return node_input * 2

    async def compute(n: int, tool_context: ToolContext) -> int:
        """Doubles n."""
        return int(await tool_context.run_node(double, n))

    async def start(ctx: Context) -> int:
        return 5

    wf = Workflow(name="wf", edges=[(START, start, FunctionTool(compute))])
    events = await TestRunner(wf).run("go")
    assert ("double", 10) in outputs(events)
    assert "wf@1/compute@1/double@1" in [node_path(e) for e in events]
    assert outputs(events)[-1] == ("compute", 10)


def test_node_tool_is_importable_where_google_adk_keeps_it():
    from pyadk.tools._node_tool import NodeTool as Ported

    assert Ported is NodeTool


async def test_two_calls_at_once_store_their_events_in_one_sqlite_session(tmp_path: Any):
    from pyadk.runners import Runner
    from pyadk.sessions.sqlite_session_service import SqliteSessionService

    service = SqliteSessionService(str(tmp_path / "sessions.db"))
    agent, _ = agent_with(
        NodeTool(trip_workflow()),
        [
            [
                function_call("trip", {"city": "Rome", "days": 3}, id="a"),
                function_call("trip", {"city": "Oslo", "days": 2}, id="b"),
            ],
            "Both planned.",
        ],
    )
    runner = Runner(app_name="app", agent=agent, session_service=service)
    await service.create_session(app_name="app", user_id="u", session_id="s")
    message = types.UserContent("plan both")
    events = [e async for e in runner.run_async(user_id="u", session_id="s", new_message=message)]
    assert sorted(r["result"] for r in responses(events)) == ["Oslo: 1 nights", "Rome: 2 nights"]
    stored = await service.get_session(app_name="app", user_id="u", session_id="s")
    assert stored is not None
    assert sorted(node_path(e) for e in stored.events if node_path(e)) == [
        "root@1/trip@a/finish@1",
        "root@1/trip@a/plan@1",
        "root@1/trip@b/finish@1",
        "root@1/trip@b/plan@1",
    ]
    assert stored.events[-1].content is not None
    assert stored.events[-1].content.parts[0].text == "Both planned."


async def test_an_llm_agent_node_inside_gets_the_request_and_its_answer_is_the_result():
    inner = ScriptedModel(["A short poem."])
    wf = Workflow(name="draft", edges=[(START, LlmAgent(name="writer", model=inner))])
    agent, model = agent_with(
        NodeTool(wf), [function_call("draft", {"request": "a poem"}, id="c1"), "Here it is."]
    )
    runner = TestRunner(agent)
    events = await runner.run("write me a poem")
    assert responses(events) == [{"result": "A short poem."}]
    assert [c.parts[0].text for c in inner.requests[0].contents] == ["a poem"]
    # The caller's model sees its call and the result, not the inner agent's turns.
    assert len(model.requests[1].contents) == 3
    stored = (await runner.session()).events
    assert [(e.author, e.branch) for e in stored if e.branch] == [
        ("user", "draft@c1"),
        ("writer", "draft@c1"),
    ]


async def test_plugins_see_the_node_events_and_a_plain_node_can_be_the_tool():
    from pyadk.plugins import BasePlugin

    seen: list[str | None] = []

    class Watch(BasePlugin):
        async def on_event_callback(self, *, invocation_context: Any, event: Event) -> None:
            seen.append(node_path(event))

    def shout(node_input: str) -> str:
        return node_input.upper()

    agent, _ = agent_with(
        NodeTool(FunctionNode(shout)), [function_call("shout", {"request": "hi"}, id="c9"), "ok"]
    )
    events = await TestRunner(agent, plugins=[Watch(name="watch")]).run("go")
    assert responses(events) == [{"result": "HI"}]
    assert "root@1/shout@c9" in seen
