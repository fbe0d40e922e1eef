"""Model callbacks: before_model_callback, after_model_callback, on_model_error_callback."""

from __future__ import annotations

from typing import Any

import pytest

from pyadk import types
from pyadk.agents import CallbackContext, LlmAgent, RunConfig, StreamingMode
from pyadk.models.llm_request import LlmRequest
from pyadk.models.llm_response import LlmResponse
from pyadk.testing import ScriptedModel, Stream, TestRunner, function_call, simplify_events


def _reply(text: str) -> LlmResponse:
    return LlmResponse(content=types.ModelContent(text))


def _texts(events: list[Any]) -> list[str | None]:
    return [e.content.text if e.content else None for e in events]


# -- before_model_callback --------------------------------------------------------------


async def test_before_model_callback_response_skips_the_model() -> None:
    seen: list[tuple[str, str | None]] = []

    def before(*, callback_context: CallbackContext, llm_request: LlmRequest) -> LlmResponse:
        seen.append((callback_context.agent_name, llm_request.contents[-1].text))
        return _reply("from cache")

    model = ScriptedModel([])  # any model call would fail the test
    runner = TestRunner(LlmAgent(name="root", model=model, before_model_callback=before))

    events = await runner.run("hello")

    assert simplify_events(events) == [("root", "from cache")]
    assert model.call_count == 0
    assert seen == [("root", "hello")]
    session = await runner.session()
    assert [(e.author, e.content.text) for e in session.events] == [
        ("user", "hello"),
        ("root", "from cache"),
    ]


async def test_before_model_callback_returning_none_lets_the_model_answer() -> None:
    calls: list[str] = []

    async def before(*, callback_context: CallbackContext, llm_request: LlmRequest) -> None:
        calls.append("before")

    model = ScriptedModel(["model answer"])
    runner = TestRunner(LlmAgent(name="root", model=model, before_model_callback=before))

    events = await runner.run("hi")

    assert simplify_events(events) == [("root", "model answer")]
    assert calls == ["before"]
    assert model.call_count == 1


async def test_before_model_callback_list_first_non_none_wins() -> None:
    order: list[str] = []

    def first(*, callback_context: CallbackContext, llm_request: LlmRequest) -> None:
        order.append("first")

    async def second(*, callback_context: CallbackContext, llm_request: LlmRequest) -> LlmResponse:
        order.append("second")
        return _reply("second wins")

    def third(*, callback_context: CallbackContext, llm_request: LlmRequest) -> LlmResponse:
        order.append("third")
        return _reply("third must not run")

    model = ScriptedModel([])
    agent = LlmAgent(name="root", model=model, before_model_callback=[first, second, third])

    events = await TestRunner(agent).run("hi")

    assert simplify_events(events) == [("root", "second wins")]
    assert order == ["first", "second"]
    assert model.call_count == 0


async def test_skipped_model_call_does_not_count_against_max_llm_calls() -> None:
    def ping() -> str:
        return "pong"

    def before(*, callback_context: CallbackContext, llm_request: LlmRequest) -> Any:
        # Short-circuits the first step with a tool call; lets the model summarise.
        if llm_request.contents[-1].parts[0].function_response is None:
            return LlmResponse(content=types.ModelContent(function_call("ping")))
        return None

    model = ScriptedModel(["summary"])
    runner = TestRunner(
        LlmAgent(name="root", model=model, tools=[ping], before_model_callback=before)
    )

    events = await runner.run("go", run_config=RunConfig(max_llm_calls=1))

    assert simplify_events(events) == [
        ("root", "call:ping({})"),
        ("root", "response:ping({'result': 'pong'})"),
        ("root", "summary"),
    ]
    assert model.call_count == 1


async def test_before_model_callback_can_change_the_request() -> None:
    def before(*, callback_context: CallbackContext, llm_request: LlmRequest) -> None:
        llm_request.append_instructions(["Always answer in French."])
        llm_request.contents.append(types.UserContent("(added by callback)"))

    model = ScriptedModel(["bonjour"])
    agent = LlmAgent(
        name="root", model=model, instruction="Be brief.", before_model_callback=before
    )

    await TestRunner(agent).run("hello")

    request = model.requests[0]
    instruction = request.system_instruction_text()
    assert "Be brief." in instruction
    assert instruction.endswith("Always answer in French.")
    assert [c.text for c in request.contents] == ["hello", "(added by callback)"]


# -- after_model_callback ---------------------------------------------------------------


async def test_after_model_callback_replaces_the_response() -> None:
    received: list[str | None] = []

    def after(*, callback_context: CallbackContext, llm_response: LlmResponse) -> LlmResponse:
        received.append(llm_response.content.text if llm_response.content else None)
        return _reply("redacted")

    model = ScriptedModel(["secret answer"])
    runner = TestRunner(LlmAgent(name="root", model=model, after_model_callback=after))

    events = await runner.run("hi")

    assert received == ["secret answer"]
    assert simplify_events(events) == [("root", "redacted")]
    session = await runner.session()
    assert session.events[-1].content.text == "redacted"


async def test_after_model_callback_list_none_keeps_response_and_first_result_wins() -> None:
    order: list[str] = []

    async def observe(*, callback_context: CallbackContext, llm_response: LlmResponse) -> None:
        order.append("observe")

    def replace(*, callback_context: CallbackContext, llm_response: LlmResponse) -> LlmResponse:
        order.append("replace")
        return _reply(f"[{llm_response.content.text}]")

    def never(*, callback_context: CallbackContext, llm_response: LlmResponse) -> LlmResponse:
        order.append("never")
        return _reply("never")

    model = ScriptedModel(["one", "two"])
    runner = TestRunner(LlmAgent(name="root", model=model, after_model_callback=[observe]))
    assert simplify_events(await runner.run("a")) == [("root", "one")]

    runner.agent.after_model_callback = [observe, replace, never]
    assert simplify_events(await runner.run("b")) == [("root", "[two]")]
    assert order == ["observe", "observe", "replace"]


async def test_after_model_callback_runs_on_every_partial_response_in_sse_mode() -> None:
    seen: list[tuple[bool | None, str | None]] = []

    def after(*, callback_context: CallbackContext, llm_response: LlmResponse) -> LlmResponse:
        text = llm_response.content.text
        seen.append((llm_response.partial, text))
        return LlmResponse(content=types.ModelContent(text.upper()), partial=llm_response.partial)

    model = ScriptedModel([Stream(["ab", "cd"])])
    runner = TestRunner(LlmAgent(name="root", model=model, after_model_callback=after))

    events = await runner.run("hi", run_config=RunConfig(streaming_mode=StreamingMode.SSE))

    assert seen == [(True, "ab"), (True, "cd"), (None, "abcd")]
    assert [(e.partial, e.content.text) for e in events] == [
        (True, "AB"),
        (True, "CD"),
        (None, "ABCD"),
    ]
    session = await runner.session()
    assert [e.content.text for e in session.events] == ["hi", "ABCD"]


# -- on_model_error_callback ------------------------------------------------------------


async def test_model_error_without_callback_propagates_out_of_run_async() -> None:
    model = ScriptedModel([ConnectionError("model backend down")])
    runner = TestRunner(LlmAgent(name="root", model=model))

    with pytest.raises(ConnectionError, match="model backend down"):
        await runner.run("hi")

    session = await runner.session()
    assert [e.author for e in session.events] == ["user", "root"]  # the user's message is kept
    outcome = session.events[-1].actions.agent_outcome  # and the failure is recorded
    assert outcome.status == "failure" and outcome.error_type == "ConnectionError"


async def test_model_error_callbacks_returning_none_let_the_error_propagate() -> None:
    errors: list[Exception] = []

    def on_error(
        *, callback_context: CallbackContext, llm_request: LlmRequest, error: Exception
    ) -> None:
        errors.append(error)

    model = ScriptedModel([RuntimeError("boom")])
    runner = TestRunner(LlmAgent(name="root", model=model, on_model_error_callback=on_error))

    with pytest.raises(RuntimeError, match="boom"):
        await runner.run("hi")
    assert [str(e) for e in errors] == ["boom"]


async def test_model_error_callback_response_continues_the_run() -> None:
    received: list[tuple[str, str, str | None]] = []

    async def on_error(
        *, callback_context: CallbackContext, llm_request: LlmRequest, error: Exception
    ) -> LlmResponse:
        received.append((callback_context.agent_name, repr(error), llm_request.contents[-1].text))
        callback_context.state["model_failed"] = True
        return _reply("Sorry, the model is unavailable.")

    model = ScriptedModel([TimeoutError("too slow"), "second turn works"])
    runner = TestRunner(LlmAgent(name="root", model=model, on_model_error_callback=on_error))

    events = await runner.run("hi")

    assert received == [("root", "TimeoutError('too slow')", "hi")]
    assert simplify_events(events) == [("root", "Sorry, the model is unavailable.")]
    assert (await runner.state())["model_failed"] is True
    # The run really continued: the session is usable and the next turn reaches the model.
    assert simplify_events(await runner.run("again")) == [("root", "second turn works")]
    assert model.call_count == 2


# -- state written by model callbacks ---------------------------------------------------


async def test_state_written_in_model_callbacks_lands_in_the_session() -> None:
    def before(*, callback_context: CallbackContext, llm_request: LlmRequest) -> None:
        callback_context.state["calls"] = callback_context.state.get("calls", 0) + 1
        callback_context.state["temp:scratch"] = "not persisted"

    def after(*, callback_context: CallbackContext, llm_response: LlmResponse) -> None:
        callback_context.state["last_answer"] = llm_response.content.text

    model = ScriptedModel(["first", "second"])
    runner = TestRunner(
        LlmAgent(
            name="root", model=model, before_model_callback=before, after_model_callback=after
        ),
        state={"calls": 10},
    )

    events = await runner.run("hi")

    assert events[-1].actions.state_delta == {
        "calls": 11,
        "temp:scratch": "not persisted",
        "last_answer": "first",
    }
    state = await runner.state()
    assert state["calls"] == 11
    assert state["last_answer"] == "first"
    assert "temp:scratch" not in state

    await runner.run("again")
    state = await runner.state()
    assert (state["calls"], state["last_answer"]) == (12, "second")
