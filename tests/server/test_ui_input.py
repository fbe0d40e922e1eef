"""Input requests in the UI protocol: a graph workflow node's ``RequestInput`` (an
``adk_request_input`` call) is ``input_required`` (not a ``tool_start``); the answer,
posted over real HTTP as the next turn's functionResponse, resumes the workflow; an
answer that does not fit is a fatal ``error`` naming the request, which waits again."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest
from server_support import LiveServer, read_sse, run_body

from pyadk import types
from pyadk.events import Event
from pyadk.events.client_requests import REQUEST_INPUT_FUNCTION_CALL_NAME
from pyadk.server import create_app, ui_inputs
from pyadk.server.ui_convert import UiEventConverter
from pyadk.server.ui_events import UI_EVENT_ADAPTER, UiEvent
from pyadk.testing import TestRunner
from pyadk.workflow import START, InputAnswerError, RequestInput, Workflow
from pyadk.workflow._node_events import NODE_INFO
from pyadk.workflow._pause_state import PAUSED

PLAN = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "nights": {"type": "integer"}},
    "required": ["city"],
}


class Booking:
    """A workflow asking how many seats (an integer), then booking them and saying so."""

    def __init__(self, schema: Any = int) -> None:
        self.schema = schema
        self.booked: list[Any] = []

    def workflow(self) -> Workflow:
        def seats(node_input: types.Content) -> RequestInput:
            return RequestInput(
                message="How many seats?", response_schema=self.schema, payload={"max": 8}
            )

        def book(node_input: Any) -> Any:
            self.booked.append(node_input)
            text = f"Booked {node_input} seats."
            yield Event(
                author="booking",
                content=types.Content.model_validate({"role": "model", "parts": [{"text": text}]}),
            )
            yield text

        return Workflow(name="booking", edges=[(START, seats, book)])


def answer_content(request_id: str, value: Any) -> types.Content:
    return types.Content.model_validate({"role": "user", "parts": answer_parts(request_id, value)})


def answer_parts(request_id: str, value: Any) -> list[dict[str, Any]]:
    """The answer as google-adk's clients send it: ``{"result": value}``."""
    response = {"id": request_id, "name": REQUEST_INPUT_FUNCTION_CALL_NAME}
    return [{"functionResponse": {**response, "response": {"result": value}}}]


def run_ui(agent: Any, events: list[Event], run_id: str = "r") -> list[UiEvent]:
    converter = UiEventConverter(run_id=run_id, root_agent=agent)
    return [ui for event in events for ui in converter.convert(event)] + converter.finish()


# -- the converter ------------------------------------------------------------------


async def test_a_request_for_input_is_input_required_not_a_tool_call() -> None:
    workflow = Booking().workflow()

    ui = run_ui(workflow, await TestRunner(workflow).run("book a table"))

    assert [e.type for e in ui] == ["agent_active", "input_required", "done"]
    asked = ui[1]
    assert asked.type == "input_required"
    data = asked.to_json_dict()
    assert {
        k: data[k] for k in data if k not in ("id", "invocationId", "eventId", "timestamp")
    } == {
        "v": 1,
        "type": "input_required",
        "seq": 2,
        "runId": "r",
        "agent": "booking",
        "internal": False,
        "requestId": asked.request_id,
        "node": "seats",
        "nodePath": "booking@1/seats@1",
        "message": "How many seats?",
        "payload": {"max": 8},
        "responseSchema": {"type": "integer"},
        "kind": "input",  # an ordinary request (not an approval): no tool, no args
        "tool": None,
        "args": None,
        "confirmationPayload": None,
    }
    assert asked.request_id
    assert UI_EVENT_ADAPTER.validate_python(data) == asked
    assert ui[2].type == "done" and ui[2].reason == "completed"


async def test_a_json_schema_and_no_schema_are_passed_on() -> None:
    with_plan = Booking(PLAN).workflow()
    free = Booking(None).workflow()

    [planned] = [
        e
        for e in run_ui(with_plan, await TestRunner(with_plan).run("go"))
        if e.type == "input_required"
    ]
    [anything] = [
        e for e in run_ui(free, await TestRunner(free).run("go")) if e.type == "input_required"
    ]

    assert planned.response_schema == PLAN
    assert anything.response_schema is None


async def test_the_answer_resumes_the_workflow_and_history_shows_it() -> None:
    booking = Booking()
    workflow = booking.workflow()
    runner = TestRunner(workflow)
    asked = run_ui(workflow, await runner.run("book a table"), "r1")[1]

    second = run_ui(workflow, await runner.run(answer_content(asked.request_id, "3")), "r2")

    assert booking.booked == [3]
    assert [e.type for e in second] == ["agent_active", "content", "final", "done"]
    assert second[2].text == "Booked 3 seats." and second[-1].final_text == "Booked 3 seats."

    session = await runner.session()
    history = [e for e in run_ui(workflow, session.events, "history") if e.type != "done"]
    users = [e for e in history if e.type == "user_message"]
    assert [e.text for e in users] == ["book a table", "3"]
    assert users[0].inputs == []
    assert users[1].to_json_dict()["inputs"] == [
        {
            "requestId": asked.request_id,
            "node": "seats",
            "value": "3",
            "kind": "input",
            "tool": None,
            "confirmed": None,
        }
    ]
    assert [e.type for e in history].count("input_required") == 1


async def test_a_json_answer_reads_as_compact_json_in_the_chat() -> None:
    booking = Booking(PLAN)
    workflow = booking.workflow()
    runner = TestRunner(workflow)
    asked = run_ui(workflow, await runner.run("plan"))[1]

    await runner.run(answer_content(asked.request_id, {"city": "Zürich", "nights": 2}))

    session = await runner.session()
    users = [e for e in run_ui(workflow, session.events) if e.type == "user_message"]
    assert users[-1].text == '{"city":"Zürich","nights":2}'  # as the browser's JSON.stringify
    assert users[-1].inputs[0].value == {"city": "Zürich", "nights": 2}
    assert booking.booked == [{"city": "Zürich", "nights": 2}]


async def test_a_refused_answer_names_the_request_which_waits_again() -> None:
    booking = Booking()
    workflow = booking.workflow()
    runner = TestRunner(workflow)
    asked = run_ui(workflow, await runner.run("book"), "r1")[1]
    message = answer_content(asked.request_id, "many")
    converter = UiEventConverter(run_id="r2", root_agent=workflow)
    converter.answering(message)  # the live run's own message (never yielded)
    live: list[UiEvent] = []

    with pytest.raises(InputAnswerError) as refused:
        async for event in runner.run_async(
            user_id=runner.user_id, session_id=runner.session_id, new_message=message
        ):
            live += converter.convert(event)
    live += converter.fail(refused.value)

    assert booking.booked == []
    error, done = live[-2], live[-1]
    assert error.type == "error" and done.type == "done"
    assert (error.error_type, error.fatal, error.request_ids) == (
        "InputAnswerError",
        True,
        [asked.request_id],
    )
    assert "does not fit the requested input" in error.message and "'many'" in error.message
    assert done.reason == "error"

    # history: the refused answer, then the same request again (a reload shows it open)
    session = await runner.session()
    history = [e for e in run_ui(workflow, session.events) if e.type != "thinking"]
    assert [e.type for e in history] == [
        "user_message",
        "agent_active",
        "input_required",
        "user_message",
        "input_required",
        "done",
    ]
    again = history[4]
    assert again.type == "input_required" and again.request_id == asked.request_id
    assert (again.message, again.node, again.response_schema) == (
        "How many seats?",
        "seats",
        {"type": "integer"},
    )

    # answered again, the run goes on from the same request
    final = run_ui(workflow, await runner.run(answer_content(asked.request_id, 4)), "r3")
    assert booking.booked == [4] and final[-1].final_text == "Booked 4 seats."


def test_other_failures_name_no_request() -> None:
    converter = UiEventConverter(run_id="r")
    converter.answering(answer_content("ask-1", "x"))

    error, done = converter.fail(RuntimeError("disk full"))

    assert error.type == "error" and error.request_ids == [] and done.type == "done"


def test_the_converter_reads_the_workflow_metadata_keys() -> None:
    # ui_inputs does not import pyadk.workflow: its keys must stay the workflow's
    assert ui_inputs.WORKFLOW_PAUSED == PAUSED
    assert ui_inputs.NODE_INFO == NODE_INFO


# -- over real HTTP -----------------------------------------------------------------


@pytest.fixture
def booking() -> Booking:
    return Booking()


@pytest.fixture
def client(serve: Callable[[Any], LiveServer], booking: Booking) -> httpx.Client:
    client = serve(create_app(agents={"booking": booking.workflow()})).client()
    client.post("/apps/booking/users/alice/sessions/s1")
    return client


def post_turn(client: httpx.Client, parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    body = run_body("booking", "alice", "s1", "", newMessage={"role": "user", "parts": parts})
    with client.stream("POST", "/run_ui_events", json=body) as response:
        assert response.status_code == 200
        return [m.json() for m in read_sse(response.iter_lines()).messages]


def test_the_workflow_asks_a_refused_answer_fails_and_a_good_one_finishes(
    client: httpx.Client, booking: Booking
) -> None:
    first = post_turn(client, [{"text": "book a table"}])

    assert [e["type"] for e in first] == ["agent_active", "input_required", "done"]
    asked = first[1]
    assert (asked["message"], asked["node"], asked["responseSchema"]) == (
        "How many seats?",
        "seats",
        {"type": "integer"},
    )
    assert first[2]["reason"] == "completed" and booking.booked == []

    refused = post_turn(client, answer_parts(asked["requestId"], "many"))

    error = next(e for e in refused if e["type"] == "error")
    assert error["errorType"] == "InputAnswerError" and error["fatal"] is True
    assert error["requestIds"] == [asked["requestId"]]
    assert "does not fit the requested input" in error["message"]
    assert refused[-1]["type"] == "done" and refused[-1]["reason"] == "error"
    assert booking.booked == []

    second = post_turn(client, answer_parts(asked["requestId"], 3))

    assert booking.booked == [3]
    assert [e["type"] for e in second] == ["agent_active", "content", "final", "thinking", "done"]
    outcome = second[3]  # the workflow failed in the refused turn; this one succeeded
    assert (outcome["kind"], outcome["data"]["status"]) == ("outcome", "success")
    assert second[-1]["reason"] == "completed"
    assert second[-1]["finalText"] == "Booked 3 seats."

    history = client.get("/apps/booking/users/alice/sessions/s1/ui-events").json()
    users = [e for e in history if e["type"] == "user_message"]
    assert [u["text"] for u in users] == ["book a table", "many", "3"]
    assert [[i["value"] for i in u["inputs"]] for u in users] == [[], ["many"], [3]]
    assert [e["requestId"] for e in history if e["type"] == "input_required"] == [
        asked["requestId"],
        asked["requestId"],  # waits again after the refused answer
    ]


def test_protocol_lists_input_required(client: httpx.Client) -> None:
    assert "input_required" in client.get("/ui-protocol").json()["types"]


def test_only_input_requests_of_a_pause_record_count_as_waiting() -> None:
    record = {
        "waiting": {
            "payer": {"interrupts": ["approve-1"], "requests": {}},  # an approval
            "seats": {"interrupts": ["ask-1"], "requests": {"ask-1": {"type": "integer"}}},
            "done": {"interrupts": [], "requests": {"ask-0": None}},  # answered already
        }
    }

    assert ui_inputs.waiting_inputs({PAUSED: record}) == {"ask-1"}
    assert ui_inputs.waiting_inputs({NODE_INFO: {"path": "wf@1"}}) is None
    assert ui_inputs.waiting_inputs(None) is None
    assert ui_inputs.waiting_inputs({PAUSED: {"waiting": ["bad"]}}) == set()


def test_an_answer_to_no_input_request_is_refused_before_anything_is_stored(
    client: httpx.Client, booking: Booking
) -> None:
    post_turn(client, [{"text": "book a table"}])
    body = run_body(
        "booking", "alice", "s1", "", newMessage={"role": "user", "parts": answer_parts("nope", 3)}
    )

    refused = client.post("/run_ui_events", json=body)

    assert refused.status_code == 400
    assert refused.json()["detail"] == "No input request 'nope' in this session to answer."
    history = client.get("/apps/booking/users/alice/sessions/s1/ui-events").json()
    assert [e["text"] for e in history if e["type"] == "user_message"] == ["book a table"]
    assert booking.booked == []


async def test_an_agent_nodes_input_is_a_thinking_entry_not_a_second_user_message() -> None:
    from pyadk.agents import LlmAgent
    from pyadk.testing import ScriptedModel

    def city(node_input: types.Content) -> RequestInput:
        return RequestInput(message="Which city?", response_schema=str)

    def prompt(node_input: str) -> str:
        return f"Plan a day in {node_input}."

    planner = LlmAgent(name="planner", model=ScriptedModel(["Morning: the lake."]))
    workflow = Workflow(name="trip", edges=[(START, city, prompt, planner)])
    runner = TestRunner(workflow)
    asked = run_ui(workflow, await runner.run("a trip"), "r1")[1]

    second = run_ui(workflow, await runner.run(answer_content(asked.request_id, "Bern")), "r2")

    assert "user_message" not in [e.type for e in second]
    [node_input] = [e for e in second if e.type == "thinking" and e.kind == "node_input"]
    assert node_input.text == "Plan a day in Bern."
    assert node_input.agent == "planner" and node_input.internal
    assert node_input.data == {"node": "planner", "nodePath": "trip@1/planner@1"}
    assert second[-1].type == "done" and second[-1].final_text == "Morning: the lake."

    session = await runner.session()
    history = run_ui(workflow, session.events, "history")
    assert [e.text for e in history if e.type == "user_message"] == ["a trip", "Bern"]
    assert [e.kind for e in history if e.type == "thinking"].count("node_input") == 1


# -- a workflow's approval (an input request of kind approval) ------------------------


class Payments:
    """Reads an invoice, pays it with a tool needing approval, then reports the result."""

    def __init__(self, hint: str | None = None) -> None:
        self.hint = hint
        self.paid: list[int] = []

    def workflow(self) -> Workflow:
        from pyadk.tools import FunctionTool, ToolContext

        def invoice(node_input: types.Content) -> dict[str, int]:
            return {"amount": 900}

        def pay(amount: int, tool_context: ToolContext) -> dict[str, Any]:
            if self.hint and tool_context.tool_confirmation is None:
                tool_context.request_confirmation(hint=self.hint, payload={"limit": 1000})
                return {"status": "waiting"}
            self.paid.append(amount)
            return {"status": "paid"}

        def report(node_input: Any) -> Any:
            yield Event(author="payments", content=types.ModelContent(f"{node_input}"))
            yield node_input

        tool = FunctionTool(pay, require_confirmation=self.hint is None)
        return Workflow(name="payments", edges=[(START, invoice, tool, report)])


async def test_a_workflow_approval_is_input_required_of_kind_approval() -> None:
    workflow = Payments().workflow()

    ui = run_ui(workflow, await TestRunner(workflow).run("pay"))

    [asked] = [e for e in ui if e.type == "input_required"]
    data = asked.to_json_dict()
    assert data["requestId"].startswith("wf_tool_confirmation:")
    assert (data["kind"], data["tool"], data["args"]) == ("approval", "pay", {"amount": 900})
    assert (data["node"], data["message"]) == ("pay", "Approve or reject pay().")
    assert data["confirmationPayload"] is None
    assert data["payload"] == {"tool_name": "pay", "args": {"amount": 900}}  # as sent
    assert UI_EVENT_ADAPTER.validate_python(data) == asked
    assert "tool_start" not in [e.type for e in ui]


async def test_a_tools_own_hint_and_payload_are_passed_on() -> None:
    workflow = Payments(hint="Over the daily limit?").workflow()

    ui = run_ui(workflow, await TestRunner(workflow).run("pay"))

    [asked] = [e for e in ui if e.type == "input_required"]
    assert (asked.kind, asked.tool, asked.message) == ("approval", "pay", "Over the daily limit?")
    assert asked.confirmation_payload == {"limit": 1000}


@pytest.mark.parametrize(
    ("confirmed", "text", "paid"), [(True, "Approved pay", [900]), (False, "Rejected pay", [])]
)
async def test_the_approval_answer_reads_approved_or_rejected_in_history(
    confirmed: bool, text: str, paid: list[int]
) -> None:
    payments = Payments()
    workflow = payments.workflow()
    runner = TestRunner(workflow)
    [asked] = [e for e in run_ui(workflow, await runner.run("pay")) if e.type == "input_required"]

    second = run_ui(
        workflow, await runner.run(answer_content(asked.request_id, {"confirmed": confirmed}))
    )

    assert payments.paid == paid
    assert second[-1].type == "done" and second[-1].reason == "completed"
    history = run_ui(workflow, (await runner.session()).events)
    users = [e for e in history if e.type == "user_message"]
    assert [u.text for u in users] == ["pay", text]
    assert users[1].to_json_dict()["inputs"] == [
        {
            "requestId": asked.request_id,
            "node": "pay",
            "value": {"confirmed": confirmed},
            "kind": "approval",
            "tool": "pay",
            "confirmed": confirmed,
        }
    ]
    [again] = [e for e in history if e.type == "input_required"]
    assert again.kind == "approval"


def test_an_approval_answer_without_a_decision_reads_as_json() -> None:
    answer = ui_inputs.InputAnswer(
        request_id="wf_tool_confirmation:x", value="yes", kind="approval"
    )

    assert ui_inputs.input_text(answer) == "yes"
    assert ui_inputs.is_approval("wf_tool_confirmation:x") and not ui_inputs.is_approval("ask-1")
    assert not ui_inputs.is_approval(None)


def test_the_approval_prefix_is_the_workflows() -> None:
    from pyadk.workflow._tool_node import CONFIRMATION_PREFIX

    assert ui_inputs.APPROVAL_PREFIX == CONFIRMATION_PREFIX


def test_a_refused_approval_answer_names_the_request_which_asks_approval_again(
    serve: Callable[[Any], LiveServer],
) -> None:
    payments = Payments()
    client = serve(create_app(agents={"payments": payments.workflow()})).client()
    client.post("/apps/payments/users/alice/sessions/s1")

    def turn(parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
        body = run_body("payments", "alice", "s1", "", newMessage={"role": "user", "parts": parts})
        with client.stream("POST", "/run_ui_events", json=body) as response:
            assert response.status_code == 200
            return [m.json() for m in read_sse(response.iter_lines()).messages]

    [asked] = [e for e in turn([{"text": "pay"}]) if e["type"] == "input_required"]
    assert asked["kind"] == "approval"

    refused = turn(answer_parts(asked["requestId"], "yes"))  # not a JSON object

    error = next(e for e in refused if e["type"] == "error")
    assert error["errorType"] == "InputAnswerError" and error["requestIds"] == [asked["requestId"]]
    assert payments.paid == []

    approved = turn(answer_parts(asked["requestId"], {"confirmed": True}))

    assert payments.paid == [900] and approved[-1]["reason"] == "completed"
    history = client.get("/apps/payments/users/alice/sessions/s1/ui-events").json()
    users = [e["text"] for e in history if e["type"] == "user_message"]
    assert users == ["pay", "yes", "Approved pay"]
    again = [e for e in history if e["type"] == "input_required"]
    assert [(e["requestId"], e["kind"], e["tool"]) for e in again] == [
        (asked["requestId"], "approval", "pay")
    ] * 2
