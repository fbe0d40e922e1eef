"""AgentTool(stream_events=True): the sub-agent's events reach the caller's run as
progress events of the call, while the caller's model still sees only the result."""

from __future__ import annotations

import asyncio
import json
from contextlib import aclosing
from typing import Any

import pytest

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.agents.run_config import RunConfig, StreamingMode
from pyadk.events import Event
from pyadk.models import LlmResponse
from pyadk.testing import ScriptedModel, Stream, TestRunner, function_call
from pyadk.tools import AgentTool, ToolContext
from pyadk.tools.tool_progress import ToolProgress


def progress_of(events: list[Event]) -> list[ToolProgress]:
    return [p for e in events if (p := ToolProgress.from_event(e)) is not None]


def describe(event: Event) -> tuple[str, Any]:
    """A sub-agent event in short: ("call", name), ("result", response), ("text", ...)."""
    progress = ToolProgress.from_event(event)
    if progress is not None:
        return ("progress", progress.tool_name)
    if event.get_function_calls():
        return ("call", event.get_function_calls()[0].name)
    if event.get_function_responses():
        return ("result", event.get_function_responses()[0].response)
    if event.error_message:
        return ("error", event.error_message)
    outcome = event.actions.agent_outcome
    if event.content is None and outcome is not None:
        return ("outcome", outcome.status.value)
    return ("text" if not event.partial else "chunk", event.content.parts[0].text)


def lookup(city: str) -> dict[str, str]:
    """Looks a city up."""
    return {"city": city, "weather": "sunny"}


def researcher(*replies: Any) -> LlmAgent:
    model = ScriptedModel(
        list(replies) or [function_call("lookup", {"city": "Oslo"}), "Oslo is sunny."]
    )
    return LlmAgent(name="researcher", description="Researches.", model=model, tools=[lookup])


async def test_disabled_by_default_the_sub_agent_stays_a_black_box() -> None:
    outer = ScriptedModel([function_call("researcher", {"request": "Oslo?"}), "It is sunny."])
    tool = AgentTool(researcher())
    assert tool.stream_events is False and tool.streams_progress is False
    events = await TestRunner(LlmAgent(name="boss", model=outer, tools=[tool])).run("go")
    assert [e.author for e in events] == ["boss", "boss", "boss"]
    assert progress_of(events) == [] and all(e.partial is None for e in events)


async def test_the_sub_agents_calls_and_text_stream_before_the_result() -> None:
    outer = ScriptedModel(
        [function_call("researcher", {"request": "Oslo?"}, id="r1"), "It is sunny."]
    )
    boss = LlmAgent(name="boss", model=outer, tools=[AgentTool(researcher(), stream_events=True)])
    runner = TestRunner(boss)
    events = await runner.run("go")

    progress = progress_of(events)
    assert {(p.function_call_id, p.tool_name, p.data) for p in progress} == {
        ("r1", "researcher", None)
    }
    inner = [p.agent_event for p in progress]
    assert all(e is not None and e.author == "researcher" for e in inner)
    assert [describe(e) for e in inner if e is not None] == [
        ("call", "lookup"),
        ("result", {"city": "Oslo", "weather": "sunny"}),
        ("text", "Oslo is sunny."),
    ]
    # The forwarded events are partial events of the caller, before its result.
    forwarded = [e for e in events if ToolProgress.from_event(e)]
    assert all(e.partial and e.author == "boss" and e.content is None for e in forwarded)
    result = next(e for e in events if e.get_function_responses())
    assert events.index(result) > events.index(forwarded[-1])
    assert result.get_function_responses()[0].response == {"result": "Oslo is sunny."}
    # The caller's model saw only the call and the result; nothing was stored.
    seen = json.dumps([c.model_dump(mode="json") for c in outer.requests[-1].contents])
    assert "lookup" not in seen and "sunny" in seen
    stored = (await runner.session()).events
    assert [e.author for e in stored] == ["user", "boss", "boss", "boss"]
    assert all(not e.partial for e in stored)


async def test_events_arrive_while_the_sub_agent_still_works() -> None:
    gate = asyncio.Event()

    async def wait_for_data(tool_context: ToolContext) -> str:
        await gate.wait()
        return "data"

    child = LlmAgent(
        name="child",
        model=ScriptedModel([["Starting. ", function_call("wait_for_data")], "Finished."]),
        tools=[wait_for_data],
    )
    outer = ScriptedModel([function_call("child", {"request": "go"}), "ok"])
    runner = TestRunner(
        LlmAgent(name="boss", model=outer, tools=[AgentTool(child, stream_events=True)])
    )
    await runner._ensure_session()
    seen = []
    events = runner.run_async(
        user_id=runner.user_id, session_id=runner.session_id, new_message=types.UserContent("go")
    )
    async with aclosing(events):
        async for event in events:
            seen.append(event)
            progress = ToolProgress.from_event(event)
            if progress is not None and progress.agent_event.get_function_calls():
                assert not gate.is_set()  # the sub-agent waits in its tool
                gate.set()
    assert gate.is_set()
    assert [describe(p.agent_event) for p in progress_of(seen)][-1] == ("text", "Finished.")


async def test_streamed_text_of_the_sub_agent_is_forwarded_in_chunks() -> None:
    child = researcher(Stream(["Oslo ", "is ", "sunny."]))
    outer = ScriptedModel([function_call("researcher", {"request": "Oslo?"}), "ok"])
    boss = LlmAgent(name="boss", model=outer, tools=[AgentTool(child, stream_events=True)])
    events = await TestRunner(boss).run(
        "go", run_config=RunConfig(streaming_mode=StreamingMode.SSE)
    )
    inner = [describe(p.agent_event) for p in progress_of(events)]
    assert inner == [
        ("chunk", "Oslo "),
        ("chunk", "is "),
        ("chunk", "sunny."),
        ("text", "Oslo is sunny."),
    ]


async def test_nested_agent_tools_nest_their_progress() -> None:
    inner = researcher()
    middle = LlmAgent(
        name="planner",
        model=ScriptedModel(
            [function_call("researcher", {"request": "Oslo?"}), "Plan: go to Oslo."]
        ),
        tools=[AgentTool(inner, stream_events=True)],
    )
    outer = ScriptedModel([function_call("planner", {"request": "plan"}), "Done."])
    boss = LlmAgent(name="boss", model=outer, tools=[AgentTool(middle, stream_events=True)])
    events = await TestRunner(boss).run("go")

    levels = []
    for progress in progress_of(events):
        event = progress.agent_event
        path = [progress.tool_name]
        while (nested := ToolProgress.from_event(event)) is not None:
            path.append(nested.tool_name)
            event = nested.agent_event
        levels.append((tuple(path), event.author, describe(event)))
    assert levels == [
        (("planner",), "planner", ("call", "researcher")),
        (("planner", "researcher"), "researcher", ("call", "lookup")),
        (("planner", "researcher"), "researcher", ("result", {"city": "Oslo", "weather": "sunny"})),
        (("planner", "researcher"), "researcher", ("text", "Oslo is sunny.")),
        (("planner",), "planner", ("result", {"result": "Oslo is sunny."})),
        (("planner",), "planner", ("text", "Plan: go to Oslo.")),
    ]
    assert events[-1].content.parts[0].text == "Done."


async def test_an_inner_agent_tool_without_streaming_stays_hidden() -> None:
    middle = LlmAgent(
        name="planner",
        model=ScriptedModel([function_call("researcher", {"request": "Oslo?"}), "Plan."]),
        tools=[AgentTool(researcher())],
    )
    outer = ScriptedModel([function_call("planner", {"request": "plan"}), "Done."])
    boss = LlmAgent(name="boss", model=outer, tools=[AgentTool(middle, stream_events=True)])
    events = await TestRunner(boss).run("go")
    inner = [p.agent_event for p in progress_of(events)]
    assert [e.author for e in inner] == ["planner", "planner", "planner"]
    assert all(ToolProgress.from_event(e) is None for e in inner)


async def test_a_sub_agent_that_ends_with_a_model_error_is_shown_then_an_error_result() -> None:
    failing = LlmResponse(error_code="UNAVAILABLE", error_message="model overloaded")
    child = researcher(function_call("lookup", {"city": "Oslo"}), failing)
    outer = ScriptedModel([function_call("researcher", {"request": "Oslo?"}), "Sorry."])
    boss = LlmAgent(name="boss", model=outer, tools=[AgentTool(child, stream_events=True)])
    events = await TestRunner(boss).run("go")

    inner = [describe(p.agent_event) for p in progress_of(events)]
    assert inner[-2:] == [("error", "model overloaded"), ("outcome", "failure")]
    result = next(e for e in events if e.get_function_responses()).get_function_responses()[0]
    assert result.response == {
        "status": "error",
        "error": "Agent 'researcher' failed: model overloaded",
    }


async def test_a_sub_agent_that_raises_streams_up_to_the_failure() -> None:
    child = researcher(function_call("lookup", {"city": "Oslo"}), RuntimeError("backend down"))
    outer = ScriptedModel([function_call("researcher", {"request": "Oslo?"}), "Sorry."])

    def recover(tool, args, tool_context, error):
        return {"error": f"{tool.name} failed: {error}"}

    boss = LlmAgent(
        name="boss",
        model=outer,
        tools=[AgentTool(child, stream_events=True)],
        on_tool_error_callback=recover,
    )
    events = await TestRunner(boss).run("go")
    inner = [describe(p.agent_event) for p in progress_of(events)]
    assert inner == [
        ("call", "lookup"),
        ("result", {"city": "Oslo", "weather": "sunny"}),
        ("outcome", "failure"),  # how the sub-agent's run ended
    ]
    result = next(e for e in events if e.get_function_responses()).get_function_responses()[0]
    assert result.response == {"error": "researcher failed: backend down"}
    assert events[-1].content.parts[0].text == "Sorry."


async def test_without_a_recovery_the_sub_agents_exception_ends_the_run() -> None:
    child = researcher(RuntimeError("backend down"))
    outer = ScriptedModel([function_call("researcher", {"request": "Oslo?"}), "Sorry."])
    boss = LlmAgent(name="boss", model=outer, tools=[AgentTool(child, stream_events=True)])
    with pytest.raises(RuntimeError, match="backend down"):
        await TestRunner(boss).run("go")


async def test_two_agent_tools_stream_concurrently_with_their_own_call_ids() -> None:
    first = researcher()
    second = LlmAgent(name="critic", model=ScriptedModel(["Looks fine."]))
    outer = ScriptedModel(
        [
            [
                function_call("researcher", {"request": "Oslo?"}, id="r"),
                function_call("critic", {"request": "check"}, id="c"),
            ],
            "Both done.",
        ]
    )
    tools = [AgentTool(first, stream_events=True), AgentTool(second, stream_events=True)]
    events = await TestRunner(LlmAgent(name="boss", model=outer, tools=tools)).run("go")
    by_call: dict[str, list[str]] = {}
    for p in progress_of(events):
        by_call.setdefault(p.function_call_id, []).append(p.agent_event.author)
    assert by_call == {"r": ["researcher"] * 3, "c": ["critic"]}


async def test_state_still_flows_back_and_the_option_keeps_adk_arguments() -> None:
    def remember(tool_context: ToolContext) -> str:
        tool_context.state["seen"] = "yes"
        return "stored"

    child = LlmAgent(
        name="keeper", model=ScriptedModel([function_call("remember"), "kept"]), tools=[remember]
    )
    tool = AgentTool(child, True, stream_events=True)  # google-adk's skip_summarization stays 2nd
    runner = TestRunner(
        LlmAgent(
            name="boss",
            model=ScriptedModel([function_call("keeper", {"request": "x"})]),
            tools=[tool],
        )
    )
    events = await runner.run("go")
    assert tool.skip_summarization and tool.streams_progress
    assert (await runner.state())["seen"] == "yes"
    assert len(progress_of(events)) == 3
    assert events[-1].is_final_response()  # skip_summarization: the result ends the turn


async def test_stream_events_can_be_switched_on_after_construction() -> None:
    tool = AgentTool(researcher())
    tool.stream_events = True
    assert tool.streams_progress is True
    outer = ScriptedModel([function_call("researcher", {"request": "Oslo?"}), "ok"])
    events = await TestRunner(LlmAgent(name="boss", model=outer, tools=[tool])).run("go")
    assert len(progress_of(events)) == 3
