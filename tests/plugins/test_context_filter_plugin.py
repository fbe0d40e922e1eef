"""ContextFilterPlugin: the model gets only the latest invocations, through a real Runner."""

from __future__ import annotations

from typing import Any

import pytest

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.plugins import BasePlugin
from pyadk.plugins.context_filter_plugin import ContextFilterPlugin
from pyadk.testing import ScriptedModel, TestRunner, function_call


def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


def _texts(contents: list[types.Content]) -> list[str]:
    out = []
    for content in contents:
        for part in content.parts or ():
            if part.text is not None:
                out.append(part.text)
            elif part.function_call is not None:
                out.append(f"call:{part.function_call.name}")
            elif part.function_response is not None:
                out.append(f"response:{part.function_response.name}")
    return out


async def test_keeps_the_last_invocations_and_the_session_keeps_everything() -> None:
    model = ScriptedModel(["a1", function_call("add", {"a": 1, "b": 2}), "a2", "a3"])
    agent = LlmAgent(name="a", model=model, tools=[add])
    runner = TestRunner(agent, plugins=[ContextFilterPlugin(num_invocations_to_keep=2)])
    for message in ("q1", "q2", "q3"):
        await runner.run(message)
    assert _texts(model.requests[0].contents) == ["q1"]
    # Invocation 2 (with its tool call and result) and 3 are kept; invocation 1 is cut.
    assert _texts(model.requests[3].contents) == [
        "q2",
        "call:add",
        "response:add",
        "a2",
        "q3",
    ]
    session = await runner.session()
    assert next(e.text for e in session.events if e.author == "user") == "q1"


async def test_remove_amount_cuts_several_invocations_at_once() -> None:
    model = ScriptedModel(["a1", "a2", "a3", "a4"])
    plugin = ContextFilterPlugin(num_invocations_to_keep=1, remove_amount=2)
    runner = TestRunner(LlmAgent(name="a", model=model), plugins=[plugin])
    for message in ("q1", "q2", "q3", "q4"):
        await runner.run(message)
    sent = [_texts(request.contents) for request in model.requests]
    assert sent[1] == ["q1", "a1", "q2"]  # 2 invocations: under keep + remove_amount
    assert sent[2] == ["q3"]  # 3 invocations: cut down to the last one
    assert sent[3] == ["q4"]


async def test_a_cut_never_separates_a_function_response_from_its_call() -> None:
    # pyadk's history already puts each response right after its call; a request
    # changed by an earlier plugin may not, and the cut still keeps the pair.
    def response(call_id: str) -> types.Content:
        part = types.Part(
            function_response=types.FunctionResponse(id=call_id, name="add", response={})
        )
        return types.Content(role="user", parts=[part])

    class Reorder(BasePlugin):
        async def before_model_callback(self, *, callback_context: Any, llm_request: Any) -> None:
            llm_request.contents = [
                types.UserContent("q1"),
                types.ModelContent([function_call("add", {"a": 1, "b": 1}, id="c1")]),
                types.UserContent("q2 while the tool runs"),
                response("c1"),
                *llm_request.contents[-1:],
            ]

    model = ScriptedModel(["answer"])
    plugins = [Reorder("reorder"), ContextFilterPlugin(num_invocations_to_keep=2)]
    await TestRunner(LlmAgent(name="a", model=model, tools=[add]), plugins=plugins).run("q3")
    # Keeping the last two invocations (from q2) would orphan c1's response: the cut
    # moves back to its call.
    assert _texts(model.requests[0].contents) == [
        "call:add",
        "q2 while the tool runs",
        "response:add",
        "q3",
    ]


async def test_custom_filter_runs_after_trimming_and_before_agent_callbacks() -> None:
    seen: list[list[str]] = []

    def only_user_turns(contents: list[types.Content]) -> list[types.Content]:
        return [content for content in contents if content.role == "user"]

    def agent_callback(callback_context: Any, llm_request: Any) -> None:
        seen.append(_texts(llm_request.contents))

    model = ScriptedModel(["a1", "a2", "a3"])
    agent = LlmAgent(name="a", model=model, before_model_callback=agent_callback)
    plugin = ContextFilterPlugin(num_invocations_to_keep=2, custom_filter=only_user_turns)
    runner = TestRunner(agent, plugins=[plugin])
    for message in ("q1", "q2", "q3"):
        await runner.run(message)
    assert seen[-1] == ["q2", "q3"] == _texts(model.requests[-1].contents)


async def test_a_failing_filter_is_logged_and_the_request_goes_out_unfiltered(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(contents: list[types.Content]) -> list[types.Content]:
        raise RuntimeError("filter bug")

    model = ScriptedModel(["a1", "a2"])
    plugin = ContextFilterPlugin(num_invocations_to_keep=1, custom_filter=broken)
    runner = TestRunner(LlmAgent(name="a", model=model), plugins=[plugin])
    await runner.run("q1")
    events = await runner.run("q2")
    assert events[-1].text == "a2"
    assert _texts(model.requests[1].contents) == ["q1", "a1", "q2"]
    record = next(r for r in caplog.records if "could not filter" in r.message)
    assert "filter bug" in record.exc_text and "'a'" in record.message


def test_remove_amount_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="remove_amount must be at least 1"):
        ContextFilterPlugin(num_invocations_to_keep=1, remove_amount=0)
