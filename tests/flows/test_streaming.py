"""SSE streaming: partial events, the aggregated final event and what is persisted."""

from __future__ import annotations

from collections.abc import AsyncGenerator

from pyadk import types
from pyadk.agents import LlmAgent, RunConfig, StreamingMode
from pyadk.events.event import Event
from pyadk.models.base_llm import BaseLlm
from pyadk.models.llm_request import LlmRequest
from pyadk.models.llm_response import LlmResponse
from pyadk.testing import ScriptedModel, Stream, TestRunner, function_call, simplify_events

SSE = RunConfig(streaming_mode=StreamingMode.SSE)


async def test_sse_yields_partial_events_then_one_aggregated_final_event() -> None:
    model = ScriptedModel([Stream(["Hel", "lo ", "world"])])
    runner = TestRunner(LlmAgent(name="root", model=model))

    events = await runner.run("hi", run_config=SSE)

    assert [(e.author, e.partial, e.content.text) for e in events] == [
        ("root", True, "Hel"),
        ("root", True, "lo "),
        ("root", True, "world"),
        ("root", None, "Hello world"),
    ]
    assert [e.is_final_response() for e in events] == [False, False, False, True]
    assert len({e.id for e in events}) == 4
    assert events[-1].actions is not events[0].actions  # chunks never share the final's
    assert [e.timestamp for e in events] == sorted(e.timestamp for e in events)
    assert all({"content", "partial"} <= e.model_fields_set for e in events[:3])
    assert model.call_count == 1


async def test_partial_events_are_not_persisted() -> None:
    runner = TestRunner(LlmAgent(name="root", model=ScriptedModel([Stream(["a", "b"])])))

    events = await runner.run("hi", run_config=SSE)

    session = await runner.session()
    assert [(e.author, e.content.text) for e in session.events] == [("user", "hi"), ("root", "ab")]
    assert session.events[-1].id == events[-1].id
    assert not any(e.partial for e in session.events)


async def test_output_key_gets_only_the_aggregated_text() -> None:
    model = ScriptedModel([Stream(["The answer", " is 42."])])
    runner = TestRunner(LlmAgent(name="root", model=model, output_key="answer"))

    events = await runner.run("question", run_config=SSE)

    assert (await runner.state())["answer"] == "The answer is 42."
    assert [e.actions.state_delta for e in events] == [{}, {}, {"answer": "The answer is 42."}]


async def test_a_change_to_one_chunks_actions_does_not_reach_later_chunks() -> None:
    model = ScriptedModel([Stream(["a", "b", "c"])])
    runner = TestRunner(LlmAgent(name="root", model=model))
    await runner.session_service.create_session(
        app_name=runner.app_name, user_id=runner.user_id, session_id=runner.session_id
    )
    seen: list[dict[str, object]] = []

    async for event in runner.run_async(
        user_id=runner.user_id,
        session_id=runner.session_id,
        new_message=types.UserContent("hi"),
        run_config=SSE,
    ):
        seen.append(dict(event.actions.state_delta))
        if event.partial:
            event.actions.state_delta["mine"] = event.content.text

    assert seen == [{}, {}, {}, {}]


async def test_without_sse_a_stream_reply_is_a_single_event() -> None:
    model = ScriptedModel([Stream(["Hel", "lo"])])
    runner = TestRunner(LlmAgent(name="root", model=model, output_key="out"))

    events = await runner.run("hi")

    assert [(e.partial, e.content.text) for e in events] == [(None, "Hello")]
    assert (await runner.state())["out"] == "Hello"


async def test_sse_tool_call_runs_once_and_the_summary_streams() -> None:
    calls: list[str] = []

    def lookup(city: str) -> str:
        calls.append(city)
        return "sunny"

    model = ScriptedModel(
        [
            Stream(["Let me check. ", function_call("lookup", {"city": "Oslo"})]),
            Stream(["It is ", "sunny."]),
        ]
    )
    runner = TestRunner(LlmAgent(name="root", model=model, tools=[lookup]))

    events = await runner.run("weather?", run_config=SSE)

    assert calls == ["Oslo"]
    final_events = [e for e in events if not e.partial]
    assert simplify_events(final_events) == [
        ("root", ["Let me check.", "call:lookup({'city': 'Oslo'})"]),
        ("root", "response:lookup({'result': 'sunny'})"),
        ("root", "It is sunny."),
    ]
    assert [e.content.text for e in events if e.partial and e.content.text] == [
        "Let me check. ",
        "It is ",
        "sunny.",
    ]
    session = await runner.session()
    assert len(session.events) == 1 + len(final_events)


class TaggedResponse(LlmResponse):
    """A model adapter's own response class (extra fields are not copied to events)."""

    provider_tag: str | None = None


class TwoResponseModels(BaseLlm):
    """Streams the same chunks as LlmResponse or as a subclass of it."""

    model: str = "two-kinds"
    tagged: bool = False

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        make = TaggedResponse if self.tagged else LlmResponse
        for text in ("Hel", "lo"):
            yield make(content=types.ModelContent(text), partial=True)
        yield make(
            content=types.ModelContent("Hello"),
            finish_reason=types.FinishReason.STOP,
            usage_metadata=types.UsageMetadata(total_token_count=3),
        )


async def test_response_subclasses_become_the_same_events_as_plain_responses() -> None:
    async def run(tagged: bool) -> list[Event]:
        agent = LlmAgent(name="root", model=TwoResponseModels(tagged=tagged), output_key="out")
        return await TestRunner(agent).run("hi", run_config=SSE)

    plain, tagged = await run(False), await run(True)

    def shape(event: Event) -> tuple[object, ...]:
        data = event.model_dump(exclude={"id", "timestamp", "invocation_id"})
        return (data, frozenset(event.model_fields_set))

    assert [shape(e) for e in plain] == [shape(e) for e in tagged]
    assert [e.partial for e in plain] == [True, True, None]
    assert plain[-1].actions.state_delta == {"out": "Hello"}
    assert plain[0].actions.state_delta == {}  # the chunk's snapshot, not the final's
    assert {"usage_metadata", "finish_reason"} <= plain[-1].model_fields_set
