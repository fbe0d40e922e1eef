"""Tool progress in live runs: reports and an AgentTool's sub-agent events reach the
client as partial events, at once, never stored and never sent to the live model."""

from __future__ import annotations

import asyncio
import json

from live_support import make_harness, texts, user

from pyadk import types
from pyadk.agents import LiveRequestQueue, LlmAgent
from pyadk.events.event import Event
from pyadk.testing import ScriptedLiveModel, ScriptedModel, function_call
from pyadk.tools import AgentTool, FunctionTool, ToolContext
from pyadk.tools.tool_progress import ToolProgress


def progress_of(events: list[Event]) -> list[ToolProgress]:
    return [p for e in events if (p := ToolProgress.from_event(e)) is not None]


def sent_json(model: ScriptedLiveModel) -> str:
    return json.dumps([item.model_dump(mode="json") for c in model.connections for item in c.sent])


async def test_a_live_tools_reports_reach_the_client_while_it_runs() -> None:
    gate = asyncio.Event()
    seen_before_the_end: list[ToolProgress] = []

    async def download(name: str, tool_context: ToolContext) -> dict[str, str]:
        """Downloads a file."""
        assert tool_context.report_progress("started")
        await gate.wait()  # the client sees "started" while the tool waits
        assert tool_context.report_progress({"percent": 100})
        return {"file": name}

    model = ScriptedLiveModel(
        [function_call("download", {"name": "a.txt"}, id="d1"), "Downloaded."]
    )
    agent = LlmAgent(
        name="assistant", model=model, tools=[FunctionTool(download, streams_progress=True)]
    )
    live = await make_harness(agent)
    queue = LiveRequestQueue()
    queue.send_content(user("get a.txt"))

    def watch(event: Event) -> None:
        progress = ToolProgress.from_event(event)
        if progress is not None and not gate.is_set():
            seen_before_the_end.append(progress)
            gate.set()

    events = await live.run(queue, close_after_turns=2, on_event=watch)

    assert [p.data for p in seen_before_the_end] == ["started"]
    progress = progress_of(events)
    assert [(p.function_call_id, p.tool_name, p.data) for p in progress] == [
        ("d1", "download", "started"),
        ("d1", "download", {"percent": 100}),
    ]
    reports = [e for e in events if ToolProgress.from_event(e)]
    assert all(e.partial and e.author == "assistant" and e.content is None for e in reports)
    result = next(e for e in events if e.get_function_responses())
    assert events.index(result) > events.index(reports[-1])
    assert result.get_function_responses()[0].response == {"file": "a.txt"}
    assert texts(events)[-1] == "Downloaded."
    # The live model got the result only; the session stores no progress.
    sent = sent_json(model)
    assert "percent" not in sent and "started" not in sent and "a.txt" in sent
    stored = await live.stored()
    assert not any(ToolProgress.from_event(e) for e in stored)
    assert all(not e.partial for e in stored)


async def test_an_agent_tools_sub_agent_events_are_forwarded_in_live_mode() -> None:
    def lookup(city: str) -> dict[str, str]:
        """Looks a city up."""
        return {"city": city, "weather": "sunny"}

    researcher = LlmAgent(
        name="researcher",
        description="Researches.",
        model=ScriptedModel([function_call("lookup", {"city": "Oslo"}), "Oslo is sunny."]),
        tools=[lookup],
    )
    model = ScriptedLiveModel(
        [function_call("researcher", {"request": "Oslo?"}, id="r1"), "It is sunny."]
    )
    boss = LlmAgent(name="boss", model=model, tools=[AgentTool(researcher, stream_events=True)])
    live = await make_harness(boss)
    queue = LiveRequestQueue()
    queue.send_content(user("weather in Oslo?"))

    events = await live.run(queue, close_after_turns=2)

    progress = progress_of(events)
    assert {(p.function_call_id, p.tool_name) for p in progress} == {("r1", "researcher")}
    inner = [p.agent_event for p in progress]
    assert all(e is not None and e.author == "researcher" for e in inner)
    texts_inside = [
        e.content.parts[0].text
        for e in inner
        if e is not None and e.content is not None and e.content.parts and e.content.parts[0].text
    ]
    assert texts_inside == ["Oslo is sunny."]
    result = next(e for e in events if e.get_function_responses())
    assert result.get_function_responses()[0].response == {"result": "Oslo is sunny."}
    assert "lookup" not in sent_json(model)
    stored = await live.stored()
    assert not any(ToolProgress.from_event(e) for e in stored)


async def test_reports_of_a_tool_that_does_not_stream_are_dropped_in_live_mode() -> None:
    sent: list[bool] = []

    def quiet(tool_context: ToolContext) -> str:
        """Works quietly."""
        sent.append(tool_context.report_progress("ignored"))
        return "done"

    model = ScriptedLiveModel([function_call("quiet", id="q1"), "Done."])
    live = await make_harness(LlmAgent(name="assistant", model=model, tools=[quiet]))
    queue = LiveRequestQueue()
    queue.send_content(user("go"))

    events = await live.run(queue, close_after_turns=2)

    assert sent == [False]
    assert progress_of(events) == []
    assert texts(events)[-1] == "Done."
    assert isinstance(model.connections[0].sent[1], types.Content)
