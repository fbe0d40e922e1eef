"""Events compaction through the runner: when summaries are written, what the model
sees next, failures, tool-call pairs, and persistence in SQLite."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from pyadk import types
from pyadk.agents.llm_agent import LlmAgent
from pyadk.apps import App, BaseEventsSummarizer, EventsCompactionConfig, LlmEventSummarizer
from pyadk.events.event import Event
from pyadk.events.event_actions import EventActions, EventCompaction
from pyadk.models.llm_request import LlmRequest
from pyadk.models.llm_response import LlmResponse
from pyadk.runners import InMemoryRunner, Runner
from pyadk.sessions import SqliteSessionService
from pyadk.sessions.base_session_service import BaseSessionService
from pyadk.sessions.session import Session
from pyadk.testing import FunctionModel, function_call
from pyadk.tools.long_running_tool import LongRunningFunctionTool

USER = "u"


def _texts(request: LlmRequest) -> list[str]:
    return [p.text for c in request.contents for p in c.parts or [] if p.text]


def _agent_model() -> FunctionModel:
    """Answers 'answer to <the last user text>'; records every request."""

    def reply(request: LlmRequest) -> str:
        return f"answer to {_texts(request)[-1]}"

    return FunctionModel(reply)


def _summarizer(text: str | Callable[[LlmRequest], object] = "SUMMARY") -> FunctionModel:
    return FunctionModel(text if callable(text) else (lambda request: text))


def _app(agent_model: FunctionModel, summarizer: FunctionModel, **config: int) -> App:
    return App(
        name="compacting",
        root_agent=LlmAgent(name="helper", model=agent_model),
        events_compaction_config=EventsCompactionConfig(
            summarizer=LlmEventSummarizer(llm=summarizer), **config
        ),
    )


async def _turn(runner: Runner, session_id: str, text: str) -> list[Event]:
    message = types.UserContent(text)
    return [
        e async for e in runner.run_async(user_id=USER, session_id=session_id, new_message=message)
    ]


async def _session(runner: Runner, session_id: str) -> Session:
    session = await runner.session_service.get_session(
        app_name=runner.app_name, user_id=USER, session_id=session_id
    )
    assert session is not None
    return session


def _compactions(session: Session) -> list[Event]:
    return [e for e in session.events if e.actions.compaction is not None]


async def _new_session(runner: Runner) -> str:
    session = await runner.session_service.create_session(app_name=runner.app_name, user_id=USER)
    return session.id


async def test_sliding_window_summarises_every_interval_with_overlap() -> None:
    model, summarizer = _agent_model(), _summarizer("SUMMARY of earlier turns")
    runner = InMemoryRunner(app=_app(model, summarizer, compaction_interval=2, overlap_size=1))
    sid = await _new_session(runner)
    await _turn(runner, sid, "question 1 " + "x" * 200)
    assert _compactions(await _session(runner, sid)) == []  # one invocation: too early
    await _turn(runner, sid, "question 2 " + "y" * 200)
    session = await _session(runner, sid)
    [compaction] = _compactions(session)
    raw = [e for e in session.events if e.actions.compaction is None]
    summary = compaction.actions.compaction
    assert summary is not None and summary.compacted_content is not None
    assert summary.compacted_content.role == "model"
    assert [p.text for p in summary.compacted_content.parts or []] == ["SUMMARY of earlier turns"]
    assert (summary.start_timestamp, summary.end_timestamp) == (
        raw[0].timestamp,
        raw[-1].timestamp,
    )
    assert compaction.author == "user" and compaction.content is None
    # The summariser saw both invocations.
    [prompt] = summarizer.requests
    assert "question 1" in _texts(prompt)[0] and "answer to question 2" in _texts(prompt)[0]

    await _turn(runner, sid, "question 3")
    assert _texts(model.requests[-1]) == ["SUMMARY of earlier turns", "question 3"]
    assert model.requests[-1].contents[0].role == "model"
    assert len(_compactions(await _session(runner, sid))) == 1  # one new invocation only

    await _turn(runner, sid, "question 4 " + "z" * 200)
    session = await _session(runner, sid)
    _first, second = _compactions(session)
    inv2 = next(e for e in session.events if e.text and e.text.startswith("question 2"))
    # The second window starts one invocation (the overlap) before the new ones.
    assert second.actions.compaction is not None
    assert second.actions.compaction.start_timestamp == inv2.timestamp
    await _turn(runner, sid, "question 5")
    # Both summaries overlap only partly: the model sees both, and no raw turn before 5.
    assert _texts(model.requests[-1]) == [
        "SUMMARY of earlier turns",
        "SUMMARY of earlier turns",
        "question 5",
    ]


async def test_token_threshold_compacts_only_past_it_and_keeps_the_retained_events() -> None:
    tokens = iter([50, 150, 20])

    def reply(request: LlmRequest) -> LlmResponse:
        return LlmResponse(
            content=types.ModelContent(f"answer to {_texts(request)[-1]}"),
            usage_metadata=types.UsageMetadata(prompt_token_count=next(tokens)),
        )

    model = FunctionModel(reply)
    summarizer = _summarizer("SHORT")
    runner = InMemoryRunner(
        app=_app(model, summarizer, token_threshold=100, event_retention_size=2)
    )
    sid = await _new_session(runner)
    await _turn(runner, sid, "question 1")
    assert _compactions(await _session(runner, sid)) == []  # 50 tokens: under the threshold
    await _turn(runner, sid, "question 2")  # 150 tokens
    session = await _session(runner, sid)
    [compaction] = _compactions(session)
    assert compaction.actions.compaction is not None
    raw = [e for e in session.events if e.actions.compaction is None]
    # Everything but the last two events (question 2 and its answer) is summarised.
    assert compaction.actions.compaction.end_timestamp == raw[-3].timestamp
    assert compaction.actions.compaction.start_timestamp == raw[0].timestamp
    await _turn(runner, sid, "question 3")
    assert _texts(model.requests[-1]) == [
        "SHORT",
        "question 2",
        "answer to question 2",
        "question 3",
    ]
    assert len(_compactions(await _session(runner, sid))) == 1  # 20 tokens: nothing new


async def test_a_failing_summariser_leaves_the_turn_and_the_session_intact(caplog) -> None:
    def broken(request: LlmRequest) -> object:
        raise RuntimeError("summariser is down")

    model = _agent_model()
    runner = InMemoryRunner(
        app=_app(model, _summarizer(broken), compaction_interval=1, overlap_size=0)
    )
    sid = await _new_session(runner)
    with caplog.at_level(logging.WARNING, logger="pyadk.apps.compaction"):
        events = await _turn(runner, sid, "question 1")
    assert [e.text for e in events] == ["answer to question 1"]
    session = await _session(runner, sid)
    assert [e.text for e in session.events] == ["question 1", "answer to question 1"]
    assert _compactions(session) == []
    assert "Events compaction failed" in caplog.text and "summariser is down" in caplog.text
    await _turn(runner, sid, "question 2")
    assert _texts(model.requests[-1]) == ["question 1", "answer to question 1", "question 2"]


async def test_the_summarisers_model_call_is_not_an_event() -> None:
    runner = InMemoryRunner(
        app=_app(_agent_model(), _summarizer("SUMMARY"), compaction_interval=1, overlap_size=0)
    )
    sid = await _new_session(runner)
    events = await _turn(runner, sid, "question 1")
    assert [e.text for e in events] == ["answer to question 1"]  # not yielded either
    session = await _session(runner, sid)
    assert [(e.author, e.text) for e in session.events] == [
        ("user", "question 1"),
        ("helper", "answer to question 1"),
        ("user", None),  # the compaction event: the summary lives in its actions
    ]
    assert all(e.text != "SUMMARY" for e in session.events)


async def test_compaction_events_survive_a_sqlite_reload(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"

    def runner_on(service: BaseSessionService, model: FunctionModel) -> Runner:
        app = _app(model, _summarizer("SUMMARY"), compaction_interval=2, overlap_size=0)
        return Runner(app=app, session_service=service)

    first = SqliteSessionService(path)
    runner = runner_on(first, _agent_model())
    sid = await _new_session(runner)
    await _turn(runner, sid, "question 1")
    await _turn(runner, sid, "question 2")
    [written] = _compactions(await _session(runner, sid))
    await first.close()

    second = SqliteSessionService(path)
    model = _agent_model()
    runner = runner_on(second, model)
    [loaded] = _compactions(await _session(runner, sid))
    assert loaded.model_dump() == written.model_dump()
    await _turn(runner, sid, "question 3")
    assert _texts(model.requests[-1]) == ["SUMMARY", "question 3"]
    await second.close()


def _wait_for_approval(item: str) -> dict[str, str]:
    """Asks a person to approve ``item``; the answer comes later."""
    return {"status": "pending"}


async def test_an_open_long_running_call_is_not_compacted_away_from_its_answer() -> None:
    replies = iter(
        [
            "hello",
            function_call("_wait_for_approval", {"item": "laptop"}, id="call-1"),
            "waiting for approval",
            "approved, ordering",
            "done",
        ]
    )
    model = FunctionModel(lambda request: next(replies))
    app = App(
        name="compacting",
        root_agent=LlmAgent(
            name="helper",
            model=model,
            tools=[LongRunningFunctionTool(_wait_for_approval)],
        ),
        events_compaction_config=EventsCompactionConfig(
            summarizer=LlmEventSummarizer(llm=_summarizer("SUMMARY")),
            compaction_interval=2,
            overlap_size=0,
        ),
    )
    runner = InMemoryRunner(app=app)
    sid = await _new_session(runner)
    await _turn(runner, sid, "hi " + "x" * 300)
    await _turn(runner, sid, "order a laptop")
    # The call and its interim "pending" result are summarised with both turns.
    [compaction] = _compactions(await _session(runner, sid))
    assert compaction.actions.compaction is not None

    answer = types.Content(
        role="user",
        parts=[
            types.Part.from_function_response(
                name="_wait_for_approval", response={"status": "approved"}
            )
        ],
    )
    answer.parts[0].function_response.id = "call-1"  # type: ignore[union-attr]
    async for _ in runner.run_async(user_id=USER, session_id=sid, new_message=answer):
        pass
    request = model.requests[-1]
    _assert_every_result_follows_its_call(request)
    # The call is shown again, with the real answer: the provider gets a valid pair.
    assert _texts(request)[0] == "SUMMARY"
    [call] = [p.function_call for c in request.contents for p in c.parts or [] if p.function_call]
    assert call.id == "call-1"


def _assert_every_result_follows_its_call(request: LlmRequest) -> None:
    previous_calls: set[str] = set()
    for content in request.contents:
        responses = {p.function_response.id for p in content.parts or [] if p.function_response}
        assert responses <= previous_calls, (responses, previous_calls)
        previous_calls = {p.function_call.id for p in content.parts or [] if p.function_call}


class _OddSummarizer(BaseEventsSummarizer):
    """Returns what it is given: a summary with content, or no compaction at all."""

    def __init__(self, event: Event) -> None:
        self.event = event

    async def maybe_summarize_events(self, *, events: list[Event]) -> Event | None:
        return self.event.model_copy(deep=True)


async def test_a_custom_summary_is_stored_without_content_and_one_without_range_ignored(
    caplog,
) -> None:
    compaction = EventCompaction(
        start_timestamp=0.0,
        end_timestamp=1e12,
        compacted_content=types.ModelContent("SUMMARY"),
    )
    with_content = Event(
        author="user",
        content=types.ModelContent("SUMMARY"),
        actions=EventActions(compaction=compaction),
    )
    without_range = Event(author="user", content=types.ModelContent("not a summary"))
    for summary, stored in ((with_content, 1), (without_range, 0)):
        app = App(
            name="compacting",
            root_agent=LlmAgent(name="helper", model=_agent_model()),
            events_compaction_config=EventsCompactionConfig(
                compaction_interval=1, overlap_size=0, summarizer=_OddSummarizer(summary)
            ),
        )
        runner = InMemoryRunner(app=app)
        sid = await _new_session(runner)
        with caplog.at_level(logging.WARNING, logger="pyadk.apps.compaction"):
            await _turn(runner, sid, "question 1")
        found = _compactions(await _session(runner, sid))
        assert len(found) == stored and all(e.content is None for e in found)
    assert "without actions.compaction; ignored" in caplog.text


async def test_the_token_threshold_is_checked_before_each_model_call_of_a_turn() -> None:
    """A long turn of tool calls is compacted as it goes, not only after it."""
    tokens = iter([50, 150, 30, 40])
    seen: list[list[str]] = []

    def lookup(item: str) -> dict[str, str]:
        """Looks an item up."""
        return {"item": item, "found": "yes"}

    def reply(request: LlmRequest) -> LlmResponse:
        seen.append(_texts(request))
        step = len(seen)
        content = (
            types.ModelContent("all found")
            if step == 4
            else types.Content(role="model", parts=[function_call("lookup", {"item": f"i{step}"})])
        )
        return LlmResponse(
            content=content, usage_metadata=types.UsageMetadata(prompt_token_count=next(tokens))
        )

    app = App(
        name="compacting",
        root_agent=LlmAgent(name="helper", model=FunctionModel(reply), tools=[lookup]),
        events_compaction_config=EventsCompactionConfig(
            summarizer=LlmEventSummarizer(llm=_summarizer("SHORT")),
            token_threshold=100,
            event_retention_size=2,
        ),
    )
    runner = InMemoryRunner(app=app)
    sid = await _new_session(runner)
    events = await _turn(runner, sid, "find three items")
    assert events[-1].text == "all found"
    session = await _session(runner, sid)
    [compaction] = _compactions(session)
    # The summary came before the third model call (after the second one's 150 tokens),
    # covering the turn from the user's message on, and the later calls saw it.
    assert seen[1] == ["find three items"]
    assert seen[2][0] == "SHORT" and seen[3][0] == "SHORT"
    assert compaction.actions.compaction.start_timestamp == session.events[0].timestamp
    assert session.events.index(compaction) < session.events.index(events[-1])
