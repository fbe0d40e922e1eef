"""Media a tool returns moves into ``FunctionResponse.parts`` (no plugin needed), as in
google-adk 2.x; what is left of the result stays the ``response``."""

from __future__ import annotations

from typing import Any

import pytest

from pyadk import types
from pyadk.agents import LlmAgent
from pyadk.flows.tool_result_media import split_media
from pyadk.testing import ScriptedModel, TestRunner, function_call

PNG = b"\x89PNG"
IMAGE = types.Part.from_bytes(data=PNG, mime_type="image/png")
CHART = types.Part.from_uri(file_uri="gs://bucket/chart.png", mime_type="image/png")
IMAGE_MEDIA = types.FunctionResponsePart.from_bytes(data=PNG, mime_type="image/png")
CHART_MEDIA = types.FunctionResponsePart.from_uri(
    file_uri="gs://bucket/chart.png", mime_type="image/png"
)


async def _answer(result: Any) -> types.FunctionResponse:
    """The function response the model receives when the tool returns ``result``."""

    def tool() -> Any:
        """Returns the result under test."""
        return result

    model = ScriptedModel([function_call("tool"), "done"])
    await TestRunner(LlmAgent(name="a", model=model, tools=[tool])).run("go")
    response = model.requests[1].contents[-1].parts[0].function_response
    assert response is not None
    return response


async def test_a_returned_image_part_goes_into_parts() -> None:
    response = await _answer(IMAGE)
    assert (response.response, response.parts) == ({}, [IMAGE_MEDIA])


async def test_a_list_keeps_its_other_entries_in_order() -> None:
    response = await _answer(["before", IMAGE, 3, CHART])
    assert response.response == {"result": ["before", 3]}
    assert response.parts == [IMAGE_MEDIA, CHART_MEDIA]


async def test_media_one_container_deep_moves_and_emptied_containers_go() -> None:
    response = await _answer([{"label": "cat", "image": IMAGE}, [CHART], "note"])
    assert response.response == {"result": [{"label": "cat"}, "note"]}
    assert response.parts == [IMAGE_MEDIA, CHART_MEDIA]


async def test_media_two_containers_deep_stays_where_it_is() -> None:
    response = await _answer([[[IMAGE]]])
    assert response.parts is None
    assert response.response == {"result": [[[IMAGE]]]}


async def test_a_dict_result_is_not_searched() -> None:
    # Every tool call returns a dict: looking through it would cost every call.
    response = await _answer({"image": IMAGE})
    assert response.parts is None
    assert response.response == {"image": IMAGE}


@pytest.mark.parametrize(
    "part",
    [
        types.Part(text="a caption"),
        types.Part(inline_data=types.Blob(data=PNG)),  # no MIME type
        types.Part(file_data=types.FileData(file_uri="gs://b/x")),  # no MIME type
    ],
)
async def test_parts_without_usable_media_stay_in_the_response(part: types.Part) -> None:
    response = await _answer(part)
    assert response.parts is None
    assert response.response == {"result": part}


async def test_a_google_genai_part_is_accepted() -> None:
    genai = pytest.importorskip("google.genai.types")
    response = await _answer(genai.Part.from_bytes(data=PNG, mime_type="image/png"))
    assert response.parts == [IMAGE_MEDIA]


async def test_the_stored_event_keeps_the_media_and_callbacks_see_the_part() -> None:
    seen: list[Any] = []

    def snapshot() -> types.Part:
        """Takes a picture."""
        return IMAGE

    def after_tool(tool: Any, args: Any, tool_context: Any, tool_response: Any) -> None:
        seen.append(tool_response)

    model = ScriptedModel([function_call("snapshot"), "a cat"])
    agent = LlmAgent(name="a", model=model, tools=[snapshot], after_tool_callback=after_tool)
    runner = TestRunner(agent)
    await runner.run("look")
    assert seen == [IMAGE]
    stored = [
        p.function_response
        for e in (await runner.session()).events
        for p in (e.content.parts if e.content else None) or []
        if p.function_response is not None
    ]
    assert [r.parts for r in stored] == [[IMAGE_MEDIA]]


def test_split_media_leaves_results_without_media_unchanged() -> None:
    result = ["a", {"b": 1}, ("c",)]
    assert split_media(result) == (result, [])
    assert split_media(("x", IMAGE)) == (["x"], [IMAGE_MEDIA])
    assert split_media("text") == ("text", [])
