"""Dynamic nodes: a node runs other nodes (functions, agents, workflows, tools) at run
time with ``await ctx.run_node(...)``; their events, outputs, errors, retries,
concurrency, and pausing for the client with resume."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from wf_support import answer, outputs, paths, pause_records

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.events import Event
from pyadk.models import LlmRequest
from pyadk.runners import Runner
from pyadk.sessions.sqlite_session_service import SqliteSessionService
from pyadk.testing import FunctionModel, TestRunner, function_call
from pyadk.tools import FunctionTool
from pyadk.tools.tool_confirmation import confirmation_answer, confirmation_requests
from pyadk.workflow import (
    REQUEST_INPUT_FUNCTION_CALL_NAME,
    START,
    Context,
    DynamicNodeFailError,
    RequestInput,
    RetryConfig,
    Workflow,
    WorkflowConfigurationError,
    node,
    node_output,
)

NO_WAIT = RetryConfig(max_attempts=3, initial_delay=0, jitter=0)


def double(node_input: int) -> int:
    return node_input * 2


def one_node(func: Any, name: str = "wf") -> TestRunner:
    return TestRunner(Workflow(name=name, edges=[(START, func)]))


def requests_for_input(events: list[Event]) -> list[types.FunctionCall]:
    return [
        c
        for e in events
        for c in e.get_function_calls()
        if c.name == REQUEST_INPUT_FUNCTION_CALL_NAME
    ]


# -- running and outputs ---------------------------------------------------------------------
async def test_a_node_runs_a_function_and_gets_its_output():
    async def plan(ctx: Context, node_input: str) -> str:
        twice = await ctx.run_node(double, node_input=21)
        again = await ctx.run_node(double, 5)
        return f"{node_input}: {twice}, {again}"

    events = await one_node(plan).run("go")
    assert outputs(events) == [("double", 42), ("double", 10), ("plan", "go: 42, 10")]
    # Each run is a child of the caller, numbered per name: <caller>/<name>@<n>.
    assert paths(events) == ["wf@1/plan@1/double@1", "wf@1/plan@1/double@2", "wf@1/plan@1"]
    assert {e.author for e in events if node_output(e) is not None} == {"wf"}


async def test_the_output_goes_to_the_next_node_and_a_child_without_output_returns_none():
    def quiet(node_input: Any) -> None:
        return None

    async def plan(ctx: Context) -> Any:
        return [await ctx.run_node(quiet), await ctx.run_node(double, 2)]

    def after(node_input: list[Any]) -> str:
        return f"got {node_input}"

    events = await TestRunner(Workflow(name="wf", edges=[(START, plan, after)])).run("go")
    assert outputs(events)[-1] == ("after", "got [None, 4]")


async def test_run_node_takes_nodes_made_with_node():
    renamed = node(double, name="twice")
    shout = node(lambda node_input: node_input.upper(), name="shout")

    async def plan(ctx: Context) -> Any:
        return [await ctx.run_node(renamed, 3), await ctx.run_node(shout, "hey")]

    events = await one_node(plan).run("go")
    assert outputs(events) == [("twice", 6), ("shout", "HEY"), ("plan", [6, "HEY"])]
    assert paths(events)[:2] == ["wf@1/plan@1/twice@1", "wf@1/plan@1/shout@1"]


async def test_a_custom_run_id_names_the_path_and_numeric_ids_are_refused():
    async def plan(ctx: Context) -> int:
        return await ctx.run_node(double, 1, run_id="first")

    events = await one_node(plan).run("go")
    assert paths(events)[0] == "wf@1/plan@1/double@first"

    async def numeric(ctx: Context) -> int:
        return await ctx.run_node(double, 1, run_id="7")

    with pytest.raises(ValueError, match="must contain non-numeric characters"):
        await one_node(numeric).run("go")


async def test_state_written_by_a_dynamic_node_is_seen_by_its_caller_and_saved():
    def count(ctx: Context, node_input: int) -> int:
        ctx.state["counted"] = node_input
        return node_input + 1

    async def plan(ctx: Context) -> str:
        ctx.state["planned"] = True
        result = await ctx.run_node(count, 9)
        return f"{result} after {ctx.state['counted']}"

    runner = one_node(plan)
    events = await runner.run("go")
    [written] = [e for e in events if e.actions.state_delta.get("counted") == 9]
    state = await runner.state()
    assert state["counted"] == 9 and state["planned"] is True
    assert outputs(events)[-1] == ("plan", "10 after 9")
    assert written.custom_metadata["node_info"]["path"] == "wf@1/plan@1/count@1"


async def test_dynamic_nodes_can_run_dynamic_nodes():
    async def inner(ctx: Context, node_input: int) -> int:
        return await ctx.run_node(double, node_input) + 1

    async def outer(ctx: Context) -> int:
        return await ctx.run_node(inner, 10)

    events = await one_node(outer).run("go")
    assert paths(events) == [
        "wf@1/outer@1/inner@1/double@1",
        "wf@1/outer@1/inner@1",
        "wf@1/outer@1",
    ]
    assert outputs(events)[-1] == ("outer", 21)


async def test_use_as_output_makes_the_childs_output_the_callers_written_once():
    async def plan(ctx: Context) -> int:
        return await ctx.run_node(double, 4, use_as_output=True)

    def after(node_input: int) -> str:
        return f"after {node_input}"

    events = await TestRunner(Workflow(name="wf", edges=[(START, plan, after)])).run("go")
    assert outputs(events) == [("double", 8), ("after", "after 8")]
    [event] = [e for e in events if node_output(e) == 8]
    assert event.custom_metadata["node_info"]["output_for"] == [
        "wf@1/plan@1/double@1",
        "wf@1/plan@1",
    ]

    async def twice(ctx: Context) -> None:
        await ctx.run_node(double, 1, use_as_output=True)
        await ctx.run_node(double, 2, use_as_output=True)

    with pytest.raises(ValueError, match="already has a use_as_output delegate"):
        await one_node(twice).run("go")


async def test_use_sub_branch_runs_the_child_in_its_own_branch():
    seen: list[str | None] = []

    def where(ctx: Context) -> str:
        seen.append(ctx.branch)
        return "here"

    async def plan(ctx: Context) -> None:
        await ctx.run_node(where)
        await ctx.run_node(where, use_sub_branch=True)
        await ctx.run_node(where, override_branch="side")

    await one_node(plan).run("go")
    assert seen == [None, "where@2", "side"]


async def test_run_node_outside_a_workflow_and_on_things_that_are_not_nodes_fails_clearly():
    async def plan(ctx: Context) -> None:
        await ctx.run_node(42)

    with pytest.raises(WorkflowConfigurationError, match="Not a workflow node: 42"):
        await one_node(plan).run("go")
    from pyadk.agents.invocation_context import InvocationContext
    from pyadk.sessions import InMemorySessionService, Session

    ic = InvocationContext(
        session_service=InMemorySessionService(),
        invocation_id="i",
        agent=LlmAgent(name="x"),
        session=Session(id="s", app_name="a", user_id="u"),
    )
    ctx = Context(ic, node_name="n", node_path="n@1", run_id="1")
    with pytest.raises(WorkflowConfigurationError, match="running in a Workflow"):
        await ctx.run_node(double, 1)


# -- concurrency -----------------------------------------------------------------------------
async def test_gathered_runs_run_concurrently_and_keep_their_call_order_in_paths():
    started: list[int] = []
    both_started = asyncio.Event()

    async def slow(node_input: int) -> int:
        started.append(node_input)
        if len(started) == 2:
            both_started.set()
        await asyncio.wait_for(both_started.wait(), 2)  # each waits for the other
        return node_input * 10

    async def plan(ctx: Context) -> list[int]:
        return list(await asyncio.gather(*(ctx.run_node(slow, i) for i in (1, 2))))

    events = await one_node(plan).run("go")
    assert outputs(events)[-1] == ("plan", [10, 20])
    assert sorted(p for p in paths(events) if "slow" in p) == [
        "wf@1/plan@1/slow@1",
        "wf@1/plan@1/slow@2",
    ]


# -- errors and retries ----------------------------------------------------------------------
class Flaky:
    """A node body failing ``failures`` times before it works."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.calls = 0

    def __call__(self, node_input: Any) -> str:
        self.calls += 1
        if self.calls <= self.failures:
            raise RuntimeError(f"boom {self.calls}")
        return "ok"


async def test_a_failing_dynamic_node_fails_its_caller_with_its_own_error():
    def broken(node_input: Any) -> None:
        raise KeyError("missing")

    async def plan(ctx: Context) -> None:
        await ctx.run_node(broken)

    runner = one_node(plan)
    with pytest.raises(KeyError, match="missing"):
        await runner.run("go")
    events = (await runner.session()).events
    # The child records its failure; the graph node it ended sets error_code.
    failures = [
        (e.custom_metadata["node_info"]["path"], e.custom_metadata["error"], e.error_code)
        for e in events
        if e.custom_metadata and "error" in e.custom_metadata
    ]
    assert failures == [
        ("wf@1/plan@1/broken@1", {"type": "KeyError", "message": "'missing'", "attempt": 1}, None),
        (
            "wf@1/plan@1",
            {
                "type": "KeyError",
                "message": "'missing'",
                "attempt": 1,
                "node_path": "wf@1/plan@1/broken@1",
            },
            "KeyError",
        ),
    ]


async def test_the_caller_can_catch_the_failure_and_go_on():
    def broken(node_input: Any) -> None:
        raise ValueError("bad input")

    async def plan(ctx: Context) -> str:
        try:
            await ctx.run_node(broken)
        except DynamicNodeFailError as failure:
            assert failure.error_node_path == "wf@1/plan@1/broken@1"
            return f"recovered from {type(failure.error).__name__}: {failure.error}"
        return "not reached"

    runner = one_node(plan)
    events = await runner.run("go")
    assert outputs(events) == [("plan", "recovered from ValueError: bad input")]
    assert not [e for e in events if e.error_code]  # the run recovered: it did not fail
    assert "outcome:wf" not in await runner.state()  # no failure outcome


async def test_a_failure_deep_down_names_the_node_that_failed():
    def broken(node_input: Any) -> None:
        raise RuntimeError("deep")

    async def middle(ctx: Context) -> None:
        await ctx.run_node(broken)

    caught: list[DynamicNodeFailError] = []

    async def top(ctx: Context) -> str:
        try:
            await ctx.run_node(middle)
        except DynamicNodeFailError as failure:
            caught.append(failure)
        return "done"

    await one_node(top).run("go")
    [failure] = caught
    assert str(failure) == "Dynamic node middle failed"
    assert isinstance(failure.error, RuntimeError)
    assert failure.error_node_path == "wf@1/top@1/middle@1/broken@1"


async def test_a_dynamic_node_retries_per_its_own_retry_config():
    flaky = Flaky(2)

    async def plan(ctx: Context) -> str:
        return await ctx.run_node(node(flaky, name="flaky", retry_config=NO_WAIT))

    events = await one_node(plan).run("go")
    assert flaky.calls == 3 and outputs(events)[-1] == ("plan", "ok")
    attempts = [e.custom_metadata["error"] for e in events if "error" in e.custom_metadata]
    assert [a["attempt"] for a in attempts] == [1, 2] and all(a["retrying"] for a in attempts)


async def test_a_caller_retried_after_a_child_failed_reuses_the_children_that_finished():
    ran: list[str] = []
    flaky = Flaky(1)

    def fetch(node_input: Any) -> str:
        ran.append("fetch")
        return "data"

    @node(retry_config=NO_WAIT)
    async def plan(ctx: Context) -> str:
        data = await ctx.run_node(fetch)
        checked = await ctx.run_node(node(flaky, name="check"))
        return f"{data} {checked}"

    events = await one_node(plan).run("go")
    assert outputs(events)[-1] == ("plan", "data ok")
    assert ran == ["fetch"] and flaky.calls == 2  # fetch is not run again on retry
    assert "wf@1/plan@1/check@1" in paths(events)


async def test_a_dynamic_node_times_out():
    async def sleepy(node_input: Any) -> None:
        await asyncio.sleep(5)

    async def plan(ctx: Context) -> None:
        await ctx.run_node(node(sleepy, timeout=0.01))

    from pyadk.workflow import NodeTimeoutError

    with pytest.raises(NodeTimeoutError, match="'sleepy' timed out"):
        await one_node(plan).run("go")


# -- agents, workflows and tools as dynamic nodes --------------------------------------------
async def test_an_agent_runs_as_a_dynamic_node_on_the_given_input():
    seen: list[str] = []

    def reply(request: LlmRequest) -> str:
        text = request.contents[-1].parts[0].text or ""
        seen.append(text)
        return text.upper()

    writer = LlmAgent(name="writer", model=FunctionModel(reply))

    async def plan(ctx: Context) -> list[str]:
        return list(await asyncio.gather(ctx.run_node(writer, "a"), ctx.run_node(writer, "b")))

    events = await one_node(plan).run("go")
    assert sorted(seen) == ["a", "b"]
    assert outputs(events)[-1] == ("plan", ["A", "B"])
    assert sorted(e.text for e in events if e.author == "writer" and e.text) == ["A", "B"]


async def test_a_workflow_runs_as_a_dynamic_node():
    def inc(node_input: int) -> int:
        return node_input + 1

    inner = Workflow(name="inner", edges=[(START, double, inc)])

    async def plan(ctx: Context) -> int:
        return await ctx.run_node(inner, 5)

    events = await one_node(plan).run("go")
    assert outputs(events)[-1] == ("plan", 11)
    assert "wf@1/plan@1/inner@1/inc@1" in paths(events)


async def test_a_tool_runs_as_a_dynamic_node():
    def add(a: int, b: int) -> int:
        """Adds two numbers."""
        return a + b

    async def plan(ctx: Context) -> int:
        return await ctx.run_node(FunctionTool(add), {"a": 2, "b": 3})

    events = await one_node(plan).run("go")
    assert outputs(events) == [("add", 5), ("plan", 5)]


# -- pausing for the client, and resuming ----------------------------------------------------
class Ledger:
    def __init__(self) -> None:
        self.ran: list[str] = []

    def fetch(self, node_input: Any) -> str:
        self.ran.append("fetch")
        return "data"

    def ask(self, node_input: str) -> RequestInput:
        self.ran.append(f"ask {node_input}")
        return RequestInput(message=f"approve {node_input}?", response_schema=bool)


def approvals(ledger: Ledger) -> Workflow:
    fetch = node(ledger.fetch, name="fetch")
    ask = node(ledger.ask, name="ask")

    async def plan(ctx: Context) -> list[Any]:
        ledger.ran.append("plan")
        data = await ctx.run_node(fetch)
        first, second = await asyncio.gather(ctx.run_node(ask, "a"), ctx.run_node(ask, "b"))
        return [data, first, second]

    def after(node_input: list[Any]) -> str:
        ledger.ran.append("after")
        return f"after {node_input}"

    return Workflow(name="wf", edges=[(START, plan, after)])


async def test_a_dynamic_node_asking_for_input_pauses_and_resumes_without_rerunning_finished_ones():
    ledger = Ledger()
    runner = TestRunner(approvals(ledger))
    first = await runner.run("go")
    assert ledger.ran == ["plan", "fetch", "ask a", "ask b"]
    ask_a, ask_b = requests_for_input(first)
    assert ask_a.args["message"] == "approve a?" and ask_b.args["message"] == "approve b?"
    [record] = pause_records(first)
    assert list(record["waiting"]) == ["plan"]  # the caller waits for its children

    second = await runner.run(answer(ask_a, True))
    # The caller runs again; fetch and the answered ask are not: ask b still waits.
    assert ledger.ran == ["plan", "fetch", "ask a", "ask b", "plan"]
    assert outputs(second) == [("ask", True)] and pause_records(second)

    third = await runner.run(answer(ask_b, False))
    assert ledger.ran == ["plan", "fetch", "ask a", "ask b", "plan", "plan", "after"]
    assert outputs(third) == [
        ("ask", False),
        ("plan", ["data", True, False]),
        ("after", "after ['data', True, False]"),
    ]
    assert paths(third)[0] == "wf@1/plan@1/ask@2"


async def test_answering_every_request_at_once_finishes_in_one_turn():
    ledger = Ledger()
    runner = TestRunner(approvals(ledger))
    ask_a, ask_b = requests_for_input(await runner.run("go"))
    parts = [*answer(ask_a, True).parts, *answer(ask_b, True).parts]
    done = await runner.run(types.Content(role="user", parts=parts))
    assert outputs(done)[-1] == ("after", "after ['data', True, True]")
    assert ledger.ran.count("plan") == 2 and ledger.ran.count("fetch") == 1


async def test_a_paused_dynamic_node_resumes_after_a_restart_on_sqlite(tmp_path: Path):
    db = str(tmp_path / "sessions.db")

    async def turn(ledger: Ledger, message: types.Content) -> list[Event]:
        runner = Runner(
            app_name="app",
            agent=approvals(ledger),
            session_service=SqliteSessionService(db),
            auto_create_session=True,
        )
        return [e async for e in runner.run_async(user_id="u", session_id="s", new_message=message)]

    ask_a, ask_b = requests_for_input(await turn(Ledger(), types.UserContent("go")))
    ledger = Ledger()  # a new process
    parts = [*answer(ask_a, True).parts, *answer(ask_b, False).parts]
    done = await turn(ledger, types.Content(role="user", parts=parts))
    assert ledger.ran == ["plan", "after"]
    assert outputs(done)[-1] == ("after", "after ['data', True, False]")


async def test_a_dynamic_node_rerun_on_resume_gets_the_answer_in_resume_inputs():
    runs: list[dict[str, Any]] = []

    @node(rerun_on_resume=True)
    async def signup(ctx: Context) -> Any:
        runs.append(dict(ctx.resume_inputs))
        if "name" not in ctx.resume_inputs:
            yield RequestInput(interrupt_id="name", message="Your name?")
            return
        yield f"welcome {ctx.resume_inputs['name']}"

    async def plan(ctx: Context) -> str:
        return await ctx.run_node(signup)

    runner = one_node(plan)
    [request] = requests_for_input(await runner.run("hi"))
    resumed = await runner.run(answer(request, "Ada"))
    assert runs == [{}, {"name": "Ada"}]
    assert outputs(resumed) == [("signup", "welcome Ada"), ("plan", "welcome Ada")]


async def test_a_pause_deep_down_resumes_through_every_caller():
    ran: list[str] = []

    def ask(node_input: Any) -> RequestInput:
        ran.append("ask")
        return RequestInput(message="Size?", response_schema=int)

    async def middle(ctx: Context) -> int:
        ran.append("middle")
        return await ctx.run_node(ask) * 2

    async def top(ctx: Context) -> int:
        ran.append("top")
        return await ctx.run_node(middle) + 1

    runner = one_node(top)
    [request] = requests_for_input(await runner.run("go"))
    resumed = await runner.run(answer(request, 4))
    assert ran == ["top", "middle", "ask", "top", "middle"]
    assert outputs(resumed) == [("ask", 4), ("middle", 8), ("top", 9)]


async def test_an_agent_run_dynamically_waits_for_approval_and_resumes():
    paid: list[int] = []

    def pay(amount: int) -> dict[str, Any]:
        """Pays."""
        paid.append(amount)
        return {"paid": amount}

    def reply(request: LlmRequest) -> Any:
        response = request.contents[-1].parts[0].function_response
        if response is not None:
            return f"paid: {response.response}"
        return function_call("pay", {"amount": 70})

    payer = LlmAgent(
        name="payer",
        model=FunctionModel(reply),
        tools=[FunctionTool(pay, require_confirmation=True)],
    )
    ran: list[str] = []

    async def plan(ctx: Context) -> str:
        ran.append("plan")
        return f"plan: {await ctx.run_node(payer, 'pay 70')}"

    runner = one_node(plan)
    first = await runner.run("go")
    [request] = [r for e in first for r in confirmation_requests(e)]
    assert paid == [] and pause_records(first)
    resumed = await runner.run(confirmation_answer(request, confirmed=True))
    assert paid == [70] and ran == ["plan", "plan"]
    assert outputs(resumed) == [("plan", "plan: paid: {'paid': 70}")]


async def test_a_workflow_run_dynamically_pauses_inside_and_resumes():
    ran: list[str] = []

    def prepare(node_input: str) -> str:
        ran.append("prepare")
        return node_input

    def ask(node_input: str) -> RequestInput:
        return RequestInput(message=f"ok to {node_input}?", response_schema=bool)

    inner = Workflow(name="inner", edges=[(START, prepare, ask)])

    async def plan(ctx: Context) -> str:
        return f"answer: {await ctx.run_node(inner, 'ship')}"

    runner = one_node(plan)
    [request] = requests_for_input(await runner.run("go"))
    assert request.args["message"] == "ok to ship?"
    resumed = await runner.run(answer(request, True))
    assert ran == ["prepare"]  # the inner workflow goes on from its pause
    assert outputs(resumed)[-1] == ("plan", "answer: True")


async def test_a_failing_caller_cancels_the_children_it_still_runs():
    finished: list[str] = []

    async def slow(node_input: Any) -> str:
        await asyncio.sleep(1)
        finished.append("slow")
        return "late"

    def broken(node_input: Any) -> None:
        raise RuntimeError("early")

    async def plan(ctx: Context) -> None:
        await asyncio.gather(ctx.run_node(slow), ctx.run_node(broken))

    runner = one_node(plan)
    with pytest.raises(RuntimeError, match="early"):
        await runner.run("go")
    await asyncio.sleep(1.2)
    assert finished == []  # cancelled with its caller: no late event either
    events = (await runner.session()).events
    assert "wf@1/plan@1/slow@1" not in paths(events)


async def test_parallel_worker_items_run_dynamic_nodes():
    @node(parallel_worker=True)
    async def each(ctx: Context, node_input: int) -> int:
        return await ctx.run_node(double, node_input)

    def items(node_input: Any) -> list[int]:
        return [1, 2]

    events = await TestRunner(Workflow(name="wf", edges=[(START, items, each)])).run("go")
    assert outputs(events)[-1] == ("each", [2, 4])
    assert "wf@1/each@1/each@2/double@1" in paths(events)


async def test_a_node_asking_for_input_itself_keeps_its_finished_dynamic_nodes_on_resume():
    ran: list[str] = []

    def fetch(node_input: Any) -> str:
        ran.append("fetch")
        return "data"

    @node(rerun_on_resume=True)
    async def plan(ctx: Context) -> Any:
        data = await ctx.run_node(fetch)
        if "ok" not in ctx.resume_inputs:
            yield RequestInput(interrupt_id="ok", message=f"Use {data}?")
            return
        yield f"{data}: {ctx.resume_inputs['ok']}"

    runner = one_node(plan)
    [request] = requests_for_input(await runner.run("go"))
    resumed = await runner.run(answer(request, "yes"))
    assert ran == ["fetch"]  # not run again when plan reruns
    assert outputs(resumed) == [("plan", "data: yes")]


async def test_a_terminal_nodes_delegated_output_is_the_workflows_output():
    inner_step = node(double, name="inner_step")

    async def plan(ctx: Context, node_input: int) -> int:
        return await ctx.run_node(inner_step, node_input, use_as_output=True)

    inner = Workflow(name="inner", edges=[(START, plan)])

    def after(node_input: int) -> str:
        return f"inner gave {node_input}"

    def seven(node_input: Any) -> int:
        return 7

    events = await TestRunner(Workflow(name="wf", edges=[(START, seven, inner, after)])).run("go")
    assert outputs(events)[-1] == ("after", "inner gave 14")
    [event] = [e for e in events if node_output(e) == 14]
    assert event.custom_metadata["node_info"]["output_for"] == [
        "wf@1/inner@1/plan@1/inner_step@1",
        "wf@1/inner@1/plan@1",
        "wf@1/inner@1",
    ]
