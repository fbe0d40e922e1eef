"""A step that waits for the client (an approval, a long-running tool) pauses the
workflows around it; the client's answer resumes them exactly there."""

from __future__ import annotations

from typing import Any

from pyadk import types
from pyadk.agents import LlmAgent, LoopAgent, ParallelAgent, SequentialAgent
from pyadk.models import LlmRequest
from pyadk.testing import FunctionModel, TestRunner, function_call
from pyadk.tools import FunctionTool, LongRunningFunctionTool, exit_loop
from pyadk.tools.tool_confirmation import confirmation_answer, confirmation_requests


class Ledger:
    """Which agents answered, and which payments ran."""

    def __init__(self) -> None:
        self.said: list[str] = []
        self.paid: list[int] = []

    def talker(self, name: str, text: str | None = None) -> LlmAgent:
        def reply(request: LlmRequest) -> str:
            self.said.append(name)
            return text or f"{name} done"

        return LlmAgent(name=name, model=FunctionModel(reply))

    def payer(self, name: str = "payer", amount: int = 500) -> LlmAgent:
        def pay(amount: int) -> dict[str, Any]:
            """Pays."""
            self.paid.append(amount)
            return {"paid": amount}

        def reply(request: LlmRequest) -> Any:
            if request.contents[-1].parts[0].function_response is not None:
                self.said.append(name)
                return f"{name} paid"
            return function_call("pay", {"amount": amount})

        tool = FunctionTool(pay, require_confirmation=True)
        return LlmAgent(name=name, model=FunctionModel(reply), tools=[tool])


def texts(events: list[Any]) -> list[tuple[str, str]]:
    return [(e.author, e.text) for e in events if e.text]


async def approve(runner: TestRunner, events: list[Any], confirmed: bool = True) -> list[Any]:
    [request] = confirmation_requests(events[-1])
    return await runner.run(confirmation_answer(request, confirmed=confirmed))


async def test_a_sequence_pauses_at_the_waiting_step_and_resumes_there() -> None:
    ledger = Ledger()
    finale = ledger.talker("finale")
    flow = SequentialAgent(
        name="flow",
        sub_agents=[ledger.talker("before"), ledger.payer(), ledger.talker("after")],
        finally_agents=[finale],
    )
    runner = TestRunner(flow)
    first = await runner.run("go")
    assert ledger.said == ["before"] and ledger.paid == []  # after and finale wait too
    resumed = await approve(runner, first)
    assert ledger.paid == [500]
    assert ledger.said == ["before", "payer", "after", "finale"]  # before is not rerun
    assert texts(resumed) == [
        ("payer", "payer paid"),
        ("after", "after done"),
        ("finale", "finale done"),
    ]


async def test_a_rejected_step_resumes_the_sequence_too() -> None:
    ledger = Ledger()
    flow = SequentialAgent(name="flow", sub_agents=[ledger.payer(), ledger.talker("after")])
    runner = TestRunner(flow)
    await approve(runner, await runner.run("go"), confirmed=False)
    assert ledger.paid == [] and ledger.said == ["payer", "after"]


async def test_nested_workflows_and_an_llm_router_resume_at_the_right_agent() -> None:
    ledger = Ledger()
    payer = ledger.payer()

    def route(request: LlmRequest) -> Any:
        ledger.said.append("router")
        return function_call("transfer_to_agent", {"agent_name": "payer"})

    router = LlmAgent(name="router", model=FunctionModel(route), sub_agents=[payer])
    inner = SequentialAgent(name="inner", sub_agents=[router, ledger.talker("inner_end")])
    outer = SequentialAgent(
        name="outer", sub_agents=[ledger.talker("start"), inner, ledger.talker("outer_end")]
    )
    runner = TestRunner(outer)
    first = await runner.run("go")
    assert ledger.said == ["start", "router"]
    await approve(runner, first)
    # The router is not asked again: the turn goes straight back to the payer.
    assert ledger.said == ["start", "router", "payer", "inner_end", "outer_end"]
    assert ledger.paid == [500]


async def test_a_parallel_branch_waits_while_the_others_finish() -> None:
    ledger = Ledger()
    fan = ParallelAgent(name="fan", sub_agents=[ledger.payer(), ledger.talker("other")])
    flow = SequentialAgent(name="flow", sub_agents=[fan, ledger.talker("after")])
    runner = TestRunner(flow)
    first = await runner.run("go")
    assert ledger.said == ["other"]  # the other branch finished; "after" waits
    [request] = [
        r for e in first for r in confirmation_requests(e)
    ]  # the request is not necessarily the last event of a parallel run
    await runner.run(confirmation_answer(request, confirmed=True))
    assert ledger.said == ["other", "payer", "after"]  # "other" is not rerun
    assert ledger.paid == [500]


async def test_a_loop_resumes_mid_iteration_and_goes_on() -> None:
    ledger = Ledger()
    rounds: list[int] = []

    def check(request: LlmRequest) -> Any:
        rounds.append(1)
        if len(rounds) == 2:
            return function_call("exit_loop", {})
        return "again"

    checker = LlmAgent(name="checker", model=FunctionModel(check), tools=[exit_loop])
    loop = LoopAgent(name="loop", sub_agents=[ledger.payer(), checker], max_iterations=5)
    runner = TestRunner(loop)
    first = await runner.run("go")
    assert rounds == []
    second = await approve(runner, first)  # round 1 goes on: checker, then round 2 pays
    assert rounds == [1] and ledger.paid == [500]
    await approve(runner, second)
    assert rounds == [1, 1] and ledger.paid == [500, 500]


async def test_a_long_running_tool_pauses_the_sequence_until_its_result() -> None:
    ledger = Ledger()

    def ask_manager(amount: int) -> None:
        """Asks a manager; the answer comes later."""

    def reply(request: LlmRequest) -> Any:
        last = request.contents[-1].parts[0]
        if last.function_response is not None:
            return f"manager said {last.function_response.response['verdict']}"
        return function_call("ask_manager", {"amount": 40})

    approver = LlmAgent(
        name="approver", model=FunctionModel(reply), tools=[LongRunningFunctionTool(ask_manager)]
    )
    flow = SequentialAgent(name="flow", sub_agents=[approver, ledger.talker("after")])
    runner = TestRunner(flow)
    first = await runner.run("refund")
    [call] = first[-1].get_function_calls()
    assert first[-1].long_running_tool_ids == {call.id} and ledger.said == []
    result = types.FunctionResponse(id=call.id, name="ask_manager", response={"verdict": "yes"})
    resumed = await runner.run(
        types.Content(role="user", parts=[types.Part(function_response=result)])
    )
    assert texts(resumed) == [("approver", "manager said yes"), ("after", "after done")]


async def test_the_next_turn_after_a_finished_resume_starts_from_the_root() -> None:
    ledger = Ledger()
    flow = SequentialAgent(name="flow", sub_agents=[ledger.talker("first"), ledger.payer()])
    runner = TestRunner(flow)
    await approve(runner, await runner.run("go"))
    ledger.said.clear()
    await runner.run("again")
    assert ledger.said == ["first"]  # a new turn runs the sequence from its start


def requests_in(events: list[Any]) -> list[Any]:
    return [r for e in events for r in confirmation_requests(e)]


def two_payments_then_after(ledger: Ledger) -> SequentialAgent:
    """Two payments needing approval in parallel, then a step that must wait for both."""
    fan = ParallelAgent(
        name="fan", sub_agents=[ledger.payer("rent", 900), ledger.payer("tax", 300)]
    )
    return SequentialAgent(name="flow", sub_agents=[fan, ledger.talker("after")])


async def test_parallel_branches_waiting_each_resume_and_the_workflow_waits_for_all() -> None:
    ledger = Ledger()
    runner = TestRunner(two_payments_then_after(ledger))
    first = requests_in(await runner.run("go"))
    assert len(first) == 2 and ledger.paid == []
    by_amount = {r.args["originalFunctionCall"]["args"]["amount"]: r for r in first}
    await runner.run(confirmation_answer(by_amount[900], confirmed=True))
    assert ledger.paid == [900] and "after" not in ledger.said  # tax still waits
    await runner.run(confirmation_answer(by_amount[300], confirmed=True))
    assert sorted(ledger.paid) == [300, 900] and ledger.said[-1] == "after"


async def test_one_message_can_answer_several_waiting_branches() -> None:
    ledger = Ledger()
    runner = TestRunner(two_payments_then_after(ledger))
    first = requests_in(await runner.run("go"))
    parts = [p for r in first for p in confirmation_answer(r, confirmed=True).parts]
    await runner.run(types.Content(role="user", parts=parts))
    assert sorted(ledger.paid) == [300, 900]
    assert ledger.said.count("after") == 1 and ledger.said[-1] == "after"


async def test_rounds_before_a_pause_count_towards_max_iterations() -> None:
    ledger = Ledger()
    inner = LoopAgent(name="inner", sub_agents=[ledger.payer()], max_iterations=2)
    outer = LoopAgent(name="outer", sub_agents=[inner], max_iterations=2)
    runner = TestRunner(outer)
    events = await runner.run("go")
    rounds = events[-1].actions.agent_state["loop_rounds"]
    assert rounds == {"inner": 0, "outer": 0}  # recorded on the waiting event
    for expected in range(1, 4):
        events = await approve(runner, events)
        assert ledger.paid == [500] * expected
        assert confirmation_requests(events[-1])  # each round waits again
    events = await approve(runner, events)
    # 2 outer rounds of 2 inner rounds: four payments, then both loops are done.
    assert ledger.paid == [500] * 4
    assert not confirmation_requests(events[-1]) and texts(events)[-1] == ("payer", "payer paid")
    again = await runner.run("go")  # a new turn starts the loops afresh
    assert again[-1].actions.agent_state["loop_rounds"] == {"inner": 0, "outer": 0}
