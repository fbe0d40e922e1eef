"""Tool approval over real HTTP: the first turn streams ``approval_required`` and ends;
the answer, posted as the next turn's functionResponse (as google-adk's clients send
it), resumes the run and the tool really runs (or, rejected, never does)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest
from payments_agent import Payments
from server_support import LiveServer, read_sse, run_body

from pyadk.agents import LlmAgent
from pyadk.server import create_app
from pyadk.testing import FunctionModel, function_call


@pytest.fixture
def bank() -> Payments:
    return Payments()


@pytest.fixture
def client(serve: Callable[[Any], LiveServer], bank: Payments) -> httpx.Client:
    client = serve(create_app(agents={"payments": bank.agent()})).client()
    client.post("/apps/payments/users/alice/sessions/s1")
    return client


def post_turn(client: httpx.Client, parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    body = run_body("payments", "alice", "s1", "", newMessage={"role": "user", "parts": parts})
    with client.stream("POST", "/run_ui_events", json=body) as response:
        assert response.status_code == 200
        return [m.json() for m in read_sse(response.iter_lines()).messages]


def answer(request_id: str, confirmed: bool) -> list[dict[str, Any]]:
    """The answer part as google-adk's /run_sse accepts it."""
    response = {"id": request_id, "name": "adk_request_confirmation"}
    return [{"functionResponse": {**response, "response": {"confirmed": confirmed}}}]


def test_the_first_turn_asks_and_the_answer_runs_the_tool(
    client: httpx.Client, bank: Payments
) -> None:
    first = post_turn(client, [{"text": "pay the invoice"}])

    assert [e["type"] for e in first] == [
        "agent_active",
        "tool_start",
        "approval_required",
        "done",
    ]
    start, asked, done = first[1], first[2], first[3]
    assert bank.paid == []  # nothing ran before the answer
    assert {k: asked[k] for k in ("agent", "tool", "args", "hint", "payload", "internal")} == {
        "agent": "payments",
        "tool": "pay",
        "args": {"amount": 900},
        "hint": "Approve or reject pay(amount=900).",
        "payload": None,
        "internal": False,
    }
    assert asked["callId"] == start["callId"] and asked["requestId"]
    assert done["reason"] == "completed" and done["finalText"] is None

    second = post_turn(client, answer(asked["requestId"], True))

    assert bank.paid == [900]  # the tool really ran, once
    assert [e["type"] for e in second] == [
        "agent_active",
        "tool_end",
        "content",
        "content",
        "final",
        "done",
    ]
    end = second[1]
    assert (end["callId"], end["result"], end["isError"]) == (
        start["callId"],
        {"status": "paid", "amount": 900},
        False,
    )
    assert second[-1]["finalText"] == "Paid 900 euros. Thank you."

    history = client.get("/apps/payments/users/alice/sessions/s1/ui-events").json()
    users = [(e["text"], e["approvals"]) for e in history if e["type"] == "user_message"]
    assert users == [
        ("pay the invoice", []),
        (
            "Approved pay",
            [
                {
                    "requestId": asked["requestId"],
                    "callId": start["callId"],
                    "tool": "pay",
                    "confirmed": True,
                    "payload": None,
                }
            ],
        ),
    ]
    assert [e["type"] for e in history if e["type"].startswith(("tool", "approval"))] == [
        "tool_start",
        "approval_required",
        "tool_end",
    ]
    assert "adk_request_confirmation" not in str([e for e in history if e["type"] != "done"])


def test_a_rejected_call_never_runs(client: httpx.Client, bank: Payments) -> None:
    first = post_turn(client, [{"text": "pay the invoice"}])
    asked = next(e for e in first if e["type"] == "approval_required")

    second = post_turn(client, answer(asked["requestId"], False))

    assert bank.paid == []
    end = next(e for e in second if e["type"] == "tool_end")
    assert (end["callId"], end["result"], end["isError"]) == (
        asked["callId"],
        {"error": "This tool call is rejected."},
        True,
    )
    assert second[-1]["finalText"] == "I did not pay. You rejected it."
    history = client.get("/apps/payments/users/alice/sessions/s1/ui-events").json()
    assert [e["text"] for e in history if e["type"] == "user_message"][-1] == "Rejected pay"


def test_protocol_lists_approval_required(client: httpx.Client) -> None:
    assert "approval_required" in client.get("/ui-protocol").json()["types"]


def test_a_turn_over_budget_ends_with_a_fatal_error_and_done_budget(
    serve: Callable[[Any], LiveServer],
) -> None:
    def tick() -> str:
        """Ticks."""
        return "tock"

    looping = LlmAgent(
        name="looping", model=FunctionModel(lambda r: function_call("tick")), tools=[tick]
    )
    client = serve(create_app(agents={"looping": looping})).client()
    client.post("/apps/looping/users/alice/sessions/s1")
    body = run_body("looping", "alice", "s1", "go", runOptions={"budget": {"llmCalls": 2}})
    with client.stream("POST", "/run_ui_events", json=body) as response:
        events = [m.json() for m in read_sse(response.iter_lines()).messages]
    error, done = events[-2], events[-1]
    assert error["type"] == "error" and error["fatal"] is True
    assert error["errorType"] == "BUDGET_EXCEEDED"
    assert error["message"].startswith("Budget exceeded: llm_calls 3 of 2")
    assert (done["type"], done["reason"]) == ("done", "budget")


@pytest.mark.parametrize("route", ["/run", "/run_sse", "/run_ui_events"])
def test_an_answer_to_no_request_is_a_400_and_nothing_is_written(
    client: httpx.Client, bank: Payments, route: str
) -> None:
    body = run_body(
        "payments", "alice", "s1", "", newMessage={"role": "user", "parts": answer("nope", True)}
    )
    response = client.post(route, json=body)
    assert response.status_code == 400
    assert response.json()["detail"] == "No confirmation request 'nope' in this session to answer."
    session = client.get("/apps/payments/users/alice/sessions/s1").json()
    assert session["events"] == [] and bank.paid == []
