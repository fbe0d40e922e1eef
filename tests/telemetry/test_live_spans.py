"""Spans of live runs: ``send_data`` (the history sent to a new connection, as google-adk
records it) and the ``execute_tool`` spans of the live run's tool calls."""

from __future__ import annotations

import json

import pytest

from pyadk import types
from pyadk.agents import LiveRequestQueue, LlmAgent, RunConfig
from pyadk.events.event import Event
from pyadk.runners import Runner
from pyadk.sessions.in_memory_session_service import InMemorySessionService
from pyadk.telemetry import live_spans
from pyadk.testing import ScriptedLiveModel, function_call

TEXT = RunConfig(response_modalities=[types.Modality.TEXT])


def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


async def _live_turn(runner: Runner, session_id: str, content: types.Content) -> list[Event]:
    """One live run: ``content`` sent, the queue closed after the model's turn."""
    queue = LiveRequestQueue()
    queue.send_content(content)
    events = []
    async for event in runner.run_live(
        user_id="u", session_id=session_id, live_request_queue=queue, run_config=TEXT
    ):
        events.append(event)
        if event.turn_complete:
            queue.close()
    return events


async def _two_runs(model: ScriptedLiveModel) -> tuple[Runner, list[Event]]:
    """A first live run (a user message with an image) then a second one, whose new
    connection is sent the session's history."""
    agent = LlmAgent(name="voice", model=model, tools=[add])
    service = InMemorySessionService()
    runner = Runner(app_name="live_app", agent=agent, session_service=service)
    session = await service.create_session(app_name="live_app", user_id="u")
    picture = types.Part(inline_data=types.Blob(mime_type="image/png", data=b"\x89PNG...."))
    first = types.Content(role="user", parts=[types.Part(text="look at this"), picture])
    await _live_turn(runner, session.id, first)
    again = types.Content(role="user", parts=[types.Part(text="and now?")])
    events = await _live_turn(runner, session.id, again)
    return runner, events


async def test_the_history_sent_to_a_new_connection_is_a_send_data_span(tracing) -> None:
    model = ScriptedLiveModel(["A cat.", "Nice."])

    _, events = await _two_runs(model)

    # The first run had no history to send; the second sent the first run's two turns.
    span = tracing.one("send_data")
    assert span.attributes is not None
    values = dict(span.attributes)
    assert values["gcp.vertex.agent.invocation_id"] == events[-1].invocation_id
    assert values["gen_ai.agent.name"] == "voice"
    assert isinstance(values["gcp.vertex.agent.event_id"], str)
    assert values["pyadk.llm.request.contents"] == 2
    data = json.loads(str(values["gcp.vertex.agent.data"]))
    assert data == [
        {
            "role": "user",
            "parts": [{"text": "look at this"}, {"text": "<inline_data: image/png, 8 bytes>"}],
        },
        {"role": "model", "parts": [{"text": "A cat."}]},
    ]
    assert tracing.open_spans.open == {}


async def test_a_live_run_is_an_invoke_agent_span_around_its_send_data_and_tools(
    tracing,
) -> None:
    model = ScriptedLiveModel(["A cat.", function_call("add", {"a": 2, "b": 3}), "5."])

    await _two_runs(model)

    runs = tracing.named("invoke_agent voice")
    assert len(runs) == 2  # one span per live run
    for run in runs:
        assert run.attributes is not None
        assert run.attributes["gen_ai.operation.name"] == "invoke_agent"
        assert run.attributes["gen_ai.agent.name"] == "voice"
    assert tracing.parent_of(tracing.one("send_data")) is runs[1]
    assert tracing.parent_of(tracing.one("execute_tool add")) is runs[1]
    assert tracing.open_spans.open == {}


async def test_send_data_leaves_content_out_when_capture_is_off(
    tracing, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS", "false")
    model = ScriptedLiveModel(["A cat.", "Nice."])

    await _two_runs(model)

    attributes = tracing.one("send_data").attributes
    assert attributes is not None and attributes["gcp.vertex.agent.data"] == "{}"


async def test_a_live_tool_call_has_its_execute_tool_span(tracing) -> None:
    model = ScriptedLiveModel([function_call("add", {"a": 2, "b": 3}), "5."])
    agent = LlmAgent(name="voice", model=model, tools=[add])
    service = InMemorySessionService()
    runner = Runner(app_name="live_app", agent=agent, session_service=service)
    session = await service.create_session(app_name="live_app", user_id="u")

    events = await _live_turn(
        runner, session.id, types.Content(role="user", parts=[types.Part(text="2+3?")])
    )

    assert [e.text for e in events if e.text] == ["5."]
    span = tracing.one("execute_tool add")
    assert span.attributes is not None
    assert span.attributes["gen_ai.tool.name"] == "add"
    assert span.attributes["gcp.vertex.agent.tool_response"] == '{"result": 5}'
    assert tracing.named("send_data") == []  # a new session: no history to send


async def test_no_span_is_made_without_a_tracer_provider(
    no_global_provider: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("no span without a tracer")

    monkeypatch.setattr(live_spans.SendDataSpan, "__init__", refuse)
    model = ScriptedLiveModel(["A cat.", "Nice."])

    _, events = await _two_runs(model)

    assert [e.text for e in events if e.text] == ["Nice."]
    assert len(model.connections[1].history) == 2
