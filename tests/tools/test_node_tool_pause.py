"""A NodeTool whose node waits for the client pauses its agent (google-adk 2.x): the
request reaches the client, and the answer runs the call again, the node going on
from its pause; the model then gets the node's output as the call's result."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pyadk import types
from pyadk.agents import LlmAgent, SequentialAgent
from pyadk.events import Event
from pyadk.models import LlmRequest
from pyadk.runners import Runner
from pyadk.sessions.sqlite_session_service import SqliteSessionService
from pyadk.testing import FunctionModel, TestRunner
from pyadk.testing.scripted_models import ScriptedModel, function_call
from pyadk.tools import FunctionTool, NodeTool
from pyadk.workflow import (
    REQUEST_INPUT_FUNCTION_CALL_NAME,
    START,
    InputAnswerError,
    RequestInput,
    Workflow,
    node,
    node_path,
)


def input_requests(events: list[Event]) -> list[types.FunctionCall]:
    return [
        c
        for e in events
        if not e.partial
        for c in e.get_function_calls()
        if c.name == REQUEST_INPUT_FUNCTION_CALL_NAME
    ]


def answer(request: types.FunctionCall, value: Any) -> types.Content:
    response = types.FunctionResponse(id=request.id, name=request.name, response=value)
    return types.Content(role="user", parts=[types.Part(function_response=response)])


def results(events: list[Event]) -> list[tuple[str | None, dict[str, Any]]]:
    return [
        (r.name, dict(r.response or {}))
        for e in events
        if not e.partial
        for r in e.get_function_responses()
        if r.name != REQUEST_INPUT_FUNCTION_CALL_NAME
    ]


class Booking:
    """A workflow: count the guests, ask for the seats, book them (runs counted)."""

    def __init__(self) -> None:
        self.ran: list[str] = []

    def workflow(self) -> Workflow:
        def count(node_input: str) -> int:
            self.ran.append("count")
            return len(node_input.split(","))

        def ask(node_input: int) -> RequestInput:
            self.ran.append("ask")
            return RequestInput(message=f"Seats for {node_input} guests?", response_schema=int)

        def book(node_input: int) -> str:
            self.ran.append("book")
            return f"booked {node_input} seats"

        return Workflow(
            name="booking", edges=[(START, count, ask, book)], description="Books seats."
        )


def booking_agent(booking: Booking, name: str = "host") -> tuple[LlmAgent, ScriptedModel]:
    model = ScriptedModel([function_call("booking", {"request": "ann,bob"}, id="c1"), "All set."])
    return LlmAgent(name=name, model=model, tools=[NodeTool(booking.workflow())]), model


async def test_the_request_reaches_the_client_and_the_answer_resumes_the_workflow():
    booking = Booking()
    agent, model = booking_agent(booking)
    runner = TestRunner(agent)
    first = await runner.run("book for ann and bob")
    [request] = input_requests(first)
    assert request.args is not None and request.args["message"] == "Seats for 2 guests?"
    [asking] = [e for e in first if not e.partial and e.get_function_calls() == [request]]
    assert asking.long_running_tool_ids == {request.id}
    assert asking.branch == "booking@c1"
    assert results(first) == []  # the call has no result yet
    assert model.call_count == 1 and booking.ran == ["count", "ask"]
    assert first[-1] is asking  # the turn ends on the request

    resumed = await runner.run(answer(request, {"result": "3"}))
    assert booking.ran == ["count", "ask", "book"]  # finished nodes do not run again
    assert results(resumed) == [("booking", {"result": "booked 3 seats"})]
    assert resumed[-1].content is not None and resumed[-1].text == "All set."
    # The model's second call sees its call and the workflow's output as its result.
    last = model.requests[1].contents[-1].parts[0].function_response
    assert last is not None and last.id == "c1"
    assert last.response == {"result": "booked 3 seats"}
    calls = [p.function_call for c in model.requests[1].contents for p in c.parts or []]
    assert [c.name for c in calls if c is not None] == ["booking"]  # no request traffic
    stored = (await runner.session()).events
    assert [node_path(e) for e in stored if node_path(e) and "book@" in (node_path(e) or "")] == [
        "host@1/booking@c1/book@1"
    ]


def confirm(call: types.FunctionCall, confirmed: bool) -> types.Content:
    return answer(call, {"confirmed": confirmed})


def paying_tool(paid: list[int]) -> FunctionTool:
    def pay(amount: int) -> str:
        """Pays."""
        paid.append(amount)
        return f"paid {amount}"

    return FunctionTool(pay, require_confirmation=True)


async def test_a_tool_node_approval_inside_the_workflow_pauses_the_agent():
    paid: list[int] = []
    ran: list[str] = []

    def price(node_input: str) -> dict[str, int]:
        ran.append("price")
        return {"amount": 40}

    wf = Workflow(name="checkout", edges=[(START, price, paying_tool(paid))])
    model = ScriptedModel(
        [function_call("checkout", {"request": "2 books"}, id="c1"), "Paid.", "Refused."]
    )
    runner = TestRunner(LlmAgent(name="shop", model=model, tools=[NodeTool(wf)]))
    [request] = input_requests(await runner.run("buy"))
    assert request.args is not None
    assert request.args["payload"] == {"tool_name": "pay", "args": {"amount": 40}}
    assert paid == []

    resumed = await runner.run(confirm(request, True))
    assert paid == [40] and ran == ["price"]
    assert results(resumed) == [("checkout", {"result": "paid 40"})]
    assert resumed[-1].text == "Paid."


async def test_a_plain_tool_node_as_the_tool_runs_again_once_approved_or_refuses():
    paid: list[int] = []
    model = ScriptedModel(
        [
            function_call("pay", {"amount": 5}, id="c1"),
            "done",
            function_call("pay", {"amount": 7}, id="c2"),
            "not done",
        ]
    )
    runner = TestRunner(
        LlmAgent(name="shop", model=model, tools=[NodeTool(node(paying_tool(paid)))])
    )
    [request] = input_requests(await runner.run("pay 5"))
    approved = await runner.run(confirm(request, True))
    assert paid == [5] and results(approved) == [("pay", {"result": "paid 5"})]

    [request] = input_requests(await runner.run("pay 7"))
    refused = await runner.run(confirm(request, False))
    assert paid == [5]
    assert results(refused) == [("pay", {"error": "This tool call is rejected."})]


async def test_a_node_asking_twice_runs_on_once_both_answers_came():
    def contact(node_input: str) -> Any:
        yield RequestInput(interrupt_id="email", message="Email?")
        yield RequestInput(interrupt_id="phone", message="Phone?", response_schema=str)

    model = ScriptedModel([function_call("contact", {"request": "ann"}, id="c1"), "Saved."])
    runner = TestRunner(LlmAgent(name="crm", model=model, tools=[NodeTool(node(contact))]))
    email, phone = input_requests(await runner.run("add ann"))
    second = await runner.run(answer(phone, {"result": "0123"}))
    assert results(second) == [] and model.call_count == 1  # still waits for the email
    third = await runner.run(answer(email, {"result": "a@b.c"}))
    assert results(third) == [("contact", {"phone": "0123", "email": "a@b.c"})]
    assert third[-1].text == "Saved."


async def test_an_answer_to_no_request_or_that_does_not_fit_is_refused():
    booking = Booking()
    agent, model = booking_agent(booking)
    runner = TestRunner(agent)
    [request] = input_requests(await runner.run("book"))
    stray = types.FunctionCall(id="nope", name=REQUEST_INPUT_FUNCTION_CALL_NAME)
    with pytest.raises(InputAnswerError, match="No input request 'nope'"):
        await runner.run(answer(stray, {"result": "3"}))
    with pytest.raises(InputAnswerError, match="does not fit"):
        await runner.run(answer(request, {"result": "many"}))
    assert booking.ran == ["count", "ask"] and model.call_count == 1
    # The call still waits: a fitting answer resumes it.
    resumed = await runner.run(answer(request, {"result": "2"}))
    assert results(resumed) == [("booking", {"result": "booked 2 seats"})]
    assert booking.ran == ["count", "ask", "book"]
    again = await runner.run(answer(request, {"result": "2"}))  # sent once more
    assert results(again) == [] and booking.ran == ["count", "ask", "book"]


async def test_the_pause_survives_a_new_runner_on_sqlite(tmp_path: Path):
    db = str(tmp_path / "sessions.db")

    async def turn(booking: Booking, message: types.Content) -> list[Event]:
        agent, _ = booking_agent(booking)
        if message.parts and message.parts[0].function_response is not None:
            agent.model = ScriptedModel(["All set."])
        runner = Runner(
            app_name="app",
            agent=agent,
            session_service=SqliteSessionService(db),
            auto_create_session=True,
        )
        events = runner.run_async(user_id="u", session_id="s", new_message=message)
        return [e async for e in events]

    first = Booking()
    [request] = input_requests(await turn(first, types.UserContent("book")))
    later = Booking()  # a new process: new agents, services and counters
    resumed = await turn(later, answer(request, {"result": "4"}))
    assert first.ran == ["count", "ask"] and later.ran == ["book"]
    assert results(resumed) == [("booking", {"result": "booked 4 seats"})]
    assert resumed[-1].text == "All set."


async def test_a_node_tool_inside_a_sequence_resumes_there():
    said: list[str] = []

    def speaker(name: str) -> LlmAgent:
        def reply(request: LlmRequest) -> str:
            said.append(name)
            return f"{name} spoke"

        return LlmAgent(name=name, model=FunctionModel(reply))

    booking = Booking()
    host, _ = booking_agent(booking)
    flow = SequentialAgent(name="flow", sub_agents=[speaker("greeter"), host, speaker("closer")])
    runner = TestRunner(flow)
    [request] = input_requests(await runner.run("book for ann and bob"))
    assert said == ["greeter"]  # the sequence waits with its host
    resumed = await runner.run(answer(request, {"result": "2"}))
    assert said == ["greeter", "closer"]  # the greeter does not run again
    assert results(resumed) == [("booking", {"result": "booked 2 seats"})]
    assert [e.text for e in resumed if e.text] == ["All set.", "closer spoke"]
    assert booking.ran == ["count", "ask", "book"]


async def test_an_agent_node_waiting_for_an_approval_inside_pauses_the_caller():
    from pyadk.tools.tool_confirmation import confirmation_answer, confirmation_requests

    paid: list[int] = []

    def cashier_reply(request: LlmRequest) -> Any:
        response = request.contents[-1].parts[0].function_response
        if response is not None:
            return f"cashier: {response.response}"
        return function_call("pay", {"amount": 12})

    cashier = LlmAgent(
        name="cashier", model=FunctionModel(cashier_reply), tools=[paying_tool(paid)]
    )
    wf = Workflow(name="till", edges=[(START, cashier)])
    model = ScriptedModel([function_call("till", {"request": "12 euros"}, id="c1"), "Thanks."])
    runner = TestRunner(LlmAgent(name="shop", model=model, tools=[NodeTool(wf)]))
    first = await runner.run("pay")
    [request] = [r for e in first if not e.partial for r in confirmation_requests(e)]
    assert paid == [] and model.call_count == 1
    resumed = await runner.run(confirmation_answer(request, confirmed=True))
    assert paid == [12]
    assert results(resumed)[-1] == ("till", {"result": "cashier: {'result': 'paid 12'}"})
    assert resumed[-1].text == "Thanks."


async def test_two_paused_calls_wait_until_both_are_answered():
    booking = Booking()
    model = ScriptedModel(
        [
            [
                function_call("booking", {"request": "ann"}, id="c1"),
                function_call("booking", {"request": "bob,cy"}, id="c2"),
            ],
            "Both booked.",
        ]
    )
    runner = TestRunner(LlmAgent(name="host", model=model, tools=[NodeTool(booking.workflow())]))
    first, second = input_requests(await runner.run("two tables"))
    partly = await runner.run(answer(first, {"result": "1"}))
    assert results(partly) == [("booking", {"result": "booked 1 seats"})]
    assert model.call_count == 1  # the other call still waits: no model call yet
    done = await runner.run(answer(second, {"result": "2"}))
    assert results(done) == [("booking", {"result": "booked 2 seats"})]
    assert done[-1].text == "Both booked." and model.call_count == 2
    last = model.requests[1].contents[-2:]
    assert [p.function_response.id for c in last for p in c.parts or [] if p.function_response] == [
        "c1",
        "c2",
    ]


async def test_the_agent_with_the_node_tool_may_itself_be_a_workflow_node():
    from pyadk.workflow import has_output, node_output

    booking = Booking()
    host, _ = booking_agent(booking)

    def after(node_input: str) -> str:
        return f"after: {node_input}"

    runner = TestRunner(Workflow(name="desk", edges=[(START, host, after)]))
    [request] = input_requests(await runner.run("book"))
    resumed = await runner.run(answer(request, {"result": "2"}))
    assert booking.ran == ["count", "ask", "book"]
    assert results(resumed) == [("booking", {"result": "booked 2 seats"})]
    assert [node_output(e) for e in resumed if has_output(e)][-1] == "after: All set."


async def test_a_function_node_keeps_its_approval_retries_and_timeout_as_a_node_tool():
    paid: list[int] = []

    def pay(amount: int) -> str:
        """Pays."""
        paid.append(amount)
        return f"paid {amount}"

    gated = node(pay, require_confirmation=lambda amount: amount > 10, timeout=5.0)
    tool = NodeTool(gated)
    assert tool.node.timeout == 5.0  # type: ignore[attr-defined]
    model = ScriptedModel(
        [
            function_call("pay", {"amount": 3}, id="c1"),
            "small paid",
            function_call("pay", {"amount": 30}, id="c2"),
            "big paid",
        ]
    )
    runner = TestRunner(LlmAgent(name="shop", model=model, tools=[tool]))
    small = await runner.run("pay 3")
    assert input_requests(small) == [] and paid == [3]  # the predicate let it through

    [request] = input_requests(await runner.run("pay 30"))
    assert paid == [3]
    approved = await runner.run(confirm(request, True))
    assert paid == [3, 30] and results(approved) == [("pay", {"result": "paid 30"})]


def test_a_function_node_with_auth_config_and_no_context_is_refused_as_a_node_tool():
    from pyadk.auth import AuthConfig
    from pyadk.auth.auth_schemes import APIKey

    def fetch(city: str) -> str:
        return city

    scheme = APIKey.model_validate({"type": "apiKey", "in": "header", "name": "X-Key"})
    gated = node(fetch, auth_config=AuthConfig(auth_scheme=scheme), rerun_on_resume=True)
    with pytest.raises(ValueError, match="auth_config but no context parameter"):
        NodeTool(gated)


async def test_a_tool_node_asking_a_credential_as_the_node_tool_itself_gets_it():
    from pyadk.auth.auth_schemes import APIKey
    from pyadk.auth.auth_tool import AuthConfig
    from pyadk.events.client_requests import REQUEST_EUC_FUNCTION_CALL_NAME
    from pyadk.tools import ToolContext

    key = AuthConfig(auth_scheme=APIKey(**{"in": "header", "name": "X-Api-Key"}))
    used: list[str] = []

    def forecast(city: str, tool_context: ToolContext) -> dict[str, Any]:
        """Tells the weather."""
        credential = tool_context.get_auth_response(key)
        if credential is None:
            tool_context.request_credential(key)
            return {"pending": "credential"}
        used.append(credential.api_key or "")
        return {"city": city, "sky": "clear"}

    model = ScriptedModel([function_call("forecast", {"city": "Bern"}, id="c1"), "Clear."])
    runner = TestRunner(
        LlmAgent(name="host", model=model, tools=[NodeTool(node(FunctionTool(forecast)))])
    )
    asked = await runner.run("weather?")
    [request] = [
        c for e in asked for c in e.get_function_calls() if c.name == REQUEST_EUC_FUNCTION_CALL_NAME
    ]
    assert request.args is not None and used == []
    config = dict(request.args["authConfig"])
    config["exchangedAuthCredential"] = {"authType": "apiKey", "apiKey": "k-123"}

    done = await runner.run(answer(request, config))

    assert used == ["k-123"]
    assert results(done) == [("forecast", {"city": "Bern", "sky": "clear"})]
    assert done[-1].text == "Clear."
    stored = "\n".join(e.model_dump_json() for e in (await runner.session()).events)
    assert "k-123" not in stored
