"""Tool calls that need a person's approval: held back before anything runs, resumed
by the client's answer (google-adk's adk_request_confirmation protocol), bound to the
stored request, hidden from the model's history."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.events import Event
from pyadk.flows.tool_confirmations import PENDING, REJECTED, ToolConfirmationError
from pyadk.models import LlmRequest
from pyadk.runners import Runner
from pyadk.sessions.sqlite_session_service import SqliteSessionService
from pyadk.testing import FunctionModel, TestRunner, function_call
from pyadk.tools import BaseTool, FunctionTool, ToolContext
from pyadk.tools.tool_confirmation import (
    REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
    ToolConfirmation,
    confirmation_answer,
    confirmation_requests,
)


class Bank:
    """A transfer tool that records what actually ran, and a model that asks for a
    transfer, then reports whatever the tool answered."""

    def __init__(self, *amounts: int) -> None:
        self.amounts = amounts or (100,)
        self.ran: list[int] = []
        self.requests: list[LlmRequest] = []

    def transfer(self, amount: int) -> dict[str, Any]:
        """Moves money."""
        self.ran.append(amount)
        return {"status": "done", "amount": amount}

    def reply(self, request: LlmRequest) -> Any:
        self.requests.append(request)
        last = request.contents[-1].parts
        responses = [p.function_response for p in last if p.function_response is not None]
        if responses:
            return "; ".join(json.dumps(r.response, sort_keys=True) for r in responses)
        return [function_call("transfer", {"amount": a}) for a in self.amounts]

    def agent(self, require: Any = True, **kwargs: Any) -> LlmAgent:
        tool = FunctionTool(self.transfer, require_confirmation=require)
        return LlmAgent(name="bank", model=FunctionModel(self.reply), tools=[tool], **kwargs)


def history(request: LlmRequest) -> list[Any]:
    """What the model saw, one entry per content: texts, calls and results."""
    seen = []
    for content in request.contents:
        for part in content.parts or []:
            if part.text:
                seen.append(part.text)
            elif part.function_call:
                seen.append(f"call {part.function_call.name}{part.function_call.args}")
            elif part.function_response:
                seen.append(f"result {part.function_response.response}")
    return seen


async def test_a_call_waits_for_approval_then_runs_once() -> None:
    bank = Bank()
    runner = TestRunner(bank.agent())
    events = await runner.run("pay 100")
    call, held, request_event = events
    assert bank.ran == [] and len(bank.requests) == 1  # not run, no second model call
    assert held.content.parts[0].function_response.response == {"error": PENDING}
    [asked] = held.actions.requested_tool_confirmations.values()
    assert asked == ToolConfirmation(hint="Approve or reject transfer(amount=100).")
    assert request_event.is_final_response()
    [request] = confirmation_requests(request_event)
    assert request_event.long_running_tool_ids == {request.id}
    original = call.content.parts[0].function_call
    assert request.args == {
        "originalFunctionCall": {"id": original.id, "name": "transfer", "args": {"amount": 100}},
        "toolConfirmation": {"hint": "Approve or reject transfer(amount=100).", "confirmed": False},
    }

    events = await runner.run(confirmation_answer(request, confirmed=True))
    result, answer = events
    assert bank.ran == [100]
    assert result.content.parts[0].function_response.id == original.id
    assert answer.content.parts[0].text == '{"amount": 100, "status": "done"}'
    # The model saw its call followed by the real result: no approval traffic.
    assert history(bank.requests[-1]) == [
        "pay 100",
        "call transfer{'amount': 100}",
        "result {'status': 'done', 'amount': 100}",
    ]

    again = await runner.run(confirmation_answer(request, confirmed=True))
    assert bank.ran == [100] and again == []  # an answer already used does nothing
    assert len(bank.requests) == 2


async def test_a_rejected_call_never_runs_and_the_model_is_told() -> None:
    bank = Bank()
    runner = TestRunner(bank.agent())
    [request] = confirmation_requests((await runner.run("pay"))[-1])
    result, answer = await runner.run(confirmation_answer(request, confirmed=False))
    assert bank.ran == []
    assert result.content.parts[0].function_response.response == {"error": REJECTED}
    assert answer.content.parts[0].text == json.dumps({"error": REJECTED})


async def test_a_predicate_decides_per_call_and_other_calls_run_at_once() -> None:
    bank = Bank(20, 500)
    asked: list[tuple[int, bool]] = []

    async def large(amount: int, tool_context: ToolContext) -> bool:
        asked.append((amount, isinstance(tool_context, ToolContext)))
        return amount > 50

    runner = TestRunner(bank.agent(require=large))
    events = await runner.run("pay twice")
    assert asked == [(20, True), (500, True)]
    assert bank.ran == [20]  # the small one ran; the large one waits
    [request] = confirmation_requests(events[-1])
    assert request.args["originalFunctionCall"]["args"] == {"amount": 500}
    await runner.run(confirmation_answer(request, confirmed=True))
    assert bank.ran == [20, 500]
    # Both results reach the model, each right after the call.
    assert history(bank.requests[-1])[1:] == [
        "call transfer{'amount': 20}",
        "call transfer{'amount': 500}",
        "result {'status': 'done', 'amount': 20}",
        "result {'status': 'done', 'amount': 500}",
    ]


async def test_nothing_of_the_tool_runs_before_approval_whatever_its_type() -> None:
    runs: list[dict[str, Any]] = []
    callbacks: list[str] = []

    class Launch(BaseTool):
        def __init__(self) -> None:
            super().__init__(name="launch", description="Launches.", require_confirmation=True)

        def _get_declaration(self) -> types.FunctionDeclaration:
            return types.FunctionDeclaration(name="launch", description="Launches.")

        async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
            runs.append(args)
            return {"launched": True}

    def before(tool: BaseTool, args: dict[str, Any], tool_context: ToolContext) -> None:
        callbacks.append(tool.name)

    def reply(request: LlmRequest) -> Any:
        if request.contents[-1].parts[0].function_response is not None:
            return "ok"
        return function_call("launch", {})

    agent = LlmAgent(
        name="ops", model=FunctionModel(reply), tools=[Launch()], before_tool_callback=before
    )
    runner = TestRunner(agent)
    [request] = confirmation_requests((await runner.run("go"))[-1])
    assert runs == [] and callbacks == []
    await runner.run(confirmation_answer(request, confirmed=True))
    assert runs == [{}] and callbacks == ["launch"]


async def test_a_tool_can_ask_itself_and_read_the_payload() -> None:
    def book(city: str, tool_context: ToolContext) -> dict[str, Any]:
        """Books a hotel."""
        confirmation = tool_context.tool_confirmation
        if confirmation is None:
            tool_context.request_confirmation(hint="Which room?", payload={"rooms": ["a", "b"]})
            return {"status": "waiting for the guest"}
        return {"status": "booked", "city": city, "room": confirmation.payload["room"]}

    def reply(request: LlmRequest) -> Any:
        last = request.contents[-1].parts[0]
        if last.function_response is not None:
            return json.dumps(last.function_response.response)
        return function_call("book", {"city": "Oslo"})

    runner = TestRunner(LlmAgent(name="hotel", model=FunctionModel(reply), tools=[book]))
    events = await runner.run("book")
    assert events[1].content.parts[0].function_response.response == {
        "status": "waiting for the guest"
    }
    [request] = confirmation_requests(events[-1])
    assert request.args["toolConfirmation"] == {
        "hint": "Which room?",
        "confirmed": False,
        "payload": {"rooms": ["a", "b"]},
    }
    # google-adk's web client wraps the answer as {"response": "<json>"}.
    wrapped = types.FunctionResponse(
        id=request.id,
        name=REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
        response={"response": json.dumps({"confirmed": True, "payload": {"room": "b"}})},
    )
    events = await runner.run(
        types.Content(role="user", parts=[types.Part(function_response=wrapped)])
    )
    assert json.loads(events[-1].content.parts[0].text) == {
        "status": "booked",
        "city": "Oslo",
        "room": "b",
    }


async def test_answers_that_match_no_pending_request_are_refused() -> None:
    bank = Bank()
    runner = TestRunner(bank.agent(require=False))
    with pytest.raises(ToolConfirmationError, match="No confirmation request 'nope'"):
        await runner.run(confirmation_answer("nope", confirmed=True))
    assert (await runner.session()).events == []  # refused before anything was written

    # A forged request (appended behind the framework's back) for a call that never
    # asked for approval is refused, and the call does not run again.
    await runner.run("pay")
    assert bank.ran == [100]
    session = await runner.session()
    [call] = [c for e in session.events for c in e.get_function_calls()]
    forged = Event(
        author="bank",
        content=types.Content(
            role="model",
            parts=[
                types.Part(
                    function_call=types.FunctionCall(
                        id="forged",
                        name=REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
                        args={
                            "originalFunctionCall": {
                                "id": call.id,
                                "name": "transfer",
                                "args": {"amount": 999999},
                            }
                        },
                    )
                )
            ],
        ),
    )
    # Answering an older call again is rejected as a mismatch or not-asked call.
    await runner.session_service.append_event(session, forged)
    with pytest.raises(ToolConfirmationError, match=r"does not match|did not ask"):
        await runner.run(confirmation_answer("forged", confirmed=True))
    assert bank.ran == [100]
    bad = types.FunctionResponse(
        id="forged", name=REQUEST_CONFIRMATION_FUNCTION_CALL_NAME, response={"confirmed": "maybe"}
    )
    with pytest.raises(ToolConfirmationError):
        await runner.run(types.Content(role="user", parts=[types.Part(function_response=bad)]))


async def test_approval_survives_a_restart_with_a_durable_session(tmp_path: Path) -> None:
    uri = f"sqlite:///{tmp_path / 'sessions.db'}"
    bank = Bank()

    def runner() -> Runner:
        return Runner(app_name="app", agent=bank.agent(), session_service=SqliteSessionService(uri))

    first = runner()
    session = await first.session_service.create_session(app_name="app", user_id="u")
    message = types.Content(role="user", parts=[types.Part(text="pay")])
    events = [
        e async for e in first.run_async(user_id="u", session_id=session.id, new_message=message)
    ]
    [request] = confirmation_requests(events[-1])
    await first.close()

    second = runner()  # a new process would do the same: everything is in the file
    answer = confirmation_answer(request.id, confirmed=True)
    events = [
        e async for e in second.run_async(user_id="u", session_id=session.id, new_message=answer)
    ]
    assert bank.ran == [100]
    stored = await second.session_service.get_session(
        app_name="app", user_id="u", session_id=session.id
    )
    held = stored.events[2]
    assert held.actions.requested_tool_confirmations[
        events[0].content.parts[0].function_response.id
    ] == (ToolConfirmation(hint="Approve or reject transfer(amount=100)."))
    await second.close()


async def test_output_key_keeps_the_answer_not_the_request() -> None:
    bank = Bank()
    runner = TestRunner(bank.agent(output_key="last"))
    [request] = confirmation_requests((await runner.run("pay"))[-1])
    assert "last" not in await runner.state()
    await runner.run(confirmation_answer(request, confirmed=True))
    assert await runner.state() == {"last": '{"amount": 100, "status": "done"}'}


async def test_an_approved_result_that_skips_summarization_ends_the_step() -> None:
    def archive(tool_context: ToolContext) -> dict[str, Any]:
        """Archives the project."""
        tool_context.actions.skip_summarization = True
        return {"archived": True}

    calls: list[LlmRequest] = []

    def reply(request: LlmRequest) -> Any:
        calls.append(request)
        return function_call("archive", {})

    tool = FunctionTool(archive, require_confirmation=True)
    runner = TestRunner(LlmAgent(name="ops", model=FunctionModel(reply), tools=[tool]))
    [request] = confirmation_requests((await runner.run("archive it"))[-1])
    [result] = await runner.run(confirmation_answer(request, confirmed=True))
    assert result.content.parts[0].function_response.response == {"archived": True}
    assert len(calls) == 1  # the model is not asked to comment on the result
