"""tool_progress UI events: a tool's reports and an AgentTool sub-agent's events, from the
converter and over a real server (/run_ui_events, /run_sse)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

from server_support import LiveServer, parse_sse_lines, read_sse, run_body

from pyadk.agents import LlmAgent
from pyadk.events.event import Event
from pyadk.server import create_app
from pyadk.server.ui_convert import UiEventConverter
from pyadk.server.ui_events import UI_EVENT_ADAPTER, ToolProgressEvent, UiEvent
from pyadk.testing import ScriptedModel, TestRunner, function_call
from pyadk.tools import AgentTool, FunctionTool, ToolContext


async def crunch(size: int, tool_context: ToolContext) -> dict:
    """Crunches numbers.

    Args:
      size: how many.
    """
    for done in range(1, size + 1):
        tool_context.report_progress({"done": done, "of": size})
        await asyncio.sleep(0)
    return {"crunched": size}


def cruncher() -> LlmAgent:
    model = ScriptedModel([function_call("crunch", {"size": 2}, id="c1"), "Crunched."])
    return LlmAgent(name="worker", model=model, tools=[FunctionTool(crunch, streams_progress=True)])


def lookup(city: str) -> dict:
    """Looks a city up.

    Args:
      city: the city.
    """
    return {"weather": "sunny"}


def team() -> LlmAgent:
    researcher = LlmAgent(
        name="researcher",
        model=ScriptedModel([function_call("lookup", {"city": "Oslo"}, id="l1"), "Oslo is sunny."]),
        tools=[lookup],
    )
    model = ScriptedModel([function_call("researcher", {"request": "Oslo?"}, id="r1"), "Sunny."])
    return LlmAgent(name="boss", model=model, tools=[AgentTool(researcher, stream_events=True)])


def run_ui(agent: Any, events: list[Event]) -> list[UiEvent]:
    converter = UiEventConverter(run_id="r", root_agent=agent)
    return [ui for event in events for ui in converter.convert(event)] + converter.finish()


async def test_reports_become_tool_progress_between_tool_start_and_tool_end() -> None:
    agent = cruncher()
    ui = run_ui(agent, await TestRunner(agent).run("go"))

    assert [e.type for e in ui] == [
        "agent_active",
        "tool_start",
        "tool_progress",
        "tool_progress",
        "tool_end",
        "content",
        "final",
        "done",
    ]
    progress = [e for e in ui if isinstance(e, ToolProgressEvent)]
    assert [(e.call_id, e.tool, e.agent, e.data, e.sub_event) for e in progress] == [
        ("c1", "crunch", "worker", {"done": 1, "of": 2}, None),
        ("c1", "crunch", "worker", {"done": 2, "of": 2}, None),
    ]
    assert all(e.internal for e in progress)
    data = progress[0].to_json_dict()
    assert data["type"] == "tool_progress" and data["callId"] == "c1" and data["subEvent"] is None
    assert UI_EVENT_ADAPTER.validate_python(data) == progress[0]


async def test_sub_agent_events_are_nested_ui_events_of_the_call() -> None:
    agent = team()
    ui = run_ui(agent, await TestRunner(agent).run("go"))

    top = [(e.type, getattr(e, "tool", None)) for e in ui]
    assert top[:2] == [("agent_active", None), ("tool_start", "researcher")]
    assert top[-4:] == [
        ("tool_end", "researcher"),
        ("content", None),
        ("final", None),
        ("done", None),
    ]
    nested = [e for e in ui if isinstance(e, ToolProgressEvent)]
    assert {(e.call_id, e.tool, e.agent) for e in nested} == {("r1", "researcher", "boss")}
    subs = [e.sub_event for e in nested]
    assert [(s.type, s.agent) for s in subs] == [
        ("agent_active", "researcher"),
        ("tool_start", "researcher"),
        ("tool_end", "researcher"),
        ("content", "researcher"),
        ("final", "researcher"),
        ("done", "researcher"),  # the nested stream ends before the call's tool_end
    ]
    assert (subs[1].tool, subs[1].call_id, subs[1].args) == ("lookup", "l1", {"city": "Oslo"})
    assert subs[4].text == "Oslo is sunny."
    # The chat holds only the caller's answer; the sub-agent's text stays in the call.
    finals = [e.text for e in ui if e.type == "final"]
    assert finals == ["Sunny."]
    done = ui[-1]
    assert done.type == "done" and done.final_text == "Sunny."
    round_trip = UI_EVENT_ADAPTER.validate_python(nested[3].to_json_dict())
    assert round_trip == nested[3] and round_trip.sub_event.delta == "Oslo is sunny."


async def test_without_streaming_options_no_tool_progress() -> None:
    plain = LlmAgent(
        name="boss",
        model=ScriptedModel([function_call("lookup", {"city": "Oslo"}), "Sunny."]),
        tools=[lookup],
    )
    ui = run_ui(plain, await TestRunner(plain).run("go"))
    assert "tool_progress" not in [e.type for e in ui]


def test_tool_progress_over_the_server_arrives_while_the_tool_runs(
    serve: Callable[[Any], LiveServer],
) -> None:
    gate = threading.Event()

    async def deploy(tool_context: ToolContext) -> str:
        """Deploys."""
        tool_context.report_progress("uploading")
        await asyncio.to_thread(gate.wait, 30)
        return "deployed"

    model = ScriptedModel([function_call("deploy", id="d1"), "Deployed."])
    agent = LlmAgent(name="ops", model=model, tools=[FunctionTool(deploy, streams_progress=True)])
    client = serve(create_app(agents={"ops": agent})).client()
    client.post("/apps/ops/users/alice/sessions/s1")
    assert "tool_progress" in client.get("/ui-protocol").json()["types"]

    events = []
    try:
        with client.stream(
            "POST", "/run_ui_events", json=run_body("ops", "alice", "s1", "deploy")
        ) as response:
            assert response.status_code == 200
            for message in parse_sse_lines(response.iter_lines()):
                if isinstance(message, str):
                    continue
                event = message.json()
                events.append(event)
                if event["type"] == "tool_progress":
                    assert not gate.is_set()  # streamed while the tool waits
                    gate.set()
    finally:
        gate.set()

    assert [e["type"] for e in events] == [
        "agent_active",
        "tool_start",
        "tool_progress",
        "tool_end",
        "content",
        "final",
        "done",
    ]
    progress = events[2]
    assert (progress["callId"], progress["tool"], progress["data"]) == ("d1", "deploy", "uploading")
    assert progress["agent"] == "ops" and progress["internal"] is True
    history = client.get("/apps/ops/users/alice/sessions/s1/ui-events").json()
    assert "tool_progress" not in [e["type"] for e in history]  # never stored


def test_sub_agent_progress_over_run_ui_events_and_run_sse(
    serve: Callable[[Any], LiveServer],
) -> None:
    client = serve(create_app(agents={"team": team(), "team2": team()})).client()
    client.post("/apps/team/users/alice/sessions/s1")
    with client.stream("POST", "/run_ui_events", json=run_body("team", "alice", "s1", "go")) as r:
        events = [m.json() for m in read_sse(r.iter_lines()).messages]
    subs = [
        (e["subEvent"]["type"], e["subEvent"]["agent"])
        for e in events
        if e["type"] == "tool_progress"
    ]
    assert ("tool_start", "researcher") in subs and ("final", "researcher") in subs
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))

    client.post("/apps/team2/users/alice/sessions/s1")
    with client.stream("POST", "/run_sse", json=run_body("team2", "alice", "s1", "go")) as r:
        raw = [m.json() for m in read_sse(r.iter_lines()).messages]
    forwarded = [e for e in raw if e.get("partial") and "customMetadata" in e]
    assert len(forwarded) == 3
    payload = forwarded[0]["customMetadata"]["tool_progress"]
    assert (payload["function_call_id"], payload["tool_name"]) == ("r1", "researcher")
    assert payload["agent_event"]["author"] == "researcher"
    assert payload["agent_event"]["content"]["parts"][0]["functionCall"]["name"] == "lookup"
    stored = client.get("/apps/team2/users/alice/sessions/s1").json()["events"]
    assert all(not e.get("partial") for e in stored) and len(stored) == 4
