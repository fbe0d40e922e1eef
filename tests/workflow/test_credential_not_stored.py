"""A credential the user gives a ToolNode's tool is never stored in the session: not in
a later pause record of the node (its tool then asks for approval, another node still
waits), nor in a dynamic node's, a parallel worker's or a NodeTool call's record, nor
in a SQLite session file. The tool still gets it in the turn the user gives it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from node_gates_support import (
    Upload,
    api_key_answer,
    approval,
    approval_requests,
    calls_named,
    credential_requests,
)
from wf_support import outputs

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.events import Event
from pyadk.runners import Runner
from pyadk.sessions.sqlite_session_service import SqliteSessionService
from pyadk.testing import TestRunner
from pyadk.testing.scripted_models import ScriptedModel, function_call
from pyadk.tools import FunctionTool, NodeTool
from pyadk.workflow import (
    REQUEST_INPUT_FUNCTION_CALL_NAME,
    START,
    Context,
    RequestInput,
    ToolNode,
    Workflow,
    WorkflowConfigurationError,
    node,
)

SECRET = "sk-live-8c1f0e"


def stored_text(events: list[Event]) -> str:
    return "\n".join(e.model_dump_json() for e in events)


async def assert_not_stored(runner: TestRunner, secret: str = SECRET) -> None:
    session = await runner.session()
    assert session.events
    assert secret not in stored_text(session.events)
    assert secret not in json.dumps(session.model_dump(mode="json"))


async def test_the_tool_asks_for_approval_after_the_credential():
    tool = Upload()
    runner = TestRunner(Workflow(name="wf", edges=[(START, FunctionTool(tool.upload))]))
    [request] = credential_requests(await runner.run('{"name": "a.txt"}'))
    asked = await runner.run(api_key_answer(request, SECRET))
    assert tool.keys == [SECRET]  # the tool got the credential in that turn
    [approval_request] = approval_requests(asked)
    await assert_not_stored(runner)
    # The credential lived for that turn: once approved, the tool asks for it again.
    [again] = credential_requests(await runner.run(approval(approval_request, True)))
    done = await runner.run(api_key_answer(again, "k-2"))
    assert tool.keys == [SECRET, "k-2"] and tool.uploaded == ["a.txt"]
    assert outputs(done) == [("upload", {"uploaded": "a.txt"})]
    await assert_not_stored(runner)


async def test_a_sqlite_session_file_never_holds_the_credential(tmp_path: Path):
    db = tmp_path / "sessions.db"
    tool = Upload()
    wf = Workflow(name="wf", edges=[(START, FunctionTool(tool.upload))])

    async def turn(message: types.Content) -> list[Event]:
        runner = Runner(
            app_name="app",
            agent=wf,
            session_service=SqliteSessionService(str(db)),
            auto_create_session=True,
        )
        events = runner.run_async(user_id="u", session_id="s", new_message=message)
        return [e async for e in events]

    [request] = credential_requests(await turn(types.UserContent('{"name": "b.txt"}')))
    assert approval_requests(await turn(api_key_answer(request, SECRET)))
    assert tool.keys == [SECRET]
    raw = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith(db.name))
    assert raw and SECRET.encode() not in raw


async def test_another_node_still_waiting_does_not_keep_the_answered_credential():
    tool = Upload()

    def ask(node_input: Any) -> RequestInput:
        return RequestInput(interrupt_id="title", message="Title?")

    wf = Workflow(name="wf", edges=[(START, (FunctionTool(tool.upload), ask))])
    runner = TestRunner(wf)
    first = await runner.run('{"name": "c.txt"}')
    [request] = credential_requests(first)
    assert calls_named(first, REQUEST_INPUT_FUNCTION_CALL_NAME)
    asked = await runner.run(api_key_answer(request, SECRET))
    assert tool.keys == [SECRET] and approval_requests(asked)
    await assert_not_stored(runner)


async def test_a_dynamic_tool_node_does_not_keep_the_credential():
    tool = Upload()

    async def plan(ctx: Context) -> Any:
        return await ctx.run_node(FunctionTool(tool.upload), {"name": "d.txt"})

    runner = TestRunner(Workflow(name="wf", edges=[(START, plan)]))
    [request] = credential_requests(await runner.run("go"))
    [approval_request] = approval_requests(await runner.run(api_key_answer(request, SECRET)))
    assert tool.keys == [SECRET]
    await assert_not_stored(runner)
    [again] = credential_requests(await runner.run(approval(approval_request, True)))
    await runner.run(api_key_answer(again, "k-3"))
    assert tool.keys == [SECRET, "k-3"]
    await assert_not_stored(runner, "k-3")


async def test_parallel_workers_do_not_keep_the_credential():
    tool = Upload()

    uploads = node(FunctionTool(tool.upload), parallel_worker=True)
    runner = TestRunner(Workflow(name="wf", edges=[(START, uploads)]))
    first = await runner.run('[{"name": "e1"}, {"name": "e2"}]')
    requests = credential_requests(first)
    assert len(requests) == 2
    # The second item's credential comes first: the first item still waits.
    await runner.run(api_key_answer(requests[1], SECRET))
    assert tool.keys == [SECRET]
    await assert_not_stored(runner)


async def test_a_node_tool_call_does_not_keep_the_credential():
    tool = Upload()
    model = ScriptedModel([function_call("upload", {"name": "f.txt"}), "done"])
    agent = LlmAgent(
        name="root", model=model, tools=[NodeTool(ToolNode(FunctionTool(tool.upload)))]
    )
    runner = TestRunner(agent)
    [request] = credential_requests(await runner.run("upload f.txt"))
    asked = await runner.run(api_key_answer(request, SECRET))
    assert tool.keys == [SECRET] and approval_requests(asked)
    await assert_not_stored(runner)


async def test_a_tool_node_that_does_not_rerun_cannot_take_a_credential():
    tool = Upload()
    uploads = ToolNode(FunctionTool(tool.upload), rerun_on_resume=False)
    runner = TestRunner(Workflow(name="wf", edges=[(START, uploads)]))
    with pytest.raises(WorkflowConfigurationError, match="'upload' asked for a credential"):
        await runner.run('{"name": "g.txt"}')


def test_a_pause_record_leaves_out_answers_to_credential_requests():
    from pyadk.workflow._dynamic_state import DynamicRecord
    from pyadk.workflow._pause_state import PauseState, WaitingNode

    credential = {"exchangedAuthCredential": {"authType": "apiKey", "apiKey": SECRET}}
    dynamic = DynamicRecord(
        waiting=True, rerun=True, interrupts={"ask"}, answers={"wf_auth:2": credential}
    )
    waiting = WaitingNode(
        run_id=1,
        branch=None,
        node_input=None,
        interrupts={"title"},
        requests={"title": None, "wf_auth:1": None},
        answers={"wf_auth:1": credential, "wf_tool_confirmation:1": {"confirmed": True}},
        dynamic={"wf@1/plan@1/upload@1": dynamic},
    )
    record = PauseState(waiting={"upload": waiting}).to_json()
    assert SECRET not in json.dumps(record)
    stored = record["waiting"]["upload"]
    assert stored["answers"] == {"wf_tool_confirmation:1": {"confirmed": True}}  # kept
    assert stored["dynamic"]["wf@1/plan@1/upload@1"]["answers"] == {}
