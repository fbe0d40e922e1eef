"""A function node with ``require_confirmation``: it asks the client to approve the call
(an ``adk_request_input`` request, as a ToolNode does), runs once approved, outputs the
rejection otherwise; a predicate decides per call; the settings are checked at build."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from node_gates_support import approval, approval_requests, reply
from wf_support import outputs

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.events import Event
from pyadk.runners import Runner
from pyadk.sessions.sqlite_session_service import SqliteSessionService
from pyadk.testing import ScriptedModel, TestRunner
from pyadk.tools import FunctionTool
from pyadk.workflow import (
    REQUEST_INPUT_FUNCTION_CALL_NAME,
    START,
    Context,
    FunctionNode,
    InputAnswerError,
    Workflow,
    WorkflowConfigurationError,
    node,
)

REJECTED = {"error": "This tool call is rejected."}


def deleter(deleted: list[str]) -> Any:
    @node(require_confirmation=True)
    def delete(node_input: str, folder: str = "/tmp") -> str:
        deleted.append(node_input)
        return f"deleted {folder}/{node_input}"

    return delete


def after(node_input: Any) -> str:
    return f"after: {node_input}"


async def test_the_call_waits_for_approval_and_runs_once_approved():
    deleted: list[str] = []
    runner = TestRunner(
        Workflow(name="wf", edges=[(START, deleter(deleted), after)]), state={"folder": "/srv"}
    )
    first = await runner.run("a.txt")
    [request] = approval_requests(first)
    assert deleted == [] and outputs(first) == []
    assert request.name == REQUEST_INPUT_FUNCTION_CALL_NAME
    assert request.args["payload"] == {
        "tool_name": "delete",
        "args": {"node_input": "a.txt", "folder": "/srv"},
    }
    assert request.args["message"] == "Approve or reject delete()."
    event = next(e for e in first if e.get_function_calls())
    assert event.author == "wf" and event.long_running_tool_ids == {request.id}
    assert "workflow_paused" in (first[-1].custom_metadata or {})

    resumed = await runner.run(approval(request, True))
    assert deleted == ["a.txt"]  # once
    assert outputs(resumed) == [
        ("delete", "deleted /srv/a.txt"),
        ("after", "after: deleted /srv/a.txt"),
    ]


async def test_a_rejected_call_does_not_run_and_the_rejection_is_the_output():
    deleted: list[str] = []
    runner = TestRunner(Workflow(name="wf", edges=[(START, deleter(deleted), after)]))
    [request] = approval_requests(await runner.run("a.txt"))
    resumed = await runner.run(approval(request, False))
    assert deleted == []
    assert outputs(resumed) == [("delete", REJECTED), ("after", f"after: {REJECTED}")]


async def test_the_function_reads_the_approval_and_its_payload_from_ctx():
    seen: list[Any] = []

    @node(require_confirmation=True)
    def transfer(ctx: Context, node_input: str) -> str:
        seen.append(ctx.tool_confirmation.payload)  # type: ignore[attr-defined]
        return "sent"

    runner = TestRunner(Workflow(name="wf", edges=[(START, transfer)]))
    [request] = approval_requests(await runner.run("100"))
    await runner.run(approval(request, True, payload={"limit": 50}))
    assert seen == [{"limit": 50}]


@pytest.mark.parametrize("is_async", [False, True])
async def test_a_predicate_asks_only_for_the_calls_it_selects(is_async: bool):
    paid: list[float] = []
    asked_with: list[tuple[float, str, str]] = []

    def check(amount: float, ctx: Context, currency: str) -> bool:
        asked_with.append((amount, currency, ctx.node_name))
        return amount > 100

    async def check_async(amount: float, ctx: Context, currency: str) -> bool:
        return check(amount, ctx, currency)

    @node(name="pay", require_confirmation=check_async if is_async else check)
    def pay(amount: float) -> str:
        paid.append(amount)
        return f"paid {amount}"

    def parse(node_input: str, ctx: Context) -> None:
        ctx.state["amount"] = float(node_input)

    wf = Workflow(name="wf", edges=[(START, parse, pay)])
    small = TestRunner(wf, state={"currency": "EUR"}, session_id="small")
    events = await small.run("20")
    assert approval_requests(events) == [] and paid == [20.0]  # false: runs at once
    big = TestRunner(wf, state={"currency": "EUR"}, session_id="big")
    [request] = approval_requests(await big.run("500"))  # true: asks
    assert paid == [20.0]
    assert request.args["payload"] == {"tool_name": "pay", "args": {"amount": 500.0}}
    await big.run(approval(request, True))
    assert paid == [20.0, 500.0]
    # The predicate got the bound argument, the context and a state value it named; it
    # is not asked again once the client answered.
    assert asked_with == [(20.0, "EUR", "pay"), (500.0, "EUR", "pay")]


async def test_an_answer_to_no_request_is_refused_and_the_real_one_still_waits():
    deleted: list[str] = []
    runner = TestRunner(Workflow(name="wf", edges=[(START, deleter(deleted))]))
    [request] = approval_requests(await runner.run("a.txt"))
    stored = len((await runner.session()).events)
    forged = reply(
        "wf_tool_confirmation:forged", REQUEST_INPUT_FUNCTION_CALL_NAME, {"confirmed": True}
    )
    with pytest.raises(InputAnswerError, match="No input request 'wf_tool_confirmation:forged'"):
        await runner.run(forged)
    assert len((await runner.session()).events) == stored and deleted == []
    not_an_object = reply(request.id or "", request.name, {"result": "yes"})
    with pytest.raises(InputAnswerError, match="does not fit"):
        await runner.run(not_an_object)
    assert deleted == []
    await runner.run(approval(request, True))
    assert deleted == ["a.txt"]


async def test_an_llm_node_feeds_a_gated_node():
    sent: list[str] = []
    writer = LlmAgent(name="writer", model=ScriptedModel(["Dear team, all good."]))

    @node(require_confirmation=True)
    def send(node_input: str) -> str:
        sent.append(node_input)
        return "sent"

    runner = TestRunner(Workflow(name="wf", edges=[(START, writer, send)]))
    [request] = approval_requests(await runner.run("write the update"))
    assert request.args["payload"]["args"] == {"node_input": "Dear team, all good."}
    await runner.run(approval(request, True))
    assert sent == ["Dear team, all good."]


async def test_a_dynamic_node_asks_too_and_its_caller_goes_on_after_approval():
    deleted: list[str] = []
    delete = deleter(deleted)

    async def cleanup(ctx: Context, node_input: str) -> str:
        result = await ctx.run_node(delete, node_input)
        return f"cleanup: {result}"

    runner = TestRunner(Workflow(name="wf", edges=[(START, cleanup)]))
    [request] = approval_requests(await runner.run("b.txt"))
    resumed = await runner.run(approval(request, True))
    assert deleted == ["b.txt"]
    assert outputs(resumed)[-1] == ("cleanup", "cleanup: deleted /tmp/b.txt")


async def test_the_pause_survives_a_restart_on_sqlite(tmp_path: Path):
    db = str(tmp_path / "sessions.db")
    deleted: list[str] = []

    def make_runner() -> Runner:
        wf = Workflow(name="wf", edges=[(START, deleter(deleted), after)])
        return Runner(
            app_name="app",
            agent=wf,
            session_service=SqliteSessionService(db),
            auto_create_session=True,
        )

    async def turn(runner: Runner, message: types.Content) -> list[Event]:
        events = runner.run_async(user_id="u", session_id="s", new_message=message)
        return [e async for e in events]

    [request] = approval_requests(await turn(make_runner(), types.UserContent("c.txt")))
    resumed = await turn(make_runner(), approval(request, True))  # a new process
    assert deleted == ["c.txt"]
    assert outputs(resumed)[-1] == ("after", "after: deleted /tmp/c.txt")


def plain(node_input: Any) -> str:
    return "ok"


def test_require_confirmation_needs_rerun_on_resume():
    with pytest.raises(WorkflowConfigurationError, match="needs rerun_on_resume=True"):
        FunctionNode(plain, require_confirmation=True)
    with pytest.raises(WorkflowConfigurationError, match="'plain' with require_confirmation"):
        node(plain, require_confirmation=True, rerun_on_resume=False)
    gated = node(plain, require_confirmation=True)
    assert gated.rerun_on_resume and gated.require_confirmation is True
    with pytest.raises(WorkflowConfigurationError, match="needs rerun_on_resume=True"):
        node(gated, rerun_on_resume=False)
    assert node(plain, require_confirmation=False).rerun_on_resume is False


def test_bad_confirmation_settings_fail_clearly():
    with pytest.raises(WorkflowConfigurationError, match="must be a bool or a callable"):
        node(plain, require_confirmation="always")
    agent = LlmAgent(name="helper", model=ScriptedModel(["hi"]))
    with pytest.raises(WorkflowConfigurationError, match="only apply to a function"):
        node(agent, require_confirmation=True)
    with pytest.raises(WorkflowConfigurationError, match="FunctionTool"):
        node(FunctionTool(plain), require_confirmation=True)
    assert node(FunctionTool(plain), require_confirmation=False).name == "plain"
