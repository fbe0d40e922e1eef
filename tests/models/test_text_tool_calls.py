"""Tool calls written as JSON text by small local models become real calls."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pyadk import types
from pyadk.models import LlmRequest, OpenAIChat
from pyadk.models._text_tool_calls import calls_in_text
from pyadk.testing.fixture_server import FixtureServer
from pyadk.testing.model_conformance import OpenAIWire, generate, get_time, get_weather
from pyadk.tools import FunctionTool

NAMES = {"get_weather", "get_time"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '{"name": "get_weather", "arguments": {"city": "Paris"}}',
            [("get_weather", {"city": "Paris"})],
        ),
        (
            '```json\n{"name": "get_time", "arguments": {"zone": "CET"}}\n```',
            [("get_time", {"zone": "CET"})],
        ),
        (
            '<tool_call>\n{"name": "get_time", "arguments": {}}\n</tool_call>\n'
            '<tool_call>{"name": "get_weather", '
            '"arguments": "{\\"city\\": \\"Rome\\"}"}</tool_call>',
            [("get_time", {}), ("get_weather", {"city": "Rome"})],
        ),
        ('[{"name": "get_time", "parameters": {"zone": "UTC"}}]', [("get_time", {"zone": "UTC"})]),
    ],
)
def test_calls_written_as_text_are_read(text: str, expected: list[tuple[str, dict]]) -> None:
    calls = calls_in_text(text, NAMES)
    assert calls is not None
    assert [(c.name, c.args) for c in calls] == expected


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "delete_all", "arguments": {}}',  # not a declared tool
        '{"name": "get_weather", "arguments": {}, "city": "Paris"}',  # more than a call
        'Sure: {"name": "get_weather", "arguments": {}}',  # prose around it
        '{"name": "get_weather", "arguments": [1]}',
        "It is sunny.",
    ],
)
def test_anything_else_is_left_as_text(text: str) -> None:
    assert calls_in_text(text, NAMES) is None


@pytest.fixture
def server() -> Iterator[FixtureServer]:
    with FixtureServer() as server:
        yield server


def _request(mode: types.FunctionCallingConfigMode | None = None) -> LlmRequest:
    request = LlmRequest(contents=[types.UserContent("weather in Paris?")])
    request.append_tools([FunctionTool(get_weather), FunctionTool(get_time)])
    if mode is not None:
        request.config.tool_config = types.ToolConfig(
            function_calling_config=types.FunctionCallingConfig(mode=mode)
        )
    return request


CALL_TEXT = '```json\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```'


async def test_openai_chat_turns_a_text_call_into_a_call(server: FixtureServer) -> None:
    server.enqueue(OpenAIWire().text(CALL_TEXT))
    model = OpenAIChat(model="m", base_url=f"{server.base_url}/v1", api_key="k", max_retries=0)
    (answer,) = await generate(model, _request())
    assert answer.content is not None
    assert answer.content.parts == [
        types.Part(function_call=types.FunctionCall(name="get_weather", args={"city": "Paris"}))
    ]


@pytest.mark.parametrize("disabled_by", ["mode NONE", "text_tool_calls=False"])
async def test_no_text_call_recovery_when_calls_are_not_wanted(
    server: FixtureServer, disabled_by: str
) -> None:
    server.enqueue(OpenAIWire().text(CALL_TEXT))
    model = OpenAIChat(
        model="m",
        base_url=f"{server.base_url}/v1",
        api_key="k",
        max_retries=0,
        text_tool_calls=disabled_by != "text_tool_calls=False",
    )
    mode = types.FunctionCallingConfigMode.NONE if disabled_by == "mode NONE" else None
    (answer,) = await generate(model, _request(mode))
    assert answer.content is not None and answer.content.text == CALL_TEXT
