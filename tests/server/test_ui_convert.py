"""UiEventConverter on real runner events: silent handoffs, deltas vs final, tools, ends."""

from __future__ import annotations

import json
from typing import Any

from payments_agent import Payments

from pyadk import types
from pyadk.agents import LlmAgent, RunConfig, SequentialAgent, StreamingMode
from pyadk.events.event import Event
from pyadk.server.ui_convert import UiEventConverter
from pyadk.server.ui_events import UI_EVENT_ADAPTER, UiEvent
from pyadk.testing import FunctionModel, ScriptedModel, Stream, TestRunner, function_call
from pyadk.tools import ToolContext
from pyadk.tools.tool_confirmation import (
    REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
    confirmation_answer,
    confirmation_requests,
)

SSE = RunConfig(streaming_mode=StreamingMode.SSE)
TRANSFER = function_call("transfer_to_agent", {"agent_name": "code_reviewer"})


def review_code(code: str) -> dict:
    """Reviews code.

    Args:
      code: the code.
    """
    return {"issues": 2}


def team(orchestrator_reply: Any, reviewer_final: Any) -> LlmAgent:
    reviewer = LlmAgent(
        name="code_reviewer",
        description="Code review specialist",
        model=ScriptedModel([function_call("review_code", {"code": "x"}), reviewer_final]),
        tools=[review_code],
    )
    return LlmAgent(
        name="orchestrator", model=ScriptedModel([orchestrator_reply]), sub_agents=[reviewer]
    )


def run_ui(agent: Any, events: list[Event], run_id: str = "r") -> list[UiEvent]:
    """The UI events of one run (or of a stored session, without ``finish``)."""
    converter = UiEventConverter(run_id=run_id, root_agent=agent)
    out = [ui for event in events for ui in converter.convert(event)]
    return out + converter.finish()


async def convert(agent: Any, run_config: RunConfig | None = None) -> list[UiEvent]:
    events = await TestRunner(agent).run("review my code", run_config=run_config)
    return run_ui(agent, events)


def chat_text(ui: list[UiEvent]) -> str:
    return "".join(e.delta for e in ui if e.type == "content")


def summary(ui: list[UiEvent]) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for e in ui:
        if e.type == "thinking":
            rows.append((e.type, e.agent or "", e.kind, e.text))
        elif e.type in ("tool_start", "tool_end", "approval_required"):
            rows.append((e.type, e.agent or "", e.tool))
        elif e.type == "agent_active":
            rows.append((e.type, e.agent or "", e.reason))
        elif e.type == "content":
            rows.append((e.type, e.agent or "", e.delta))
        elif e.type == "final":
            rows.append((e.type, e.agent or "", e.text, "interim" if e.interim else "answer"))
        elif e.type == "done":
            rows.append((e.type, e.reason))
        else:
            rows.append((e.type,))
    return rows


async def test_streamed_handoff_is_silent_and_the_specialist_streams_the_answer() -> None:
    agent = team(
        Stream(["Transferring you ", "to the code reviewer. ", TRANSFER]),
        Stream(["Found 2 ", "issues. ", "Fix the loop."]),
    )

    ui = await convert(agent, SSE)

    assert summary(ui) == [
        ("agent_active", "orchestrator", "start"),
        ("thinking", "orchestrator", "handoff_text", "Transferring you to the code reviewer."),
        ("thinking", "orchestrator", "handoff", "Handing off to code_reviewer"),
        ("agent_active", "code_reviewer", "transfer"),
        ("tool_start", "code_reviewer", "review_code"),
        ("tool_end", "code_reviewer", "review_code"),
        ("content", "code_reviewer", "Found 2 issues. "),
        ("content", "code_reviewer", "Fix the loop."),
        ("final", "code_reviewer", "Found 2 issues. Fix the loop.", "answer"),
        ("done", "completed"),
    ]
    assert "transfer" not in chat_text(ui).lower()
    assert ui[-1].type == "done" and ui[-1].final_text == "Found 2 issues. Fix the loop."
    active = next(e for e in ui if e.type == "agent_active" and e.agent == "code_reviewer")
    assert active.description == "Code review specialist"
    assert active.previous_agent == "orchestrator"


async def test_non_streamed_text_in_a_transfer_turn_never_reaches_the_chat() -> None:
    # no announcement phrase at all: the transfer call in the same turn is enough
    agent = team(["Great question, one moment.", TRANSFER], "Found 2 issues.")

    ui = await convert(agent)

    assert chat_text(ui) == "Found 2 issues."
    handoff = [e for e in ui if e.type == "thinking" and e.kind.startswith("handoff")]
    assert [(e.kind, e.text) for e in handoff] == [
        ("handoff_text", "Great question, one moment."),
        ("handoff", "Handing off to code_reviewer"),
    ]
    assert handoff[1].data == {
        "from": "orchestrator",
        "to": "code_reviewer",
        "callId": handoff[1].data["callId"],
    }


async def test_announcement_sentence_is_filtered_but_ordinary_text_stays() -> None:
    agent = LlmAgent(
        name="bank",
        model=ScriptedModel(
            [Stream(["I transferred $50 to your savings. ", "Let me hand you over to our team."])]
        ),
    )

    ui = await convert(agent, SSE)

    assert chat_text(ui) == "I transferred $50 to your savings. "
    assert [e.text for e in ui if e.type == "thinking"] == ["Let me hand you over to our team."]


async def test_every_message_gets_one_final_equal_to_its_deltas() -> None:
    lookup_calls: list[str] = []

    def lookup(q: str) -> dict:
        """Looks up.

        Args:
          q: the query.
        """
        lookup_calls.append(q)
        return {"answer": 42}

    agent = LlmAgent(
        name="root",
        model=ScriptedModel(
            [
                Stream(["Let me check. ", function_call("lookup", {"q": "x"})]),
                Stream(["It is ", "42."]),
            ]
        ),
        tools=[lookup],
    )

    ui = await convert(agent, SSE)

    finals = [e for e in ui if e.type == "final"]
    for final in finals:
        deltas = [e.delta for e in ui if e.type == "content" and e.message_id == final.message_id]
        assert final.text == "".join(deltas)
    assert [(f.text, f.interim) for f in finals] == [("Let me check. ", True), ("It is 42.", False)]
    assert len({f.message_id for f in finals}) == 2
    assert lookup_calls == ["x"]  # the partial function call did not produce a tool_start
    assert [e.type for e in ui if e.type.startswith("tool")] == ["tool_start", "tool_end"]
    start, end = (e for e in ui if e.type.startswith("tool"))
    assert (
        start.call_id == end.call_id and start.args == {"q": "x"} and end.result == {"answer": 42}
    )


async def test_final_carries_the_stored_text_when_a_callback_changed_the_answer() -> None:
    def redact(callback_context: Any, llm_response: Any) -> Any:
        if llm_response.partial:
            return None
        return llm_response.model_copy(update={"content": types.ModelContent("[redacted]")})

    agent = LlmAgent(
        name="root",
        model=ScriptedModel([Stream(["My password ", "is hunter2."])]),
        after_model_callback=redact,
    )

    ui = await convert(agent, SSE)

    final = next(e for e in ui if e.type == "final")
    assert chat_text(ui) == "My password is hunter2."  # already streamed, cannot be unsent
    assert final.text == "[redacted]"  # what is stored (and what a reload shows)
    assert ui[-1].final_text == "[redacted]"


async def test_streamed_preamble_of_a_transfer_turn_is_withdrawn_by_final() -> None:
    agent = team(Stream(["Sure thing. ", "One moment", TRANSFER]), "Done.")

    ui = await convert(agent, SSE)

    first = [e for e in ui if e.type in ("content", "final") and e.agent == "orchestrator"]
    assert [(e.type, getattr(e, "delta", None) or getattr(e, "text", None)) for e in first] == [
        ("content", "Sure thing. "),
        ("final", ""),  # the whole transfer turn is internal: the client clears it
    ]
    assert first[1].interim is True
    assert [e.text for e in ui if e.type == "thinking" and e.kind == "handoff_text"] == [
        "One moment"
    ]


async def test_tool_error_result_is_flagged() -> None:
    def fails() -> dict:
        """Fails."""
        return {"error": "disk full"}

    agent = LlmAgent(
        name="root", model=ScriptedModel([function_call("fails"), "Sorry."]), tools=[fails]
    )

    ui = await convert(agent)

    end = next(e for e in ui if e.type == "tool_end")
    assert end.is_error is True and end.result == {"error": "disk full"} and end.internal is True


async def test_workflow_steps_switch_agents_and_outcomes_are_thinking_entries() -> None:
    first = LlmAgent(name="first", model=ScriptedModel(["One."]), output_key="one")
    second = LlmAgent(name="second", model=ScriptedModel(["Two."]))
    flow = SequentialAgent(name="flow", sub_agents=[first, second])

    ui = await convert(flow, RunConfig(record_outcomes="all"))

    assert summary(ui) == [
        ("agent_active", "first", "start"),
        ("content", "first", "One."),
        ("final", "first", "One.", "answer"),
        ("thinking", "first", "state", "State updated: one"),
        ("thinking", "first", "outcome", "first: success"),
        ("agent_active", "second", "switch"),
        ("content", "second", "Two."),
        ("final", "second", "Two.", "answer"),
        ("thinking", "second", "outcome", "second: success"),
        ("thinking", "flow", "outcome", "flow: success"),
        ("done", "completed"),
    ]
    outcome = next(e for e in ui if e.type == "thinking" and e.kind == "outcome")
    assert outcome.data == {"agent": "first", "status": "success"}
    assert next(e for e in ui if e.type == "thinking" and e.kind == "state").data == {"one": "One."}


async def test_failure_after_streaming_started_closes_the_message_then_error_then_done() -> None:
    converter = UiEventConverter(run_id="r")
    partial = Event(
        author="root",
        invocation_id="inv",
        partial=True,
        content=types.ModelContent("Half a sentence"),
    )

    ui = converter.convert(partial) + converter.fail(RuntimeError("backend exploded"))

    assert summary(ui) == [
        ("agent_active", "root", "start"),
        ("content", "root", "Half a sentence"),
        ("final", "root", "Half a sentence", "answer"),
        ("error",),
        ("done", "error"),
    ]
    assert ui[2].truncated is True
    error = ui[3]
    assert (error.message, error.error_type, error.fatal) == (
        "backend exploded",
        "RuntimeError",
        True,
    )
    assert ui[4].final_text is None  # a truncated message is not an answer
    assert converter.finish() == [] and converter.convert(partial) == []  # ended once


async def test_model_error_event_is_a_non_fatal_error() -> None:
    converter = UiEventConverter(run_id="r")
    event = Event(author="root", error_code="429", error_message="Rate limited")

    ui = converter.convert(event) + converter.finish()

    assert [(e.type, getattr(e, "fatal", None)) for e in ui] == [
        ("agent_active", None),
        ("error", False),
        ("done", None),
    ]
    assert ui[1].message == "Rate limited" and ui[1].error_type == "429"


async def test_cancel_ends_with_done_cancelled() -> None:
    converter = UiEventConverter(run_id="r")

    ui = converter.cancel()

    assert [(e.type, e.reason) for e in ui] == [("done", "cancelled")]


async def test_thoughts_go_to_the_thinking_panel() -> None:
    thought = types.Part(text="The user wants a haiku.", thought=True)
    agent = LlmAgent(name="root", model=ScriptedModel([[thought, "Leaves fall."]]))

    ui = await convert(agent)

    assert summary(ui)[1:4] == [
        ("thinking", "root", "thought", "The user wants a haiku."),
        ("content", "root", "Leaves fall."),
        ("final", "root", "Leaves fall.", "answer"),
    ]


async def test_ids_sequence_and_json_round_trip() -> None:
    agent = team([TRANSFER], "Done.")

    ui = await convert(agent)

    assert [e.seq for e in ui] == list(range(1, len(ui) + 1))
    assert [e.id for e in ui] == [f"r:{n}" for n in range(1, len(ui) + 1)]
    assert [e.internal for e in ui if e.type in ("content", "final", "done")] == [False] * 3
    assert all(e.internal for e in ui if e.type in ("thinking", "agent_active", "tool_start"))
    for event in ui:
        data = event.to_json_dict()
        assert data["v"] == 1 and data["runId"] == "r" and "run_id" not in data
        assert UI_EVENT_ADAPTER.validate_python(data) == event


async def test_a_step_skipped_by_its_callback_shows_its_answer_then_its_outcome() -> None:
    def closed(callback_context: Any) -> types.Content:
        callback_context.state["checked"] = True
        return types.ModelContent("Closed today.")

    gate = LlmAgent(name="gate", model=ScriptedModel([]), before_agent_callback=closed)
    after = LlmAgent(name="after", model=ScriptedModel(["Bye."]))
    flow = SequentialAgent(name="flow", sub_agents=[gate, after])

    ui = await convert(flow)

    assert summary(ui) == [
        ("agent_active", "gate", "start"),
        ("content", "gate", "Closed today."),
        ("final", "gate", "Closed today.", "answer"),
        ("thinking", "gate", "state", "State updated: checked"),
        ("thinking", "gate", "outcome", "gate: skipped: before_agent_callback returned content"),
        ("agent_active", "after", "switch"),
        ("content", "after", "Bye."),
        ("final", "after", "Bye.", "answer"),
        ("done", "completed"),
    ]


async def test_a_call_waiting_for_approval_is_approval_required_not_a_failed_tool() -> None:
    bank = Payments(preface="Let me pay that.")
    agent = bank.agent()

    ui = run_ui(agent, await TestRunner(agent).run("pay the invoice"))

    assert summary(ui) == [
        ("agent_active", "payments", "start"),
        ("content", "payments", "Let me pay that."),
        ("final", "payments", "Let me pay that.", "interim"),
        ("tool_start", "payments", "pay"),
        ("approval_required", "payments", "pay"),  # no tool_end: the call waits
        ("done", "completed"),
    ]
    assert bank.paid == []
    start, asked = ui[3], ui[4]
    assert asked.type == "approval_required" and start.type == "tool_start"
    assert asked.call_id == start.call_id and asked.request_id != start.call_id
    assert (asked.tool, asked.args, asked.hint, asked.payload) == (
        "pay",
        {"amount": 900},
        "Approve or reject pay(amount=900).",
        None,
    )
    assert asked.internal is False  # the chat shows it: the person must answer
    assert ui[-1].final_text is None  # the interim text is not an answer
    data = asked.to_json_dict()
    assert {k: data[k] for k in ("type", "requestId", "callId", "tool", "args", "hint")} == {
        "type": "approval_required",
        "requestId": asked.request_id,
        "callId": start.call_id,
        "tool": "pay",
        "args": {"amount": 900},
        "hint": "Approve or reject pay(amount=900).",
    }
    assert UI_EVENT_ADAPTER.validate_python(data) == asked


async def test_the_answering_run_closes_the_waiting_call_with_its_real_result() -> None:
    bank = Payments(preface="Let me pay that.")
    agent = bank.agent()
    runner = TestRunner(agent)
    first = run_ui(agent, await runner.run("pay the invoice"), "r1")
    asked = next(e for e in first if e.type == "approval_required")

    events = await runner.run(confirmation_answer(asked.request_id, confirmed=True))
    ui = run_ui(agent, events, "r2")

    assert bank.paid == [900]
    assert summary(ui) == [
        ("agent_active", "payments", "start"),
        ("tool_end", "payments", "pay"),
        ("content", "payments", "Paid 900 euros. Thank you."),
        ("final", "payments", "Paid 900 euros. Thank you.", "answer"),
        ("done", "completed"),
    ]
    end = ui[1]
    assert end.type == "tool_end" and end.call_id == asked.call_id
    assert (end.result, end.is_error) == ({"status": "paid", "amount": 900}, False)


async def test_a_rejected_call_ends_as_an_error_result_and_never_runs() -> None:
    bank = Payments(preface="Let me pay that.")
    agent = bank.agent()
    runner = TestRunner(agent)
    [request] = confirmation_requests((await runner.run("pay the invoice"))[-1])

    ui = run_ui(agent, await runner.run(confirmation_answer(request, confirmed=False)))

    assert bank.paid == []
    end = next(e for e in ui if e.type == "tool_end")
    assert (end.tool, end.result, end.is_error) == (
        "pay",
        {"error": "This tool call is rejected."},
        True,
    )
    assert ui[-1].type == "done" and ui[-1].final_text == "I did not pay. You rejected it."


async def test_session_history_shows_the_answer_as_a_user_message_not_json() -> None:
    bank = Payments(preface="Let me pay that.")
    agent = bank.agent()
    runner = TestRunner(agent)
    [request] = confirmation_requests((await runner.run("pay the invoice"))[-1])
    await runner.run(confirmation_answer(request, confirmed=True))
    session = await runner.session()

    converter = UiEventConverter(run_id="history", root_agent=agent)
    ui = [e for event in session.events for e in converter.convert(event)]

    users = [e for e in ui if e.type == "user_message"]
    assert [e.text for e in users] == ["pay the invoice", "Approved pay"]
    assert users[0].approvals == []
    [decision] = users[1].approvals
    start = next(e for e in ui if e.type == "tool_start")
    assert (decision.request_id, decision.call_id, decision.tool, decision.confirmed) == (
        request.id,
        start.call_id,
        "pay",
        True,
    )
    assert users[1].to_json_dict()["approvals"] == [
        {
            "requestId": request.id,
            "callId": start.call_id,
            "tool": "pay",
            "confirmed": True,
            "payload": None,
        }
    ]
    assert UI_EVENT_ADAPTER.validate_python(users[1].to_json_dict()) == users[1]
    # the waiting call is closed once, by the approved result, after the answer
    order = [e.type for e in ui]
    assert order.count("tool_end") == 1
    assert order.index("approval_required") < order.index("user_message", 1)
    assert order.index("user_message", 1) < order.index("tool_end")


async def test_a_tool_asking_itself_shows_its_payload_and_other_calls_end_normally() -> None:
    def book(city: str, tool_context: ToolContext) -> dict:
        """Books a hotel.

        Args:
          city: the city.
        """
        confirmation = tool_context.tool_confirmation
        if confirmation is None:
            tool_context.request_confirmation(hint="Which room?", payload={"rooms": ["a", "b"]})
            return {"status": "waiting for the guest"}
        return {"status": "booked", "room": confirmation.payload["room"]}

    def weather(city: str) -> dict:
        """The weather.

        Args:
          city: the city.
        """
        return {"sky": "clear"}

    def reply(request: Any) -> Any:
        if request.contents[-1].parts[0].function_response is not None:
            return "Done."
        return [function_call("book", {"city": "Oslo"}), function_call("weather", {"city": "Oslo"})]

    agent = LlmAgent(name="hotel", model=FunctionModel(reply), tools=[book, weather])
    runner = TestRunner(agent)
    events = await runner.run("book")

    ui = run_ui(agent, events)

    assert [
        (e.type, getattr(e, "tool", None)) for e in ui if e.type.startswith(("tool", "appr"))
    ] == [
        ("tool_start", "book"),
        ("tool_start", "weather"),
        ("tool_end", "weather"),  # ran at once; book's placeholder result is not an end
        ("approval_required", "book"),
    ]
    asked = next(e for e in ui if e.type == "approval_required")
    assert (asked.hint, asked.payload) == ("Which room?", {"rooms": ["a", "b"]})
    # google-adk's web client wraps the answer as {"response": "<json>"}: still readable
    wrapped = types.FunctionResponse(
        id=asked.request_id,
        name=REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
        response={"response": json.dumps({"confirmed": True, "payload": {"room": "b"}})},
    )
    await runner.run(types.Content(role="user", parts=[types.Part(function_response=wrapped)]))
    session = await runner.session()
    history = run_ui(agent, session.events)
    answer = [e for e in history if e.type == "user_message"][-1]
    assert answer.text == "Approved book"
    assert [(a.confirmed, a.payload) for a in answer.approvals] == [(True, {"room": "b"})]
    end = [e for e in history if e.type == "tool_end"][-1]
    assert (end.tool, end.call_id, end.result) == (
        "book",
        asked.call_id,
        {"status": "booked", "room": "b"},
    )
