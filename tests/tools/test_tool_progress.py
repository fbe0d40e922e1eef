"""Tool progress: tool_context.report_progress becomes partial events that the run yields
while the tool works, never stored and never shown to a model."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import Any

import pytest

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.agents.run_config import RunConfig, StreamingMode
from pyadk.events import Event
from pyadk.plugins import BasePlugin
from pyadk.runners import Runner
from pyadk.sessions.sqlite_session_service import SqliteSessionService
from pyadk.testing import ScriptedModel, Stream, TestRunner, function_call
from pyadk.tools import FunctionTool, ToolContext
from pyadk.tools.tool_confirmation import confirmation_answer, confirmation_requests
from pyadk.tools.tool_progress import TOOL_PROGRESS_KEY, ToolProgress


def progress_of(events: list[Event]) -> list[ToolProgress]:
    return [p for e in events if (p := ToolProgress.from_event(e)) is not None]


def request_text(model: ScriptedModel) -> str:
    """Everything every request to ``model`` held, as one JSON string."""
    return json.dumps(
        [[c.model_dump(mode="json") for c in r.contents] for r in model.requests], default=str
    )


async def step_events(runner: TestRunner, text: str, **kwargs: Any) -> AsyncIterator[Event]:
    await runner._ensure_session()
    events = runner.run_async(
        user_id=runner.user_id,
        session_id=runner.session_id,
        new_message=types.UserContent(text),
        **kwargs,
    )
    async with aclosing(events):
        async for event in events:
            yield event


class Gated:
    """A streaming tool that reports, waits for the test's gate, reports again, returns."""

    def __init__(self, name: str = "crunch") -> None:
        self.gate = asyncio.Event()
        self.finished = False
        self.name = name

        async def run(size: int, tool_context: ToolContext) -> dict[str, Any]:
            tool_context.report_progress({"stage": "started", "size": size})
            await self.gate.wait()
            tool_context.report_progress("almost done")
            self.finished = True
            return {"crunched": size}

        run.__name__ = name
        self.tool = FunctionTool(run, streams_progress=True)


@pytest.mark.parametrize("mode", [StreamingMode.NONE, StreamingMode.SSE])
async def test_progress_arrives_while_the_tool_runs_and_before_its_result(mode) -> None:
    gated = Gated()
    model = ScriptedModel([function_call("crunch", {"size": 3}), Stream(["Crunched ", "3."])])
    runner = TestRunner(LlmAgent(name="worker", model=model, tools=[gated.tool]))
    seen: list[Event] = []
    async for event in step_events(runner, "go", run_config=RunConfig(streaming_mode=mode)):
        seen.append(event)
        progress = ToolProgress.from_event(event)
        if progress is not None and progress.data == {"stage": "started", "size": 3}:
            assert not gated.finished  # the run yielded it while the tool waits
            gated.gate.set()

    kinds = [
        "progress"
        if ToolProgress.from_event(e)
        else "call"
        if e.get_function_calls()
        else "result"
        if e.get_function_responses()
        else "text"
        for e in seen
        if not (e.partial and e.content is not None)  # the answer's streamed chunks
    ]
    assert kinds == ["call", "progress", "progress", "result", "text"]
    call = seen[0].get_function_calls()[0]
    first, second = progress_of(seen)
    assert (first.function_call_id, first.tool_name) == (call.id, "crunch")
    assert second == ToolProgress(call.id, "crunch", "almost done")
    assert seen[-1].content.parts[0].text == "Crunched 3."


async def test_a_progress_event_is_partial_authored_by_the_agent_and_tagged() -> None:
    async def fetch(tool_context: ToolContext) -> str:
        report = {"done": 1, "of": 2}
        tool_context.report_progress(report)
        report["done"] = 2  # the event holds a copy
        return "ok"

    model = ScriptedModel([function_call("fetch", id="call-1"), "ok"])
    agent = LlmAgent(
        name="fetcher", model=model, tools=[FunctionTool(fetch, streams_progress=True)]
    )
    events = await TestRunner(agent).run("go")

    event = events[1]
    assert event.partial is True and event.content is None
    assert (event.author, event.invocation_id) == ("fetcher", events[0].invocation_id)
    assert event.custom_metadata == {
        TOOL_PROGRESS_KEY: {
            "function_call_id": "call-1",
            "tool_name": "fetch",
            "data": {"done": 1, "of": 2},
        }
    }
    assert not event.is_final_response()
    assert ToolProgress.from_event(events[0]) is None


async def test_concurrent_calls_stream_their_own_progress() -> None:
    a, b = Gated("alpha"), Gated("beta")
    model = ScriptedModel(
        [
            [
                function_call("alpha", {"size": 1}, id="a1"),
                function_call("beta", {"size": 2}, id="b1"),
            ],
            "done",
        ]
    )
    runner = TestRunner(LlmAgent(name="worker", model=model, tools=[a.tool, b.tool]))
    started: set[str] = set()
    seen: list[Event] = []
    async for event in step_events(runner, "go"):
        seen.append(event)
        progress = ToolProgress.from_event(event)
        if progress is not None and isinstance(progress.data, dict):
            started.add(progress.function_call_id)
            if started == {"a1", "b1"}:  # both report while both still wait
                assert not a.finished and not b.finished
                a.gate.set()
                b.gate.set()

    tags = {(p.function_call_id, p.tool_name) for p in progress_of(seen)}
    assert tags == {("a1", "alpha"), ("b1", "beta")}
    assert len(progress_of(seen)) == 4
    result = next(e for e in seen if e.get_function_responses())
    assert [r.response for r in result.get_function_responses()] == [
        {"crunched": 1},
        {"crunched": 2},
    ]
    assert seen.index(result) > max(seen.index(e) for e in seen if ToolProgress.from_event(e))


async def test_a_sync_tool_reports_from_its_worker_thread_while_it_runs() -> None:
    gate = threading.Event()

    def convert(tool_context: ToolContext) -> str:
        tool_context.report_progress("converting")
        assert gate.wait(10)
        return "converted"

    model = ScriptedModel([function_call("convert"), "done"])
    tool = FunctionTool(convert, streams_progress=True)
    runner = TestRunner(LlmAgent(name="worker", model=model, tools=[tool]))
    seen = []
    async for event in step_events(runner, "go"):
        seen.append(event)
        if ToolProgress.from_event(event) is not None:
            assert not gate.is_set()
            gate.set()
    assert [p.data for p in progress_of(seen)] == ["converting"]
    assert seen[2].get_function_responses()[0].response == {"result": "converted"}


async def test_progress_is_never_stored_nor_sent_to_the_model() -> None:
    async def crunch(tool_context: ToolContext) -> str:
        tool_context.report_progress("SECRET-PROGRESS-MARK")
        return "ok"

    model = ScriptedModel([function_call("crunch"), "first", "second"])
    tool = FunctionTool(crunch, streams_progress=True)
    runner = TestRunner(LlmAgent(name="worker", model=model, tools=[tool]))
    events = await runner.run("go")
    await runner.run("again")  # the next turn's history

    assert len(progress_of(events)) == 1
    stored = (await runner.session()).events
    assert all(not e.partial and ToolProgress.from_event(e) is None for e in stored)
    assert [e.author for e in stored] == ["user", "worker", "worker", "worker", "user", "worker"]
    assert "SECRET-PROGRESS-MARK" not in request_text(model)
    assert "SECRET-PROGRESS-MARK" not in json.dumps([e.model_dump(mode="json") for e in stored])


async def test_progress_is_not_stored_in_sqlite(tmp_path) -> None:
    async def crunch(tool_context: ToolContext) -> str:
        tool_context.report_progress({"pct": 50})
        return "ok"

    model = ScriptedModel([function_call("crunch"), "done"])
    agent = LlmAgent(
        name="worker", model=model, tools=[FunctionTool(crunch, streams_progress=True)]
    )
    service = SqliteSessionService(str(tmp_path / "s.db"))
    runner = Runner(app_name="app", agent=agent, session_service=service)
    session = await service.create_session(app_name="app", user_id="u")
    events = [
        e
        async for e in runner.run_async(
            user_id="u", session_id=session.id, new_message=types.UserContent("go")
        )
    ]
    assert [p.data for p in progress_of(events)] == [{"pct": 50}]

    fresh = SqliteSessionService(str(tmp_path / "s.db"))  # read back from the file
    stored = await fresh.get_session(app_name="app", user_id="u", session_id=session.id)
    assert stored is not None
    assert len(stored.events) == 4  # user, call, result, answer
    assert all(not e.partial and not e.custom_metadata for e in stored.events)


async def test_a_tool_that_does_not_stream_has_its_reports_dropped() -> None:
    answers = []

    async def quiet(tool_context: ToolContext) -> str:
        answers.append(tool_context.report_progress("nobody hears this"))
        return "ok"

    async def loud(tool_context: ToolContext) -> str:
        answers.append(tool_context.report_progress("heard"))
        return "ok"

    model = ScriptedModel([[function_call("quiet"), function_call("loud")], "done"])
    tools = [FunctionTool(quiet), FunctionTool(loud, streams_progress=True)]
    events = await TestRunner(LlmAgent(name="w", model=model, tools=tools)).run("go")
    assert sorted(answers) == [False, True]
    assert [(p.tool_name, p.data) for p in progress_of(events)] == [("loud", "heard")]


async def test_without_streaming_tools_the_event_stream_is_unchanged() -> None:
    async def quiet(tool_context: ToolContext) -> str:
        return "sent" if tool_context.report_progress("x") else "dropped"

    model = ScriptedModel([function_call("quiet", id="q"), "done"])
    events = await TestRunner(LlmAgent(name="w", model=model, tools=[quiet])).run("go")
    assert [e.partial for e in events] == [None, None, None]
    assert events[1].get_function_responses()[0].response == {"result": "dropped"}


async def test_bad_progress_data_fails_clearly() -> None:
    errors = []

    async def bad(tool_context: ToolContext) -> str:
        for data in (42, {"when": object()}):
            try:
                tool_context.report_progress(data)  # type: ignore[arg-type]
            except TypeError as error:
                errors.append(str(error))
        return "ok"

    model = ScriptedModel([function_call("bad"), "done"])
    tool = FunctionTool(bad, streams_progress=True)
    events = await TestRunner(LlmAgent(name="w", model=model, tools=[tool])).run("go")
    assert progress_of(events) == []
    assert errors[0] == "report_progress takes a string or a JSON dict, not int."
    assert errors[1].startswith("report_progress data must be JSON-serializable:")


async def test_a_failing_tool_raises_after_its_progress() -> None:
    async def explode(tool_context: ToolContext) -> str:
        tool_context.report_progress("about to fail")
        raise RuntimeError("disk on fire")

    model = ScriptedModel([function_call("explode"), "done"])
    tool = FunctionTool(explode, streams_progress=True)
    runner = TestRunner(LlmAgent(name="w", model=model, tools=[tool]))
    seen = []
    with pytest.raises(RuntimeError, match="disk on fire"):
        async for event in step_events(runner, "go"):
            seen.append(event)
    assert [p.data for p in progress_of(seen)] == ["about to fail"]


async def test_callbacks_and_plugins_see_the_call_and_its_progress() -> None:
    calls: list[str] = []

    class Watcher(BasePlugin):
        async def on_event_callback(self, *, invocation_context, event):
            if ToolProgress.from_event(event) is not None:
                calls.append("plugin saw progress")

        async def before_tool_callback(self, *, tool, tool_args, tool_context):
            tool_context.report_progress("plugin: starting")
            calls.append("plugin before")

    async def crunch(tool_context: ToolContext) -> str:
        tool_context.report_progress("working")
        return "raw"

    def before(tool, args, tool_context):
        calls.append("agent before")

    def after(tool, args, tool_context, tool_response):
        calls.append("agent after")
        return {"result": tool_response.upper()}

    model = ScriptedModel([function_call("crunch"), "done"])
    agent = LlmAgent(
        name="w",
        model=model,
        tools=[FunctionTool(crunch, streams_progress=True)],
        before_tool_callback=before,
        after_tool_callback=after,
    )
    runner = TestRunner(agent, plugins=[Watcher(name="watcher")])
    events = await runner.run("go")

    assert [p.data for p in progress_of(events)] == ["plugin: starting", "working"]
    assert calls[:2] == ["plugin before", "agent before"]
    # The run passes progress on while the call goes on: the order against the
    # after-callback depends on when the tool lets the loop run.
    assert sorted(calls[2:]) == ["agent after", "plugin saw progress", "plugin saw progress"]
    assert events[-2].get_function_responses()[0].response == {"result": "RAW"}
    assert all(not e.partial for e in (await runner.session()).events)


async def test_a_short_circuiting_callback_means_no_progress() -> None:
    async def crunch(tool_context: ToolContext) -> str:
        tool_context.report_progress("never")
        return "raw"

    model = ScriptedModel([function_call("crunch"), "done"])
    agent = LlmAgent(
        name="w",
        model=model,
        tools=[FunctionTool(crunch, streams_progress=True)],
        before_tool_callback=lambda tool, args, tool_context: {"cached": True},
    )
    events = await TestRunner(agent).run("go")
    assert progress_of(events) == []
    assert events[1].get_function_responses()[0].response == {"cached": True}


async def test_a_reader_that_stops_cancels_the_running_tool() -> None:
    cancelled = asyncio.Event()

    async def forever(tool_context: ToolContext) -> str:
        tool_context.report_progress("started")
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "never"

    model = ScriptedModel([function_call("forever"), "done"])
    tool = FunctionTool(forever, streams_progress=True)
    runner = TestRunner(LlmAgent(name="w", model=model, tools=[tool]))
    events = step_events(runner, "go")
    async for event in events:
        if ToolProgress.from_event(event) is not None:
            break
    await events.aclose()
    assert cancelled.is_set()


async def test_an_approved_call_streams_when_it_runs() -> None:
    async def deploy(tool_context: ToolContext) -> str:
        tool_context.report_progress("deploying")
        return "deployed"

    model = ScriptedModel([function_call("deploy"), "Deployed."])
    tool = FunctionTool(deploy, streams_progress=True, require_confirmation=True)
    runner = TestRunner(LlmAgent(name="ops", model=model, tools=[tool]))
    first = await runner.run("deploy")
    assert progress_of(first) == []  # held for approval: nothing ran
    [request] = confirmation_requests(first[-1])

    events = await runner.run(confirmation_answer(request, confirmed=True))
    assert [p.data for p in progress_of(events)] == ["deploying"]
    assert events[-1].content.parts[0].text == "Deployed."
    assert all(not e.partial for e in (await runner.session()).events)


async def test_a_long_running_tool_reports_before_it_pauses() -> None:
    from pyadk.tools import LongRunningFunctionTool

    async def order(tool_context: ToolContext) -> None:
        tool_context.report_progress("order placed")
        return None

    tool = LongRunningFunctionTool(order)
    tool.streams_progress = True
    model = ScriptedModel([function_call("order")])
    events = await TestRunner(LlmAgent(name="shop", model=model, tools=[tool])).run("go")
    assert [p.data for p in progress_of(events)] == ["order placed"]
    assert events[0].long_running_tool_ids
    assert not any(e.get_function_responses() for e in events)


async def test_a_report_outside_a_run_is_dropped() -> None:
    reports = []

    async def crunch(tool_context: ToolContext) -> str:
        reports.append(tool_context.report_progress("alone"))
        return "ok"

    tool = FunctionTool(crunch, streams_progress=True)
    runner = TestRunner(LlmAgent(name="w", model=ScriptedModel([]), tools=[tool]))
    from pyadk.agents.invocation_context import InvocationContext

    session = await runner.session()
    ctx = InvocationContext(
        session_service=runner.session_service,
        invocation_id="inv",
        agent=runner.agent,
        session=session,
    )
    assert (
        await tool.run_async(args={}, tool_context=ToolContext(ctx, function_call_id="x")) == "ok"
    )
    assert reports == [False]


async def test_progress_of_parallel_branches_carries_their_branch() -> None:
    from pyadk.agents import ParallelAgent

    async def work(tool_context: ToolContext) -> str:
        tool_context.report_progress("working")
        await asyncio.sleep(0)
        return "ok"

    def branch(name: str) -> LlmAgent:
        model = ScriptedModel([function_call("work"), "done"])
        return LlmAgent(name=name, model=model, tools=[FunctionTool(work, streams_progress=True)])

    runner = TestRunner(ParallelAgent(name="fan", sub_agents=[branch("a"), branch("b")]))
    events = await runner.run("go")
    tagged = sorted((e.author, e.branch) for e in events if ToolProgress.from_event(e))
    assert tagged == [("a", "fan.a"), ("b", "fan.b")]
    assert all(not e.partial for e in (await runner.session()).events)


async def test_a_tool_timeout_still_cuts_a_streaming_tool() -> None:
    async def stuck(tool_context: ToolContext) -> str:
        tool_context.report_progress("started")
        await asyncio.sleep(30)
        return "never"

    model = ScriptedModel([function_call("stuck"), "gave up"])
    agent = LlmAgent(
        name="w",
        model=model,
        tools=[FunctionTool(stuck, streams_progress=True)],
        tool_timeout=0.05,
        on_tool_error_callback=lambda tool, args, tool_context, error: {"error": str(error)},
    )
    events = await TestRunner(agent).run("go")
    assert [p.data for p in progress_of(events)] == ["started"]
    result = events[-2].get_function_responses()[0].response
    assert result == {"error": "Tool 'stuck' timed out after 0.05 s."}
