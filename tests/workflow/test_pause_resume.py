"""A graph Workflow pauses while a node's agent waits for the client (an approval, a
long-running call, a credential) and resumes at that node when the client answers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from wf_support import input_requests, outputs, paths, pause_records

from pyadk import types
from pyadk.agents import LlmAgent, SequentialAgent
from pyadk.auth.auth_schemes import APIKey
from pyadk.auth.auth_tool import AuthConfig
from pyadk.auth.credential_manager import CredentialManager
from pyadk.auth.credential_service import InMemoryCredentialService
from pyadk.events import Event
from pyadk.events.client_requests import REQUEST_EUC_FUNCTION_CALL_NAME
from pyadk.models import LlmRequest
from pyadk.runners import Runner
from pyadk.sessions.sqlite_session_service import SqliteSessionService
from pyadk.testing import FunctionModel, TestRunner, function_call
from pyadk.tools import FunctionTool, LongRunningFunctionTool, ToolContext
from pyadk.tools.tool_confirmation import confirmation_answer, confirmation_requests
from pyadk.workflow import (
    START,
    Context,
    JoinNode,
    RequestInput,
    Workflow,
    WorkflowDataError,
    node,
)


class Ledger:
    """What ran: function nodes, payments, and what each payer's model saw."""

    def __init__(self) -> None:
        self.ran: list[str] = []
        self.paid: list[int] = []
        self.seen: list[list[Any]] = []

    def step(self, name: str, result: str | None = "", quiet: bool = False) -> Any:
        def run(node_input: Any) -> Any:
            self.ran.append(name)
            return None if quiet else result or f"{name} done"

        return node(run, name=name)

    def payer(self, name: str = "payer", amount: int = 500) -> LlmAgent:
        def pay(amount: int) -> dict[str, Any]:
            """Pays."""
            self.paid.append(amount)
            return {"paid": amount}

        def reply(request: LlmRequest) -> Any:
            self.seen.append([_part(p) for c in request.contents for p in c.parts or []])
            response = request.contents[-1].parts[0].function_response
            if response is not None:
                return f"{name}: {response.response}"
            return function_call("pay", {"amount": amount})

        tool = FunctionTool(pay, require_confirmation=True)
        return LlmAgent(name=name, model=FunctionModel(reply), tools=[tool])


def _part(part: types.Part) -> Any:
    if part.function_call is not None:
        return ("call", part.function_call.name)
    if part.function_response is not None:
        return ("result", part.function_response.name)
    return part.text


def requests_in(events: list[Event]) -> list[types.FunctionCall]:
    return [r for e in events for r in confirmation_requests(e)]


async def approve(runner: TestRunner, events: list[Event], confirmed: bool = True) -> list[Event]:
    [request] = requests_in(events)
    return await runner.run(confirmation_answer(request, confirmed=confirmed))


async def test_an_approved_call_runs_and_the_graph_goes_on_without_rerunning_earlier_nodes():
    ledger = Ledger()
    payer = ledger.payer()
    wf = Workflow(
        name="wf", edges=[(START, ledger.step("before", "pay 500"), payer, ledger.step("after"))]
    )
    runner = TestRunner(wf)
    first = await runner.run("go")
    assert ledger.ran == ["before"] and ledger.paid == []
    assert len(requests_in(first)) == 1
    [record] = pause_records(first)  # the turn ends with the pause record
    assert first[-1].author == "wf" and list(record["waiting"]) == ["payer"]

    resumed = await approve(runner, first)
    assert ledger.paid == [500]
    assert ledger.ran == ["before", "after"]  # "before" is not run again
    assert outputs(resumed) == [("after", "after done")]
    assert paths(resumed) == ["wf@1/after@1"]
    assert [(e.author, e.text) for e in resumed if e.text] == [("payer", "payer: {'paid': 500}")]
    # The resumed node sees its own input, its call and the result (single-turn).
    assert ledger.seen[-1] == ["pay 500", ("call", "pay"), ("result", "pay")]
    assert pause_records(resumed) == []


async def test_a_rejected_call_is_refused_and_the_graph_goes_on():
    ledger = Ledger()
    wf = Workflow(name="wf", edges=[(START, ledger.payer(), ledger.step("after"))])
    runner = TestRunner(wf)
    resumed = await approve(runner, await runner.run("go"), confirmed=False)
    assert ledger.paid == [] and ledger.ran == ["after"]
    [answer] = [e.text for e in resumed if e.author == "payer" and e.text]
    assert "rejected" in answer


async def test_a_long_running_tool_answered_later_resumes_its_node():
    asked: list[int] = []

    def ask_manager(amount: int) -> None:
        """Asks a manager; the answer comes later."""
        asked.append(amount)

    seen: list[list[Any]] = []

    def reply(request: LlmRequest) -> Any:
        seen.append([_part(p) for c in request.contents for p in c.parts or []])
        response = request.contents[-1].parts[0].function_response
        if response is not None:
            return f"manager said {response.response['verdict']}"
        return function_call("ask_manager", {"amount": 40})

    approver = LlmAgent(
        name="approver", model=FunctionModel(reply), tools=[LongRunningFunctionTool(ask_manager)]
    )

    def refund(node_input: str) -> str:
        return f"refund: {node_input}"

    runner = TestRunner(Workflow(name="wf", edges=[(START, approver, refund)]))
    first = await runner.run("refund 40")
    [call] = [c for e in first for c in e.get_function_calls()]
    assert asked == [40] and outputs(first) == []
    result = types.FunctionResponse(id=call.id, name="ask_manager", response={"verdict": "yes"})
    resumed = await runner.run(
        types.Content(role="user", parts=[types.Part(function_response=result)])
    )
    assert outputs(resumed) == [("refund", "refund: manager said yes")]
    assert asked == [40]  # the tool is not called again
    # The single-turn node's turn reaches back to the call the posted result answers.
    assert seen[-1] == ["refund 40", ("call", "ask_manager"), ("result", "ask_manager")]


KEY = AuthConfig(auth_scheme=APIKey(**{"in": "header", "name": "X-Api-Key"}))


async def test_a_credential_request_pauses_the_graph_until_the_key_comes():
    keys: list[str] = []

    async def forecast(city: str, tool_context: ToolContext) -> dict[str, Any]:
        """The weather in a city."""
        credential = await CredentialManager(KEY).get_auth_credential(tool_context)
        if credential is None:
            tool_context.request_credential(KEY)
            return {"pending": True}
        assert credential.api_key is not None
        keys.append(credential.api_key)
        return {"city": city, "sky": "clear"}

    def reply(request: LlmRequest) -> Any:
        response = request.contents[-1].parts[0].function_response
        if response is not None:
            return f"sky is {response.response['sky']}"
        return function_call("forecast", {"city": "Paris"})

    weather = LlmAgent(name="weather", model=FunctionModel(reply), tools=[FunctionTool(forecast)])
    ran: list[str] = []

    def report(node_input: str) -> str:
        ran.append(node_input)
        return f"report: {node_input}"

    runner = Runner(
        app_name="app",
        agent=Workflow(name="wf", edges=[(START, weather, report)]),
        session_service=SqliteSessionService(":memory:"),
        credential_service=InMemoryCredentialService(),
        auto_create_session=True,
    )

    async def turn(message: types.Content) -> list[Event]:
        events = runner.run_async(user_id="u", session_id="s", new_message=message)
        return [e async for e in events]

    first = await turn(types.UserContent("weather?"))
    [request] = [
        c for e in first for c in e.get_function_calls() if c.name == REQUEST_EUC_FUNCTION_CALL_NAME
    ]
    assert ran == [] and keys == []
    config = dict(request.args["authConfig"])
    config["exchangedAuthCredential"] = {"authType": "apiKey", "apiKey": "k-1"}
    answer = types.FunctionResponse(id=request.id, name=request.name, response=config)
    resumed = await turn(types.Content(role="user", parts=[types.Part(function_response=answer)]))
    assert keys == ["k-1"] and ran == ["sky is clear"]
    assert outputs(resumed) == [("report", "report: sky is clear")]


def fan_out(ledger: Ledger, *payers: LlmAgent) -> Workflow:
    """START -> prepare -> (payers..., other) -> join -> summary, and other -> note."""
    join = JoinNode(name="join")
    other = ledger.step("other")

    def summary(node_input: dict[str, Any]) -> str:
        ledger.ran.append("summary")
        return ", ".join(f"{k}={v}" for k, v in sorted(node_input.items()))

    return Workflow(
        name="wf",
        edges=[
            (START, ledger.step("prepare"), (*payers, other), join, summary),
            (other, ledger.step("note", quiet=True)),
        ],
    )


async def test_a_pause_in_one_branch_lets_the_other_branches_finish():
    ledger = Ledger()
    runner = TestRunner(fan_out(ledger, ledger.payer()))
    first = await runner.run("go")
    # The other branch ran to its end (note included); the join and summary wait.
    assert sorted(ledger.ran) == ["note", "other", "prepare"]
    resumed = await approve(runner, first)
    assert sorted(ledger.ran) == ["note", "other", "prepare", "summary"]  # nothing rerun
    assert outputs(resumed)[-1] == ("summary", "other=other done, payer=payer: {'paid': 500}")
    assert ledger.paid == [500]


async def test_two_waiting_branches_each_resume_and_the_join_waits_for_both():
    ledger = Ledger()
    runner = TestRunner(fan_out(ledger, ledger.payer("rent", 900), ledger.payer("tax", 300)))
    first = requests_in(await runner.run("go"))
    by_amount = {r.args["originalFunctionCall"]["args"]["amount"]: r for r in first}
    second = await runner.run(confirmation_answer(by_amount[900], confirmed=True))
    assert ledger.paid == [900] and "summary" not in ledger.ran
    [record] = pause_records(second)  # tax still waits
    assert list(record["waiting"]) == ["tax"]
    third = await runner.run(confirmation_answer(by_amount[300], confirmed=True))
    assert sorted(ledger.paid) == [300, 900] and ledger.ran.count("summary") == 1
    assert outputs(third)[-1] == (
        "summary",
        "other=other done, rent=rent: {'paid': 900}, tax=tax: {'paid': 300}",
    )


async def test_a_paused_run_resumes_after_a_restart_on_sqlite(tmp_path: Path):
    db = str(tmp_path / "sessions.db")

    def make_runner(ledger: Ledger) -> Runner:
        return Runner(
            app_name="app",
            agent=fan_out(ledger, ledger.payer()),
            session_service=SqliteSessionService(db),
            auto_create_session=True,
        )

    async def turn(runner: Runner, message: types.Content) -> list[Event]:
        events = runner.run_async(user_id="u", session_id="s", new_message=message)
        return [e async for e in events]

    first_ledger = Ledger()
    first = await turn(make_runner(first_ledger), types.UserContent("go"))
    [request] = requests_in(first)
    # A new process: new agents and services, the same database file.
    ledger = Ledger()
    resumed = await turn(make_runner(ledger), confirmation_answer(request, confirmed=True))
    assert ledger.paid == [500] and ledger.ran == ["summary"]  # nothing else rerun
    assert outputs(resumed)[-1] == ("summary", "other=other done, payer=payer: {'paid': 500}")


async def test_a_workflow_nested_in_a_workflow_and_in_a_sequence_pauses_them_too():
    ledger = Ledger()
    inner = Workflow(name="inner", edges=[(START, ledger.step("a", "pay"), ledger.payer())])

    def wrap(node_input: str) -> str:
        ledger.ran.append("wrap")
        return f"[{node_input}]"

    outer = Workflow(name="outer", edges=[(START, ledger.step("first"), inner, wrap)])

    def closing(request: LlmRequest) -> str:
        ledger.ran.append("closing")
        return "bye"

    flow = SequentialAgent(
        name="flow", sub_agents=[outer, LlmAgent(name="closer", model=FunctionModel(closing))]
    )
    runner = TestRunner(flow)
    first = await runner.run("go")
    assert ledger.ran == ["first", "a"]
    resumed = await approve(runner, first)
    assert ledger.ran == ["first", "a", "wrap", "closing"]
    assert ("wrap", "[payer: {'paid': 500}]") in outputs(resumed)


async def test_a_new_message_instead_of_an_answer_starts_a_new_run():
    ledger = Ledger()
    wf = Workflow(name="wf", edges=[(START, ledger.step("before"), ledger.payer())])
    runner = TestRunner(wf)
    await runner.run("go")
    await runner.run("something else")
    assert ledger.ran == ["before", "before"] and ledger.paid == []


def answer_input(request: types.FunctionCall, value: Any) -> types.Content:
    """The client's answer to an ``adk_request_input`` call."""
    response = types.FunctionResponse(id=request.id, name=request.name, response=value)
    return types.Content(role="user", parts=[types.Part(function_response=response)])


async def test_a_function_node_asks_for_input_and_the_answer_becomes_its_output():
    ran: list[Any] = []

    def how_many(node_input: str) -> RequestInput:
        ran.append("asked")
        return RequestInput(message="How many seats?", response_schema=int, payload={"max": 9})

    def book(node_input: int) -> str:
        ran.append(node_input)
        return f"booked {node_input}"

    runner = TestRunner(Workflow(name="wf", edges=[(START, how_many, book)]))
    first = await runner.run("book a table")
    [request] = input_requests(first)
    [event] = [e for e in first if e.get_function_calls()]
    assert event.author == "wf" and event.long_running_tool_ids == {request.id}
    assert request.args == {
        "interruptId": request.id,
        "payload": {"max": 9},
        "message": "How many seats?",
        "response_schema": {"type": "integer"},
    }
    resumed = await runner.run(answer_input(request, {"result": "4"}))
    assert ran == ["asked", 4]  # the asking node is not run again
    assert outputs(resumed) == [("how_many", 4), ("book", "booked 4")]


async def test_a_node_rerun_on_resume_gets_the_answers_in_resume_inputs():
    runs: list[dict[str, Any]] = []

    @node(rerun_on_resume=True)
    async def signup(ctx: Context) -> Any:
        runs.append(dict(ctx.resume_inputs))
        if "name" not in ctx.resume_inputs:
            yield RequestInput(interrupt_id="name", message="Your name?")
            return
        yield f"welcome {ctx.resume_inputs['name']}"

    runner = TestRunner(Workflow(name="wf", edges=[(START, signup)]))
    [request] = input_requests(await runner.run("hi"))
    resumed = await runner.run(answer_input(request, {"result": "Ada"}))
    assert runs == [{}, {"name": "Ada"}]
    assert outputs(resumed) == [("signup", "welcome Ada")]


async def test_a_node_asking_twice_waits_for_both_answers():
    def contact(node_input: Any) -> Any:
        yield RequestInput(interrupt_id="email", message="Email?")
        yield RequestInput(interrupt_id="phone", message="Phone?", response_schema=str)

    runner = TestRunner(Workflow(name="wf", edges=[(START, contact)]))
    email, phone = input_requests(await runner.run("go"))
    second = await runner.run(answer_input(phone, {"result": "0123"}))
    assert outputs(second) == [] and pause_records(second)  # still waits for the email
    third = await runner.run(answer_input(email, {"result": "a@b.c"}))
    assert outputs(third) == [("contact", {"phone": "0123", "email": "a@b.c"})]


async def test_an_answer_that_does_not_fit_the_schema_fails_clearly():
    def age(node_input: Any) -> RequestInput:
        return RequestInput(message="Age?", response_schema=int)

    runner = TestRunner(Workflow(name="wf", edges=[(START, age)]))
    [request] = input_requests(await runner.run("go"))
    with pytest.raises(WorkflowDataError, match="does not fit"):
        await runner.run(answer_input(request, {"result": "old"}))

    # The run still waits: the same request can be answered again, and the node runs
    # on with the answer that fits (a refused answer is not an answer given).
    resumed = await runner.run(answer_input(request, {"result": "42"}))
    assert outputs(resumed) == [("age", 42)]
    again = await runner.run(answer_input(request, {"result": "43"}))  # sent once more
    assert outputs(again) == []


async def test_a_request_for_input_inside_a_sequence_pauses_it():
    said: list[str] = []

    def ask(node_input: Any) -> RequestInput:
        return RequestInput(message="Topic?")

    def closing(request: LlmRequest) -> str:
        said.append("closer")
        return "bye"

    wf = Workflow(name="wf", edges=[(START, ask)])
    flow = SequentialAgent(
        name="flow", sub_agents=[wf, LlmAgent(name="closer", model=FunctionModel(closing))]
    )
    runner = TestRunner(flow)
    [request] = input_requests(await runner.run("go"))
    assert said == []
    resumed = await runner.run(answer_input(request, {"result": "tea"}))
    assert outputs(resumed) == [("ask", "tea")] and said == ["closer"]


async def test_a_resumed_node_that_asks_again_pauses_again():
    paid: list[int] = []

    def pay(amount: int) -> dict[str, Any]:
        """Pays."""
        paid.append(amount)
        return {"paid": amount}

    def reply(request: LlmRequest) -> Any:
        results = [p for c in request.contents for p in c.parts or [] if p.function_response]
        if len(results) >= 2:
            return "both paid"
        return function_call("pay", {"amount": 10 * (len(results) + 1)})

    payer = LlmAgent(
        name="payer",
        model=FunctionModel(reply),
        tools=[FunctionTool(pay, require_confirmation=True)],
    )
    runner = TestRunner(
        Workflow(name="wf", edges=[(START, payer, node(lambda: "end", name="end"))])
    )
    second = await approve(runner, await runner.run("go"))
    assert paid == [10] and outputs(second) == []
    [record] = pause_records(second)
    assert record["waiting"]["payer"]["run_id"] == 1  # the same run of the node
    third = await approve(runner, second)
    assert paid == [10, 20] and outputs(third) == [("end", "end")]


async def test_a_nested_workflow_asking_for_input_resumes_through_its_parent():
    def ask(node_input: Any) -> RequestInput:
        return RequestInput(message="Colour?")

    inner = Workflow(name="inner", edges=[(START, ask)])

    def paint(node_input: str) -> str:
        return f"painted {node_input}"

    runner = TestRunner(Workflow(name="outer", edges=[(START, inner, paint)]))
    [request] = input_requests(await runner.run("go"))
    resumed = await runner.run(answer_input(request, {"result": "blue"}))
    assert outputs(resumed) == [("ask", "blue"), ("paint", "painted blue")]
    assert paths(resumed) == ["outer@1/inner@1/ask@1", "outer@1/paint@1"]


async def test_resuming_a_paused_invocation_as_if_it_had_crashed_keeps_it_waiting():
    ledger = Ledger()
    runner = TestRunner(Workflow(name="wf", edges=[(START, ledger.step("a"), ledger.payer())]))
    first = await runner.run("go")
    resumed = await runner.resume(first[0].invocation_id)
    assert ledger.ran == ["a"] and ledger.paid == []
    assert pause_records(resumed)  # still waiting for the approval
    await approve(runner, first)  # the request it asked before answers it
    assert ledger.paid == [500]


async def test_an_answer_sent_again_runs_nothing_again():
    ran: list[str] = []

    def ask(node_input: Any) -> RequestInput:
        ran.append("ask")
        return RequestInput(message="Go on?")

    def act(node_input: str) -> str:
        ran.append("act")
        return "acted"

    runner = TestRunner(Workflow(name="wf", edges=[(START, ask, act)]))
    [request] = input_requests(await runner.run("go"))
    await runner.run(answer_input(request, {"result": "yes"}))
    again = await runner.run(answer_input(request, {"result": "yes"}))
    assert ran == ["ask", "act"] and outputs(again) == []


async def test_an_llm_node_seeing_the_conversation_gets_the_answer_as_its_input_only():
    seen: list[list[Any]] = []

    def reply(request: LlmRequest) -> str:
        seen.append([_part(p) for c in request.contents for p in c.parts or []])
        return "a poem about tea"

    poet = LlmAgent(name="poet", model=FunctionModel(reply), include_contents="default")

    def topic(node_input: Any) -> RequestInput:
        return RequestInput(message="Topic?")

    runner = TestRunner(Workflow(name="wf", edges=[(START, topic, poet)]))
    [request] = input_requests(await runner.run("write"))
    await runner.run(answer_input(request, {"result": "tea"}))
    assert seen == [["write", "tea"]]  # no request traffic, no orphan tool result
