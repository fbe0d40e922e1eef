"""A Workflow run by the Runner, with in-memory and SQLite sessions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from wf_support import outputs, paths

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.runners import Runner
from pyadk.sessions import InMemorySessionService
from pyadk.sessions.base_session_service import BaseSessionService
from pyadk.sessions.sqlite_session_service import SqliteSessionService
from pyadk.testing import ScriptedModel
from pyadk.workflow import DEFAULT_ROUTE, START, Context, JoinNode, Workflow, node_route


def _workflow() -> Workflow:
    def intake(node_input: types.Content, ctx: Context, turns: int = 0) -> str:
        ctx.state["turns"] = turns + 1
        text = node_input.parts[0].text or ""
        ctx.route = "long" if len(text) > 5 else "short"
        return text

    def short(node_input: str) -> str:
        return f"short:{node_input}"

    def fan(node_input: str) -> str:
        return node_input

    def left(node_input: str) -> int:
        return len(node_input)

    def right(node_input: str) -> str:
        return node_input[::-1]

    def report(node_input: dict[str, Any], ctx: Context) -> dict[str, Any]:
        ctx.state["last_report"] = node_input
        return node_input

    join = JoinNode(name="join")
    summarize = LlmAgent(name="summarize", model=ScriptedModel(["summary 1", "summary 2"]))
    return Workflow(
        name="wf",
        edges=[
            (START, intake, {"short": short, DEFAULT_ROUTE: fan}),
            (fan, (left, right), join, report, summarize),
        ],
    )


async def _turn(runner: Runner, session_id: str, text: str) -> list[Any]:
    message = types.Content(role="user", parts=[types.Part(text=text)])
    return [
        e async for e in runner.run_async(user_id="u", session_id=session_id, new_message=message)
    ]


async def _check_two_turns(service: BaseSessionService) -> None:
    runner = Runner(app_name="app", agent=_workflow(), session_service=service)
    session = await service.create_session(app_name="app", user_id="u")
    events = await _turn(runner, session.id, "hi")
    assert outputs(events) == [("intake", "hi"), ("short", "short:hi")]
    assert node_route(events[0]) == "short"
    events = await _turn(runner, session.id, "a longer message")
    found = dict(outputs(events))
    assert found["join"] == {"left": 16, "right": "egassem regnol a"}
    assert [e.text for e in events if e.author == "summarize" and e.content] == ["summary 1"]
    assert paths(events)[0] == "wf@1/intake@1"  # paths restart with each invocation

    stored = await service.get_session(app_name="app", user_id="u", session_id=session.id)
    assert stored is not None
    assert stored.state["turns"] == 2
    assert stored.state["last_report"] == {"left": 16, "right": "egassem regnol a"}
    names = [name for name, _ in outputs(stored.events)]
    assert names[:4] == ["intake", "short", "intake", "fan"]
    assert sorted(names[4:6]) == ["left", "right"]  # parallel: either order
    assert names[6:] == ["join", "report"]
    assert [node_route(e) for e in stored.events if node_route(e)] == ["short", "long"]
    left_events = [e for e in stored.events if paths([e]) == ["wf@1/left@1"]]
    assert left_events[0].branch == "wf.left"


async def test_two_turns_with_in_memory_sessions():
    await _check_two_turns(InMemorySessionService())


async def test_two_turns_with_sqlite_sessions_and_a_reopened_database(tmp_path: Path):
    db = str(tmp_path / "sessions.db")
    service = SqliteSessionService(db)
    await _check_two_turns(service)
    await service.close()
    reopened = SqliteSessionService(db)
    sessions = await reopened.list_sessions(app_name="app", user_id="u")
    session_id = sessions.sessions[0].id
    stored = await reopened.get_session(app_name="app", user_id="u", session_id=session_id)
    assert stored is not None
    assert dict(outputs(stored.events))["join"] == {"left": 16, "right": "egassem regnol a"}
    assert stored.state["turns"] == 2
    await reopened.close()


async def test_a_failed_node_run_is_stored_in_sqlite(tmp_path: Path):
    def bad(node_input: Any) -> None:
        raise RuntimeError("db-visible failure")

    service = SqliteSessionService(str(tmp_path / "s.db"))
    runner = Runner(
        app_name="app", agent=Workflow(name="wf", edges=[(START, bad)]), session_service=service
    )
    session = await service.create_session(app_name="app", user_id="u")
    with pytest.raises(RuntimeError):
        await _turn(runner, session.id, "go")
    stored = await service.get_session(app_name="app", user_id="u", session_id=session.id)
    assert stored is not None
    assert [(e.error_code, e.error_message) for e in stored.events if e.error_code] == [
        ("RuntimeError", "db-visible failure")
    ]
    assert stored.state["outcome:wf"]["status"] == "failure"
    await service.close()
