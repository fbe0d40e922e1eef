"""GET /debug/trace/{event_id} and /debug/trace/session/{session_id} (google-adk's debug
trace routes) over real HTTP, with the spans of pyadk.telemetry."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from opentelemetry import trace
from server_support import AGENTS_DIR, run_body

from pyadk import telemetry
from pyadk.agents import LlmAgent
from pyadk.server import create_app
from pyadk.testing import ScriptedModel, function_call
from pyadk.testing.cli_server import cli_server

OUR_SPANS = {"invocation", "invoke_agent calc", "call_llm", "execute_tool add"}


def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


def _calc(*replies: Any) -> LlmAgent:
    return LlmAgent(name="calc", model=ScriptedModel(list(replies)), tools=[add])


@pytest.fixture
def fresh_tracing() -> Iterator[None]:
    """No global tracer provider before the test; the previous state comes back after
    (``trace=True`` sets one, and OpenTelemetry allows one per process)."""
    saved = (trace._TRACER_PROVIDER, trace._TRACER_PROVIDER_SET_ONCE._done)
    trace._TRACER_PROVIDER_SET_ONCE._done = False
    trace._TRACER_PROVIDER = None
    yield
    provider: Any = trace._TRACER_PROVIDER
    if provider is not None and hasattr(provider, "shutdown"):
        provider.shutdown()
    trace._TRACER_PROVIDER, trace._TRACER_PROVIDER_SET_ONCE._done = saved


def _turn(client: httpx.Client, session: str, text: str) -> list[dict[str, Any]]:
    created = client.post(f"/apps/calc/users/alice/sessions/{session}")
    assert created.status_code in (200, 400), created.text  # 400: it exists already
    response = client.post("/run", json=run_body("calc", "alice", session, text))
    assert response.status_code == 200, response.text
    return list(response.json())


def test_event_trace_gives_the_model_or_tool_call_that_produced_the_event(serve, fresh_tracing):
    server = serve(create_app(agents={"calc": _calc(function_call("add", {"a": 1, "b": 2}), "3")}))
    # The app above was made without trace=True: a traced one follows.
    traced = serve(
        create_app(agents={"calc": _calc(function_call("add", {"a": 1, "b": 2}), "3")}, trace=True)
    )
    with traced.client() as client:
        call_event, response_event, answer = _turn(client, "s1", "what is 1+2?")

        model = client.get(f"/debug/trace/{call_event['id']}")
        tool = client.get(f"/debug/trace/{response_event['id']}")
        final = client.get(f"/debug/trace/{answer['id']}")
        missing = client.get("/debug/trace/no-such-event")

    assert model.status_code == 200, model.text
    attributes = model.json()
    assert attributes["gcp.vertex.agent.event_id"] == call_event["id"]
    assert attributes["gcp.vertex.agent.session_id"] == "s1"
    assert attributes["gcp.vertex.agent.invocation_id"] == call_event["invocationId"]
    assert attributes["gen_ai.request.model"] == "scripted"
    assert isinstance(attributes["trace_id"], int) and isinstance(attributes["span_id"], int)
    request = json.loads(attributes["gcp.vertex.agent.llm_request"])
    assert request["contents"][0]["parts"] == [{"text": "what is 1+2?"}]

    assert tool.status_code == 200
    assert tool.json()["gen_ai.tool.name"] == "add"
    assert json.loads(tool.json()["gcp.vertex.agent.tool_response"]) == {"result": 3}
    assert tool.json()["trace_id"] == attributes["trace_id"]
    assert final.json()["gcp.vertex.agent.event_id"] == answer["id"]

    assert missing.status_code == 404
    assert missing.json()["detail"] == "Trace not found"
    with server.client() as client:  # the untraced app shares no store
        assert client.get(f"/debug/trace/{call_event['id']}").status_code == 404


def test_session_trace_lists_the_spans_of_each_turn(serve, fresh_tracing):
    agent = _calc(function_call("add", {"a": 1, "b": 2}), "3", "bye")
    server = serve(create_app(agents={"calc": agent}, trace=True))
    with server.client() as client:
        first_turn = _turn(client, "s1", "what is 1+2?")
        _turn(client, "s1", "thanks")
        spans = client.get("/debug/trace/session/s1").json()
        other = client.get("/debug/trace/session/someone-else").json()

    assert other == []
    assert set(spans[0]) == {
        "name",
        "span_id",
        "trace_id",
        "start_time",
        "end_time",
        "attributes",
        "parent_span_id",
    }
    ours = [s for s in spans if s["name"] in OUR_SPANS]
    first = ["invocation", "invoke_agent calc", "call_llm", "execute_tool add", "call_llm"]
    second = ["invocation", "invoke_agent calc", "call_llm"]
    assert sorted(s["name"] for s in ours) == sorted(first + second)
    invocations = [s for s in ours if s["name"] == "invocation"]
    assert len({s["trace_id"] for s in invocations}) == 2  # one trace per turn
    assert (
        invocations[0]["attributes"]["gcp.vertex.agent.invocation_id"]
        == (first_turn[0]["invocationId"])
    )
    by_id = {s["span_id"]: s for s in spans}
    for span in ours:
        assert span["start_time"] <= span["end_time"]
        if span["name"] == "invoke_agent calc":
            assert by_id[span["parent_span_id"]]["name"] == "invocation"
        elif span["name"] in ("call_llm", "execute_tool add"):
            assert by_id[span["parent_span_id"]]["name"] == "invoke_agent calc"
            assert span["trace_id"] == by_id[span["parent_span_id"]]["trace_id"]


def test_without_trace_the_routes_find_nothing_and_nothing_is_traced(serve, fresh_tracing):
    server = serve(create_app(agents={"calc": _calc(function_call("add", {"a": 1}), "no")}))
    with server.client() as client:
        events = _turn(client, "s1", "add one")
        assert client.get(f"/debug/trace/{events[0]['id']}").status_code == 404
        assert client.get("/debug/trace/session/s1").json() == []

    assert not telemetry.is_tracing()


def test_trace_routes_need_a_token_for_any_user(serve, fresh_tracing):
    app = create_app(
        agents={"calc": _calc("hello")},
        auth_token={"alice-token": "alice", "admin-token": "*"},
        trace=True,
    )
    server = serve(app)
    with server.client(Authorization="Bearer alice-token") as alice:
        events = _turn(alice, "s1", "hi")
        denied = alice.get(f"/debug/trace/{events[0]['id']}")
        denied_session = alice.get("/debug/trace/session/s1")
    with server.client(Authorization="Bearer admin-token") as admin:
        allowed = admin.get(f"/debug/trace/{events[0]['id']}")
    with server.client() as anonymous:
        unauthenticated = anonymous.get("/debug/trace/session/s1")

    assert denied.status_code == 403 and denied_session.status_code == 403
    assert "need a token for any user" in denied.json()["detail"]
    assert allowed.status_code == 200
    assert allowed.json()["gcp.vertex.agent.event_id"] == events[0]["id"]
    assert unauthenticated.status_code == 401


@pytest.mark.parametrize("how", ["flag", "environment"])
def test_api_server_trace_option_serves_the_sessions_spans(how: str):
    env = {**os.environ, "PYADK_DEFAULT_MODEL": "none"}
    args = ["api_server", str(AGENTS_DIR)]
    if how == "flag":
        args.append("--trace")
    else:
        env["PYADK_TRACE"] = "1"
    with (
        cli_server(*args, env=env) as server,
        httpx.Client(base_url=server.url, timeout=10) as client,
    ):
        assert client.post("/apps/chat/users/u/sessions/s1").status_code == 200
        events = client.post("/run", json=run_body("chat", "u", "s1", "hi")).json()
        spans = client.get("/debug/trace/session/s1").json()
        answer = client.get(f"/debug/trace/{events[-1]['id']}").json()

    assert {"invocation", "invoke_agent chat", "call_llm"} <= {s["name"] for s in spans}
    assert answer["gen_ai.agent.name"] == "chat"
