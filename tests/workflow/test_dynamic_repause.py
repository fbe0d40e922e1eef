"""A dynamic node (``ctx.run_node``, a parallel worker's item) that runs again once
answered and then waits again keeps the answers it already got, as a graph node does:
the next answer adds to them (``ctx.resume_inputs`` holds every answer) and its caller
gets its output. Credentials are the exception: never kept, asked again when needed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from node_gates_support import (
    Upload,
    api_key_answer,
    approval,
    approval_requests,
    credential_requests,
)
from wf_support import answer, input_requests, outputs, pause_records

from pyadk import types
from pyadk.events import Event
from pyadk.runners import Runner
from pyadk.sessions.sqlite_session_service import SqliteSessionService
from pyadk.testing import TestRunner
from pyadk.tools import FunctionTool
from pyadk.workflow import (
    START,
    Context,
    RequestInput,
    Workflow,
    node,
)

SECRET = "sk-live-5d2a9b"


class TwoQuestions:
    """A node (rerun on resume) that asks for a first name, then for a last name."""

    def __init__(self) -> None:
        self.seen: list[dict[str, Any]] = []

        @node(rerun_on_resume=True, name="names")
        async def names(ctx: Context) -> Any:
            self.seen.append(dict(ctx.resume_inputs))
            if "first" not in ctx.resume_inputs:
                yield RequestInput(interrupt_id="first", message="First name?")
                return
            if "last" not in ctx.resume_inputs:
                yield RequestInput(interrupt_id="last", message="Last name?")
                return
            yield f"{ctx.resume_inputs['first']} {ctx.resume_inputs['last']}"

        self.node = names


async def ask_twice(runner: TestRunner, start: str | types.Content = "go") -> list[Event]:
    """Runs the turns: start, answer 'Ada', answer 'Lovelace'; returns the last turn's
    events (each turn before it must ask exactly one question)."""
    [first] = input_requests(await runner.run(start))
    assert first.args["message"] == "First name?"
    asked = await runner.run(answer(first, "Ada"))
    [second] = input_requests(asked)
    assert second.args["message"] == "Last name?"
    [record] = pause_records(asked)
    kept = [d.get("answers") for w in record["waiting"].values() for d in w["dynamic"].values()]
    assert {"first": "Ada"} in kept  # the first answer is in the new pause record
    return await runner.run(answer(second, "Lovelace"))


async def test_a_dynamic_node_asking_twice_keeps_the_first_answer():
    questions = TwoQuestions()

    async def plan(ctx: Context) -> str:
        return "hello " + await ctx.run_node(questions.node)

    runner = TestRunner(Workflow(name="wf", edges=[(START, plan)]))
    done = await ask_twice(runner)
    assert questions.seen == [{}, {"first": "Ada"}, {"first": "Ada", "last": "Lovelace"}]
    assert outputs(done) == [("names", "Ada Lovelace"), ("plan", "hello Ada Lovelace")]
    assert not pause_records(done)


async def test_a_dynamic_node_of_a_dynamic_node_asking_twice_keeps_the_first_answer():
    questions = TwoQuestions()
    ran: list[str] = []

    async def middle(ctx: Context) -> str:
        ran.append("middle")
        return (await ctx.run_node(questions.node)).upper()

    async def top(ctx: Context) -> str:
        ran.append("top")
        return "hello " + await ctx.run_node(middle)

    runner = TestRunner(Workflow(name="wf", edges=[(START, top)]))
    done = await ask_twice(runner)
    assert questions.seen == [{}, {"first": "Ada"}, {"first": "Ada", "last": "Lovelace"}]
    assert ran == ["top", "middle"] * 3
    assert outputs(done) == [
        ("names", "Ada Lovelace"),
        ("middle", "ADA LOVELACE"),
        ("top", "hello ADA LOVELACE"),
    ]


async def test_a_parallel_worker_item_asking_twice_keeps_the_first_answer():
    seen: list[tuple[int, dict[str, Any]]] = []

    @node(parallel_worker=True, rerun_on_resume=True)
    async def names(node_input: int, ctx: Context) -> Any:
        seen.append((node_input, dict(ctx.resume_inputs)))
        if node_input == 1:
            yield f"item {node_input}"
            return
        if "first" not in ctx.resume_inputs:
            yield RequestInput(interrupt_id="first", message="First name?")
            return
        if "last" not in ctx.resume_inputs:
            yield RequestInput(interrupt_id="last", message="Last name?")
            return
        yield f"{ctx.resume_inputs['first']} {ctx.resume_inputs['last']}"

    def items(node_input: Any) -> list[int]:
        return [1, 2]

    runner = TestRunner(Workflow(name="wf", edges=[(START, items, names)]))
    done = await ask_twice(runner)
    assert [s for s in seen if s[0] == 2] == [
        (2, {}),
        (2, {"first": "Ada"}),
        (2, {"first": "Ada", "last": "Lovelace"}),
    ]
    assert [s for s in seen if s[0] == 1] == [(1, {})]  # the finished item ran once
    assert outputs(done)[-1] == ("names", ["item 1", "Ada Lovelace"])


async def test_the_first_answer_survives_a_restart_between_the_questions(tmp_path: Path):
    """The answers live in the pause record: a new runner (a new process) over the same
    SQLite session still finishes with both answers."""
    db = str(tmp_path / "sessions.db")
    questions = TwoQuestions()

    async def plan(ctx: Context) -> str:
        return await ctx.run_node(questions.node)

    async def turn(message: types.Content) -> list[Event]:
        runner = Runner(
            app_name="app",
            agent=Workflow(name="wf", edges=[(START, plan)]),
            session_service=SqliteSessionService(db),
            auto_create_session=True,
        )
        return [e async for e in runner.run_async(user_id="u", session_id="s", new_message=message)]

    [first] = input_requests(await turn(types.UserContent("go")))
    [second] = input_requests(await turn(answer(first, "Ada")))
    done = await turn(answer(second, "Lovelace"))
    assert questions.seen[-1] == {"first": "Ada", "last": "Lovelace"}
    assert outputs(done)[-1] == ("plan", "Ada Lovelace")


async def test_a_dynamic_tool_asking_a_credential_then_approval_finishes():
    """The credential is never kept: once approved, the tool asks for it again, and the
    kept approval lets the call go on with it (four turns, not an endless exchange)."""
    tool = Upload()

    async def plan(ctx: Context) -> str:
        result = await ctx.run_node(FunctionTool(tool.upload), {"name": "a.txt"})
        return f"done: {result}"

    runner = TestRunner(Workflow(name="wf", edges=[(START, plan)]))
    message: str | types.Content = "go"
    asked: list[str] = []
    secrets = iter([SECRET, "sk-live-second", *(f"sk-live-{n}" for n in range(3, 9))])
    for _ in range(6):  # bounded: the run must end well before
        events = await runner.run(message)
        if not pause_records(events):
            break
        [request] = credential_requests(events) + approval_requests(events)
        if request.id.startswith("wf_auth:"):
            asked.append("credential")
            message = api_key_answer(request, next(secrets))
        else:
            asked.append("approval")
            message = approval(request, True)
    else:
        raise AssertionError(f"the run never finished; it asked {asked}")
    assert asked == ["credential", "approval", "credential"]
    assert tool.keys == [SECRET, "sk-live-second"] and tool.uploaded == ["a.txt"]
    assert outputs(events)[-1] == ("plan", "done: {'uploaded': 'a.txt'}")
    session = await runner.session()
    stored = "\n".join(e.model_dump_json() for e in session.events)
    for secret in (SECRET, "sk-live-second"):
        assert secret not in stored
        assert secret not in json.dumps(session.model_dump(mode="json"))


async def test_a_rejection_after_the_credential_is_kept_and_ends_the_call():
    tool = Upload()

    async def plan(ctx: Context) -> Any:
        return await ctx.run_node(FunctionTool(tool.upload), {"name": "b.txt"})

    runner = TestRunner(Workflow(name="wf", edges=[(START, plan)]))
    [request] = credential_requests(await runner.run("go"))
    [asked] = approval_requests(await runner.run(api_key_answer(request, SECRET)))
    done = await runner.run(approval(asked, False))
    assert not pause_records(done) and tool.uploaded == []
    assert "reject" in json.dumps(outputs(done)[-1][1]).lower()
