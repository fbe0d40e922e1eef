"""MultimodalToolResultsPlugin: parts a tool returns reach the model, via a Runner.

Images and files travel in ``FunctionResponse.parts`` (the framework moves them there);
the plugin adds the other parts (text) to the next request, and never repeats media."""

from __future__ import annotations

from typing import Any

import pytest

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.plugins.multimodal_tool_results_plugin import (
    SESSION_PARTS_RETURNED_BY_TOOLS_ID,
    MultimodalToolResultsPlugin,
)
from pyadk.testing import ScriptedModel, TestRunner, function_call

IMAGE = types.Part.from_bytes(data=b"\x89PNG", mime_type="image/png")
CHART = types.Part(
    file_data=types.FileData(file_uri="gs://bucket/chart.png", mime_type="image/png")
)
IMAGE_MEDIA = types.FunctionResponsePart.from_bytes(data=b"\x89PNG", mime_type="image/png")
CHART_MEDIA = types.FunctionResponsePart.from_uri(
    file_uri="gs://bucket/chart.png", mime_type="image/png"
)
TEXT = types.Part(text="Sales went up.")


def snapshot() -> types.Part:
    """Takes a picture."""
    return IMAGE


def report() -> list[types.Part]:
    """Draws a chart and describes it."""
    return [types.Part(text="Sales went up."), CHART]


def lookup() -> dict:
    """Returns plain data."""
    return {"sales": 3}


def broken() -> types.Part:
    """Fails before returning its picture."""
    raise OSError("camera unplugged")


def _extra_parts(model: ScriptedModel, index: int) -> list[types.Part]:
    """The parts of request ``index``'s last content that are not function responses."""
    last = model.requests[index].contents[-1]
    return [p for p in last.parts or [] if p.function_response is None]


def _responses(model: ScriptedModel, index: int) -> list[types.FunctionResponse]:
    last = model.requests[index].contents[-1]
    return [p.function_response for p in last.parts or [] if p.function_response is not None]


async def test_a_returned_image_travels_in_the_function_response_not_twice() -> None:
    model = ScriptedModel([function_call("snapshot"), function_call("lookup"), "done"])
    agent = LlmAgent(name="a", model=model, tools=[snapshot, lookup])
    await TestRunner(agent, plugins=[MultimodalToolResultsPlugin()]).run("look")
    [response] = _responses(model, 1)
    assert (response.name, response.response, response.parts) == ("snapshot", {}, [IMAGE_MEDIA])
    assert _extra_parts(model, 1) == []  # the bytes are not sent a second time
    assert _extra_parts(model, 2) == []


async def test_text_parts_go_to_the_next_call_and_parallel_calls_keep_their_order() -> None:
    calls = [function_call("report"), function_call("snapshot")]
    model = ScriptedModel([calls, "done"])
    agent = LlmAgent(name="a", model=model, tools=[report, snapshot])
    await TestRunner(agent, plugins=[MultimodalToolResultsPlugin()]).run("go")
    assert _extra_parts(model, 1) == [TEXT]
    assert [r.parts for r in _responses(model, 1)] == [[CHART_MEDIA], [IMAGE_MEDIA]]


async def test_other_results_are_left_alone_and_agent_callbacks_still_run() -> None:
    seen: list[Any] = []

    def after_tool(tool: Any, args: Any, tool_context: Any, tool_response: Any) -> None:
        seen.append(tool_response)

    model = ScriptedModel([function_call("lookup"), function_call("snapshot"), "done"])
    agent = LlmAgent(
        name="a", model=model, tools=[lookup, snapshot], after_tool_callback=after_tool
    )
    await TestRunner(agent, plugins=[MultimodalToolResultsPlugin()]).run("go")
    assert seen == [{"sales": 3}, IMAGE]  # callbacks see what the tool returned
    assert _extra_parts(model, 1) == []
    response = model.requests[1].contents[-1].parts[0].function_response
    assert response.response == {"sales": 3}
    assert response.parts is None


async def test_session_retention_keeps_file_and_text_parts_for_later_turns() -> None:
    model = ScriptedModel(
        [
            [function_call("report"), function_call("snapshot")],
            "first answer",
            "second answer",
        ]
    )
    agent = LlmAgent(name="a", model=model, tools=[report, snapshot])
    runner = TestRunner(agent, plugins=[MultimodalToolResultsPlugin(retention="session")])
    await runner.run("make a report")
    await runner.run("what did the chart show?")
    # The chart and the image are in the function responses: only the text is added.
    assert _extra_parts(model, 1) == [TEXT]
    assert [r.parts for r in _responses(model, 1)] == [[CHART_MEDIA], [IMAGE_MEDIA]]
    # A later turn still gets the chart and its text, not the inline image bytes.
    assert model.requests[2].contents[-1].parts[-2:] == [TEXT, CHART]
    assert IMAGE not in model.requests[2].contents[-1].parts
    saved = (await runner.state())[SESSION_PARTS_RETURNED_BY_TOOLS_ID]
    assert [types.Part.model_validate(p) for p in saved] == [TEXT, CHART]


async def test_session_retention_replaces_parts_from_an_earlier_invocation() -> None:
    model = ScriptedModel([function_call("report"), "one", function_call("report"), "two", "three"])
    agent = LlmAgent(name="a", model=model, tools=[report])
    runner = TestRunner(agent, plugins=[MultimodalToolResultsPlugin(retention="session")])
    await runner.run("first report")
    await runner.run("second report")
    await runner.run("and now?")
    saved = (await runner.state())[SESSION_PARTS_RETURNED_BY_TOOLS_ID]
    assert len(saved) == 2  # the second invocation's parts, not both invocations'
    assert model.requests[-1].contents[-1].parts[-2:] == [types.Part(text="Sales went up."), CHART]


async def test_a_raising_tool_attaches_nothing_and_fails_the_run() -> None:
    model = ScriptedModel([function_call("broken"), "unreached"])
    runner = TestRunner(
        LlmAgent(name="a", model=model, tools=[broken]), plugins=[MultimodalToolResultsPlugin()]
    )
    with pytest.raises(OSError, match="camera unplugged"):
        await runner.run("go")
    assert model.call_count == 1


def test_an_unknown_retention_is_refused() -> None:
    with pytest.raises(ValueError, match="retention must be 'next_model_call' or 'session'"):
        MultimodalToolResultsPlugin(retention="forever")  # type: ignore[arg-type]
